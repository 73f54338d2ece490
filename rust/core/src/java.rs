//! Java semantics: `String.hashCode` / `compareTo` over UTF-16 code units, boxed hashCodes, `Math.abs`,
//! `Integer.parseInt`, `String.split` for one separator, and a bit-exact `java.util.Random`.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{JavaError, JavaResult};

/// `String.hashCode()` of a string given as UTF-8: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 units.
pub fn string_hash(s: &str) -> i32 {
    let mut h: i32 = 0;
    if s.is_ascii() {
        for &b in s.as_bytes() {
            h = h.wrapping_mul(31).wrapping_add(b as i32);
        }
    } else {
        for u in s.encode_utf16() {
            h = h.wrapping_mul(31).wrapping_add(u as i32);
        }
    }
    h
}

/// `String.hashCode()` of raw UTF-16 code units (lone surrogates included).
pub fn utf16_hash(units: &[u16]) -> i32 {
    units
        .iter()
        .fold(0i32, |h, &u| h.wrapping_mul(31).wrapping_add(u as i32))
}

/// The text Java's `String.getBytes(UTF_8)` encodes from UTF-16 code units: a surrogate pair is one
/// character, an unpaired surrogate becomes `?`.
pub fn utf16_to_java_utf8(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|c| c.unwrap_or('?'))
        .collect()
}

/// `a.compareTo(b)`: the first differing UTF-16 code unit decides, else the length difference.
pub fn string_compare(a: &str, b: &str) -> i32 {
    if a.is_ascii() && b.is_ascii() {
        let (x, y) = (a.as_bytes(), b.as_bytes());
        for (p, q) in x.iter().zip(y) {
            if p != q {
                return *p as i32 - *q as i32;
            }
        }
        return x.len() as i32 - y.len() as i32;
    }
    let mut ua = a.encode_utf16();
    let mut ub = b.encode_utf16();
    let mut la = 0i32;
    let mut lb = 0i32;
    loop {
        match (ua.next(), ub.next()) {
            (Some(p), Some(q)) => {
                if p != q {
                    return p as i32 - q as i32;
                }
                la += 1;
                lb += 1;
            }
            (Some(_), None) => return (la + 1 + ua.count() as i32) - lb,
            (None, Some(_)) => return la - (lb + 1 + ub.count() as i32),
            (None, None) => return la - lb,
        }
    }
}

/// `a.compareTo(b)` over raw UTF-16 code units (lone surrogates included).
pub fn utf16_compare(a: &[u16], b: &[u16]) -> i32 {
    for (p, q) in a.iter().zip(b) {
        if p != q {
            return *p as i32 - *q as i32;
        }
    }
    a.len() as i32 - b.len() as i32
}

/// `Integer.hashCode(v)`.
pub fn int_hash(v: i32) -> i32 {
    v
}

/// `Long.hashCode(v)` = `(int)(v ^ (v >>> 32))`.
pub fn long_hash(v: i64) -> i32 {
    let u = v as u64;
    (u ^ (u >> 32)) as i32
}

/// `Math.abs(int)`: `abs(Integer.MIN_VALUE)` stays `Integer.MIN_VALUE`.
pub fn abs(v: i32) -> i32 {
    v.wrapping_abs()
}

/// Java `a % b` on ints (truncated, sign of the dividend); `b == 0` is "/ by zero".
pub fn rem(a: i32, b: i32) -> JavaResult<i32> {
    if b == 0 {
        return Err(JavaError::div_by_zero());
    }
    Ok(a.wrapping_rem(b))
}

