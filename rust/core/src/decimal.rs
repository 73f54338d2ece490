//! An `i64` in decimal (`-` and digits, as `Display` and Java's `Long.toString` write it) without the formatting
//! machinery: a send's header carries ten numbers (code, version, opaque, flag, queue id, born time, ...), and
//! `write!` spent about 200 instructions on each.

/// The longest text: `-9223372036854775808`.
pub const MAX_LEN: usize = 20;

/// `v`'s decimal text, written at the end of `buf`.
pub fn decimal(v: i64, buf: &mut [u8; MAX_LEN]) -> &str {
    let mut n = v.unsigned_abs();
    let mut at = MAX_LEN;
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        at -= 1;
        buf[at] = b'-';
    }
    std::str::from_utf8(&buf[at..]).unwrap_or_default()
}

/// Appends `v`'s decimal text to `out`.
pub fn write_decimal(out: &mut Vec<u8>, v: i64) {
    let mut buf = [0; MAX_LEN];
    out.extend_from_slice(decimal(v, &mut buf).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_edges_read_as_display_writes_them() {
        for v in [
            0,
            1,
            -1,
            9,
            10,
            -10,
            99,
            100,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            1_764_000_000_000,
        ] {
            let mut buf = [0; MAX_LEN];
            assert_eq!(decimal(v, &mut buf), v.to_string());
        }
        let mut out = b"x".to_vec();
        write_decimal(&mut out, -42);
        assert_eq!(out, b"x-42");
    }

    proptest! {
        #[test]
        fn any_number_reads_as_display_writes_it(v in any::<i64>()) {
            let mut buf = [0; MAX_LEN];
            prop_assert_eq!(decimal(v, &mut buf), v.to_string());
        }
    }
}
