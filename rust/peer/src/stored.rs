//! Messages in the broker's stored format, the one a PULL_MESSAGE response body carries (messages back to back) and
//! RocketMQ's `MessageDecoder` reads; all integers big-endian:
//!
//! `int32 total size`, `int32 magic code` (V1: the topic length is one byte), `int32 body CRC`, `int32 queue id`,
//! `int32 flag`, `int64 queue offset`, `int64 physical offset`, `int32 sysflag`, `int64 born timestamp`, the born
//! host (`4 bytes of IPv4` or `16 of IPv6` + `int32 port`), `int64 store timestamp`, the store host (the same),
//! `int32 reconsume times`, `int64 prepared transaction offset`, `int32 body length` + the body, `int8 topic length` +
//! the topic, `int16 properties length` + the properties (`name \x01 value \x02`, one after another).
//!
//! A [`Template`] is one topic's message encoded once; each message of a pull is the template with its queue id,
//! queue offset, physical offset and id patched in, so an answer costs a copy and a few writes per message.

use std::net::IpAddr;

/// `MessageDecoder.MESSAGE_MAGIC_CODE` (V1).
pub const MAGIC_V1: i32 = 0xDAA3_20A7_u32 as i32;
/// `MessageDecoder.MESSAGE_MAGIC_CODE_V2`: a two-byte topic length, for topics over 127 bytes.
pub const MAGIC_V2: i32 = 0xDAA3_20AB_u32 as i32;
const BORNHOST_V6_FLAG: i32 = 1 << 4;
const STOREHOST_V6_FLAG: i32 = 1 << 5;

const QUEUE_ID_AT: usize = 12;
const QUEUE_OFFSET_AT: usize = 20;
const PHYSICAL_OFFSET_AT: usize = 28;
/// The id's last 20 hex digits: the queue id (4) and the queue offset (16).
const ID_TAIL: usize = 20;

/// What every message the peer serves has in common.
pub struct Identity {
    pub host: IpAddr,
    pub port: u16,
    pub cluster: String,
    pub timestamp_ms: i64,
    pub body: Vec<u8>,
}

/// One topic's message, encoded once.
pub struct Template {
    bytes: Vec<u8>,
    id_at: usize,
}

impl Template {
    pub fn new(identity: &Identity, topic: &str) -> Template {
        let ip: Vec<u8> = match identity.host {
            IpAddr::V4(v4) => v4.octets().to_vec(),
            IpAddr::V6(v6) => v6.octets().to_vec(),
        };
        let sys_flag = if ip.len() == 16 {
            BORNHOST_V6_FLAG | STOREHOST_V6_FLAG
        } else {
            0
        };
        // the id: the peer's address, then the queue id and offset patched in
        let id_head: String = ip.iter().map(|b| format!("{b:02X}")).collect::<String>()
            + &format!("{:04X}", identity.port);
        let id_len = id_head.len() + ID_TAIL;
        let properties = format!(
            "UNIQ_KEY\u{1}{id_head}{}\u{2}WAIT\u{1}true\u{2}CLUSTER\u{1}{}\u{2}",
            "0".repeat(ID_TAIL),
            identity.cluster
        );
        let topic = topic.as_bytes();
        let mut b = Vec::with_capacity(128 + identity.body.len() + topic.len() + properties.len());
        b.extend_from_slice(&0i32.to_be_bytes()); // the total size, below
        let magic = if topic.len() <= i8::MAX as usize {
            MAGIC_V1
        } else {
            MAGIC_V2
        };
        b.extend_from_slice(&magic.to_be_bytes());
        b.extend_from_slice(&body_crc(&identity.body).to_be_bytes());
        b.extend_from_slice(&0i32.to_be_bytes()); // queue id
        b.extend_from_slice(&0i32.to_be_bytes()); // flag
        b.extend_from_slice(&0i64.to_be_bytes()); // queue offset
        b.extend_from_slice(&0i64.to_be_bytes()); // physical offset
        b.extend_from_slice(&sys_flag.to_be_bytes());
        // born and stored by the peer, when it started
        let port = i32::from(identity.port).to_be_bytes();
        for _ in 0..2 {
            b.extend_from_slice(&identity.timestamp_ms.to_be_bytes());
            b.extend_from_slice(&ip);
            b.extend_from_slice(&port);
        }
        b.extend_from_slice(&0i32.to_be_bytes()); // reconsume times
        b.extend_from_slice(&0i64.to_be_bytes()); // prepared transaction offset
        b.extend_from_slice(&(identity.body.len() as i32).to_be_bytes());
        b.extend_from_slice(&identity.body);
        if magic == MAGIC_V1 {
            b.push(topic.len() as u8);
        } else {
            b.extend_from_slice(&(topic.len() as i16).to_be_bytes());
        }
        b.extend_from_slice(topic);
        b.extend_from_slice(&(properties.len() as i16).to_be_bytes());
        let id_at = b.len() + "UNIQ_KEY\u{1}".len() + id_len - ID_TAIL;
        b.extend_from_slice(properties.as_bytes());
        let total = b.len() as i32;
        b[..4].copy_from_slice(&total.to_be_bytes());
        Template { bytes: b, id_at }
    }

