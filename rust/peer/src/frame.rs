//! RocketMQ remoting frames with a JSON header: `int32 length`, `int32 (serialize type << 24 | header length)`,
//! the header, the body. Only what the peer reads of a request is decoded.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Read};

use rocketroute_core::frame::{json_header, JsonHeader};
use serde::Deserialize;

/// Java's default frame limit (`NettyDecoder.FRAME_MAX_LENGTH`).
pub const MAX_FRAME: usize = 16 * 1024 * 1024;
/// The `flag` bit of a response (`RemotingCommandType.RESPONSE_COMMAND`).
pub const FLAG_RESPONSE: i32 = 1;
/// The `flag` bit of a oneway request.
pub const FLAG_ONEWAY: i32 = 2;

/// The fields of a JSON request header the peer answers from.
#[derive(Deserialize)]
pub struct Header<'a> {
    pub code: i32,
    #[serde(default)]
    pub opaque: i32,
    #[serde(default)]
    pub flag: i32,
    #[serde(default, borrow)]
    pub remark: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "extFields")]
    pub ext: Option<HashMap<Cow<'a, str>, Cow<'a, str>>>,
}

impl Header<'_> {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.ext.as_ref()?.get(name).map(|v| v.as_ref())
    }
}

/// Reads the next frame (without its length prefix) into `buf`; `Ok(false)` at a clean end of stream.
pub fn read_frame(r: &mut impl Read, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
        Err(e) => return Err(e),
    }
    let n = u32::from_be_bytes(len) as usize;
    if !(4..=MAX_FRAME - 4).contains(&n) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame length {n}"),
        ));
    }
    buf.resize(n, 0);
    r.read_exact(buf)?;
    Ok(true)
}

/// Splits a frame into its JSON header and its body.
pub fn split(frame: &[u8]) -> io::Result<(&[u8], &[u8])> {
    let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
    let word = u32::from_be_bytes(frame[..4].try_into().expect("4 bytes"));
    let (kind, header_len) = (word >> 24, (word & 0x00ff_ffff) as usize);
    if kind != 0 {
        return Err(bad(format!(
            "serialize type {kind}: the peer reads JSON headers only"
        )));
    }
    if 4 + header_len > frame.len() {
        return Err(bad(format!("header length {header_len} past the frame")));
    }
    Ok((&frame[4..4 + header_len], &frame[4 + header_len..]))
}

/// Appends a whole frame: a JSON header built by `header` (written into `out`) and `body`.
pub fn write_frame(out: &mut Vec<u8>, header: impl FnOnce(&mut Vec<u8>), body: &[u8]) {
    write_frame_with(out, header, |out| out.extend_from_slice(body));
}

/// [`write_frame`] with a body that `body` writes into `out` itself.
pub fn write_frame_with(
    out: &mut Vec<u8>,
    header: impl FnOnce(&mut Vec<u8>),
    body: impl FnOnce(&mut Vec<u8>),
) {
    let start = out.len();
    out.extend_from_slice(&[0; 8]);
    header(out);
    let header_len = out.len() - start - 8;
    body(out);
    let total = out.len() - start - 4;
    out[start..start + 4].copy_from_slice(&(total as u32).to_be_bytes());
    out[start + 4..start + 8].copy_from_slice(&(header_len as u32).to_be_bytes());
}

/// A response header: `code`, the request's `opaque`, the response flag, `remark` and string `ext` fields (written
/// by the client's own frame encoder, `rocketroute_core::frame`).
pub fn response_header(
    out: &mut Vec<u8>,
    code: i32,
    opaque: i32,
    remark: Option<&str>,
    ext: &[(&str, &str)],
) {
    let header = JsonHeader {
        code: code.into(),
        language: "JAVA",
        version: 0,
        opaque: opaque.into(),
        flag: FLAG_RESPONSE.into(),
        remark,
    };
    out.extend_from_slice(&json_header(&header, ext.iter().copied()));
}

/// A request header the peer sends on its own: `code`, `opaque`, `flag` (oneway or not) and string `ext` fields.
pub fn request_header(out: &mut Vec<u8>, code: i32, opaque: i32, flag: i32, ext: &[(&str, &str)]) {
    let header = JsonHeader {
        code: code.into(),
        language: "JAVA",
        version: 0,
        opaque: opaque.into(),
        flag: flag.into(),
        remark: None,
    };
    out.extend_from_slice(&json_header(&header, ext.iter().copied()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_frame_reads_back() {
        let mut out = Vec::new();
        write_frame(
            &mut out,
            |h| response_header(h, 0, 7, Some("a \"b\""), &[("queueId", "3")]),
            b"body",
        );
        let mut buf = Vec::new();
        assert!(read_frame(&mut out.as_slice(), &mut buf).unwrap());
        let (header, body) = split(&buf).unwrap();
        let h: Header = serde_json::from_slice(header).unwrap();
        assert_eq!((h.code, h.opaque, h.flag), (0, 7, FLAG_RESPONSE));
        assert_eq!(h.field("queueId"), Some("3"));
        assert_eq!(body, b"body");
        assert!(!read_frame(&mut &[][..], &mut buf).unwrap());
    }

    #[test]
    fn a_binary_header_or_a_bad_length_is_refused() {
        let mut frame = vec![1, 0, 0, 2, b'{', b'}'];
        assert!(split(&frame).is_err());
        frame[0] = 0;
        frame[3] = 9;
        assert!(split(&frame).is_err());
        let mut buf = Vec::new();
        assert!(read_frame(&mut &[0u8, 0, 0, 1, 0][..], &mut buf).is_err());
    }
}
