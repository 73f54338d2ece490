//! Reading a remoting command's JSON header, the response path's per-message decoding: what
//! `rocketroute.protocol.frame._decode_json_header` reads, for the headers a broker writes.
//!
//! The reader takes the common shape only and says `None` for everything else, which then goes to the Python
//! reader (Python's `json`), so the results and the errors stay the Python reader's. It takes: an object starting
//! at the first byte, `code` / `opaque` / `flag` / `version` as integers of 64 bits, `language` and `remark` as
//! strings or null, `extFields` as null or an object of strings, any other member with any JSON value (skipped),
//! JSON whitespace between tokens and after the object. A member given twice counts as its last value, as in
//! Python's `json`. It leaves to Python: another first byte (leading whitespace included), a number with a
//! fraction or an exponent, leading zeros or past 64 bits, a `language` given by its code, a non-string ext field
//! value, a lone surrogate escape, a control character in a string, invalid UTF-8, values nested past
//! [`MAX_DEPTH`], and anything that is not JSON at all.

use std::borrow::Cow;

use crate::json_scan::plain_len;

/// The deepest nesting of skipped values the reader follows (Python's reader goes on to its recursion limit).
pub const MAX_DEPTH: usize = 64;

/// The fields of a header, borrowed from its bytes where they hold no escapes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct JsonHeaderFields<'a> {
    pub code: i64,
    pub opaque: i64,
    pub flag: i64,
    pub version: i64,
    /// `None`: absent or null (Java's default, `JAVA`).
    pub language: Option<Cow<'a, str>>,
    pub remark: Option<Cow<'a, str>>,
    /// In the order they come, a name given twice as often as it comes (the caller's map keeps the last value).
    pub ext_fields: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

/// The header's fields, or `None` where the Python reader decides (see the module's text).
pub fn read_json_header(data: &[u8]) -> Option<JsonHeaderFields<'_>> {
    let text = std::str::from_utf8(data).ok()?;
    let mut r = Reader {
        s: text,
        b: data,
        pos: 0,
    };
    let mut out = JsonHeaderFields::default();
    r.object(|r, name| {
        match &*name {
            "code" => out.code = r.int()?,
            "opaque" => out.opaque = r.int()?,
            "flag" => out.flag = r.int()?,
            "version" => out.version = r.int()?,
            "language" => out.language = r.nullable_string()?,
            "remark" => out.remark = r.nullable_string()?,
            "extFields" => out.ext_fields = r.ext_fields()?,
            _ => r.skip(0)?,
        }
        Some(())
    })?;
    r.ws();
    (r.pos == data.len()).then_some(out)
}

