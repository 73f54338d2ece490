//! A push consumer's cache of one queue: everything Java's `ProcessQueue` keeps behind its lock. The messages
//! pulled and not consumed (`msgTreeMap`), those taken for orderly consumption and not committed
//! (`consumingMsgOrderlyTreeMap`), the counts pull flow control reads (`msgCount`, `msgSize`), the offset of the
//! last message added (`queueOffsetMax`) and whether a consume request is running (`consuming`).
//!
//! Every operation is one method here, so a binding holds its lock over one call and runs no other code under
//! it. The arithmetic is Java's, quirks included: both counts cover both maps (a taken message stays counted
//! until [`QueueCache::commit`]), a duplicate offset replaces the cached value without being counted again, a
//! removal counts the sizes of the messages it was given, and `queueOffsetMax` is the last offset added, not the
//! largest. Long arithmetic wraps as Java's does.
//!
//! Generic over the cached value (a Python message in the bindings); values that leave the cache go to a
//! `released` vector, for the caller to let go of after unlocking.

use crate::offset_map::OffsetMap;

/// The whole state at once, for `fillProcessQueueInfo` and a printout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheState {
    pub count: i64,
    pub size: i64,
    pub offset_max: i64,
    pub consuming: bool,
    pub cached: usize,
    pub cached_first: Option<i64>,
    pub cached_last: Option<i64>,
    pub taken: usize,
    pub taken_first: Option<i64>,
    pub taken_last: Option<i64>,
}

/// See the module.
#[derive(Debug, Clone)]
pub struct QueueCache<T> {
    cached: OffsetMap<T>,
    taken: OffsetMap<T>,
    count: i64,
    size: i64,
    offset_max: i64,
    consuming: bool,
}

impl<T> Default for QueueCache<T> {
    fn default() -> Self {
        QueueCache {
            cached: OffsetMap::new(),
            taken: OffsetMap::new(),
            count: 0,
            size: 0,
            offset_max: 0,
            consuming: false,
        }
    }
}

fn long(n: u64) -> i64 {
    n as i64 // Java's long: a size past i64::MAX wraps, as addAndGet would
}

