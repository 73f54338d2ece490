//! A push consumer's cache of one queue's messages by queue offset: the `TreeMap<Long, MessageExt>` that Java's
//! `ProcessQueue` keeps (`msgTreeMap`, and `consumingMsgOrderlyTreeMap` for orderly consumption), with the two
//! batch operations it runs once per pull and once per listener call.
//!
//! Generic over the cached value (a Python message in the bindings): the map only orders and counts. The counts
//! follow Java's `putMessage` and `removeMessage`: a duplicate offset replaces the cached value without being
//! counted again, and a removal counts the sizes of the messages it was given that were cached.

use std::collections::BTreeMap;

/// What [`OffsetMap::put_all`] did: how many offsets were new, their total size, and the last new offset (Java's
/// `queueOffsetMax` moves to it; `None` when every offset was cached already).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PutAll {
    pub added: u64,
    pub size: u64,
    pub last_added: Option<i64>,
}

/// What [`OffsetMap::remove_all`] did: how many of the offsets were cached (and are gone), the total size the
/// caller gave for those, and the first offset still cached afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RemoveAll {
    pub removed: u64,
    pub size: u64,
    pub first_left: Option<i64>,
}

/// Values by offset, in ascending offset order.
#[derive(Debug, Clone)]
pub struct OffsetMap<T> {
    entries: BTreeMap<i64, T>,
}

impl<T> Default for OffsetMap<T> {
    fn default() -> Self {
        OffsetMap {
            entries: BTreeMap::new(),
        }
    }
}

impl<T> OffsetMap<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn contains(&self, offset: i64) -> bool {
        self.entries.contains_key(&offset)
    }

    pub fn get(&self, offset: i64) -> Option<&T> {
        self.entries.get(&offset)
    }

    /// Java's `put`: the value cached at `offset` before (replaced), or `None`.
    pub fn put(&mut self, offset: i64, value: T) -> Option<T> {
        self.entries.insert(offset, value)
    }

    /// Java's `remove`: the value cached at `offset` (taken out), or `None`.
    pub fn remove(&mut self, offset: i64) -> Option<T> {
        self.entries.remove(&offset)
    }

    /// `putMessage`'s loop: each `(offset, size, value)` cached in order; the values replaced go to `replaced`
    /// (for the caller to release, e.g. outside a lock).
    pub fn put_all<I>(&mut self, items: I, replaced: &mut Vec<T>) -> PutAll
    where
        I: IntoIterator<Item = (i64, u64, T)>,
    {
        let mut done = PutAll::default();
        for (offset, size, value) in items {
            match self.entries.insert(offset, value) {
                Some(old) => replaced.push(old),
                None => {
                    done.added += 1;
                    done.size += size;
                    done.last_added = Some(offset);
                }
            }
        }
        done
    }

    /// `removeMessage`'s loop: each `(offset, size)` removed when cached, its size counted then; the values
    /// removed go to `removed`.
    pub fn remove_all<I>(&mut self, items: I, removed: &mut Vec<T>) -> RemoveAll
    where
        I: IntoIterator<Item = (i64, u64)>,
    {
        let mut done = RemoveAll::default();
        for (offset, size) in items {
            if let Some(value) = self.entries.remove(&offset) {
                removed.push(value);
                done.removed += 1;
                done.size += size;
            }
        }
        done.first_left = self.first_key();
        done
    }

    pub fn first_key(&self) -> Option<i64> {
        self.entries.keys().next().copied()
    }

    pub fn last_key(&self) -> Option<i64> {
        self.entries.keys().next_back().copied()
    }

    /// The first value, if any.
    pub fn first(&self) -> Option<(i64, &T)> {
        self.entries.iter().next().map(|(k, v)| (*k, v))
    }

    /// Java's `pollFirstEntry`.
    pub fn poll_first(&mut self) -> Option<(i64, T)> {
        self.entries.pop_first()
    }

    /// The entries in ascending offset order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (i64, &T)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    /// Empties the map, giving the values back in offset order.
    pub fn take_all(&mut self) -> Vec<T> {
        std::mem::take(&mut self.entries).into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_all_counts_new_offsets_only_and_hands_back_the_replaced() {
        let mut map = OffsetMap::new();
        let mut replaced = Vec::new();
        let done = map.put_all([(5, 10, "a"), (6, 20, "b")], &mut replaced);
        assert_eq!(
            done,
            PutAll {
                added: 2,
                size: 30,
                last_added: Some(6)
            }
        );
        let done = map.put_all([(6, 99, "b2"), (4, 7, "c"), (5, 1, "a2")], &mut replaced);
        assert_eq!(
            done,
            PutAll {
                added: 1,
                size: 7,
                last_added: Some(4)
            }
        );
        assert_eq!(replaced, ["b", "a"]);
        assert_eq!(
            map.iter().collect::<Vec<_>>(),
            [(4, &"c"), (5, &"a2"), (6, &"b2")]
        );
        let done = map.put_all([(4, 1, "c3")], &mut replaced);
        assert_eq!(
            done,
            PutAll {
                added: 0,
                size: 0,
                last_added: None
            }
        );
    }

    #[test]
    fn remove_all_counts_the_given_sizes_of_cached_offsets() {
        let mut map = OffsetMap::new();
        map.put_all([(1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z')], &mut Vec::new());
        let mut removed = Vec::new();
        let done = map.remove_all([(2, 50), (9, 70), (1, 5)], &mut removed);
        assert_eq!(
            done,
            RemoveAll {
                removed: 2,
                size: 55,
                first_left: Some(3)
            }
        );
        assert_eq!(removed, ['y', 'x']);
        let done = map.remove_all([(3, 0)], &mut removed);
        assert_eq!(
            done,
            RemoveAll {
                removed: 1,
                size: 0,
                first_left: None
            }
        );
        assert!(map.is_empty());
    }

    #[test]
    fn ordered_access() {
        let mut map = OffsetMap::new();
        assert_eq!(
            (map.first_key(), map.last_key(), map.poll_first()),
            (None, None, None)
        );
        for k in [7, -3, 12, 0] {
            assert_eq!(map.put(k, k * 10), None);
        }
        assert_eq!(map.put(7, 71), Some(70));
        assert_eq!(
            (map.first_key(), map.last_key(), map.len()),
            (Some(-3), Some(12), 4)
        );
        assert_eq!(map.first(), Some((-3, &-30)));
        assert_eq!(map.poll_first(), Some((-3, -30)));
        assert_eq!(map.remove(12), Some(120));
        assert_eq!(map.remove(12), None);
        assert!(map.contains(0) && !map.contains(12));
        assert_eq!(map.get(7), Some(&71));
        assert_eq!(map.take_all(), [0, 71]);
        assert!(map.is_empty());
    }
}