struct Reader<'a> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos.checked_add(word.len())?;
        (self.b.get(self.pos..end)? == word).then(|| self.pos = end)
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// An integer without fraction or exponent that fits 64 bits.
    fn int(&mut self) -> Option<i64> {
        let negative = self.peek()? == b'-';
        if negative {
            self.pos += 1;
        }
        let digits = self.pos;
        let mut v: i64 = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            let d = i64::from(c - b'0');
            v = v.checked_mul(10)?;
            v = if negative {
                v.checked_sub(d)?
            } else {
                v.checked_add(d)?
            };
            self.pos += 1;
        }
        let n = self.pos - digits;
        if n == 0 || (n > 1 && self.b[digits] == b'0') {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = self.peek() {
            return None;
        }
        Some(v)
    }

    fn nullable_string(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            return Some(None);
        }
        self.string().map(Some)
    }

    fn ext_fields(&mut self) -> Option<Vec<(Cow<'a, str>, Cow<'a, str>)>> {
        let mut out = Vec::new();
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            return Some(out);
        }
        self.object(|r, name| {
            out.push((name, r.string()?));
            Some(())
        })?;
        Some(out)
    }

    /// An object: each member's name read, then its value by `value`.
    fn object(
        &mut self,
        mut value: impl FnMut(&mut Self, Cow<'a, str>) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        self.items(b'}', |r| {
            let name = r.string()?;
            r.ws();
            r.expect(b':')?;
            r.ws();
            value(r, name)
        })
    }

    /// The comma-separated items of an object or an array up to `close` (the opening byte already read), each
    /// read by `item`.
    fn items(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.ws();
        if self.peek()? == close {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.ws();
            item(self)?;
            self.ws();
            match self.next()? {
                b',' => {}
                c if c == close => return Some(()),
                _ => return None,
            }
        }
    }

    /// A string, borrowed when it holds no escape.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.expect(b'"')?;
        let start = self.pos;
        // the plain run, then what ends it: the closing quote (borrowed), an escape (copied) or a control byte
        self.pos += plain_len(self.b.get(start..)?);
        match self.peek()? {
            b'"' => {
                self.pos += 1;
                return Some(Cow::Borrowed(&self.s[start..self.pos - 1]));
            }
            b'\\' => {}
            _ => return None,
        }
        let mut out = String::from(&self.s[start..self.pos]);
        loop {
            let c = self.next()?;
            match c {
                b'"' => return Some(Cow::Owned(out)),
                b'\\' => {
                    let e = self.next()?;
                    out.push(match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    });
                }
                0..=0x1f => return None,
                _ => {
                    // a whole UTF-8 char: the text is valid UTF-8 and this is its first byte
                    let begin = self.pos - 1;
                    let len = utf8_len(c);
                    out.push_str(self.s.get(begin..begin + len)?);
                    self.pos = begin + len;
                }
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let end = self.pos.checked_add(4)?;
        let digits = self.s.get(self.pos..end)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.pos = end;
        u32::from_str_radix(digits, 16).ok()
    }

    /// After `\u`: a char, or a surrogate pair's; a lone surrogate is left to Python (its `str` holds one).
    fn unicode_escape(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if (0xDC00..0xE000).contains(&hi) {
            return None;
        }
        if (0xD800..0xDC00).contains(&hi) {
            self.literal(b"\\u")?;
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return None;
            }
            return char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
        }
        char::from_u32(hi)
    }

    /// Any JSON value, read past.
    fn skip(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.object(|r, _| r.skip(depth + 1)),
            b'[' => {
                self.pos += 1;
                self.items(b']', |r| r.skip(depth + 1))
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number(),
        }
    }

    /// A JSON number of any kind (read past, not kept).
    fn number(&mut self) -> Option<()> {
        if self.peek()? == b'-' {
            self.pos += 1;
        }
        let digits = self.digits();
        if digits == 0 || (digits > 1 && self.b[self.pos - digits] == b'0') {
            return None;
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Option<JsonHeaderFields<'_>> {
        read_json_header(s.as_bytes())
    }

    #[test]
    fn a_broker_response() {
        let h = read(
            r#"{"code":0,"extFields":{"msgId":"7F00","queueId":"3","queueOffset":"12"},"flag":1,"language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":479}"#,
        )
        .unwrap();
        assert_eq!((h.code, h.opaque, h.flag, h.version), (0, 42, 1, 479));
        assert_eq!(h.language.as_deref(), Some("JAVA"));
        assert_eq!(h.remark, None);
        let ext: Vec<(&str, &str)> = h.ext_fields.iter().map(|(k, v)| (&**k, &**v)).collect();
        assert_eq!(
            ext,
            [("msgId", "7F00"), ("queueId", "3"), ("queueOffset", "12")]
        );
    }

    #[test]
    fn defaults_nulls_whitespace_and_repeated_members() {
        let h = read("{ }").unwrap();
        assert_eq!(h, JsonHeaderFields::default());
        let h = read("{\"language\" : null ,\n\"remark\":null,\"extFields\":null,\"code\":1,\"code\":-2}\r\n").unwrap();
        assert_eq!(
            (h.code, h.language, h.remark, h.ext_fields.len()),
            (-2, None, None, 0)
        );
        let h = read(r#"{"extFields":{"a":"1","a":"2"},"extFields":{"b":""}}"#).unwrap();
        assert_eq!(h.ext_fields, [(Cow::Borrowed("b"), Cow::Borrowed(""))]);
    }

    #[test]
    fn escapes_are_read_and_plain_strings_borrowed() {
        let h = read(
            r#"{"remark":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 é","extFields":{"k":"plain"}}"#,
        )
        .unwrap();
        assert_eq!(
            h.remark.as_deref(),
            Some("a\"b\\c/d\u{8}\u{c}\n\r\t\u{e9}\u{1F600} é")
        );
        assert!(matches!(h.ext_fields[0].1, Cow::Borrowed("plain")));
    }

    #[test]
    fn other_members_are_skipped_whatever_they_hold() {
        let h = read(r#"{"x":[1,-2.5e3,true,false,null,{"y":[]},"s"],"z":{},"code":7}"#).unwrap();
        assert_eq!(h.code, 7);
    }

    #[test]
    fn what_python_decides_is_left_to_it() {
        for s in [
            " {}",                             // leading whitespace
            "{\"code\":1.0}",                  // a float
            "{\"code\":1e2}",                  // an exponent
            "{\"code\":01}",                   // a leading zero
            "{\"code\":9223372036854775808}",  // past 64 bits
            "{\"code\":-9223372036854775809}", // past 64 bits
            "{\"code\":true}",                 // not a number
            "{\"code\":null}",                 // null where an int is due
            "{\"language\":3}",                // a language code
            "{\"extFields\":{\"a\":1}}",       // a non-string ext field
            "{\"remark\":\"\\ud800\"}",        // a lone surrogate
            "{\"remark\":\"\\udc00\"}",        // a lone low surrogate
            "{\"remark\":\"a\u{1}\"}",         // a raw control character
            "{\"remark\":\"\\x\"}",            // an unknown escape
            "{\"x\":NaN}",                     // not JSON
            "{\"code\":1} x",                  // extra data
            "{\"code\":1,}",                   // a trailing comma
            "{\"code\":1",                     // truncated
            "[]",                              // not an object
            "",                                // nothing
        ] {
            assert_eq!(read(s), None, "{s:?}");
        }
        assert_eq!(read_json_header(b"{\"remark\":\"\xff\"}"), None); // invalid UTF-8
        let deep = format!(
            "{{\"x\":{}{}}}",
            "[".repeat(MAX_DEPTH + 2),
            "]".repeat(MAX_DEPTH + 2)
        );
        assert_eq!(read(&deep), None);
        let ok = format!(
            "{{\"x\":{}{}}}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(read(&ok).is_some());
    }

    #[test]
    fn the_extreme_integers_fit() {
        let h = read(r#"{"code":-9223372036854775808,"opaque":9223372036854775807,"flag":-0}"#)
            .unwrap();
        assert_eq!((h.code, h.opaque, h.flag), (i64::MIN, i64::MAX, 0));
    }
}
