//! `CONSISTENT_HASH_BOUNDED`'s state: consistent hashing with bounded loads (`rocketroute_core::bounded`)
//! on the ring `CONSISTENT_HASH` builds.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};
use pyo3::Borrowed;
use rocketroute_core::allocate::consistent_hash_ring;
use rocketroute_core::bounded::{capacity, place, ring_slots};
use rocketroute_core::ring::md5_hash;
use rocketroute_core::JavaError;

use super::args::{distinct_queues, Mqs};
use crate::errors::{illegal, type_name, Result};
use crate::message_queue::PyMessageQueue;
use crate::ring::{hash_key, HashFunction};

/// The ring as `(hash, consumer index)`, and the distinct consumers it was built from.
type CachedSlots = (Vec<Arc<str>>, Arc<Vec<(i64, usize)>>);

/// `load_factor`: a finite number >= 1.0 (an int or a float, not a bool), at its exact binary value.
pub(crate) struct LoadFactor(pub f64);

impl FromPyObject<'_, '_> for LoadFactor {
    type Error = PyErr;

    fn extract(v: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if v.is_instance_of::<PyBool>()
            || !(v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>())
        {
            return Err(PyTypeError::new_err(format!(
                "must be a float, not {}",
                type_name(&v)
            )));
        }
        let value = match v.extract::<f64>() {
            Ok(x) => x,
            Err(e) if e.is_instance_of::<PyOverflowError>(v.py()) => f64::INFINITY,
            Err(e) => return Err(e),
        };
        if !(value.is_finite() && value >= 1.0) {
            return Err(illegal(
                v.py(),
                format!(
                    "load_factor must be a finite number >= 1.0, not {}",
                    v.repr()?
                ),
            ));
        }
        Ok(LoadFactor(value))
    }
}

pub(crate) struct Bounded {
    pub(crate) load_factor: f64,
    pub(crate) vnodes: i32,
    pub(crate) hash_fn: Option<HashFunction>,
    last_slots: Mutex<Option<CachedSlots>>,
}

impl Bounded {
    pub(crate) fn new(load_factor: f64, vnodes: i32, hash_fn: Option<HashFunction>) -> Self {
        Bounded {
            load_factor,
            vnodes,
            hash_fn,
            last_slots: Mutex::new(None),
        }
    }

    fn slots(&self, py: Python<'_>, cids: &[Arc<str>]) -> Result<Arc<Vec<(i64, usize)>>> {
        if let Some((key, slots)) = &*self.last_slots.lock().unwrap_or_else(|e| e.into_inner()) {
            if key.as_slice() == cids {
                return Ok(slots.clone());
            }
        }
        let slots = Arc::new(match &self.hash_fn {
            None => py.detach(|| {
                consistent_hash_ring(cids, self.vnodes, &mut |k| Ok::<_, JavaError>(md5_hash(k)))
                    .map(|ring| ring_slots(&ring, cids))
            })?,
            Some(f) => {
                let ring =
                    consistent_hash_ring(cids, self.vnodes, &mut |k| hash_key(py, Some(f), k))?;
                ring_slots(&ring, cids)
            }
        });
        *self.last_slots.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((cids.to_vec(), slots.clone()));
        Ok(slots)
    }

    /// Each distinct consumer's positions in `mqs` (the first of equal queues).
    pub(crate) fn positions(
        &self,
        py: Python<'_>,
        mqs: &Mqs<'_>,
        cids: &[Arc<str>],
    ) -> Result<Vec<Vec<usize>>> {
        let slots = self.slots(py, cids)?;
        let distinct = distinct_queues(mqs);
        let cap = capacity(self.load_factor, distinct.len(), cids.len());
        let owners = match &self.hash_fn {
            None => {
                let queues: Vec<&PyMessageQueue> = distinct.iter().map(|&i| mqs[i].get()).collect();
                py.detach(|| {
                    place::<std::convert::Infallible>(
                        &slots,
                        queues.len(),
                        cids.len(),
                        cap,
                        &mut |i| Ok(queues[i].md5_of_name()),
                    )
                })
                .unwrap_or_else(|never| match never {})
            }
            Some(f) => place(&slots, distinct.len(), cids.len(), cap, &mut |i| {
                hash_key(py, Some(f), &mqs[distinct[i]].get().inner.to_string())
            })?,
        };
        let mut out = vec![Vec::new(); cids.len()];
        for (p, o) in owners.into_iter().enumerate() {
            out[o].push(distinct[p]);
        }
        Ok(out)
    }
}
