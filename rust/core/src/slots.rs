//! An append-only array with lock-free reads: segments of doubling size, allocated on first use and
//! freed only when the array is dropped, so a `&T` stays valid while the array lives.

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

const BASE: usize = 16;
const SEGMENTS: usize = 28;

pub struct Slots<T> {
    segments: [AtomicPtr<T>; SEGMENTS],
    len: AtomicUsize,
}

// The segments are only ever shared as `&T`.
unsafe impl<T: Send + Sync> Send for Slots<T> {}
unsafe impl<T: Send + Sync> Sync for Slots<T> {}

fn locate(index: usize) -> (usize, usize) {
    let j = index / BASE + 1;
    let k = (usize::BITS - 1 - j.leading_zeros()) as usize;
    (k, index - BASE * ((1 << k) - 1))
}

fn segment_len(k: usize) -> usize {
    BASE << k
}

impl<T: Default> Slots<T> {
    pub fn new() -> Self {
        Slots {
            segments: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())),
            len: AtomicUsize::new(0),
        }
    }

    /// One past the highest index ever created.
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The slot at `index`, if its segment exists.
    pub fn get(&self, index: usize) -> Option<&T> {
        let (k, off) = locate(index);
        if k >= SEGMENTS {
            return None;
        }
        let seg = self.segments[k].load(Ordering::Acquire);
        if seg.is_null() {
            None
        } else {
            // SAFETY: `off < segment_len(k)` by construction of `locate`, and the segment lives
            // until `self` is dropped.
            Some(unsafe { &*seg.add(off) })
        }
    }

    /// The slot at `index`, creating its segment if needed.
    pub fn get_or_create(&self, index: usize) -> &T {
        let (k, off) = locate(index);
        assert!(k < SEGMENTS, "slot index {index} out of range");
        let mut seg = self.segments[k].load(Ordering::Acquire);
        if seg.is_null() {
            let fresh: Box<[T]> = (0..segment_len(k)).map(|_| T::default()).collect();
            let fresh = Box::into_raw(fresh) as *mut T;
            match self.segments[k].compare_exchange(
                ptr::null_mut(),
                fresh,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => seg = fresh,
                Err(existing) => {
                    // SAFETY: `fresh` came from `Box::into_raw` of a slice of this length and was
                    // never shared.
                    drop(unsafe {
                        Box::from_raw(ptr::slice_from_raw_parts_mut(fresh, segment_len(k)))
                    });
                    seg = existing;
                }
            }
        }
        self.len.fetch_max(index + 1, Ordering::AcqRel);
        // SAFETY: as in `get`.
        unsafe { &*seg.add(off) }
    }
}

impl<T: Default> Default for Slots<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Drop for Slots<T> {
    fn drop(&mut self) {
        for (k, seg) in self.segments.iter_mut().enumerate() {
            let p = *seg.get_mut();
            if !p.is_null() {
                // SAFETY: every non-null segment came from `Box::into_raw` of `segment_len(k)` items.
                drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(p, segment_len(k))) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn locate_covers_every_index_once() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..10_000 {
            let (k, off) = locate(i);
            assert!(off < segment_len(k));
            assert!(seen.insert((k, off)));
        }
    }

    #[test]
    fn slots_are_stable_and_shared() {
        let s: Slots<AtomicU64> = Slots::new();
        assert!(s.get(5).is_none());
        s.get_or_create(5).store(7, Ordering::SeqCst);
        s.get_or_create(1000).store(9, Ordering::SeqCst);
        assert_eq!(s.get(5).unwrap().load(Ordering::SeqCst), 7);
        assert_eq!(s.get(1000).unwrap().load(Ordering::SeqCst), 9);
        assert_eq!(s.len(), 1001);
        std::thread::scope(|sc| {
            for t in 0..4 {
                let s = &s;
                sc.spawn(move || {
                    for i in 0..2000 {
                        s.get_or_create(i).fetch_add(t + 1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(s.get(1999).unwrap().load(Ordering::SeqCst), 10);
    }
}
