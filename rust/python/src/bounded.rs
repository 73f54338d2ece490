//! `AllocateMessageQueueConsistentHashBounded`: consistent hashing with bounded loads
//! (`rocketroute_core::bounded`) on the ring `AllocateMessageQueueConsistentHash` builds.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList};
use rocketroute_core::allocate::consistent_hash_ring;
use rocketroute_core::bounded::{capacity, place, ring_slots};
use rocketroute_core::ring::{md5_hash, RingError};
use rocketroute_core::JavaError;

use crate::allocate::{
    assignment_dict, checked_all, checked_args, distinct_queues, pick, ring_err, unique_cids,
    vnodes_arg, Checked, Mqs,
};
use crate::errors::{illegal, java_err, java_int, type_name};
use crate::message_queue::PyMessageQueue;
use crate::ring::{hash_fn_arg, hash_key};

/// The ring as `(hash, consumer index)`, and the distinct consumers it was built from.
type CachedSlots = (Vec<Arc<str>>, Arc<Vec<(i64, usize)>>);

fn load_factor_arg(v: Option<&Bound<'_, PyAny>>) -> PyResult<f64> {
    let Some(v) = v.filter(|v| !v.is_none()) else {
        return Ok(1.25);
    };
    if v.is_instance_of::<PyBool>()
        || !(v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>())
    {
        return Err(PyTypeError::new_err(format!(
            "load_factor must be a float, not {}",
            type_name(v)
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
    Ok(value)
}

/// `CONSISTENT_HASH_BOUNDED`: consistent hashing with bounded loads. Each queue, in `mq_all` order, goes
/// to the first consumer clockwise from `hash(str(mq))` on the `CONSISTENT_HASH` ring (RocketMQ's
/// `ConsistentHashRouter` of the consumers, MD5 or `hash_function`) that holds fewer than
/// `capacity(len(mq_all), n)` = `ceil(load_factor * len(mq_all) / n)` queues, `n` the distinct consumers.
///
/// `load_factor` is a finite number >= 1.0, taken at its exact binary value. A queue that finds every
/// consumer on the ring full (only when one has no ring entry: `virtual_node_cnt=0`, or colliding
/// `hash_function` values) goes to the least loaded consumer, the earlier in `cid_all` on a tie.
/// Duplicates count once. All members must use the same parameters to agree. Not a Java strategy. The last
/// ring is kept, keyed by the exact consumer list.
#[pyclass(
    frozen,
    name = "AllocateMessageQueueConsistentHashBounded",
    module = "rocketroute._native"
)]
pub struct PyAllocateMessageQueueConsistentHashBounded {
    load_factor: f64,
    vnodes: i32,
    hash_fn: Option<Py<PyAny>>,
    last_slots: Mutex<Option<CachedSlots>>,
}

impl PyAllocateMessageQueueConsistentHashBounded {
    fn slots(&self, py: Python<'_>, cids: &[Arc<str>]) -> PyResult<Arc<Vec<(i64, usize)>>> {
        if let Some((key, slots)) = &*self.last_slots.lock().unwrap_or_else(|e| e.into_inner()) {
            if key.as_slice() == cids {
                return Ok(slots.clone());
            }
        }
        let slots = Arc::new(match &self.hash_fn {
            None => py
                .detach(|| {
                    consistent_hash_ring(cids, self.vnodes, &mut |k| {
                        Ok::<_, JavaError>(md5_hash(k))
                    })
                    .map(|ring| ring_slots(&ring, cids))
                })
                .map_err(|e| match e {
                    RingError::Java(j) | RingError::Hash(j) => java_err(j),
                })?,
            Some(f) => {
                let ring =
                    consistent_hash_ring(cids, self.vnodes, &mut |k| hash_key(py, Some(f), k))
                        .map_err(|e| ring_err(py, e))?;
                ring_slots(&ring, cids)
            }
        });
        *self.last_slots.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((cids.to_vec(), slots.clone()));
        Ok(slots)
    }

    /// Each distinct consumer's positions in `mqs` (the first of equal queues).
    fn positions(
        &self,
        py: Python<'_>,
        mqs: &Mqs<'_>,
        cids: &[Arc<str>],
    ) -> PyResult<Vec<Vec<usize>>> {
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

    pub(crate) fn allocate_all<'py>(
        &self,
        py: Python<'py>,
        mq_all: Option<&Bound<'py, PyAny>>,
        cid_all: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let Some((mqs, cids)) = checked_all(py, mq_all, cid_all)? else {
            return Ok(PyDict::new(py));
        };
        let positions = self.positions(py, &mqs, &cids)?;
        assignment_dict(py, &mqs, &cids, positions)
    }
}

#[pymethods]
impl PyAllocateMessageQueueConsistentHashBounded {
    #[new]
    #[pyo3(signature = (load_factor = None, virtual_node_cnt = None, hash_function = None))]
    fn new(
        py: Python<'_>,
        load_factor: Option<&Bound<'_, PyAny>>,
        virtual_node_cnt: Option<&Bound<'_, PyAny>>,
        hash_function: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let load_factor = load_factor_arg(load_factor)?;
        Ok(PyAllocateMessageQueueConsistentHashBounded {
            load_factor,
            vnodes: vnodes_arg(py, virtual_node_cnt)?,
            hash_fn: hash_fn_arg(hash_function)?,
            last_slots: Mutex::new(None),
        })
    }

    #[getter]
    fn name(&self) -> &'static str {
        "CONSISTENT_HASH_BOUNDED"
    }

    #[getter]
    fn load_factor(&self) -> f64 {
        self.load_factor
    }

    #[getter]
    fn virtual_node_cnt(&self) -> i32 {
        self.vnodes
    }

    #[getter]
    fn hash_function(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.hash_fn.as_ref().map(|f| f.clone_ref(py))
    }

    /// The most queues one consumer takes: `ceil(load_factor * queue_count / consumer_count)` exactly,
    /// at most `queue_count`.
    fn capacity(
        &self,
        py: Python<'_>,
        queue_count: &Bound<'_, PyAny>,
        consumer_count: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let q = java_int(queue_count, "queue_count")?;
        let c = java_int(consumer_count, "consumer_count")?;
        if q < 0 {
            return Err(illegal(
                py,
                format!("queue_count must not be negative: {q}"),
            ));
        }
        if c < 1 {
            return Err(illegal(py, format!("consumer_count must be positive: {c}")));
        }
        Ok(capacity(self.load_factor, q as usize, c as usize))
    }

    #[pyo3(signature = (consumer_group, current_cid, mq_all, cid_all))]
    fn allocate<'py>(
        &self,
        py: Python<'py>,
        consumer_group: Option<&Bound<'py, PyAny>>,
        current_cid: Option<&Bound<'py, PyAny>>,
        mq_all: Option<&Bound<'py, PyAny>>,
        cid_all: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let _ = consumer_group;
        let Some(Checked { mqs, cids, cid, .. }) = checked_args(current_cid, mq_all, cid_all)?
        else {
            return Ok(PyList::empty(py));
        };
        let cids = unique_cids(&cids);
        let index = cids.iter().position(|c| **c == *cid).unwrap_or_default();
        let mut positions = self.positions(py, &mqs, &cids)?;
        pick(py, &mqs, positions.swap_remove(index))
    }

    /// The whole assignment, `{cid: queues}` for each distinct consumer of `cid_all`, in order.
    #[pyo3(name = "allocate_all")]
    fn py_allocate_all<'py>(
        &self,
        py: Python<'py>,
        mq_all: Option<&Bound<'py, PyAny>>,
        cid_all: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.allocate_all(py, mq_all, cid_all)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "AllocateMessageQueueConsistentHashBounded(load_factor={}, virtual_node_cnt={})",
            PyFloat::new(py, self.load_factor).repr()?,
            self.vnodes
        ))
    }
}
