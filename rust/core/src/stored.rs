//! Stored messages as a PULL_MESSAGE response carries them (the broker's commit-log layout, big-endian), read on
//! the consumer's path: the common case only. `decode_stored` gives back `None` for anything else (a malformed
//! message, a compressed body, text that is not UTF-8, a port out of range), and the caller reads the whole body
//! with rocketroute's Python decoder (`rocketroute.client.message_decode`), which names the error or decompresses.
//!
//! One message: TOTALSIZE i32, MAGICCODE i32 (V1: 1-byte topic length; V2: 2-byte), BODYCRC i32, QUEUEID i32,
//! FLAG i32, QUEUEOFFSET i64, PHYSICALOFFSET i64, SYSFLAG i32, BORNTIMESTAMP i64, BORNHOST (4 or 16 bytes by
//! SYSFLAG) and port i32, STORETIMESTAMP i64, STOREHOST (4 or 16) and port i32, RECONSUMETIMES i32,
//! PREPAREDTRANSACTIONOFFSET i64, BODYLEN i32 and the body, TOPICLEN and the topic, PROPERTIESLEN i16 and the
//! properties string.

use crate::decimal::{decimal, MAX_LEN};

/// `MessageDecoder.MESSAGE_MAGIC_CODE` (V1) and `MESSAGE_MAGIC_CODE_V2`.
pub const MAGIC_V1: i32 = -626_843_481;
pub const MAGIC_V2: i32 = -626_843_477;
/// `MessageSysFlag`: a compressed body, an IPv6 born host, an IPv6 store host.
pub const COMPRESSED_FLAG: i32 = 0x1;
pub const BORNHOST_V6_FLAG: i32 = 0x1 << 4;
pub const STOREHOST_V6_FLAG: i32 = 0x1 << 5;

/// One message read from a pull response, borrowing its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMessage<'a> {
    pub store_size: i32,
    pub body_crc: i32,
    pub queue_id: i32,
    pub flag: i32,
    pub queue_offset: i64,
    pub commit_log_offset: i64,
    pub sys_flag: i32,
    pub born_timestamp: i64,
    pub born_ip: &'a [u8],
    pub born_port: i32,
    pub store_timestamp: i64,
    pub store_ip: &'a [u8],
    pub store_port: i32,
    pub reconsume_times: i32,
    pub prepared_transaction_offset: i64,
    pub body: &'a [u8],
    pub topic: &'a str,
    pub properties: &'a str,
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let next = self.pos.checked_add(n)?;
        if next > self.end {
            return None;
        }
        let out = &self.data[self.pos..next];
        self.pos = next;
        Some(out)
    }
    fn i16(&mut self) -> Option<i16> {
        Some(i16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }
    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// Every message of `data`, in order, or `None` when one of them is not the common case (see the module).
pub fn decode_stored(data: &[u8]) -> Option<Vec<StoredMessage<'_>>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let msg = decode_one(data, start)?;
        start += msg.store_size as usize;
        out.push(msg);
    }
    Some(out)
}