    /// The size of one message.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// Appends the message at `queue_offset` of `queue_id`; its physical offset is where it would be in a commit
    /// log holding `queues` queues' messages in turn.
    pub fn append(&self, out: &mut Vec<u8>, queue_id: u32, queue_offset: i64, queues: u32) {
        let start = out.len();
        out.extend_from_slice(&self.bytes);
        let m = &mut out[start..];
        let physical =
            (queue_offset * i64::from(queues) + i64::from(queue_id)) * self.bytes.len() as i64;
        m[QUEUE_ID_AT..QUEUE_ID_AT + 4].copy_from_slice(&(queue_id as i32).to_be_bytes());
        m[QUEUE_OFFSET_AT..QUEUE_OFFSET_AT + 8].copy_from_slice(&queue_offset.to_be_bytes());
        m[PHYSICAL_OFFSET_AT..PHYSICAL_OFFSET_AT + 8].copy_from_slice(&physical.to_be_bytes());
        let id = &mut m[self.id_at..self.id_at + ID_TAIL];
        write_hex(&mut id[..4], u64::from(queue_id & 0xFFFF));
        write_hex(&mut id[4..], queue_offset as u64);
    }
}

/// Upper-case hex of `value`'s low `out.len()` digits.
fn write_hex(out: &mut [u8], mut value: u64) {
    for d in out.iter_mut().rev() {
        *d = b"0123456789ABCDEF"[(value & 0xF) as usize];
        value >>= 4;
    }
}

