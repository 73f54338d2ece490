//! The parts of Java's collections whose behaviour leaks into routing: a map compared as `AbstractMap.equals`,
//! the iteration order of `HashMap` and `ConcurrentHashMap`, and `Arrays.sort(T[], Comparator)` on a small
//! array (which, with a comparator that is not a total order, gives an order no other sort reproduces).

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use crate::error::{JavaError, JavaResult};

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
/// `hashCode()`): by bucket of the final table, insertion order within a bucket (a resize splits a bucket
/// without reordering it). The table starts at 16 and doubles when the size passes 3/4 of it, and also when a
/// bucket reaches 9 keys while the table is under 64 (`treeifyBin` resizes instead of treeifying). At 64 and
/// more such a bucket becomes a red-black tree bin, whose order depends on the keys' `compareTo`: not
/// emulated, an `IllegalArgument` naming `what` (it takes 9 keys that agree in their low 6+ hash bits).
pub fn hash_map_order(hashes: &[i32], what: &str) -> JavaResult<Vec<usize>> {
    let mut cap: usize = 16;
    let mut threshold: usize = 12;
    let mut counts = vec![0usize; cap];
    for (n, h) in hashes.iter().enumerate() {
        let i = (spread(*h) as usize) & (cap - 1);
        counts[i] += 1;
        let mut shift = 0;
        if counts[i] > TREEIFY_THRESHOLD {
            if cap >= MIN_TREEIFY_CAPACITY {
                return Err(JavaError::IllegalArgument(format!(
                    "{what}: {} keys in one bin of a {cap}-bin java.util.HashMap; Java's tree-bin iteration \
                     order is not reproduced",
                    counts[i]
                )));
            }
            shift += 1;
        }
        if n + 1 > threshold << shift {
            shift += 1;
        }
        if shift > 0 {
            cap <<= shift;
            threshold <<= shift;
            counts = vec![0; cap];
            for h2 in &hashes[..=n] {
                counts[(spread(*h2) as usize) & (cap - 1)] += 1;
            }
        }
    }
    let mask = (cap - 1) as u32;
    let mut order: Vec<usize> = (0..hashes.len()).collect();
    order.sort_by_key(|&i| spread(hashes[i]) & mask);
    Ok(order)
}

const TREEIFY_THRESHOLD: usize = 8;
const UNTREEIFY_THRESHOLD: usize = 6;
const MIN_TREEIFY_CAPACITY: usize = 64;

#[derive(Default, Clone)]
struct Bin {
    /// (key, spread hash) in node order
    nodes: Vec<(usize, u32)>,
    tree: bool,
}

/// The iteration order of a `new ConcurrentHashMap<>()` filled from one thread, `putVal`, `treeifyBin`,
/// `tryPresize`, `addCount` and `transfer` step by step. Keys are numbers given by the caller (the same number
/// is the same key: a put of it again replaces the value in place), each with its `hashCode()`.
///
/// - A table of 16 bins (`sizeCtl` 12) is doubled when the size reaches `sizeCtl` (then 3/4 of the new size).
/// - A new key goes to the tail of a list bin, or first in a tree bin (`TreeBin.first`).
/// - A list bin that held 8 or more nodes before the put, or whose replaced key was 8th or later, is treeified;
///   under 64 bins `tryPresize(n << 1)` grows the table instead, doubling it while `tableSizeFor(3n + 1)`
///   exceeds `sizeCtl` (16 bins become 128).
/// - `transfer` splits a list bin as Java does: the last run of nodes that go the same way moves whole, the
///   nodes before it are prepended one by one (so their order reverses); a tree bin splits in order, a half
///   of 6 nodes or fewer becoming a list.
/// - Iteration walks the bins in index order, each in node order.
pub struct ConcurrentHashMapOrder {
    table: Vec<Bin>,
    size_ctl: usize,
    size: usize,
    /// the keys put so far (keys are never removed)
    present: HashSet<usize>,
}

impl Default for ConcurrentHashMapOrder {
    fn default() -> Self {
        Self::new()
    }
}

impl ConcurrentHashMapOrder {
    pub fn new() -> Self {
        ConcurrentHashMapOrder {
            table: vec![Bin::default(); 16],
            size_ctl: 12,
            size: 0,
            present: HashSet::new(),
        }
    }

