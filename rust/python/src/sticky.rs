//! `AllocateMessageQueueSticky`: the sticky allocation of `rocketroute_core::sticky` over the caller's own
//! `MessageQueue` objects.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString, PyTuple};
use rocketroute_core::sticky::sticky;
use rocketroute_core::MessageQueue;

use crate::allocate::{
    assignment_dict, checked_all, checked_args, distinct_queues, pick, unique_cids, Checked, Mqs,
};
use crate::errors::{name_text, npe, type_name};
use crate::message_queue::PyMessageQueue;

/// A previous assignment as given: each consumer once (a later entry replaces an earlier one, as in a
/// dict), with its queues in the given order.
type Previous = Vec<(Arc<str>, Vec<Py<PyMessageQueue>>)>;

fn previous_arg(previous: Option<&Bound<'_, PyAny>>) -> PyResult<Previous> {
    let Some(p) = previous.filter(|p| !p.is_none()) else {
        return Ok(Vec::new());
    };
    let map = p.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "previous must be a mapping of consumer id to queues, not {}",
            type_name(p)
        ))
    })?;
    let mut out: Previous = Vec::new();
    let mut slot: HashMap<Arc<str>, usize> = HashMap::new();
    for item in map.items()?.iter() {
        let (cid, queues) = item.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
        if cid.is_none() {
            return Err(npe(p.py(), "previous holds a None consumer id"));
        }
        let cid = cid.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "previous consumer ids must be str, not {}",
                type_name(&cid)
            ))
        })?;
        let cid: Arc<str> = Arc::from(name_text(cid, "previous")?);
        let mut held = Vec::new();
        if !queues.is_none() {
            let items: Vec<Bound<'_, PyAny>> = queues.try_iter()?.collect::<PyResult<_>>()?;
            for mq in items {
                let mq = mq.cast_into::<PyMessageQueue>().map_err(|e| {
                    PyTypeError::new_err(format!(
                        "previous must hold MessageQueue, not {}",
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
    Ok(out)
}

/// `STICKY`: a balanced assignment (every consumer `len(mq_all) // n` or one more queue, `n` the distinct
/// consumers) that keeps as many queues as possible with the consumer that owned them in `previous`, the
/// group's previous assignment `{cid: queues}`, so a join or leave moves the fewest queues.
///
/// The `len(mq_all) % n` larger shares go to the consumers that keep the most of their previous queues
/// still in `mq_all` (ties: the earlier in `cid_all`); each keeps its previous queues up to its share (the
/// first in `mq_all` order); the rest go, in `mq_all` order, to the consumers below their share, in
/// `cid_all` order. A queue `previous` gives to two consumers counts for the earlier in `cid_all`; queues
/// not in `mq_all` and consumers not in `cid_all` are ignored; duplicates count once. Without a previous
/// assignment this is `AVG`.
///
/// Every member computes the whole assignment and takes its part, so all members must use the same
/// previous assignment (e.g. the one all of them computed last round, or the owners the broker reports) to
/// agree; the order of the mapping does not matter. Not a Java strategy: do not mix it with members that
/// allocate otherwise.
#[pyclass(
    frozen,
    name = "AllocateMessageQueueSticky",
    module = "rocketroute._native"
)]
pub struct PyAllocateMessageQueueSticky {
    previous: Previous,
    held: HashMap<Arc<str>, Vec<MessageQueue>>,
}

impl PyAllocateMessageQueueSticky {
    fn from_previous(py: Python<'_>, previous: Previous) -> Self {
        let held = previous
            .iter()
            .map(|(c, mqs)| {
                (
                    c.clone(),
                    mqs.iter().map(|m| m.bind(py).get().inner.clone()).collect(),
                )
            })
            .collect();
        PyAllocateMessageQueueSticky { previous, held }
    }

    /// Each distinct consumer's positions in `mqs` (the first of equal queues).
    fn positions(&self, py: Python<'_>, mqs: &Mqs<'_>, cids: &[Arc<str>]) -> Vec<Vec<usize>> {
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

    pub(crate) fn allocate_all<'py>(
        &self,
        py: Python<'py>,
        mq_all: Option<&Bound<'py, PyAny>>,
        cid_all: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let Some((mqs, cids)) = checked_all(py, mq_all, cid_all)? else {
            return Ok(PyDict::new(py));
        };
        let positions = self.positions(py, &mqs, &cids);
        assignment_dict(py, &mqs, &cids, positions)
    }
}

#[pymethods]
impl PyAllocateMessageQueueSticky {
    #[new]
    #[pyo3(signature = (previous = None))]
    fn new(py: Python<'_>, previous: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Self::from_previous(py, previous_arg(previous)?))
    }

    #[getter]
    fn name(&self) -> &'static str {
        "STICKY"
    }

    /// The previous assignment, `{cid: (queue, ...)}` (a copy).
    #[getter]
    fn previous<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (c, mqs) in &self.previous {
            out.set_item(&**c, PyTuple::new(py, mqs.iter().map(|m| m.clone_ref(py)))?)?;
        }
        Ok(out)
    }

    /// A new strategy with `assignment` as the previous one (e.g. this strategy's last `allocate_all`).
    fn with_previous(
        &self,
        py: Python<'_>,
        assignment: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        Ok(Self::from_previous(py, previous_arg(assignment)?))
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
        let mut positions = self.positions(py, &mqs, &cids);
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

    fn __repr__(&self) -> String {
        format!(
            "AllocateMessageQueueSticky(previous={} consumers)",
            self.previous.len()
        )
    }
}