/// `UtilAll.crc32`: the CRC-32 (IEEE) of the body with its top bit cleared.
pub fn body_crc(body: &[u8]) -> i32 {
    let mut crc = !0u32;
    for &byte in body {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    (!crc & 0x7FFF_FFFF) as i32
}

/// The bodies the peer serves: `size` printable bytes that compress as text does, the same as the benchmarks'
/// `body(size)` (benches/bench_clients.py), so a consumer reads the same bytes from the peer as from a broker the
/// benchmark filled.
pub fn bench_body(size: usize) -> Vec<u8> {
    let mut x: u32 = 12345;
    (0..size)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345) & 0x7FFF_FFFF;
            b'a' + ((x >> 16) % 26) as u8
        })
        .collect()
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// One decoded message: what a client's `MessageDecoder` makes of it.
    #[derive(Debug, PartialEq)]
    pub struct Decoded {
        pub queue_id: i32,
        pub queue_offset: i64,
        pub physical_offset: i64,
        pub body_crc: i32,
        pub sys_flag: i32,
        pub born: (i64, Vec<u8>, i32),
        pub stored: (i64, Vec<u8>, i32),
        pub body: Vec<u8>,
        pub topic: String,
        pub properties: Vec<(String, String)>,
    }

    /// Reads the messages of a pull body field by field, as the format says (written apart from the encoder).
    pub fn decode(mut data: &[u8]) -> Vec<Decoded> {
        fn take<'a>(d: &mut &'a [u8], n: usize) -> &'a [u8] {
            let (head, tail) = d.split_at(n);
            *d = tail;
            head
        }
        fn int(d: &mut &[u8]) -> i32 {
            i32::from_be_bytes(take(d, 4).try_into().unwrap())
        }
        fn long(d: &mut &[u8]) -> i64 {
            i64::from_be_bytes(take(d, 8).try_into().unwrap())
        }
        let mut out = Vec::new();
        while !data.is_empty() {
            let size = i32::from_be_bytes(data[..4].try_into().unwrap()) as usize;
            let mut d = &data[..size];
            data = &data[size..];
            take(&mut d, 4);
            let magic = int(&mut d);
            assert!(magic == MAGIC_V1 || magic == MAGIC_V2);
            let body_crc = int(&mut d);
            let queue_id = int(&mut d);
            assert_eq!(int(&mut d), 0, "flag");
            let queue_offset = long(&mut d);
            let physical_offset = long(&mut d);
            let sys_flag = int(&mut d);
            let ip_len = if sys_flag & BORNHOST_V6_FLAG != 0 {
                16
            } else {
                4
            };
            let born_ts = long(&mut d);
            let born = (born_ts, take(&mut d, ip_len).to_vec(), int(&mut d));
            let store_ts = long(&mut d);
            let stored = (store_ts, take(&mut d, ip_len).to_vec(), int(&mut d));
            assert_eq!(
                (int(&mut d), long(&mut d)),
                (0, 0),
                "reconsume times, prepared offset"
            );
            let body_len = int(&mut d) as usize;
            let body = take(&mut d, body_len).to_vec();
            let topic_len = if magic == MAGIC_V1 {
                take(&mut d, 1)[0] as usize
            } else {
                u16::from_be_bytes(take(&mut d, 2).try_into().unwrap()) as usize
            };
            let topic = String::from_utf8(take(&mut d, topic_len).to_vec()).unwrap();
            let props_len = u16::from_be_bytes(take(&mut d, 2).try_into().unwrap()) as usize;
            let props = std::str::from_utf8(take(&mut d, props_len)).unwrap();
            assert!(d.is_empty(), "the total size is the fields' size");
            let properties = props
                .split('\u{2}')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('\u{1}').unwrap();
                    (k.to_string(), v.to_string())
                })
                .collect();
            out.push(Decoded {
                queue_id,
                queue_offset,
                physical_offset,
                body_crc,
                sys_flag,
                born,
                stored,
                body,
                topic,
                properties,
            });
        }
        out
    }

    fn identity(host: &str) -> Identity {
        Identity {
            host: host.parse().unwrap(),
            port: 9876,
            cluster: "DefaultCluster".into(),
            timestamp_ms: 1_700_000_000_123,
            body: bench_body(100),
        }
    }

    #[test]
    fn the_crc_is_java_s_crc32_without_its_top_bit() {
        assert_eq!(body_crc(b"123456789"), 0xCBF4_3926_u32 as i32 & 0x7FFF_FFFF);
        assert_eq!(body_crc(b""), 0);
    }

    #[test]
    fn the_body_is_the_benchmarks_body() {
        // benches/bench_clients.py: body(12)
        assert_eq!(bench_body(12), b"serobdhgmpmr".to_vec());
    }

    #[test]
    fn messages_decode_with_their_queue_offsets_and_ids_patched_in() {
        let t = Template::new(&identity("127.0.0.1"), "BenchConsume");
        let mut out = Vec::new();
        t.append(&mut out, 3, 41, 8);
        t.append(&mut out, 3, 42, 8);
        assert_eq!(out.len(), 2 * t.size());
        let msgs = decode(&out);
        assert_eq!(msgs.len(), 2);
        let m = &msgs[1];
        assert_eq!((m.queue_id, m.queue_offset), (3, 42));
        assert_eq!(m.physical_offset, (42 * 8 + 3) * t.size() as i64);
        assert_eq!(
            (m.body.clone(), m.body_crc),
            (bench_body(100), body_crc(&bench_body(100)))
        );
        assert_eq!(m.sys_flag, 0);
        assert_eq!(m.born, (1_700_000_000_123, vec![127, 0, 0, 1], 9876));
        assert_eq!(m.stored, m.born);
        assert_eq!(m.topic, "BenchConsume");
        let props: Vec<(&str, &str)> = m
            .properties
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            props,
            [
                ("UNIQ_KEY", "7F00000126940003000000000000002A"),
                ("WAIT", "true"),
                ("CLUSTER", "DefaultCluster")
            ]
        );
        assert_eq!(msgs[0].properties[0].1, "7F000001269400030000000000000029");
    }

    #[test]
    fn an_ipv6_host_and_a_long_topic_take_the_wider_fields() {
        let topic = "T".repeat(200);
        let t = Template::new(&identity("::1"), &topic);
        let mut out = Vec::new();
        t.append(&mut out, 0, 0, 1);
        let m = &decode(&out)[0];
        assert_eq!(m.sys_flag, BORNHOST_V6_FLAG | STOREHOST_V6_FLAG);
        assert_eq!(m.stored.1.len(), 16);
        assert_eq!(m.topic, topic);
        assert_eq!(
            m.properties[0].1.len(),
            32 + 24,
            "16 bytes of address, not 4"
        );
    }
}
