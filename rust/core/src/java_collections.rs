//! The parts of Java's collections whose behaviour leaks into routing: a map compared as `AbstractMap.equals`,
//! the iteration order of `HashMap` and `ConcurrentHashMap`, and `Arrays.sort(T[], Comparator)` on a small
//! array (which, with a comparator that is not a total order, gives an order no other sort reproduces).

use std::collections::HashMap;
use std::hash::Hash;

/// A map kept in insertion order (a later put of a key replaces its value in place) and compared as
/// `AbstractMap.equals`: same size, and every key of one maps to an equal value in the other.
#[derive(Clone, Debug)]
pub struct OrderedMap<K, V> {
    entries: Vec<(K, V)>,
    index: HashMap<K, usize>,
}

impl<K: Hash + Eq + Clone, V> Default for OrderedMap<K, V> {
    fn default() -> Self {
        OrderedMap {
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<K: Hash + Eq + Clone, V> OrderedMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn put(&mut self, k: K, v: V) {
        match self.index.get(&k) {
            Some(&i) => self.entries[i].1 = v,
            None => {
                self.index.insert(k.clone(), self.entries.len());
                self.entries.push((k, v));
            }
        }
    }

    pub fn get(&self, k: &K) -> Option<&V> {
        self.index.get(k).map(|&i| &self.entries[i].1)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Hash + Eq + Clone, V> FromIterator<(K, V)> for OrderedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = OrderedMap::new();
        for (k, v) in iter {
            m.put(k, v);
        }
        m
    }
}

impl<K: Hash + Eq + Clone, V: PartialEq> PartialEq for OrderedMap<K, V> {
    fn eq(&self, o: &Self) -> bool {
        self.len() == o.len() && self.iter().all(|(k, v)| o.get(k) == Some(v))
    }
}

impl<K: Hash + Eq + Clone, V: Eq> Eq for OrderedMap<K, V> {}

/// `HashMap.hash(key)` / `ConcurrentHashMap.spread` without the sign mask: the high half folded into the low.
fn spread(h: i32) -> u32 {
    let u = h as u32;
    u ^ (u >> 16)
}

/// The order a `new HashMap<>()` iterates keys put in the given order (distinct keys, given by their
/// `hashCode()`): by bucket of the final table (16, doubled while the size passes 3/4 of it), insertion order
/// within a bucket (a resize splits a bucket without reordering it). Tree bins (8 or more keys in one bucket
/// of a table of 64 or more) are not emulated: their order also depends on the keys' `compareTo`.
pub fn hash_map_order(hashes: &[i32]) -> Vec<usize> {
    let mut cap: usize = 16;
    while hashes.len() > cap / 4 * 3 {
        cap *= 2;
    }
    let mask = (cap - 1) as u32;
    let mut order: Vec<usize> = (0..hashes.len()).collect();
    order.sort_by_key(|&i| spread(hashes[i]) & mask);
    order
}

const TREEIFY_THRESHOLD: usize = 8;
const UNTREEIFY_THRESHOLD: usize = 6;
const MIN_TREEIFY_CAPACITY: usize = 64;

#[derive(Default, Clone)]
struct Bin {
    nodes: Vec<usize>,
    tree: bool,
}

/// The iteration order of a `new ConcurrentHashMap<>()` that distinct keys (given by their `hashCode()`) were put
/// into one after another from one thread: a table of 16 created at the first put; a new key appended to the
/// tail of its list bin, or put first in a tree bin; a list bin of 8 turned into a tree bin, or (table under 64)
/// the table grown instead; a resize when the size reaches 3/4 of the table, which moves bins from the last to
/// the first and rebuilds each list bin in two halves, each keeping its longest tail run and taking the nodes
/// before it in reverse. Iteration is bin by bin, each in node order.
pub fn concurrent_hash_map_order(hashes: &[i32]) -> Vec<usize> {
    let h = |i: usize| spread(hashes[i]) & 0x7fff_ffff;
    let mut table: Vec<Bin> = vec![Bin::default(); 16];
    let mut size_ctl: usize = 12;
    let mut size: usize = 0;

    fn transfer(table: &mut Vec<Bin>, size_ctl: &mut usize, h: &dyn Fn(usize) -> u32) {
        let n = table.len();
        let mut next = vec![Bin::default(); n * 2];
        for i in (0..n).rev() {
            let bin = std::mem::take(&mut table[i]);
            if bin.nodes.is_empty() {
                continue;
            }
            let bit = n as u32;
            let (lo, hi) = if bin.tree {
                let (lo, hi): (Vec<usize>, Vec<usize>) =
                    bin.nodes.iter().partition(|&&p| h(p) & bit == 0);
                (
                    Bin {
                        tree: lo.len() > UNTREEIFY_THRESHOLD,
                        nodes: lo,
                    },
                    Bin {
                        tree: hi.len() > UNTREEIFY_THRESHOLD,
                        nodes: hi,
                    },
                )
            } else {
                let mut run_bit = h(bin.nodes[0]) & bit;
                let mut last_run = 0;
                for (k, &p) in bin.nodes.iter().enumerate().skip(1) {
                    let b = h(p) & bit;
                    if b != run_bit {
                        run_bit = b;
                        last_run = k;
                    }
                }
                let tail = bin.nodes[last_run..].to_vec();
                let (mut lo, mut hi) = if run_bit == 0 {
                    (tail, Vec::new())
                } else {
                    (Vec::new(), tail)
                };
                for &p in &bin.nodes[..last_run] {
                    if h(p) & bit == 0 {
                        lo.insert(0, p);
                    } else {
                        hi.insert(0, p);
                    }
                }
                (
                    Bin {
                        nodes: lo,
                        tree: false,
                    },
                    Bin {
                        nodes: hi,
                        tree: false,
                    },
                )
            };
            next[i] = lo;
            next[i + n] = hi;
        }
        *table = next;
        *size_ctl = n * 2 - n / 2;
    }

    for key in 0..hashes.len() {
        let n = table.len();
        let i = (h(key) as usize) & (n - 1);
        let bin = &mut table[i];
        if bin.tree {
            bin.nodes.insert(0, key);
        } else {
            let bin_count = bin.nodes.len();
            bin.nodes.push(key);
            if bin_count >= TREEIFY_THRESHOLD {
                if n < MIN_TREEIFY_CAPACITY {
                    // tryPresize(n << 1): grow until the table's threshold covers 1.5 * 2n + 1
                    let s = n << 1;
                    let c = (s + (s >> 1) + 1).next_power_of_two();
                    while c > size_ctl {
                        transfer(&mut table, &mut size_ctl, &h);
                    }
                } else {
                    bin.tree = true;
                }
            }
        }
        size += 1;
        while size >= size_ctl {
            transfer(&mut table, &mut size_ctl, &h);
        }
    }
    table.into_iter().flat_map(|b| b.nodes).collect()
}

/// Below this length `Arrays.sort(T[], Comparator)` (TimSort) sorts by binary insertion only.
pub const MIN_MERGE: usize = 32;

/// `Arrays.sort(a, c)` for `a.len() < MIN_MERGE`, step by step as TimSort does it, so that a comparator which
/// is not a total order (an overflowing subtraction) gives Java's order: the leading run (reversed if strictly
/// descending), then each further element inserted after a binary search.
pub fn small_array_sort<T: Clone>(a: &mut [T], c: impl Fn(&T, &T) -> i32) {
    let n = a.len();
    debug_assert!(n < MIN_MERGE);
    if n < 2 {
        return;
    }
    let mut run_hi = 2;
    if c(&a[1], &a[0]) < 0 {
        while run_hi < n && c(&a[run_hi], &a[run_hi - 1]) < 0 {
            run_hi += 1;
        }
        a[..run_hi].reverse();
    } else {
        while run_hi < n && c(&a[run_hi], &a[run_hi - 1]) >= 0 {
            run_hi += 1;
        }
    }
    for start in run_hi..n {
        let pivot = a[start].clone();
        let (mut left, mut right) = (0, start);
        while left < right {
            let mid = (left + right) >> 1;
            if c(&pivot, &a[mid]) < 0 {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        a[left..=start].rotate_right(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::string_hash;

    #[test]
    fn maps_compare_as_sets_of_entries() {
        let a: OrderedMap<i64, &str> = [(0, "x"), (1, "y")].into_iter().collect();
        let b: OrderedMap<i64, &str> = [(1, "y"), (0, "x")].into_iter().collect();
        let c: OrderedMap<i64, &str> = [(0, "x")].into_iter().collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut d = b.clone();
        d.put(1, "z");
        assert_eq!(d.iter().map(|(k, _)| *k).collect::<Vec<_>>(), [1, 0]);
        assert_ne!(a, d);
    }

    #[test]
    fn hash_map_order_is_by_bucket_then_insertion() {
        let keys = ["broker-b", "broker-a"];
        let hashes: Vec<i32> = keys.iter().map(|k| string_hash(k)).collect();
        let order = hash_map_order(&hashes);
        let buckets: Vec<u32> = order.iter().map(|&i| spread(hashes[i]) & 15).collect();
        assert!(buckets.windows(2).all(|w| w[0] <= w[1]));
        // 0 and 16 share bucket 0 of 16: insertion order
        assert_eq!(hash_map_order(&[16, 0, 1]), [0, 1, 2]);
        // 13 keys grow the table to 32: 16 moves behind 1
        let mut many: Vec<i32> = vec![16, 0];
        many.extend(1..12);
        let order = hash_map_order(&many);
        assert_eq!(order[0], 1); // 0 in bucket 0
        assert_eq!(*order.last().unwrap(), 0); // 16 in bucket 16, after 11
    }

    #[test]
    fn concurrent_hash_map_resizes_at_three_quarters_and_reverses_the_head_of_a_bin() {
        // keys 0, 16, 32 share bin 0 of 16; 12 keys trigger the resize to 32, where 0 and 32 stay in bin 0
        // and 16 goes to bin 16. The bin [0, 16, 32] has its last run at 32 (bit 16 of 32 is 0, of 16 it is 1):
        // lo = [32] then 0 put before it -> [0, 32]; hi = [16].
        let mut hashes = vec![0, 16, 32];
        hashes.extend(1..10); // 12 keys in all
        let order = concurrent_hash_map_order(&hashes);
        assert_eq!(&order[..2], &[0, 2]);
        assert_eq!(order.len(), 12);
        // without a resize, bins in index order, insertion order inside
        assert_eq!(concurrent_hash_map_order(&[16, 0, 1]), [0, 1, 2]);
    }

    #[test]
    fn small_sort_matches_a_stable_sort_for_a_total_order() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        small_array_sort(&mut v, |x, y| x.0 - y.0);
        assert_eq!(v, [(1, 'b'), (1, 'e'), (2, 'd'), (3, 'a'), (3, 'c')]);
        let mut d = vec![5, 4, 3, 2, 1];
        small_array_sort(&mut d, |x, y| x - y);
        assert_eq!(d, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn small_sort_follows_timsort_for_an_overflowing_comparator() {
        // (int)(e2 - e1) descending: 0 vs 2^32 compares equal, 2^31 vs 0 compares "smaller" both ways
        let c = |a: &i64, b: &i64| b.wrapping_sub(*a) as i32;
        let mut v = vec![0i64, 1 << 32, 1 << 31];
        small_array_sort(&mut v, c);
        // run: c(2^32, 0) = 0 -> ascending run [0, 2^32]; c(2^31, 2^32) = (int)(2^31) < 0 -> stop.
        // insert 2^31: mid 1 -> c(2^31, 2^32) < 0 -> right 1; mid 0 -> c(2^31, 0) = (int)(-2^31) < 0 -> right 0
        assert_eq!(v, [1 << 31, 0, 1 << 32]);
    }
}
