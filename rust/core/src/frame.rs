//! The remoting frame of a command with a JSON header, byte for byte as rocketroute's Python encoder
//! (`rocketroute.protocol.frame.encode_frame`) writes it: the send path's per-message encoding, in Rust. (Reading a
//! header back is `crate::json_header`.)
//!
//! A frame is `int32 length` (4 + header + body), `int32` serialize type 0 (JSON) << 24 | header length, the header,
//! the body. The header is `{"code":C,"language":L,"version":V,"opaque":O,"flag":F` then `,"remark":R` when there is a
//! remark, `,"extFields":{...}` when there are ext fields (in their order), and `,"serializeTypeCurrentRPC":"JSON"}`.
//! Strings are escaped as Python's `json.encoder.encode_basestring` escapes them (non-ASCII kept as UTF-8).

use crate::decimal::write_decimal;
use crate::json_scan::plain_len;

/// The largest header the frame's 3-byte header length can say.
pub const MAX_HEADER_LEN: usize = 0xFF_FFFF;

/// The fixed fields of a command's JSON header.
pub struct JsonHeader<'a> {
    pub code: i64,
    pub language: &'a str,
    pub version: i64,
    pub opaque: i64,
    pub flag: i64,
    pub remark: Option<&'a str>,
}

/// Appends `s` as a JSON string literal: `"` `\\` and the control characters escaped (`\n` `\r` `\t` `\b` `\f`,
/// the others `\u00xx`), everything else as it is.
pub fn write_json_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push(b'"');
    let mut rest = s.as_bytes();
    // runs of bytes written as they are, then one escape
    loop {
        let i = plain_len(rest);
        if i == rest.len() {
            break;
        }
        out.extend_from_slice(&rest[..i]);
        let b = rest[i];
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xF)],
            ]),
        }
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

/// Writes a command's JSON header: the fixed fields, then each ext field in turn, then the end.
pub struct JsonHeaderWriter {
    out: Vec<u8>,
    ext_fields: usize,
}

impl JsonHeaderWriter {
    /// A header of `h`'s fixed fields, with room for `capacity` bytes in all.
    pub fn new(h: &JsonHeader<'_>, capacity: usize) -> Self {
        let mut out = Vec::with_capacity(capacity.max(128));
        out.extend_from_slice(b"{\"code\":");
        write_decimal(&mut out, h.code);
        out.extend_from_slice(b",\"language\":");
        write_json_string(&mut out, h.language);
        out.extend_from_slice(b",\"version\":");
        write_decimal(&mut out, h.version);
        out.extend_from_slice(b",\"opaque\":");
        write_decimal(&mut out, h.opaque);
        out.extend_from_slice(b",\"flag\":");
        write_decimal(&mut out, h.flag);
        if let Some(remark) = h.remark {
            out.extend_from_slice(b",\"remark\":");
            write_json_string(&mut out, remark);
        }
        JsonHeaderWriter { out, ext_fields: 0 }
    }

    /// The next ext field.
    pub fn ext(&mut self, key: &str, value: &str) {
        let out = &mut self.out;
        out.extend_from_slice(if self.ext_fields == 0 {
            b",\"extFields\":{"
        } else {
            b","
        });
        self.ext_fields += 1;
        write_json_string(out, key);
        out.push(b':');
        write_json_string(out, value);
    }

    /// The whole header.
    pub fn finish(mut self) -> Vec<u8> {
        if self.ext_fields > 0 {
            self.out.push(b'}');
        }
        self.out
            .extend_from_slice(b",\"serializeTypeCurrentRPC\":\"JSON\"}");
        self.out
    }
}

/// The JSON header of a command with these `ext` fields.
pub fn json_header<'a>(
    h: &JsonHeader<'_>,
    ext: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<u8> {
    let mut w = JsonHeaderWriter::new(h, 256);
    for (key, value) in ext {
        w.ext(key, value);
    }
    w.finish()
}

/// The two length words of a frame with this header and body, or `None` when they do not fit (a header over
/// [`MAX_HEADER_LEN`], a frame over `i32::MAX`).
pub fn frame_prefix(header_len: usize, body_len: usize) -> Option<[u8; 8]> {
    if header_len > MAX_HEADER_LEN {
        return None;
    }
    let total = 4usize.checked_add(header_len)?.checked_add(body_len)?;
    let total = i32::try_from(total).ok()?;
    let mut prefix = [0u8; 8];
    prefix[..4].copy_from_slice(&total.to_be_bytes());
    prefix[4..].copy_from_slice(&(header_len as u32).to_be_bytes());
    Some(prefix)
}

