//! `MACHINE_ROOM_NEARBY`'s state: the inner strategy and the room resolver, and its allocation, which
//! asks the inner strategy (any object with `allocate`) once per group of queues.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};
use rocketroute_core::allocate::machine_room_nearby_plan;

use super::args::{pick, Checked};
use crate::errors::{illegal, lone_surrogate, npe, type_name, Result};

pub(crate) struct Nearby {
    pub(crate) inner: Py<PyAny>,
    pub(crate) resolver: Py<PyAny>,
    broker_fn: Py<PyAny>,
    consumer_fn: Py<PyAny>,
}

const RESOLVER_SHAPE: &str = "resolver must have broker_deploy_in(mq) and consumer_deploy_in(cid)";

impl Nearby {
    /// The inner strategy and the user's resolver or functions, for the garbage collector.
    pub(crate) fn traverse(&self, visit: &PyVisit<'_>) -> std::result::Result<(), PyTraverseError> {
        visit.call(&self.inner)?;
        visit.call(&self.resolver)?;
        visit.call(&self.broker_fn)?;
        visit.call(&self.consumer_fn)
    }

    pub(crate) fn new(
        py: Python<'_>,
        inner_strategy: &Bound<'_, PyAny>,
        resolver: Option<&Bound<'_, PyAny>>,
        broker_deploy_in: Option<&Bound<'_, PyAny>>,
        consumer_deploy_in: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        if inner_strategy.is_none() {
            return Err(npe(py, "allocateMessageQueueStrategy is null"));
        }
        if !inner_strategy.hasattr("allocate")? {
            return Err(PyTypeError::new_err(
                "inner_strategy must have an allocate(consumer_group, current_cid, mq_all, cid_all)",
            ));
        }
        let resolver = match (
            resolver.filter(|r| !r.is_none()),
            broker_deploy_in,
            consumer_deploy_in,
        ) {
            (Some(r), _, _) => r.clone(),
            (None, Some(b), Some(c)) => PyTuple::new(py, [b, c])?.into_any(),
            _ => return Err(npe(py, "machineRoomResolver is null")),
        };
        let (broker_fn, consumer_fn) = if let Ok(t) = resolver.cast::<PyTuple>() {
            if t.len() != 2 || !t.get_item(0)?.is_callable() || !t.get_item(1)?.is_callable() {
                return Err(PyTypeError::new_err(RESOLVER_SHAPE));
            }
            (t.get_item(0)?, t.get_item(1)?)
        } else if resolver.hasattr("broker_deploy_in")? && resolver.hasattr("consumer_deploy_in")? {
            (
                resolver.getattr("broker_deploy_in")?,
                resolver.getattr("consumer_deploy_in")?,
            )
        } else {
            return Err(PyTypeError::new_err(RESOLVER_SHAPE));
        };
        Ok(Nearby {
            inner: inner_strategy.clone().unbind(),
            resolver: resolver.unbind(),
            broker_fn: broker_fn.unbind(),
            consumer_fn: consumer_fn.unbind(),
        })
    }

    /// The current consumer's queues: its room's queues by the inner strategy among its room's
    /// consumers, and, for each room without consumers, its share of that room's queues among all.
    pub(crate) fn allocate<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
        args: Checked<'py>,
    ) -> Result<Bound<'py, PyList>> {
        let Checked { mqs, cids, cid, .. } = args;
        let (bf, cf) = (self.broker_fn.bind(py), self.consumer_fn.bind(py));
        let mut mq_rooms = Vec::with_capacity(mqs.len());
        for mq in &mqs {
            mq_rooms.push(room(py, bf.call1((mq,))?, || {
                format!("mq {}", mq.get().inner)
            })?);
        }
        let mut cid_rooms = Vec::with_capacity(cids.len());
        for c in &cids {
            cid_rooms.push(room(py, cf.call1((&**c,))?, || format!("consumer id {c}"))?);
        }
        let current_room = cf.call1((cid.as_str(),))?;
        let current_room = current_room.cast::<PyString>().ok().map(|s| s.to_string());
        let plan = machine_room_nearby_plan(
            &mq_rooms,
            &cid_rooms,
            current_room.as_deref().unwrap_or("\u{0}no-room"),
        );
        let inner = self.inner.bind(py);
        let out = PyList::empty(py);
        let ask = |sub: Bound<'py, PyList>, sub_cids: Bound<'py, PyList>| -> Result<()> {
            let r = inner.call_method1("allocate", (group, cid.as_str(), sub, sub_cids))?;
            if r.is_none() {
                return Err(npe(py, "the inner strategy returned None").into());
            }
            for item in r.try_iter()? {
                out.append(item?)?;
            }
            Ok(())
        };
        if let Some((local_mqs, local_cids)) = plan.local {
            let sub_cids = PyList::new(py, local_cids.into_iter().map(|i| &*cids[i]))?;
            ask(pick(py, &mqs, local_mqs)?, sub_cids)?;
        }
        let all_cids = PyList::new(py, cids.iter().map(|c| &**c))?;
        for shared in plan.shared {
            ask(pick(py, &mqs, shared)?, all_cids.clone())?;
        }
        Ok(out)
    }
}

/// A room the resolver gave: `None` or `""` is Java's "Machine room is null" for `what`.
fn room(
    py: Python<'_>,
    value: Bound<'_, PyAny>,
    what: impl FnOnce() -> String,
) -> Result<Arc<str>> {
    if value.is_none() {
        return Err(illegal(py, format!("Machine room is null for {}", what())).into());
    }
    let s = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "the machine room resolver must return a str or None, not {}",
            type_name(&value)
        ))
    })?;
    let s = s
        .to_str()
        .map_err(|_| illegal(py, lone_surrogate("the machine room")))?;
    if s.is_empty() {
        return Err(illegal(py, format!("Machine room is null for {}", what())).into());
    }
    Ok(Arc::from(s))
}
