//! The plain run at the start of a JSON string's bytes: how many bytes come before the first one that JSON text
//! cannot hold as it is (a control character, `"` or `\`). The frame writer copies such runs whole and the header
//! reader borrows them; both used to test one byte at a time, three compares each, over every header string of
//! every send and answer. Eight bytes are tested at once here.

/// Bytes that are all `b`.
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

const LOW_BITS: u64 = splat(0x01);
const HIGH_BITS: u64 = splat(0x80);

/// The high bit of each byte of `w` under 0x20, equal to `"` or equal to `\`; bytes after the first such one may
/// be marked too (a borrow runs upward), never one before it.
#[inline]
fn specials(w: u64) -> u64 {
    let control = w.wrapping_sub(splat(0x20)) & !w;
    let quote = w ^ splat(b'"');
    let backslash = w ^ splat(b'\\');
    let zero = |v: u64| v.wrapping_sub(LOW_BITS) & !v;
    (control | zero(quote) | zero(backslash)) & HIGH_BITS
}

/// The index of the first byte of `bytes` under 0x20, `"` or `\`; `bytes.len()` when there is none.
#[inline]
pub fn plain_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let found = specials(w);
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let tail = chunks.remainder();
    at + tail
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .unwrap_or(tail.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
            .unwrap_or(bytes.len())
    }

    #[test]
    fn every_byte_value_at_every_place_of_a_word_and_its_tail() {
        for len in 1..=19 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    assert_eq!(plain_len(&bytes), naive(&bytes), "{b:#x} at {at} of {len}");
                }
            }
        }
    }

    #[test]
    fn a_special_byte_after_high_bytes_and_borrows_is_found_where_it_is() {
        // bytes of 0x80 and over, and 0x20 / 0x21 / 0x23 / 0x5d (one above a special one), before the special
        for filler in [0x80u8, 0xff, 0x20, 0x21, 0x23, 0x5d, 0x00, 0x1f] {
            for at in 0..16 {
                let mut bytes = vec![filler; 16];
                bytes[at] = b'"';
                assert_eq!(
                    plain_len(&bytes),
                    naive(&bytes),
                    "{filler:#x}, quote at {at}"
                );
            }
        }
        assert_eq!(plain_len(b""), 0);
    }

    proptest! {
        #[test]
        fn it_agrees_with_a_byte_by_byte_scan(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(plain_len(&bytes), naive(&bytes));
        }

        #[test]
        fn it_agrees_on_mostly_plain_text(bytes in proptest::collection::vec(
            prop_oneof![8 => 0x20u8..0x7f, 1 => any::<u8>()], 0..96,
        )) {
            prop_assert_eq!(plain_len(&bytes), naive(&bytes));
        }
    }
}