/// `String.split(sep)` for a one-character separator: no match gives the whole string, and trailing
/// empty strings are dropped (so `":"` splits to nothing).
pub fn split(s: &str, sep: char) -> Vec<&str> {
    if !s.contains(sep) {
        return vec![s];
    }
    let mut parts: Vec<&str> = s.split(sep).collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

/// Code points of the `0` of every run of Unicode decimal digits (`Nd`) in the BMP, so that
/// `Character.digit(ch, 10)` can be answered for any UTF-16 unit without tables from a crate.
const ND_ZEROS: &[u32] = &[
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10,
];

/// `Character.digit(ch, 10)` for one UTF-16 code unit.
pub fn java_digit(unit: u16) -> i32 {
    let c = unit as u32;
    for &z in ND_ZEROS {
        if c >= z && c < z + 10 {
            return (c - z) as i32;
        }
    }
    -1
}

/// `Integer.parseInt(s)`, with Java's `NumberFormatException` messages.
pub fn parse_int(s: &str) -> JavaResult<i32> {
    let err = || JavaError::NumberFormat(format!("For input string: \"{s}\""));
    let units: Vec<u16> = s.encode_utf16().collect();
    if units.is_empty() {
        return Err(err());
    }
    let mut i = 0;
    let mut neg = false;
    if units[0] < b'0' as u16 {
        if units[0] == b'-' as u16 {
            neg = true;
        } else if units[0] != b'+' as u16 {
            return Err(err());
        }
        if units.len() == 1 {
            return Err(err());
        }
        i = 1;
    }
    let limit: i64 = if neg { 1 << 31 } else { (1 << 31) - 1 };
    let mut v: i64 = 0;
    for &u in &units[i..] {
        let d = java_digit(u);
        if d < 0 {
            return Err(err());
        }
        v = v * 10 + d as i64;
        if v > limit {
            return Err(err());
        }
    }
    Ok(if neg { -v } else { v } as i32)
}

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

/// `java.util.Random`, bit for bit, lock-free (a CAS on the seed, as the JDK does).
#[derive(Debug)]
pub struct JavaRandom {
    seed: AtomicU64,
}

impl JavaRandom {
    pub fn new(seed: i64) -> Self {
        JavaRandom {
            seed: AtomicU64::new(Self::scramble(seed)),
        }
    }

    /// Seeded from the operating system's entropy (Java seeds from the time and a counter).
    pub fn from_entropy() -> Self {
        let mut buf = [0u8; 8];
        if getrandom::fill(&mut buf).is_err() {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x2545_F491_4F6C_DD1D);
            buf = t.to_le_bytes();
        }
        Self::new(i64::from_le_bytes(buf))
    }

    fn scramble(seed: i64) -> u64 {
        (seed as u64 ^ MULTIPLIER) & MASK
    }

    pub fn set_seed(&self, seed: i64) {
        self.seed.store(Self::scramble(seed), Ordering::SeqCst);
    }

    /// `next(bits)`.
    pub fn next_bits(&self, bits: u32) -> i32 {
        let mut old = self.seed.load(Ordering::Relaxed);
        loop {
            let next = old.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND) & MASK;
            match self
                .seed
                .compare_exchange_weak(old, next, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return (next >> (48 - bits)) as i32,
                Err(cur) => old = cur,
            }
        }
    }

    /// `nextInt()`.
    pub fn next_int(&self) -> i32 {
        self.next_bits(32)
    }

    /// `nextInt(bound)`: uniform in `[0, bound)`; `bound <= 0` is an `IllegalArgumentException`.
    pub fn next_int_bounded(&self, bound: i32) -> JavaResult<i32> {
        if bound <= 0 {
            return Err(JavaError::IllegalArgument(
                "bound must be positive".to_owned(),
            ));
        }
        let mut r = self.next_bits(31);
        let m = bound - 1;
        if bound & m == 0 {
            return Ok(((bound as i64 * r as i64) >> 31) as i32);
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return Ok(r);
            }
            u = self.next_bits(31);
        }
    }

    /// `nextLong()`.
    pub fn next_long(&self) -> i64 {
        ((self.next_bits(32) as i64) << 32).wrapping_add(self.next_bits(32) as i64)
    }

    /// `nextBoolean()`.
    pub fn next_boolean(&self) -> bool {
        self.next_bits(1) != 0
    }

    /// `nextDouble()`.
    pub fn next_double(&self) -> f64 {
        let hi = (self.next_bits(26) as i64) << 27;
        let lo = self.next_bits(27) as i64;
        (hi + lo) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn java_utf8_replaces_each_unpaired_surrogate_and_joins_pairs() {
        assert_eq!(utf16_to_java_utf8(&[0x61, 0xD800, 0x62]), "a?b");
        assert_eq!(utf16_to_java_utf8(&[0xDFFF, 0xD800]), "??");
        assert_eq!(utf16_to_java_utf8(&[0xD83D, 0xDE00]), "\u{1F600}");
        assert_eq!(utf16_to_java_utf8(&[0xD83D, 0xD83D, 0xDE00]), "?\u{1F600}");
        assert_eq!(utf16_to_java_utf8(&[]), "");
    }

    use super::*;

    #[test]
    fn string_hash_matches_java() {
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("polygenelubricants"), i32::MIN);
        assert_eq!(string_hash("GydZG_"), i32::MIN);
        assert_eq!(string_hash("DESIGNING WORKHOUSES"), i32::MIN);
        // "\u{1F600}" is the surrogate pair D83D DE00: 0xD83D * 31 + 0xDE00
        assert_eq!(string_hash("\u{1F600}"), 0xD83D * 31 + 0xDE00);
        let units: Vec<u16> = "h\u{e9}llo\u{1F600}".encode_utf16().collect();
        assert_eq!(utf16_hash(&units), string_hash("h\u{e9}llo\u{1F600}"));
    }

    #[test]
    fn compare_is_utf16_order() {
        assert!(string_compare("\u{1F600}", "\u{FF5E}") < 0);
        assert_eq!(string_compare("ab", "abc"), -1);
        assert_eq!(string_compare("b", "a"), 1);
        assert_eq!(string_compare("\u{e9}x", "\u{e9}"), 1);
        assert_eq!(string_compare("", ""), 0);
    }

    #[test]
    fn long_hash_folds_halves() {
        assert_eq!(long_hash(-1), 0);
        assert_eq!(long_hash(0), 0);
        assert_eq!(long_hash(1 << 32), 1);
        assert_eq!(int_hash(-1), -1);
    }

    #[test]
    fn random_matches_jdk() {
        // new Random(0).nextInt() == -1155484576; new Random(42).nextInt(10) == 0
        assert_eq!(JavaRandom::new(0).next_int(), -1155484576);
        assert_eq!(JavaRandom::new(42).next_int_bounded(10).unwrap(), 0);
        assert_eq!(JavaRandom::new(42).next_long(), -5025562857975149833);
        assert!(JavaRandom::new(1).next_int_bounded(0).is_err());
    }

    #[test]
    fn parse_int_like_java() {
        assert_eq!(parse_int("42").unwrap(), 42);
        assert_eq!(parse_int("-2147483648").unwrap(), i32::MIN);
        assert_eq!(parse_int("+7").unwrap(), 7);
        assert_eq!(parse_int("\u{0663}").unwrap(), 3);
        for bad in ["", " 4", "2147483648", "x", "-", "+", "4 "] {
            let e = parse_int(bad).unwrap_err();
            assert_eq!(e.message(), format!("For input string: \"{bad}\""));
        }
    }

    #[test]
    fn split_drops_trailing_empties() {
        assert_eq!(split("a:1", ':'), vec!["a", "1"]);
        assert_eq!(split(":", ':'), Vec::<&str>::new());
        assert_eq!(split("", ':'), vec![""]);
        assert_eq!(split(";a:1", ';'), vec!["", "a:1"]);
        assert_eq!(split("a:1;;", ';'), vec!["a:1"]);
    }
}
