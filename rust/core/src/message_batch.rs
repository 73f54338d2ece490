//! A batch's body as `MessageBatch.encode()` writes it (`MessageDecoder.encodeMessage` per message), for the
//! producer's `send_batch`: the part after the checks, which stay with rocketroute's Python encoder
//! (`rocketroute.client.message.encode_batch`) and Java's texts.
//!
//! Per message, big-endian: TOTALSIZE i32 (20 + body + 2 + properties), MAGICCODE i32 (0), BODYCRC i32 (0), FLAG
//! i32, BODY length i32 and bytes, PROPERTIES length i16 and the UTF-8 properties string. The properties string is
//! `name \x01 value \x02` per property in the iteration order of the Java `HashMap` they were put into: up to 8
//! names the table keeps its 16 bins, so the names stably sorted by bin (`hash ^ (hash >>> 16)`, low 4 bits);
//! 4.9's drops the last `\x02`.

use crate::java::string_hash;

/// The most properties the 16-bin order covers; more take the Python encoder's resize-following order.
pub const MAX_PROPERTIES_IN_16_BINS: usize = 8;
/// `Short.MAX_VALUE`: the most UTF-8 bytes a message's properties may take in a batch.
pub const MAX_PROPERTIES_LEN: usize = 32_767;

fn bin(name: &str) -> u32 {
    let h = string_hash(name) as u32;
    (h ^ (h >> 16)) & 15
}

/// The properties string of `items` (distinct names, in put order); `None` past 8 of them.
pub fn properties_string(items: &[(&str, &str)], drop_last_separator: bool) -> Option<String> {
    if items.len() > MAX_PROPERTIES_IN_16_BINS {
        return None;
    }
    let mut order: Vec<(u32, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (bin(n), i))
        .collect();
    order.sort(); // by bin, then put order: a stable sort by bin
    let mut s = String::with_capacity(items.iter().map(|(n, v)| n.len() + v.len() + 2).sum());
    for (_, i) in order {
        let (n, v) = items[i];
        s.push_str(n);
        s.push('\u{1}');
        s.push_str(v);
        s.push('\u{2}');
    }
    if drop_last_separator {
        s.pop();
    }
    Some(s)
}

/// Appends one message of a batch body; `Err` with the properties' length when it passes `Short.MAX_VALUE`.
pub fn push_entry(
    out: &mut Vec<u8>,
    flag: i32,
    body: &[u8],
    properties: &str,
) -> Result<(), usize> {
    let props = properties.as_bytes();
    if props.len() > MAX_PROPERTIES_LEN {
        return Err(props.len());
    }
    let total = 20 + body.len() + 2 + props.len();
    out.reserve(total);
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&0i32.to_be_bytes());
    out.extend_from_slice(&0i32.to_be_bytes());
    out.extend_from_slice(&flag.to_be_bytes());
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&(props.len() as u16).to_be_bytes());
    out.extend_from_slice(props);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_go_in_the_hash_map_s_bin_order() {
        // TAGS, KEYS, WAIT, UNIQ_KEY as a Java message puts them; what HashMap iterates, from the Python encoder
        let items = [
            ("TAGS", "a"),
            ("KEYS", "k"),
            ("WAIT", "true"),
            ("UNIQ_KEY", "ID"),
        ];
        let mut bins: Vec<_> = items.iter().map(|(n, _)| bin(n)).collect();
        let s = properties_string(&items, false).unwrap();
        bins.sort();
        let got: Vec<u32> = s
            .split('\u{2}')
            .filter(|e| !e.is_empty())
            .map(|e| bin(e.split('\u{1}').next().unwrap()))
            .collect();
        assert_eq!(got, bins);
        assert_eq!(properties_string(&items, true).unwrap(), s[..s.len() - 1]);
        assert!(properties_string(&[("a", "b"); 9], false).is_none());
    }

    #[test]
    fn an_entry_counts_every_byte_and_refuses_long_properties() {
        let mut out = Vec::new();
        push_entry(&mut out, -1, b"body", "a\u{1}b\u{2}").unwrap();
        assert_eq!(out.len(), 20 + 4 + 2 + 4);
        assert_eq!(&out[..4], &30u32.to_be_bytes());
        assert_eq!(&out[12..16], &[0xff; 4]);
        let long = "x".repeat(MAX_PROPERTIES_LEN + 1);
        assert_eq!(
            push_entry(&mut out, 0, b"", &long),
            Err(MAX_PROPERTIES_LEN + 1)
        );
    }
}
