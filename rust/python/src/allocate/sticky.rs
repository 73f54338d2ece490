//! `STICKY`'s state: the previous assignment, and the sticky allocation of `rocketroute_core::sticky`
//! over the caller's own `MessageQueue` objects.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping, PyString, PyTuple};
use pyo3::Borrowed;
use rocketroute_core::sticky::sticky;
use rocketroute_core::MessageQueue;

use super::args::{distinct_queues, Mqs};
use crate::errors::{lone_surrogate, npe, type_name};
use crate::message_queue::PyMessageQueue;

/// A previous assignment as given, a mapping of consumer id to queues: each consumer once (a later entry
/// replaces an earlier one, as in a dict), with its queues in the given order.
pub(crate) struct Previous(Vec<(Arc<str>, Vec<Py<PyMessageQueue>>)>);

impl FromPyObject<'_, '_> for Previous {
    type Error = PyErr;

    fn extract(p: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let map = p.cast::<PyMapping>().map_err(|_| {
            PyTypeError::new_err(format!(
                "must be a mapping of consumer id to queues, not {}",
                type_name(&p)
            ))
        })?;
        let mut out: Vec<(Arc<str>, Vec<Py<PyMessageQueue>>)> = Vec::new();
        let mut slot: HashMap<Arc<str>, usize> = HashMap::new();
        for item in map.items()?.iter() {
            let (cid, queues) = item.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
            if cid.is_none() {
                return Err(npe(p.py(), "previous holds a None consumer id"));
            }
            let cid = cid.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a consumer id must be a str, not {}",
                    type_name(&cid)
                ))
            })?;
            let cid: Arc<str> = Arc::from(
                cid.to_str()
                    .map_err(|_| crate::errors::illegal(p.py(), lone_surrogate("previous")))?,
            );
            let mut held = Vec::new();
            if !queues.is_none() {
                let items: Vec<Bound<'_, PyAny>> = queues.try_iter()?.collect::<PyResult<_>>()?;
                for mq in items {
                    let mq = mq.cast_into::<PyMessageQueue>().map_err(|e| {
                        PyTypeError::new_err(format!(
                            "a queue must be a MessageQueue, not {}",
                            type_name(e.into_inner().as_any())
                        ))
                    })?;
                    held.push(mq.unbind());
                }
            }
            match slot.get(&cid) {
                Some(&i) => out[i].1 = held,
                None => {
                    slot.insert(cid.clone(), out.len());
                    out.push((cid, held));
                }
            }
        }
        Ok(Previous(out))
    }
}

pub(crate) struct Sticky {
    previous: Previous,
    held: HashMap<Arc<str>, Vec<MessageQueue>>,
}

impl Sticky {
    pub(crate) fn new(py: Python<'_>, previous: Option<Previous>) -> Self {
        let previous = previous.unwrap_or(Previous(Vec::new()));
        let held = previous
            .0
            .iter()
            .map(|(c, mqs)| {
                (
                    c.clone(),
                    mqs.iter().map(|m| m.bind(py).get().inner.clone()).collect(),
                )
            })
            .collect();
        Sticky { previous, held }
    }

    /// The number of consumers in the previous assignment.
    pub(crate) fn previous_len(&self) -> usize {
        self.previous.0.len()
    }

    /// The previous assignment, `{cid: (queue, ...)}` (a copy).
    pub(crate) fn previous_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (c, mqs) in &self.previous.0 {
            out.set_item(&**c, PyTuple::new(py, mqs.iter().map(|m| m.clone_ref(py)))?)?;
        }
        Ok(out)
    }

    /// Each distinct consumer's positions in `mqs` (the first of equal queues).
    pub(crate) fn positions(
        &self,
        py: Python<'_>,
        mqs: &Mqs<'_>,
        cids: &[Arc<str>],
    ) -> Vec<Vec<usize>> {
        let distinct = distinct_queues(mqs);
        let position: HashMap<&MessageQueue, usize> = distinct
            .iter()
            .enumerate()
            .map(|(p, &i)| (&mqs[i].get().inner, p))
            .collect();
        let held: Vec<Vec<usize>> = cids
            .iter()
            .map(|c| {
                self.held.get(c).map_or_else(Vec::new, |queues| {
                    queues
                        .iter()
                        .filter_map(|q| position.get(q).copied())
                        .collect()
                })
            })
            .collect();
        let n = distinct.len();
        let got = py.detach(|| sticky(n, &held));
        got.into_iter()
            .map(|ps| ps.into_iter().map(|p| distinct[p]).collect())
            .collect()
    }
}
