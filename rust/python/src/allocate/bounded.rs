//! `CONSISTENT_HASH_BOUNDED`'s state: consistent hashing with bounded loads (`rocketroute_core::bounded`)
//! on the ring `CONSISTENT_HASH` builds.

use std::sync::Arc;

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};
use pyo3::Borrowed;
use rocketroute_core::bounded::{capacity, place, ring_slots};

use super::args::{distinct_queues, Mqs};
use super::consistent_hash::{build_ring, LastBuilt};
use crate::errors::{illegal, type_name, Result};
use crate::message_queue::PyMessageQueue;
use crate::ring::{hash_key, HashFunction};

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
    /// The ring as `(hash, consumer index)`, for the last distinct consumers.
    last_slots: LastBuilt<Vec<(i64, usize)>>,
}

impl Bounded {
    pub(crate) fn new(load_factor: f64, vnodes: i32, hash_fn: Option<HashFunction>) -> Self {
        Bounded {
            load_factor,
            vnodes,
            hash_fn,
            last_slots: LastBuilt::new(),
        }
    }

    fn slots(&self, py: Python<'_>, cids: &[Arc<str>]) -> Result<Arc<Vec<(i64, usize)>>> {
        self.last_slots.get_or_build(cids, || {
            let ring = build_ring(py, cids, self.vnodes, self.hash_fn.as_ref())?;
            Ok(ring_slots(&ring, cids))
        })
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