impl<T> QueueCache<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// `msgCount`: the messages cached, counting those taken and not committed.
    pub fn count(&self) -> i64 {
        self.count
    }

    /// `msgSize`: their total body size, as [`QueueCache::count`] counts them.
    pub fn size(&self) -> i64 {
        self.size
    }

    /// `queueOffsetMax`: the offset of the last message [`QueueCache::put`] added; 0 at first and after a clear.
    pub fn offset_max(&self) -> i64 {
        self.offset_max
    }

    /// `consuming`: set by a put that asks for a consume request, cleared by a take that found nothing.
    pub fn consuming(&self) -> bool {
        self.consuming
    }

    /// How many messages are cached, not counting those taken.
    pub fn cached_len(&self) -> usize {
        self.cached.len()
    }

    /// Whether `offset` is cached (not counting taken messages: `containsMessage`).
    pub fn contains(&self, offset: i64) -> bool {
        self.cached.contains(offset)
    }

    /// The cached message with the lowest offset (`cleanExpiredMsg` looks at it).
    pub fn first(&self) -> Option<&T> {
        self.cached.first().map(|(_, v)| v)
    }

    /// `getMaxSpan`: the last cached offset minus the first, 0 when none is cached.
    pub fn max_span(&self) -> i64 {
        match (self.cached.first_key(), self.cached.last_key()) {
            (Some(first), Some(last)) => last.wrapping_sub(first),
            _ => 0,
        }
    }

    pub fn state(&self) -> CacheState {
        CacheState {
            count: self.count,
            size: self.size,
            offset_max: self.offset_max,
            consuming: self.consuming,
            cached: self.cached.len(),
            cached_first: self.cached.first_key(),
            cached_last: self.cached.last_key(),
            taken: self.taken.len(),
            taken_first: self.taken.first_key(),
            taken_last: self.taken.last_key(),
        }
    }

    /// `putMessage`: each `(offset, size, value)` cached; a new offset is counted and becomes `queueOffsetMax`.
    /// Returns whether the caller should dispatch a consume request: something is cached and none was running
    /// (which sets `consuming`).
    pub fn put<I>(&mut self, items: I, released: &mut Vec<T>) -> bool
    where
        I: IntoIterator<Item = (i64, u64, T)>,
    {
        let done = self.cached.put_all(items, released);
        if let Some(last) = done.last_added {
            self.offset_max = last;
        }
        self.size = self.size.wrapping_add(long(done.size));
        self.count = self.count.wrapping_add(long(done.added));
        let dispatch = !self.cached.is_empty() && !self.consuming;
        if dispatch {
            self.consuming = true;
        }
        dispatch
    }

    /// `removeMessage`: each `(offset, size)` removed when cached, uncounted with the size given. Returns the
    /// offset the consumer may commit: the first offset still cached, `queueOffsetMax + 1` when none is, or -1
    /// when the cache was empty (nothing changes then).
    pub fn remove<I>(&mut self, items: I, released: &mut Vec<T>) -> i64
    where
        I: IntoIterator<Item = (i64, u64)>,
    {
        if self.cached.is_empty() {
            return -1;
        }
        let done = self.cached.remove_all(items, released);
        self.size = self.size.wrapping_sub(long(done.size));
        self.count = self.count.wrapping_sub(long(done.removed));
        if self.count == 0 {
            self.size = 0;
        }
        done.first_left
            .unwrap_or_else(|| self.offset_max.wrapping_add(1))
    }

    /// `takeMessages`: up to `n` messages, lowest offsets first, move from the cache to the taken map, each
    /// handed to `each` in order. Returns how many; when none, `consuming` is cleared.
    pub fn take(&mut self, n: usize, mut each: impl FnMut(&T)) -> usize {
        let mut moved = 0;
        while moved < n {
            let Some((offset, value)) = self.cached.poll_first() else {
                break;
            };
            each(&value);
            self.taken.put(offset, value);
            moved += 1;
        }
        if moved == 0 {
            self.consuming = false;
        }
        moved
    }

    /// The taken messages in offset order: a commit's caller reads their sizes from them first.
    pub fn taken_values(&self) -> impl Iterator<Item = &T> {
        self.taken.iter().map(|(_, v)| v)
    }

    /// `commit`: the taken messages are consumed. They are uncounted (`taken_size`: their total body size, read
    /// by the caller from [`QueueCache::taken_values`]; not subtracted when the count reaches 0, where the size is
    /// reset), the taken map empties, and the offset to commit is returned: the last taken + 1; -1 when nothing
    /// was taken (Java's `lastKey` would throw; nothing changes).
    pub fn commit(&mut self, taken_size: u64, released: &mut Vec<T>) -> i64 {
        let Some(last) = self.taken.last_key() else {
            return -1;
        };
        self.count = self.count.wrapping_sub(long(self.taken.len() as u64));
        if self.count == 0 {
            self.size = 0;
        } else {
            self.size = self.size.wrapping_sub(long(taken_size));
        }
        released.extend(self.taken.take_all());
        last.wrapping_add(1)
    }

    /// `rollback`: every taken message back in the cache (replacing one cached at its offset); counts unchanged.
    pub fn rollback(&mut self, released: &mut Vec<T>) {
        while let Some((offset, value)) = self.taken.poll_first() {
            released.extend(self.cached.put(offset, value));
        }
    }

    /// `makeMessageToConsumeAgain`: each `(offset, value)` leaves the taken map and is cached (even one that was
    /// not taken); counts unchanged.
    pub fn make_again<I>(&mut self, items: I, released: &mut Vec<T>)
    where
        I: IntoIterator<Item = (i64, T)>,
    {
        for (offset, value) in items {
            released.extend(self.taken.remove(offset));
            released.extend(self.cached.put(offset, value));
        }
    }

    /// `clear`: both maps empty, the counts and `queueOffsetMax` 0 (`consuming` as it was, as in Java).
    pub fn clear(&mut self, released: &mut Vec<T>) {
        released.extend(self.cached.take_all());
        released.extend(self.taken.take_all());
        self.count = 0;
        self.size = 0;
        self.offset_max = 0;
    }

    /// Every value held, cached then taken (for a garbage collector's traversal).
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.cached.iter().chain(self.taken.iter()).map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(c: &mut QueueCache<i64>, items: &[(i64, u64)]) -> bool {
        let mut released = Vec::new();
        c.put(items.iter().map(|&(o, s)| (o, s, o)), &mut released)
    }

    fn remove(c: &mut QueueCache<i64>, items: &[(i64, u64)]) -> i64 {
        let mut released = Vec::new();
        c.remove(items.iter().copied(), &mut released)
    }

    #[test]
    fn put_counts_new_offsets_and_dispatches_once() {
        let mut c = QueueCache::new();
        assert!(put(&mut c, &[(5, 10), (6, 20)]));
        assert!(!put(&mut c, &[(6, 99), (7, 1)])); // 6 replaced, not counted; consuming already
        assert_eq!((c.count(), c.size(), c.offset_max()), (3, 31, 7));
        assert!(c.consuming());
    }

    #[test]
    fn remove_answers_the_offset_to_commit() {
        let mut c = QueueCache::new();
        assert_eq!(remove(&mut c, &[(1, 1)]), -1); // empty
        put(&mut c, &[(3, 2), (1, 2), (2, 2)]); // out of order: offset_max is the last added, 2
        assert_eq!(remove(&mut c, &[(1, 5)]), 2); // the size given is what is uncounted
        assert_eq!((c.count(), c.size()), (2, 1));
        assert_eq!(remove(&mut c, &[(2, 2), (3, 2), (3, 2)]), 3); // empty: offset_max + 1; size reset at 0
        assert_eq!((c.count(), c.size()), (0, 0));
    }

    #[test]
    fn an_orderly_cycle_take_commit_rollback_again() {
        let mut c = QueueCache::new();
        put(&mut c, &[(1, 1), (2, 1), (3, 1)]);
        let mut seen = Vec::new();
        assert_eq!(c.take(2, |v| seen.push(*v)), 2);
        assert_eq!(seen, vec![1, 2]);
        assert_eq!((c.count(), c.cached_len(), c.state().taken), (3, 1, 2));
        let mut released = Vec::new();
        c.rollback(&mut released);
        assert_eq!((c.cached_len(), c.state().taken), (3, 0));
        c.take(2, |_| {});
        c.make_again([(2, 2)], &mut released);
        assert_eq!(c.state().taken_first, Some(1));
        assert_eq!(c.commit(1, &mut released), 2);
        assert_eq!((c.count(), c.size()), (2, 2));
        assert_eq!(c.commit(0, &mut released), -1);
        c.take(5, |_| {});
        assert_eq!(c.take(5, |_| {}), 0);
        assert!(!c.consuming()); // a take that found nothing
        assert_eq!(c.commit(2, &mut released), 4);
        assert_eq!((c.count(), c.size()), (0, 0));
    }

    #[test]
    fn clear_keeps_consuming() {
        let mut c = QueueCache::new();
        put(&mut c, &[(1, 1)]);
        c.take(1, |_| {});
        put(&mut c, &[(2, 1)]);
        let mut released = Vec::new();
        c.clear(&mut released);
        released.sort();
        assert_eq!(released, vec![1, 2]);
        assert_eq!(
            c.state(),
            CacheState {
                consuming: true,
                ..CacheState::default()
            }
        );
    }
}
