//! `ConsistentHashRouter`: RocketMQ's consistent-hash ring (a `TreeMap<Long, VirtualNode>`), with the
//! MD5 hash or any other `str -> i64` function.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use md5::{Digest, Md5};

use crate::error::JavaError;

/// The most virtual nodes a ring may hold. Java would try to allocate any count (`addNode(n, 2^31-1)`)
/// and run out of memory; a ring that would grow past this raises `IllegalArgumentException` instead,
/// before anything is added.
pub const MAX_VIRTUAL_NODES: usize = 1 << 20;

/// `ConsistentHashRouter.MD5Hash.hash`: the first 4 bytes of MD5(bytes), big-endian, unsigned.
pub fn md5_hash_bytes(bytes: &[u8]) -> i64 {
    let d = Md5::digest(bytes);
    u32::from_be_bytes([d[0], d[1], d[2], d[3]]) as i64
}

/// MD5 hash of a key, as UTF-8.
pub fn md5_hash(key: &str) -> i64 {
    md5_hash_bytes(key.as_bytes())
}

/// An error of a ring operation: Java's own, or the custom hash function's.
#[derive(Debug, PartialEq, Eq)]
pub enum RingError<E> {
    Java(JavaError),
    Hash(E),
}

impl<E> From<JavaError> for RingError<E> {
    fn from(e: JavaError) -> Self {
        RingError::Java(e)
    }
}

#[derive(Clone, Debug)]
struct VirtualNode {
    key: Arc<str>,
    node: Arc<str>,
}

/// The ring: hash -> virtual node; a later `put` with the same hash replaces the earlier node.
/// `owned` counts the entries of each node, so `existing_replicas` needs no scan of the ring.
#[derive(Clone, Debug, Default)]
pub struct ConsistentHashRouter {
    ring: BTreeMap<i64, VirtualNode>,
    owned: HashMap<Arc<str>, usize>,
    version: u64,
}

/// `IllegalArgumentException` for a ring of `size` virtual nodes, past [`MAX_VIRTUAL_NODES`].
pub fn check_ring_size(size: u64) -> Result<(), JavaError> {
    if size > MAX_VIRTUAL_NODES as u64 {
        return Err(JavaError::IllegalArgument(format!(
            "a ring of {size} virtual nodes is more than MAX_VIRTUAL_NODES ({MAX_VIRTUAL_NODES})"
        )));
    }
    Ok(())
}

impl ConsistentHashRouter {
    pub fn new() -> Self {
        Self::default()
    }

    /// `addNode(node, vnodeCount)`: replicas numbered after the ring entries `node` owns now, each put
    /// as soon as it is hashed, so a hash function that fails leaves the replicas before it, as in Java.
    pub fn add_node<E>(
        &mut self,
        node: &Arc<str>,
        vnode_count: i32,
        hash: &mut dyn FnMut(&str) -> Result<i64, E>,
    ) -> Result<(), RingError<E>> {
        let keys = self.vnode_keys(node, vnode_count)?;
        for key in keys {
            let h = hash(&key).map_err(RingError::Hash)?;
            self.add_hashed(node, vec![(h, key)]);
        }
        Ok(())
    }

    /// The keys of the next `count` virtual nodes of `node` (`"<node>-<replica>"`): Java's message for a
    /// negative count, and `IllegalArgumentException` when the ring could grow past
    /// [`MAX_VIRTUAL_NODES`].
    pub fn vnode_keys(&self, node: &str, count: i32) -> Result<Vec<Arc<str>>, JavaError> {
        if count < 0 {
            return Err(JavaError::IllegalArgument(format!(
                "illegal virtual node counts :{count}"
            )));
        }
        check_ring_size(self.len() as u64 + count as u64)?;
        let existing = self.existing_replicas(node);
        Ok((0..count as usize)
            .map(|i| Arc::from(format!("{node}-{}", i + existing)))
            .collect())
    }

    /// Counts every change of the ring, so a caller that hashed keys without holding the ring can tell
    /// whether it changed meanwhile.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Puts already hashed virtual nodes of `node`, in order (a later equal hash replaces an earlier one).
    pub fn add_hashed(&mut self, node: &Arc<str>, hashed: Vec<(i64, Arc<str>)>) {
        self.version += 1;
        for (h, key) in hashed {
            let vnode = VirtualNode {
                key,
                node: node.clone(),
            };
            if let Some(old) = self.ring.insert(h, vnode) {
                if let Some(n) = self.owned.get_mut(&old.node) {
                    *n -= 1;
                }
            }
            *self.owned.entry(node.clone()).or_insert(0) += 1;
        }
    }

    /// `removeNode(node)`: every virtual node of `node`.
    pub fn remove_node(&mut self, node: &str) {
        self.version += 1;
        if self.owned.remove(node).is_some_and(|n| n > 0) {
            self.ring.retain(|_, v| &*v.node != node);
        }
    }

    /// `getExistingReplicas(node)`: the ring entries `node` owns.
    pub fn existing_replicas(&self, node: &str) -> usize {
        self.owned.get(node).copied().unwrap_or(0)
    }