fn decode_one(data: &[u8], start: usize) -> Option<StoredMessage<'_>> {
    let mut head = Reader {
        data,
        pos: start,
        end: data.len(),
    };
    let store_size = head.i32()?;
    let magic = head.i32()?;
    let topic_len_size = match magic {
        MAGIC_V1 => 1,
        MAGIC_V2 => 2,
        _ => return None,
    };
    let size = usize::try_from(store_size).ok()?;
    let end = start.checked_add(size)?;
    if end > data.len() {
        return None;
    }
    let mut r = Reader {
        data,
        pos: head.pos,
        end,
    };
    let body_crc = r.i32()?;
    let queue_id = r.i32()?;
    let flag = r.i32()?;
    let queue_offset = r.i64()?;
    let commit_log_offset = r.i64()?;
    let sys_flag = r.i32()?;
    if sys_flag & COMPRESSED_FLAG != 0 {
        return None; // decompressed (or marked undecodable) by the Python decoder
    }
    let born_timestamp = r.i64()?;
    let born_ip = r.take(if sys_flag & BORNHOST_V6_FLAG != 0 {
        16
    } else {
        4
    })?;
    let born_port = r.i32()?;
    let store_timestamp = r.i64()?;
    let store_ip = r.take(if sys_flag & STOREHOST_V6_FLAG != 0 {
        16
    } else {
        4
    })?;
    let store_port = r.i32()?;
    if !(0..=0xFFFF).contains(&born_port) || !(0..=0xFFFF).contains(&store_port) {
        return None;
    }
    let reconsume_times = r.i32()?;
    let prepared_transaction_offset = r.i64()?;
    let body_len = usize::try_from(r.i32()?).ok()?;
    let body = r.take(body_len)?;
    let topic_len = if topic_len_size == 1 {
        usize::try_from(i8::from_be_bytes([r.take(1)?[0]])).ok()? // a signed byte, as Java reads it
    } else {
        usize::try_from(r.i16()?).ok()?
    };
    let topic = std::str::from_utf8(r.take(topic_len)?).ok()?;
    let props_len = usize::try_from(r.i16()?).ok()?;
    let properties = std::str::from_utf8(r.take(props_len)?).ok()?;
    if r.pos != end {
        return None;
    }
    Some(StoredMessage {
        store_size,
        body_crc,
        queue_id,
        flag,
        queue_offset,
        commit_log_offset,
        sys_flag,
        born_timestamp,
        born_ip,
        born_port,
        store_timestamp,
        store_ip,
        store_port,
        reconsume_times,
        prepared_transaction_offset,
        body,
        topic,
        properties,
    })
}

const V4_MAPPED: [u8; 12] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/// `InetAddress.getByAddress(ip).getAddress()`: an IPv4-mapped IPv6 address is its IPv4 address.
fn java_ip(ip: &[u8]) -> &[u8] {
    if ip.len() == 16 && ip[..12] == V4_MAPPED {
        &ip[12..]
    } else {
        ip
    }
}

/// `"ip:port"` as `InetAddress.getHostAddress()` writes the address (IPv6: eight groups in lower-case hex, none
/// left out).
pub fn host_text(ip: &[u8], port: i32) -> String {
    // written digit by digit, not through write!: two of these per pulled message
    let ip = java_ip(ip);
    let mut out = String::with_capacity(48);
    let mut buf = [0; MAX_LEN];
    if ip.len() == 4 {
        for (i, &octet) in ip.iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            out.push_str(decimal(i64::from(octet), &mut buf));
        }
    } else {
        for (i, pair) in ip.chunks(2).enumerate() {
            if i > 0 {
                out.push(':');
            }
            push_lower_hex(&mut out, (u16::from(pair[0]) << 8) | u16::from(pair[1]));
        }
    }
    out.push(':');
    out.push_str(decimal(i64::from(port), &mut buf));
    out
}

/// `v` in lower-case hex without leading zeros (`Integer.toHexString`, `{:x}`).
fn push_lower_hex(out: &mut String, v: u16) {
    let mut started = false;
    for shift in [12, 8, 4, 0] {
        let digit = usize::from((v >> shift) & 0xF);
        if digit != 0 || started || shift == 0 {
            out.push(char::from(b"0123456789abcdef"[digit]));
            started = true;
        }
    }
}

const UPPER_HEX: &[u8; 16] = b"0123456789ABCDEF";

/// `MessageDecoder.createMessageId`: the store host's address (as `java_ip` reads it), port and commit-log offset,
/// zero-padded to the stored address's length + 12, in upper-case hex.
pub fn offset_msg_id(store_ip: &[u8], port: i32, commit_log_offset: i64) -> String {
    let mut raw = Vec::with_capacity(store_ip.len() + 12);
    raw.extend_from_slice(java_ip(store_ip));
    raw.extend_from_slice(&port.to_be_bytes());
    raw.extend_from_slice(&commit_log_offset.to_be_bytes());
    raw.resize(store_ip.len() + 12, 0);
    let mut out = String::with_capacity(raw.len() * 2);
    for b in raw {
        out.push(char::from(UPPER_HEX[usize::from(b >> 4)]));
        out.push(char::from(UPPER_HEX[usize::from(b & 0xF)]));
    }
    out
}

