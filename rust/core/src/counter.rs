//! `sendWhichQueue`: the round-robin index with `ThreadLocalIndex`'s arithmetic, as one lock-free
//! atomic shared by all threads (Java keeps one per thread; the arithmetic is the same).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

use crate::compat::Compat;
use crate::java::{abs, JavaRandom};

pub const POSITIVE_MASK: i32 = 0x7FFF_FFFF;

#[derive(Debug)]
pub struct SendWhichQueue {
    compat: Compat,
    value: AtomicI32,
    ready: AtomicBool,
    first_draw: Mutex<()>,
    random: Arc<JavaRandom>,
}

impl SendWhichQueue {
    pub fn new(compat: Compat, start: Option<i32>, random: Arc<JavaRandom>) -> Self {
        SendWhichQueue {
            compat,
            value: AtomicI32::new(start.unwrap_or(0)),
            ready: AtomicBool::new(start.is_some()),
            first_draw: Mutex::new(()),
            random,
        }
    }

    pub fn with_entropy(compat: Compat) -> Self {
        Self::new(compat, None, Arc::new(JavaRandom::from_entropy()))
    }

    pub fn compat(&self) -> Compat {
        self.compat
    }

    pub fn random(&self) -> &Arc<JavaRandom> {
        &self.random
    }

    #[cold]
    fn first_value(&self) {
        let _guard = self.first_draw.lock().unwrap_or_else(|e| e.into_inner());
        if !self.ready.load(Ordering::Acquire) {
            let mut v = self.random.next_int();
            if self.compat == Compat::V4_9 {
                v = abs(v);
            }
            self.value.store(v, Ordering::Release);
            self.ready.store(true, Ordering::Release);
        }
    }

    /// `incrementAndGet()`: store `stored + 1` (wrapping) and return it masked to be non-negative.
    #[inline]
    pub fn increment_and_get(&self) -> i32 {
        if !self.ready.load(Ordering::Acquire) {
            self.first_value();
        }
        self.value.fetch_add(1, Ordering::AcqRel).wrapping_add(1) & POSITIVE_MASK
    }

    /// Advances by `count` steps at once and returns the stored value before them: the values
    /// `increment_and_get` would have returned are `(before + 1 + i) & 0x7FFFFFFF` for `i < count`.
    pub fn advance(&self, count: u64) -> i32 {
        if !self.ready.load(Ordering::Acquire) {
            self.first_value();
        }
        self.value.fetch_add(count as i32, Ordering::AcqRel)
    }

    /// Fills `out` with the next `out.len()` values of `increment_and_get` (each `% modulus` when given,
    /// which must be positive: the positions `TopicPublishInfo` takes), advancing once by all of them. An
    /// empty `out` leaves the counter as it is (no first draw either).
    pub fn next_values(&self, out: &mut [i32], modulus: Option<i32>) {
        if out.is_empty() {
            return;
        }
        let mut v = self.advance(out.len() as u64);
        for o in out.iter_mut() {
            v = v.wrapping_add(1);
            let x = v & POSITIVE_MASK;
            *o = match modulus {
                Some(n) => x % n,
                None => x,
            };
        }
    }