    /// `routeNode` for a key already hashed: the node of the first entry at or after `hash`, wrapping.
    pub fn route_hash(&self, hash: i64) -> Option<&Arc<str>> {
        self.ring
            .range(hash..)
            .next()
            .or_else(|| self.ring.iter().next())
            .map(|(_, v)| &v.node)
    }

    /// `routeNode(key)`.
    pub fn route<E>(
        &self,
        key: &str,
        hash: &mut dyn FnMut(&str) -> Result<i64, E>,
    ) -> Result<Option<&Arc<str>>, E> {
        if self.ring.is_empty() {
            return Ok(None);
        }
        Ok(self.route_hash(hash(key)?))
    }

    pub fn len(&self) -> usize {
        self.ring.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// `(hash, virtual node key, node)` in ring order.
    pub fn entries(&self) -> impl Iterator<Item = (i64, &Arc<str>, &Arc<str>)> {
        self.ring.iter().map(|(h, v)| (*h, &v.key, &v.node))
    }
}

/// The MD5 hash as a ring hash function.
pub fn md5_fn(key: &str) -> Result<i64, std::convert::Infallible> {
    Ok(md5_hash(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md5(k: &str) -> Result<i64, std::convert::Infallible> {
        md5_fn(k)
    }

    #[test]
    fn md5_matches_java() {
        // md5("") = d41d8cd9...: first four bytes big-endian
        assert_eq!(md5_hash(""), 0xd41d8cd9);
    }

    #[test]
    fn replicas_continue_numbering_and_remove_clears() {
        let mut r = ConsistentHashRouter::new();
        let a: Arc<str> = Arc::from("a");
        r.add_node(&a, 3, &mut md5).unwrap();
        r.add_node(&a, 2, &mut md5).unwrap();
        assert_eq!(r.existing_replicas("a"), 5);
        let keys: Vec<String> = r.entries().map(|(_, k, _)| k.to_string()).collect();
        for i in 0..5 {
            assert!(keys.contains(&format!("a-{i}")));
        }
        assert_eq!(
            r.route("anything", &mut md5).unwrap().map(|n| &**n),
            Some("a")
        );
        r.remove_node("a");
        assert!(r.is_empty());
        assert_eq!(r.route("anything", &mut md5).unwrap(), None);
        assert!(matches!(
            r.add_node(&a, -1, &mut md5),
            Err(RingError::Java(_))
        ));
    }

    #[test]
    fn a_collision_moves_the_replica_count_to_the_later_node() {
        let mut r = ConsistentHashRouter::new();
        let mut same = |_: &str| -> Result<i64, ()> { Ok(7) };
        r.add_node(&Arc::from("a"), 1, &mut same).unwrap();
        r.add_node(&Arc::from("b"), 1, &mut same).unwrap();
        assert_eq!(
            (r.existing_replicas("a"), r.existing_replicas("b"), r.len()),
            (0, 1, 1)
        );
        // "a" owns nothing now, so its next replica is numbered 0 again
        assert_eq!(r.vnode_keys("a", 1).unwrap()[0].as_ref(), "a-0");
        r.remove_node("b");
        assert!(r.is_empty());
    }

    #[test]
    fn a_ring_past_the_limit_is_refused_before_anything_is_added() {
        let mut r = ConsistentHashRouter::new();
        let n: Arc<str> = Arc::from("n");
        for count in [i32::MAX, 1_000_000_000, MAX_VIRTUAL_NODES as i32 + 1] {
            assert!(matches!(
                r.add_node(&n, count, &mut md5),
                Err(RingError::Java(JavaError::IllegalArgument(_)))
            ));
        }
        assert!(r.is_empty());
        r.add_node(&n, 3, &mut md5).unwrap();
        assert!(r
            .add_node(&n, MAX_VIRTUAL_NODES as i32 - 2, &mut md5)
            .is_err());
        assert_eq!(r.len(), 3);
    }

    #[test]
    fn a_failing_hash_keeps_the_replicas_before_it() {
        let mut r = ConsistentHashRouter::new();
        let mut calls = 0;
        let mut third_fails = |k: &str| -> Result<i64, &str> {
            calls += 1;
            if calls == 3 {
                Err("boom")
            } else {
                Ok(md5_hash(k))
            }
        };
        let err = r.add_node(&Arc::from("f"), 5, &mut third_fails);
        assert_eq!(err, Err(RingError::Hash("boom")));
        assert_eq!(r.existing_replicas("f"), 2);
    }

    #[test]
    fn route_wraps_to_the_first_entry() {
        let mut r = ConsistentHashRouter::new();
        let mut fixed =
            |k: &str| -> Result<i64, ()> { Ok(if k.ends_with("-0") { 10 } else { 20 }) };
        r.add_node(&Arc::from("n"), 2, &mut fixed).unwrap();
        let mut h = |_: &str| -> Result<i64, ()> { Ok(25) };
        assert_eq!(r.route("k", &mut h).unwrap().map(|n| &**n), Some("n"));
        assert_eq!(r.route_hash(15).map(|n| &**n), Some("n"));
        assert_eq!(
            r.entries().map(|(h, _, _)| h).collect::<Vec<_>>(),
            vec![10, 20]
        );
    }
}
