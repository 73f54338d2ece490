//! `CONSISTENT_HASH`'s state: the ring of the consumers (kept for the last consumer list) and each
//! queue's owner on it.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use rocketroute_core::allocate::consistent_hash_ring;
use rocketroute_core::ring::{md5_hash, ConsistentHashRouter};
use rocketroute_core::JavaError;

use super::args::Mqs;
use crate::errors::Result;
use crate::message_queue::PyMessageQueue;
use crate::ring::{hash_key, HashFunction};

/// A ring and the consumer list it was built from.
type CachedRing = (Vec<Arc<str>>, Arc<ConsistentHashRouter>);

pub(crate) struct ConsistentHash {
    pub(crate) vnodes: i32,
    pub(crate) hash_fn: Option<HashFunction>,
    last_ring: Mutex<Option<CachedRing>>,
}

impl ConsistentHash {
    pub(crate) fn new(vnodes: i32, hash_fn: Option<HashFunction>) -> Self {
        ConsistentHash {
            vnodes,
            hash_fn,
            last_ring: Mutex::new(None),
        }
    }

    /// The ring of `cids`, the last one again when the list is the same (a rebalance asks again with the
    /// same group). No lock is held while a Python hash function runs.
    pub(crate) fn ring(
        &self,
        py: Python<'_>,
        cids: &[Arc<str>],
    ) -> Result<Arc<ConsistentHashRouter>> {
        if let Some((key, ring)) = &*self.last_ring.lock().unwrap_or_else(|e| e.into_inner()) {
            if key.as_slice() == cids {
                return Ok(ring.clone());
            }
        }
        let ring = Arc::new(match &self.hash_fn {
            None => py.detach(|| {
                consistent_hash_ring(cids, self.vnodes, &mut |k| Ok::<_, JavaError>(md5_hash(k)))
            })?,
            Some(f) => consistent_hash_ring(cids, self.vnodes, &mut |k| hash_key(py, Some(f), k))?,
        });
        *self.last_ring.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((cids.to_vec(), ring.clone()));
        Ok(ring)
    }

    /// The owner of every queue on `ring`.
    pub(crate) fn owners(
        &self,
        py: Python<'_>,
        ring: &ConsistentHashRouter,
        mqs: &Mqs<'_>,
    ) -> Result<Vec<Option<Arc<str>>>> {
        if ring.is_empty() {
            return Ok(vec![None; mqs.len()]);
        }
        match &self.hash_fn {
            None => {
                let queues: Vec<&PyMessageQueue> = mqs.iter().map(|m| m.get()).collect();
                Ok(py.detach(|| {
                    queues
                        .iter()
                        .map(|q| ring.route_hash(q.md5_of_name()).cloned())
                        .collect()
                }))
            }
            Some(f) => mqs
                .iter()
                .map(|m| {
                    let h = hash_key(py, Some(f), &m.get().inner.to_string())?;
                    Ok(ring.route_hash(h).cloned())
                })
                .collect(),
        }
    }

    /// Each distinct consumer's positions in `mqs` (`cids` all consumers, `unique` the distinct ones).
    pub(crate) fn positions(
        &self,
        py: Python<'_>,
        mqs: &Mqs<'_>,
        cids: &[Arc<str>],
        unique: &[Arc<str>],
    ) -> Result<Vec<Vec<usize>>> {
        let ring = self.ring(py, cids)?;
        let owners = self.owners(py, &ring, mqs)?;
        let slot: std::collections::HashMap<&str, usize> =
            unique.iter().enumerate().map(|(i, c)| (&**c, i)).collect();
        let mut out = vec![Vec::new(); unique.len()];
        for (i, owner) in owners.iter().enumerate() {
            if let Some(o) = owner {
                out[slot[&**o]].push(i);
            }
        }
        Ok(out)
    }
}
