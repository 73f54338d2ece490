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

/// What was built last for a consumer list, given again for the same list (a rebalance asks again with the
/// same group). The lock is held only to read or replace it, never while building (which may call Python).
pub(crate) struct LastBuilt<T>(Mutex<Option<Built<T>>>);

/// A value and the consumer list it was built for.
type Built<T> = (Vec<Arc<str>>, Arc<T>);

impl<T> LastBuilt<T> {
    pub(crate) fn new() -> Self {
        LastBuilt(Mutex::new(None))
    }

    /// The value for `cids`: the last one when the list is the same, else `build()`'s, kept.
    pub(crate) fn get_or_build(
        &self,
        cids: &[Arc<str>],
        build: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        if let Some((key, value)) = &*self.0.lock().unwrap_or_else(|e| e.into_inner()) {
            if key.as_slice() == cids {
                return Ok(value.clone());
            }
        }
        let value = Arc::new(build()?);
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some((cids.to_vec(), value.clone()));
        Ok(value)
    }
}

/// The ring of `cids` with `vnodes` virtual nodes each: MD5 without the GIL, or the Python hash function.
pub(crate) fn build_ring(
    py: Python<'_>,
    cids: &[Arc<str>],
    vnodes: i32,
    hash_fn: Option<&HashFunction>,
) -> Result<ConsistentHashRouter> {
    Ok(match hash_fn {
        None => py.detach(|| {
            consistent_hash_ring(cids, vnodes, &mut |k| Ok::<_, JavaError>(md5_hash(k)))
        })?,
        Some(f) => consistent_hash_ring(cids, vnodes, &mut |k| hash_key(py, Some(f), k))?,
    })
}

pub(crate) struct ConsistentHash {
    pub(crate) vnodes: i32,
    pub(crate) hash_fn: Option<HashFunction>,
    last_ring: LastBuilt<ConsistentHashRouter>,
}

impl ConsistentHash {
    pub(crate) fn new(vnodes: i32, hash_fn: Option<HashFunction>) -> Self {
        ConsistentHash {
            vnodes,
            hash_fn,
            last_ring: LastBuilt::new(),
        }
    }

    /// The ring of `cids`, the last one again when the list is the same.
    pub(crate) fn ring(
        &self,
        py: Python<'_>,
        cids: &[Arc<str>],
    ) -> Result<Arc<ConsistentHashRouter>> {
        self.last_ring.get_or_build(cids, || {
            build_ring(py, cids, self.vnodes, self.hash_fn.as_ref())
        })
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

    /// The positions in `mqs` of the queues `cid` owns: one consumer's share, without building everyone's
    /// (what a rebalance asks of each member).
    pub(crate) fn positions_of(
        &self,
        py: Python<'_>,
        mqs: &Mqs<'_>,
        cids: &[Arc<str>],
        cid: &str,
    ) -> Result<Vec<usize>> {
        let ring = self.ring(py, cids)?;
        let owners = self.owners(py, &ring, mqs)?;
        Ok(owners
            .iter()
            .enumerate()
            .filter(|(_, o)| o.as_deref() == Some(cid))
            .map(|(i, _)| i)
            .collect())
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