    /// One call's turn of `count` values: the values `increment_and_get` would return next are offered
    /// to `accept(i, value)` in order until it takes one. The turn is claimed in one atomic step, so no
    /// other thread's call takes values out of the middle of it (Java's index is per thread: each call
    /// sees a full turn); the values after the taken one are given back when no other call came since,
    /// so a single thread moves the index exactly as Java does.
    pub fn take_turn<E>(
        &self,
        count: usize,
        mut accept: impl FnMut(usize, i32) -> Result<bool, E>,
    ) -> Result<Option<i32>, E> {
        let claimed = count as i32;
        let before = self.advance(count as u64);
        let mut used = count;
        let mut taken = Ok(None);
        for i in 0..count {
            let value = before.wrapping_add(1 + i as i32) & POSITIVE_MASK;
            match accept(i, value) {
                Ok(false) => continue,
                Ok(true) => taken = Ok(Some(value)),
                Err(e) => taken = Err(e),
            }
            used = i + 1;
            break;
        }
        if used < count {
            let _ = self.value.compare_exchange(
                before.wrapping_add(claimed),
                before.wrapping_add(used as i32),
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
        }
        taken
    }

    /// 5.x `reset()`: store `Math.abs(random.nextInt(Integer.MAX_VALUE))`.
    pub fn reset(&self) {
        let v = abs(self
            .random
            .next_int_bounded(i32::MAX)
            .expect("i32::MAX is a positive bound"));
        self.value.store(v, Ordering::Release);
        self.ready.store(true, Ordering::Release);
    }

    /// The stored value (`None` before the first draw).
    pub fn get(&self) -> Option<i32> {
        if self.ready.load(Ordering::Acquire) {
            Some(self.value.load(Ordering::Acquire))
        } else {
            None
        }
    }

    /// Forces the stored value.
    pub fn set(&self, value: i32) {
        self.value.store(value, Ordering::Release);
        self.ready.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_and_masks_like_thread_local_index() {
        let c = SendWhichQueue::new(Compat::V5_3, Some(i32::MAX), Arc::new(JavaRandom::new(1)));
        assert_eq!(c.increment_and_get(), 0);
        assert_eq!(c.get(), Some(i32::MIN));
        assert_eq!(c.increment_and_get(), 1);
        assert_eq!(c.get(), Some(i32::MIN + 1));
    }

    #[test]
    fn first_value_per_profile() {
        // new Random(0).nextInt() == -1155484576: 5.x starts there, 4.9 from its abs.
        let c5 = SendWhichQueue::new(Compat::V5_3, None, Arc::new(JavaRandom::new(0)));
        assert_eq!(c5.get(), None);
        assert_eq!(c5.increment_and_get(), (-1155484576i32 + 1) & POSITIVE_MASK);
        let c4 = SendWhichQueue::new(Compat::V4_9, None, Arc::new(JavaRandom::new(0)));
        assert_eq!(c4.increment_and_get(), 1155484577);
    }

    #[test]
    fn advance_is_count_increments() {
        let a = SendWhichQueue::new(
            Compat::V5_3,
            Some(i32::MAX - 1),
            Arc::new(JavaRandom::new(3)),
        );
        let b = SendWhichQueue::new(
            Compat::V5_3,
            Some(i32::MAX - 1),
            Arc::new(JavaRandom::new(3)),
        );
        let before = a.advance(5);
        let picks: Vec<i32> = (0..5).map(|_| b.increment_and_get()).collect();
        let batch: Vec<i32> = (0..5)
            .map(|i| before.wrapping_add(1 + i) & POSITIVE_MASK)
            .collect();
        assert_eq!(picks, batch);
        assert_eq!(a.get(), b.get());
    }

    #[test]
    fn next_values_are_the_next_picks_modulo() {
        let new = || {
            SendWhichQueue::new(
                Compat::V5_3,
                Some(i32::MAX - 2),
                Arc::new(JavaRandom::new(3)),
            )
        };
        let (a, b) = (new(), new());
        let mut out = [0; 6];
        a.next_values(&mut out, Some(4));
        let picks: Vec<i32> = (0..6).map(|_| b.increment_and_get() % 4).collect();
        assert_eq!(out.to_vec(), picks);
        assert_eq!(a.get(), b.get());
        a.next_values(&mut out, None);
        let picks: Vec<i32> = (0..6).map(|_| b.increment_and_get()).collect();
        assert_eq!(out.to_vec(), picks);
        let unseeded = SendWhichQueue::new(Compat::V5_3, None, Arc::new(JavaRandom::new(3)));
        unseeded.next_values(&mut [], Some(4));
        assert_eq!(unseeded.get(), None); // nothing drawn
    }

    #[test]
    fn a_turn_moves_the_index_as_far_as_java_and_is_never_split() {
        let c = SendWhichQueue::new(
            Compat::V5_3,
            Some(i32::MAX - 2),
            Arc::new(JavaRandom::new(3)),
        );
        let mut seen = vec![];
        let got = c.take_turn::<()>(5, |i, v| {
            seen.push((i, v));
            Ok(i == 3)
        });
        assert_eq!(got, Ok(Some(1)));
        let expected: Vec<(usize, i32)> = (0..4)
            .map(|i| (i, (i32::MAX - 2).wrapping_add(1 + i as i32) & POSITIVE_MASK))
            .collect();
        assert_eq!(seen, expected);
        assert_eq!(c.get(), Some((i32::MAX - 2).wrapping_add(4)));
        assert_eq!(c.take_turn::<()>(3, |_, _| Ok(false)), Ok(None));
        assert_eq!(c.get(), Some((i32::MAX - 2).wrapping_add(7)));
        assert_eq!(
            c.take_turn(3, |i, _| if i == 1 { Err("x") } else { Ok(false) }),
            Err("x")
        );
        assert_eq!(c.get(), Some((i32::MAX - 2).wrapping_add(9)));
        // 4 threads, turns of 16 that accept only the last value: each call sees 16 consecutive values
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..2000 {
                        let mut first = None;
                        let got = c
                            .take_turn::<()>(16, |i, v| {
                                let f = *first.get_or_insert(v);
                                assert_eq!(v, f.wrapping_add(i as i32) & POSITIVE_MASK);
                                Ok(i == 15)
                            })
                            .unwrap();
                        assert!(got.is_some());
                    }
                });
            }
        });
    }

    #[test]
    fn no_lost_increments_across_threads() {
        let c = SendWhichQueue::new(Compat::V5_3, Some(0), Arc::new(JavaRandom::new(3)));
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..10_000 {
                        c.increment_and_get();
                    }
                });
            }
        });
        assert_eq!(c.get(), Some(40_000));
    }
}