/// `MessageDecoder.string2messageProperties`: `name \x01 value \x02` entries in order; one without a name or a
/// value is skipped, as Java skips it.
pub fn properties_pairs(s: &str) -> impl Iterator<Item = (&str, &str)> {
    // one pass over the bytes (both separators are ASCII, so every cut is at a char boundary): a char pattern's
    // searcher cost ten times more, once per entry and separator of every pulled message
    let mut rest = s;
    std::iter::from_fn(move || {
        while !rest.is_empty() {
            let bytes = rest.as_bytes();
            let end = bytes.iter().position(|&b| b == 2).unwrap_or(bytes.len());
            let entry = &rest[..end];
            rest = rest.get(end + 1..).unwrap_or("");
            if let Some(sep) = entry.bytes().position(|b| b == 1) {
                let (name, value) = (&entry[..sep], &entry[sep + 1..]);
                if !name.is_empty() && !value.is_empty() {
                    return Some((name, value));
                }
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::fmt::Write as _;

    /// The hosts and ids as `write!` formats them (what they were written with before).
    fn formatted_host(ip: &[u8], port: i32) -> String {
        let ip = java_ip(ip);
        let mut out = String::new();
        if ip.len() == 4 {
            let _ = write!(out, "{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3]);
        } else {
            let groups: Vec<String> = ip
                .chunks(2)
                .map(|p| format!("{:x}", (u16::from(p[0]) << 8) | u16::from(p[1])))
                .collect();
            out.push_str(&groups.join(":"));
        }
        let _ = write!(out, ":{port}");
        out
    }

    fn formatted_id(store_ip: &[u8], port: i32, offset: i64) -> String {
        let mut raw = java_ip(store_ip).to_vec();
        raw.extend_from_slice(&port.to_be_bytes());
        raw.extend_from_slice(&offset.to_be_bytes());
        raw.resize(store_ip.len() + 12, 0);
        raw.iter().map(|b| format!("{b:02X}")).collect()
    }

    proptest! {
        #[test]
        fn hosts_and_ids_read_as_write_formats_them(
            v4 in any::<[u8; 4]>(),
            v6 in any::<[u16; 8]>(),
            mapped in any::<bool>(),
            port in any::<i32>(),
            offset in any::<i64>(),
        ) {
            let mut ip6: Vec<u8> = v6.iter().flat_map(|g| g.to_be_bytes()).collect();
            if mapped {
                ip6[..12].copy_from_slice(&V4_MAPPED);
            }
            for ip in [&v4[..], &ip6[..]] {
                prop_assert_eq!(host_text(ip, port), formatted_host(ip, port));
                prop_assert_eq!(offset_msg_id(ip, port, offset), formatted_id(ip, port, offset));
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn stored(
        sys_flag: i32,
        born_ip: &[u8],
        store_ip: &[u8],
        body: &[u8],
        topic: &str,
        props: &str,
    ) -> Vec<u8> {
        let mut m = Vec::new();
        m.extend_from_slice(&0i32.to_be_bytes()); // size, patched below
        m.extend_from_slice(&MAGIC_V1.to_be_bytes());
        m.extend_from_slice(&7i32.to_be_bytes()); // crc
        m.extend_from_slice(&3i32.to_be_bytes()); // queue id
        m.extend_from_slice(&0i32.to_be_bytes()); // flag
        m.extend_from_slice(&42i64.to_be_bytes()); // queue offset
        m.extend_from_slice(&4096i64.to_be_bytes()); // commit-log offset
        m.extend_from_slice(&sys_flag.to_be_bytes());
        m.extend_from_slice(&1i64.to_be_bytes());
        m.extend_from_slice(born_ip);
        m.extend_from_slice(&1234i32.to_be_bytes());
        m.extend_from_slice(&2i64.to_be_bytes());
        m.extend_from_slice(store_ip);
        m.extend_from_slice(&10911i32.to_be_bytes());
        m.extend_from_slice(&0i32.to_be_bytes());
        m.extend_from_slice(&0i64.to_be_bytes());
        m.extend_from_slice(&(body.len() as i32).to_be_bytes());
        m.extend_from_slice(body);
        m.push(topic.len() as u8);
        m.extend_from_slice(topic.as_bytes());
        m.extend_from_slice(&(props.len() as i16).to_be_bytes());
        m.extend_from_slice(props.as_bytes());
        let n = m.len() as i32;
        m[..4].copy_from_slice(&n.to_be_bytes());
        m
    }

    #[test]
    fn reads_two_messages_and_their_hosts_and_ids() {
        let mut data = stored(
            0,
            &[127, 0, 0, 1],
            &[10, 0, 0, 2],
            b"hello",
            "T",
            "KEYS\u{1}k\u{2}",
        );
        data.extend(stored(0, &[127, 0, 0, 1], &[10, 0, 0, 2], b"", "T", ""));
        let msgs = decode_stored(&data).unwrap();
        assert_eq!(msgs.len(), 2);
        let m = &msgs[0];
        assert_eq!(
            (m.body, m.topic, m.queue_id, m.queue_offset),
            (&b"hello"[..], "T", 3, 42)
        );
        assert_eq!(host_text(m.born_ip, m.born_port), "127.0.0.1:1234");
        assert_eq!(
            offset_msg_id(m.store_ip, m.store_port, m.commit_log_offset),
            "0A00000200002A9F0000000000001000"
        );
        assert_eq!(
            properties_pairs(m.properties).collect::<Vec<_>>(),
            vec![("KEYS", "k")]
        );
    }

    #[test]
    fn ipv6_hosts_and_a_mapped_ipv4_one() {
        let v6: Vec<u8> = (1..=16).collect();
        let mut mapped = V4_MAPPED.to_vec();
        mapped.extend([192, 168, 0, 1]);
        let data = stored(
            BORNHOST_V6_FLAG | STOREHOST_V6_FLAG,
            &v6,
            &mapped,
            b"x",
            "T",
            "",
        );
        let m = &decode_stored(&data).unwrap()[0];
        assert_eq!(
            host_text(m.born_ip, m.born_port),
            "102:304:506:708:90a:b0c:d0e:f10:1234"
        );
        assert_eq!(host_text(m.store_ip, m.store_port), "192.168.0.1:10911");
        let id = offset_msg_id(m.store_ip, m.store_port, m.commit_log_offset);
        assert_eq!(
            id,
            format!("C0A8000100002A9F0000000000001000{}", "0".repeat(24))
        );
    }

    #[test]
    fn anything_uncommon_is_left_to_the_python_decoder() {
        let good = stored(0, &[1, 2, 3, 4], &[1, 2, 3, 4], b"b", "T", "");
        assert!(decode_stored(&good[..good.len() - 1]).is_none()); // truncated
        let mut bad_magic = good.clone();
        bad_magic[4] ^= 1;
        assert!(decode_stored(&bad_magic).is_none());
        assert!(decode_stored(&stored(
            COMPRESSED_FLAG,
            &[1, 2, 3, 4],
            &[1, 2, 3, 4],
            b"b",
            "T",
            ""
        ))
        .is_none());
        let mut bad_topic = good.clone();
        let at = bad_topic.len() - 3; // the topic's byte (no properties)
        bad_topic[at] = 0xff;
        assert!(decode_stored(&bad_topic).is_none());
        let mut longer = good.clone();
        let n = longer.len() as i32 + 1;
        longer[..4].copy_from_slice(&n.to_be_bytes());
        longer.push(0);
        assert!(decode_stored(&longer).is_none()); // TOTALSIZE past the fields
        assert_eq!(decode_stored(&[]).unwrap(), vec![]);
    }

    #[test]
    fn properties_skip_entries_without_a_name_or_a_value() {
        let pairs: Vec<_> =
            properties_pairs("a\u{1}1\u{2}\u{1}x\u{2}b\u{1}\u{2}c\u{1}3\u{1}4\u{2}d").collect();
        assert_eq!(pairs, vec![("a", "1"), ("c", "3\u{1}4")]);
    }

    proptest! {
        /// The byte loop reads entries as splitting on the two separators does (the definition it replaced).
        #[test]
        fn properties_read_as_splitting_on_the_separators(s in "[ab\u{1}\u{2}\u{e9}\u{4e2d}]{0,24}") {
            let by_split: Vec<_> = s
                .split('\u{2}')
                .filter_map(|entry| {
                    let (name, value) = entry.split_once('\u{1}')?;
                    (!name.is_empty() && !value.is_empty()).then_some((name, value))
                })
                .collect();
            prop_assert_eq!(properties_pairs(&s).collect::<Vec<_>>(), by_split);
        }
    }
}