    /// `put(key, value)` of the key numbered `key` whose `hashCode()` is `hash`.
    pub fn put(&mut self, key: usize, hash: i32) {
        let h = spread(hash) & 0x7fff_ffff;
        let n = self.table.len();
        let i = (h as usize) & (n - 1);
        if self.present.contains(&key) {
            let bin = &self.table[i];
            if !bin.tree {
                let at = bin
                    .nodes
                    .iter()
                    .position(|&(k, _)| k == key)
                    .expect("a present key is in its bin");
                if at + 1 >= TREEIFY_THRESHOLD {
                    self.treeify_bin(i);
                }
            }
            return;
        }
        self.present.insert(key);
        let bin = &mut self.table[i];
        if bin.tree {
            bin.nodes.insert(0, (key, h));
        } else {
            bin.nodes.push((key, h));
            if bin.nodes.len() > TREEIFY_THRESHOLD {
                self.treeify_bin(i);
            }
        }
        self.size += 1;
        while self.size >= self.size_ctl {
            self.transfer();
        }
    }

    /// The keys in iteration order.
    pub fn order(&self) -> Vec<usize> {
        self.table
            .iter()
            .flat_map(|b| b.nodes.iter().map(|&(k, _)| k))
            .collect()
    }

    fn treeify_bin(&mut self, i: usize) {
        let n = self.table.len();
        if n < MIN_TREEIFY_CAPACITY {
            let s = n << 1;
            let c = (s + (s >> 1) + 1).next_power_of_two();
            while c > self.size_ctl {
                self.transfer();
            }
        } else if !self.table[i].nodes.is_empty() {
            self.table[i].tree = true; // a TreeBin keeps the list's order as its `first` chain
        }
    }