/// Where the header and the body of a frame are in the bytes that hold it (its length word at 0); the body ends
/// where the frame does.
#[derive(Debug, PartialEq, Eq)]
pub struct FrameSpan {
    pub header: std::ops::Range<usize>,
    pub body: std::ops::Range<usize>,
}

/// The complete frame with a JSON header at the start of `buf`, as `rocketroute.protocol.frame.FrameDecoder` reads
/// it; `None` when `buf` does not hold all of it yet, and for every frame the decoder refuses or reads another way
/// (a length field under 4, a frame over `max_frame_size`, a header length over the frame's, another serialize
/// type), which the caller leaves to that decoder.
pub fn json_frame_at(buf: &[u8], max_frame_size: usize) -> Option<FrameSpan> {
    let word = |at: usize| -> Option<i32> {
        Some(i32::from_be_bytes(buf.get(at..at + 4)?.try_into().ok()?))
    };
    let length = usize::try_from(word(0)?).ok()?;
    let mark = word(4)? as u32;
    if length < 4 || length > max_frame_size.saturating_sub(4) || mark >> 24 != 0 {
        return None;
    }
    let header_end = 8 + (mark & 0xFF_FFFF) as usize;
    let end = 4 + length;
    if header_end > end || buf.len() < end {
        return None;
    }
    Some(FrameSpan {
        header: 8..header_end,
        body: header_end..end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_found_whole_or_not_at_all() {
        let mut frame = frame_prefix(3, 2).unwrap().to_vec();
        frame.extend_from_slice(b"{}xyz");
        frame.extend_from_slice(b"next");
        let span = json_frame_at(&frame, 1 << 20).unwrap();
        assert_eq!(
            span,
            FrameSpan {
                header: 8..11,
                body: 11..13
            }
        );
        for cut in 0..13 {
            assert_eq!(json_frame_at(&frame[..cut], 1 << 20), None, "{cut}");
        }
        assert_eq!(json_frame_at(&frame, 12), None); // over the maximum frame size: the decoder's error
        assert!(json_frame_at(&frame, 13).is_some());
        let mut rocketmq = frame.clone();
        rocketmq[4] = 1;
        assert_eq!(json_frame_at(&rocketmq, 1 << 20), None);
        let mut short = frame.clone();
        short[..4].copy_from_slice(&3i32.to_be_bytes());
        assert_eq!(json_frame_at(&short, 1 << 20), None);
        let mut negative = frame.clone();
        negative[..4].copy_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(json_frame_at(&negative, 1 << 20), None);
        let mut long_header = frame;
        long_header[7] = 10;
        assert_eq!(json_frame_at(&long_header, 1 << 20), None);
    }

    fn header(remark: Option<&str>, ext: &[(&str, &str)]) -> String {
        let h = JsonHeader {
            code: 310,
            language: "PYTHON",
            version: 453,
            opaque: -7,
            flag: 0,
            remark,
        };
        String::from_utf8(json_header(&h, ext.iter().copied())).unwrap()
    }

    #[test]
    fn the_header_is_written_field_by_field() {
        assert_eq!(
            header(None, &[]),
            r#"{"code":310,"language":"PYTHON","version":453,"opaque":-7,"flag":0,"serializeTypeCurrentRPC":"JSON"}"#
        );
        assert_eq!(
            header(Some("r"), &[("a", "x"), ("b", "y")]),
            r#"{"code":310,"language":"PYTHON","version":453,"opaque":-7,"flag":0,"remark":"r","extFields":{"a":"x","b":"y"},"serializeTypeCurrentRPC":"JSON"}"#
        );
    }

    #[test]
    fn strings_are_escaped_as_python_s_json_module_escapes_them() {
        let mut out = Vec::new();
        write_json_string(
            &mut out,
            "a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}é€😀\u{2028}",
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\u{7f}é€😀\u{2028}\""
        );
    }

    #[test]
    fn the_prefix_holds_both_lengths_or_refuses() {
        assert_eq!(frame_prefix(10, 5), Some([0, 0, 0, 19, 0, 0, 0, 10]));
        assert_eq!(frame_prefix(MAX_HEADER_LEN + 1, 0), None);
        assert_eq!(frame_prefix(10, i32::MAX as usize), None);
    }
}
