//! The moving part of `MessageClientIDSetter.createUniqID`: the time since the month's start and the counter
//! written after the generator's fixed prefix (IP, pid, class-loader hash), as `rocketroute.client.message_id`'s
//! `MessageIdGenerator` writes them.
//!
//! An id is the prefix, then 8 upper-case hex digits of `(int) (now - monthStart)` (Java's cast: the low 32 bits;
//! a clock up to 999,999 ms before the month's start writes 0), then 4 of the counter's low 16 bits. The month's
//! start depends on the local time zone, which the caller knows: it gives the window `[start, next_start)`, and a
//! clock past `next_start` gets `None` until the caller sets the next window.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

/// `(int) diff` values in `(-1_000_000, 0)` written as 0 (a clock set back a little, NTP), as unsigned 32 bits.
const SET_BACK_A_LITTLE: u32 = 0xFFF0_BDC1;

/// `System.currentTimeMillis()`: ms since the epoch (negative before it).
pub fn current_time_millis() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_millis()).map_or(i64::MIN, |ms| -ms),
    }
}

struct Window {
    start: i64,
    next_start: i64,
    counter: u16,
}

/// The time window and the counter behind one generator's ids. Thread-safe: ids made at once by many threads
/// take distinct counters, each thread's in increasing order.
pub struct MessageIdCounter {
    prefix: String,
    window: Mutex<Window>,
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn push_hex(out: &mut String, value: u64, digits: u32) {
    for i in (0..digits).rev() {
        out.push(HEX[((value >> (4 * i)) & 0xF) as usize] as char);
    }
}

impl MessageIdCounter {
    /// A counter at `counter` (its low 16 bits) in the window `[start, next_start)`, writing ids after `prefix`.
    pub fn new(prefix: &str, start: i64, next_start: i64, counter: u32) -> Self {
        MessageIdCounter {
            prefix: prefix.to_owned(),
            window: Mutex::new(Window {
                start,
                next_start,
                counter: counter as u16,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Window> {
        self.window.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The month window ids are written in from now on.
    pub fn set_window(&self, start: i64, next_start: i64) {
        let mut w = self.lock();
        w.start = start;
        w.next_start = next_start;
    }

    /// The counter's next value.
    pub fn counter(&self) -> u16 {
        self.lock().counter
    }

    /// Reserve `n` counters at `now_ms`: the time field and the first counter, or `None` when `now_ms` is at or
    /// past the window's end (nothing reserved).
    fn reserve(&self, now_ms: i64, n: usize) -> Option<(u32, u16)> {
        let mut w = self.lock();
        if now_ms >= w.next_start {
            return None;
        }
        let mut diff = now_ms.wrapping_sub(w.start) as u32; // Java's (int) cast, read unsigned
        if diff >= SET_BACK_A_LITTLE {
            diff = 0;
        }
        let first = w.counter;
        w.counter = first.wrapping_add(n as u16);
        Some((diff, first))
    }

    /// `createUniqID()` at `now_ms`; `None` when `now_ms` is past the window (set the next one, then ask again).
    pub fn create(&self, now_ms: i64) -> Option<String> {
        let (diff, counter) = self.reserve(now_ms, 1)?;
        let mut id = String::with_capacity(self.prefix.len() + 12);
        id.push_str(&self.prefix);
        push_hex(&mut id, u64::from(diff), 8);
        push_hex(&mut id, u64::from(counter), 4);
        Some(id)
    }

    /// `n` ids as `n` calls of [`create`](Self::create) at `now_ms` in a row would give them (a batch's).
    pub fn create_many(&self, now_ms: i64, n: usize) -> Option<Vec<String>> {
        let (diff, first) = self.reserve(now_ms, n)?;
        let mut head = String::with_capacity(self.prefix.len() + 8);
        head.push_str(&self.prefix);
        push_hex(&mut head, u64::from(diff), 8);
        Some(
            (0..n)
                .map(|i| {
                    let mut id = String::with_capacity(head.len() + 4);
                    id.push_str(&head);
                    push_hex(&mut id, u64::from(first.wrapping_add(i as u16)), 4);
                    id
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOV_1_2026: i64 = 1_793_491_200_000;
    const DEC_1_2026: i64 = 1_796_083_200_000;
    const PREFIX: &str = "0A000001303901020304";

    #[test]
    fn layout_is_prefix_time_counter() {
        let c = MessageIdCounter::new(PREFIX, NOV_1_2026, DEC_1_2026, 0);
        assert_eq!(
            c.create(NOV_1_2026 + 1234).unwrap(),
            "0A000001303901020304000004D20000"
        );
        assert_eq!(
            c.create(NOV_1_2026 + 1234).unwrap(),
            "0A000001303901020304000004D20001"
        );
    }

    #[test]
    fn the_counter_wraps_at_16_bits() {
        let c = MessageIdCounter::new(PREFIX, NOV_1_2026, DEC_1_2026, 0xFFFF);
        assert!(c.create(NOV_1_2026).unwrap().ends_with("FFFF"));
        assert!(c.create(NOV_1_2026).unwrap().ends_with("0000"));
    }

    #[test]
    fn many_are_as_many_creates_in_a_row() {
        let one = MessageIdCounter::new(PREFIX, NOV_1_2026, DEC_1_2026, 0xFFF0);
        let many = MessageIdCounter::new(PREFIX, NOV_1_2026, DEC_1_2026, 0xFFF0);
        let singles: Vec<String> = (0..32)
            .map(|_| one.create(NOV_1_2026 + 77).unwrap())
            .collect();
        assert_eq!(many.create_many(NOV_1_2026 + 77, 32).unwrap(), singles);
        assert_eq!(many.counter(), one.counter());
    }

    #[test]
    fn past_the_window_nothing_is_reserved_until_the_next_one() {
        let c = MessageIdCounter::new(PREFIX, NOV_1_2026, DEC_1_2026, 7);
        assert_eq!(c.create(DEC_1_2026), None);
        assert_eq!(c.create_many(DEC_1_2026 + 1, 3), None);
        assert_eq!(c.counter(), 7);
        c.set_window(DEC_1_2026, DEC_1_2026 + 31 * 86_400_000);
        assert_eq!(
            c.create(DEC_1_2026 + 5).unwrap(),
            format!("{PREFIX}000000050007")
        );
    }

    #[test]
    fn a_clock_set_back_a_little_writes_zero_and_further_back_the_int() {
        let c = MessageIdCounter::new(PREFIX, NOV_1_2026, DEC_1_2026, 0);
        assert_eq!(&c.create(NOV_1_2026 - 500).unwrap()[20..28], "00000000");
        assert_eq!(&c.create(NOV_1_2026 - 999_999).unwrap()[20..28], "00000000");
        let far = c.create(NOV_1_2026 - 1_000_000).unwrap();
        assert_eq!(&far[20..28], format!("{:08X}", (-1_000_000i64) as u32));
    }

    #[test]
    fn late_in_a_month_the_int_wraps() {
        let now = NOV_1_2026 + 29 * 86_400_000;
        let c = MessageIdCounter::new(PREFIX, NOV_1_2026, DEC_1_2026, 0);
        let id = c.create(now).unwrap();
        assert_eq!(
            u32::from_str_radix(&id[20..28], 16).unwrap(),
            (now - NOV_1_2026) as u32
        );
    }

    #[test]
    fn the_clock_reads_milliseconds_since_the_epoch() {
        let now = current_time_millis();
        assert!(now > NOV_1_2026 - 86_400_000 * 365 * 10);
    }
}