    fn transfer(&mut self) {
        let n = self.table.len();
        let bit = n as u32;
        let mut next = vec![Bin::default(); n * 2];
        for (i, bin) in std::mem::take(&mut self.table).into_iter().enumerate() {
            if bin.nodes.is_empty() {
                continue;
            }
            let (lo, hi) = if bin.tree {
                let (lo, hi): (Vec<_>, Vec<_>) =
                    bin.nodes.iter().partition(|&&(_, h)| h & bit == 0);
                let (lt, ht) = (
                    lo.len() > UNTREEIFY_THRESHOLD,
                    hi.len() > UNTREEIFY_THRESHOLD,
                );
                (
                    Bin {
                        nodes: lo,
                        tree: lt,
                    },
                    Bin {
                        nodes: hi,
                        tree: ht,
                    },
                )
            } else {
                let mut run_bit = bin.nodes[0].1 & bit;
                let mut last_run = 0;
                for (k, &(_, h)) in bin.nodes.iter().enumerate().skip(1) {
                    if h & bit != run_bit {
                        run_bit = h & bit;
                        last_run = k;
                    }
                }
                let tail = bin.nodes[last_run..].to_vec();
                let (mut lo, mut hi) = if run_bit == 0 {
                    (tail, Vec::new())
                } else {
                    (Vec::new(), tail)
                };
                for &node in &bin.nodes[..last_run] {
                    if node.1 & bit == 0 {
                        lo.insert(0, node);
                    } else {
                        hi.insert(0, node);
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
        self.table = next;
        self.size_ctl = n * 2 - n / 2;
    }
}

/// The iteration order of a `new ConcurrentHashMap<>()` that distinct keys (given by their `hashCode()`) were
/// put into one after another ([`ConcurrentHashMapOrder`]).
pub fn concurrent_hash_map_order(hashes: &[i32]) -> Vec<usize> {
    let mut m = ConcurrentHashMapOrder::new();
    for (k, h) in hashes.iter().enumerate() {
        m.put(k, *h);
    }
    m.order()
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
        let order = hash_map_order(&hashes, "m").unwrap();
        let buckets: Vec<u32> = order.iter().map(|&i| spread(hashes[i]) & 15).collect();
        assert!(buckets.windows(2).all(|w| w[0] <= w[1]));
        // 0 and 16 share bucket 0 of 16: insertion order
        assert_eq!(hash_map_order(&[16, 0, 1], "m").unwrap(), [0, 1, 2]);
        // 13 keys grow the table to 32: 16 moves behind 1
        let mut many: Vec<i32> = vec![16, 0];
        many.extend(1..12);
        let order = hash_map_order(&many, "m").unwrap();
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

    // Iteration orders printed by OpenJDK 17.0.15 for the same puts into a `new ConcurrentHashMap<MessageQueue,
    // String>()` and a `new HashMap<String, Integer>()` (the cases of tests/test_route_model.py): the rare paths.
    fn chm_of_queues(ids: &[i32]) -> Vec<i32> {
        use crate::message_queue::MessageQueue;
        let mut m = ConcurrentHashMapOrder::new();
        let mut keys: Vec<i32> = Vec::new();
        for &id in ids {
            let at = keys.iter().position(|&k| k == id).unwrap_or_else(|| {
                keys.push(id);
                keys.len() - 1
            });
            let mq = MessageQueue::new(Some("T".into()), Some("b".into()), id);
            m.put(at, mq.java_hash_code());
        }
        m.order().into_iter().map(|i| keys[i]).collect()
    }

    #[test]
    fn chm_presize_reverses_a_crowded_bin() {
        // 9 ids in bin 3 of 16: the 9th put treeifies below 64 bins -> tryPresize: 16 -> 128 bins
        let ids = [3, 19, 35, 51, 67, 83, 99, 115, 131];
        assert_eq!(chm_of_queues(&ids), [115, 99, 83, 67, 51, 35, 19, 3, 131]);
    }

    #[test]
    fn chm_replace_of_the_eighth_node_treeifies() {
        let ids = [15, 31, 47, 63, 79, 95, 111, 127];
        let mut twice = ids.to_vec();
        twice.extend(ids.iter().rev());
        assert_eq!(chm_of_queues(&twice), [111, 95, 79, 63, 47, 31, 15, 127]);
    }

    #[test]
    fn chm_tree_bin_prepends_and_splits() {
        let mut ids = vec![
            49, 177, 334, 462, 590, 718, 846, 974, 1102, 1230, 1358, 1486,
        ];
        ids.extend(0..90);
        let java = [
            20, 53, 1358, 177, 334, 590, 846, 1102, 78, 12, 45, 70, 4, 37, 62, 29, 54, 87, 21, 46,
            79, 13, 38, 71, 5, 30, 63, 88, 22, 55, 80, 14, 47, 72, 6, 39, 64, 31, 56, 89, 23, 48,
            81, 15, 40, 73, 7, 32, 65, 24, 57, 82, 16, 1486, 49, 462, 718, 974, 1230, 74, 8, 41,
            66, 0, 33, 58, 25, 50, 83, 17, 42, 75, 9, 34, 67, 1, 26, 59, 84, 18, 51, 76, 10, 43,
            68, 2, 35, 60, 27, 52, 85, 19, 44, 77, 11, 36, 69, 3, 28, 61, 86,
        ];
        assert_eq!(chm_of_queues(&ids), java);
    }

    #[test]
    fn hash_map_treeify_resizes_below_64_and_tree_bins_are_refused() {
        fn order_of<'a>(keys: &[&'a str]) -> JavaResult<Vec<&'a str>> {
            let hashes: Vec<i32> = keys.iter().map(|k| string_hash(k)).collect();
            hash_map_order(&hashes, "m").map(|o| o.into_iter().map(|i| keys[i]).collect())
        }
        let keys = ["ae", "au", "bf", "bv", "cg", "cw", "dh", "dx", "ei", "ey"];
        assert_eq!(
            order_of(&keys).unwrap(),
            ["ae", "bf", "cg", "dh", "ei", "au", "bv", "cw", "dx", "ey"]
        );
        let crowded = ["aE", "bf", "cG", "dh", "eI", "fj", "gK", "hl", "iM", "jn"];
        assert_eq!(order_of(&crowded).unwrap(), crowded);
        let mut more = crowded.to_vec();
        more.push("kO");
        assert!(
            matches!(order_of(&more), Err(JavaError::IllegalArgument(m)) if m.contains("tree-bin"))
        );
    }
}
