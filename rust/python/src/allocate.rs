//! The six allocation strategies and `allocate_all`. Results are lists of the caller's own
//! `MessageQueue` objects; the arithmetic is in `rocketroute_core::allocate`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFrozenSet, PyList, PyString, PyTuple};
use rocketroute_core::allocate::{
    averagely, averagely_by_circle, by_machine_room, check, consistent_hash_ring,
    machine_room_nearby_plan,
};
use rocketroute_core::ring::{md5_hash, ConsistentHashRouter, RingError};
use rocketroute_core::JavaError;

use crate::bounded::PyAllocateMessageQueueConsistentHashBounded;
use crate::errors::{illegal, java_err, java_int, name_text, npe, type_name};
use crate::message_queue::PyMessageQueue;
use crate::ring::{hash_fn_arg, hash_key};
use crate::sticky::PyAllocateMessageQueueSticky;

pub(crate) type Mqs<'py> = Vec<Bound<'py, PyMessageQueue>>;

pub(crate) fn mq_vec<'py>(obj: Option<&Bound<'py, PyAny>>) -> PyResult<Option<Mqs<'py>>> {
    let Some(o) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for item in o.try_iter()? {
        let item = item?;
        if !item.is_instance_of::<PyMessageQueue>() {
            return Err(PyTypeError::new_err(format!(
                "mq_all must hold MessageQueue, not {}",
                type_name(&item)
            )));
        }
        out.push(item.cast_into::<PyMessageQueue>()?);
    }
    Ok(Some(out))
}

pub(crate) fn cid_vec(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<Arc<str>>>> {
    let Some(o) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for item in o.try_iter()? {
        let item = item?;
        if item.is_none() {
            return Err(npe(o.py(), "cid_all holds None"));
        }
        let s = item.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!("cid_all must hold str, not {}", type_name(&item)))
        })?;
        out.push(Arc::from(name_text(s, "cid_all")?));
    }
    Ok(Some(out))
}

pub(crate) fn cid_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    match obj.filter(|o| !o.is_none()) {
        None => Ok(None),
        Some(o) => Ok(Some(
            o.cast::<PyString>()
                .map_err(|_| {
                    PyTypeError::new_err(format!("current_cid must be a str, not {}", type_name(o)))
                })
                .and_then(|s| name_text(s, "current_cid"))?
                .to_owned(),
        )),
    }
}

/// The checked arguments of an `allocate` call: the queues, the consumer ids, the current consumer and its
/// position in the ids; `None` for a consumer that is not a member (an empty result), Java's exceptions for
/// empty input.
pub(crate) struct Checked<'py> {
    pub mqs: Mqs<'py>,
    pub cids: Vec<Arc<str>>,
    pub cid: String,
    pub index: usize,
}

pub(crate) fn checked_args<'py>(
    current_cid: Option<&Bound<'py, PyAny>>,
    mq_all: Option<&Bound<'py, PyAny>>,
    cid_all: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Checked<'py>>> {
    let (mqs, cids) = (mq_vec(mq_all)?, cid_vec(cid_all)?);
    let cid = cid_arg(current_cid)?;
    let Some(index) =
        check(cid.as_deref(), mqs.as_ref().map(Vec::len), cids.as_deref()).map_err(java_err)?
    else {
        return Ok(None);
    };
    Ok(Some(Checked {
        mqs: mqs.unwrap_or_default(),
        cids: cids.unwrap_or_default(),
        cid: cid.unwrap_or_default(),
        index,
    }))
}

/// `virtual_node_cnt` of the consistent-hash strategies: 10 when left out, Java's message when negative.
pub(crate) fn vnodes_arg(py: Python<'_>, v: Option<&Bound<'_, PyAny>>) -> PyResult<i32> {
    let vnodes = match v {
        Some(v) => java_int(v, "virtual_node_cnt")?,
        None => 10,
    };
    if vnodes < 0 {
        return Err(illegal(py, format!("illegal virtualNodeCnt :{vnodes}")));
    }
    // one consumer's ring would already be past the limit: refuse now rather than at every allocate
    rocketroute_core::ring::check_ring_size(vnodes as u64).map_err(java_err)?;
    Ok(vnodes)
}

pub(crate) fn pick<'py>(
    py: Python<'py>,
    mqs: &Mqs<'py>,
    idx: impl IntoIterator<Item = usize>,
) -> PyResult<Bound<'py, PyList>> {
    let picked: Vec<Bound<'py, PyMessageQueue>> = idx.into_iter().map(|i| mqs[i].clone()).collect();
    PyList::new(py, picked)
}

pub(crate) fn ring_err(py: Python<'_>, e: RingError<PyErr>) -> PyErr {
    match e {
        RingError::Java(j) => java_err(j),
        RingError::Hash(e) => {
            let _ = py;
            e
        }
    }
}

/// What a strategy computes from the (already checked) lists, for the consumer at `index`.
enum Plain {
    Averagely,
    Circle,
    MachineRoom(Option<HashSet<String>>),
}

impl Plain {
    fn positions(&self, mqs: &Mqs<'_>, n_cid: usize, index: usize) -> PyResult<Vec<usize>> {
        Ok(match self {
            Plain::Averagely => averagely(index, mqs.len(), n_cid).collect(),
            Plain::Circle => averagely_by_circle(index, mqs.len(), n_cid).collect(),
            Plain::MachineRoom(idcs) => {
                let brokers: Vec<Option<&str>> =
                    mqs.iter().map(|m| m.get().inner.broker_name()).collect();
                by_machine_room(idcs.as_ref(), &brokers, index, n_cid).map_err(java_err)?
            }
        })
    }

    fn allocate<'py>(
        &self,
        py: Python<'py>,
        current_cid: Option<&Bound<'py, PyAny>>,
        mq_all: Option<&Bound<'py, PyAny>>,
        cid_all: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let Some(Checked {
            mqs, cids, index, ..
        }) = checked_args(current_cid, mq_all, cid_all)?
        else {
            return Ok(PyList::empty(py));
        };
        pick(py, &mqs, self.positions(&mqs, cids.len(), index)?)
    }
}

macro_rules! plain_strategy {
    ($rust:ident, $py:literal, $name:literal, $doc:literal, $kind:expr) => {
        #[doc = $doc]
        #[pyclass(frozen, name = $py, module = "rocketroute._native")]
        pub struct $rust;

        #[pymethods]
        impl $rust {
            #[new]
            fn new() -> Self {
                $rust
            }

            #[getter]
            fn name(&self) -> &'static str {
                $name
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
                $kind.allocate(py, current_cid, mq_all, cid_all)
            }

            fn __repr__(&self) -> String {
                format!("{}()", $py)
            }
        }
    };
}

plain_strategy!(
    PyAllocateMessageQueueAveragely,
    "AllocateMessageQueueAveragely",
    "AVG",
    "`AVG`: consecutive blocks, the first `len(mq_all) % len(cid_all)` consumers one queue more.",
    Plain::Averagely
);
plain_strategy!(
    PyAllocateMessageQueueAveragelyByCircle,
    "AllocateMessageQueueAveragelyByCircle",
    "AVG_BY_CIRCLE",
    "`AVG_BY_CIRCLE`: queue `i` goes to consumer `i % len(cid_all)`.",
    Plain::Circle
);

/// `MACHINE_ROOM`: queues of brokers named `"<room>@<name>"` with `room` in `consumer_idcs`, in blocks.
#[pyclass(
    frozen,
    name = "AllocateMessageQueueByMachineRoom",
    module = "rocketroute._native"
)]
pub struct PyAllocateMessageQueueByMachineRoom {
    kind: Plain,
    idcs: Option<Py<PyFrozenSet>>,
}

#[pymethods]
impl PyAllocateMessageQueueByMachineRoom {
    #[new]
    #[pyo3(signature = (consumer_idcs = None))]
    fn new(py: Python<'_>, consumer_idcs: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let Some(c) = consumer_idcs.filter(|c| !c.is_none()) else {
            return Ok(PyAllocateMessageQueueByMachineRoom {
                kind: Plain::MachineRoom(None),
                idcs: None,
            });
        };
        let items: Vec<Bound<'_, PyAny>> = c.try_iter()?.collect::<PyResult<_>>()?;
        let mut set = HashSet::new();
        for i in &items {
            // an idc with a lone surrogate matches no broker name (those are refused), so it is left out
            if let Ok(Ok(t)) = i.cast::<PyString>().map(|s| s.to_str()) {
                set.insert(t.to_owned());
            }
        }
        Ok(PyAllocateMessageQueueByMachineRoom {
            kind: Plain::MachineRoom(Some(set)),
            idcs: Some(PyFrozenSet::new(py, items)?.unbind()),
        })
    }

    #[getter]
    fn name(&self) -> &'static str {
        "MACHINE_ROOM"
    }

    #[getter]
    fn consumer_idcs(&self, py: Python<'_>) -> Option<Py<PyFrozenSet>> {
        self.idcs.as_ref().map(|s| s.clone_ref(py))
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
        self.kind.allocate(py, current_cid, mq_all, cid_all)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let r = match &self.idcs {
            None => "None".to_owned(),
            Some(s) => s.bind(py).repr()?.to_string(),
        };
        Ok(format!("AllocateMessageQueueByMachineRoom({r})"))
    }
}

/// `CONFIG`: every consumer gets `message_queue_list` whatever the arguments (Java checks nothing).
#[pyclass(
    frozen,
    name = "AllocateMessageQueueByConfig",
    module = "rocketroute._native"
)]
pub struct PyAllocateMessageQueueByConfig {
    list: Option<Vec<Py<PyMessageQueue>>>,
}

impl PyAllocateMessageQueueByConfig {
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        match &self.list {
            None => Ok(None),
            Some(l) => Ok(Some(PyList::new(py, l.iter().map(|m| m.clone_ref(py)))?)),
        }
    }
}

#[pymethods]
impl PyAllocateMessageQueueByConfig {
    #[new]
    #[pyo3(signature = (message_queue_list = None))]
    fn new(message_queue_list: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(PyAllocateMessageQueueByConfig {
            list: mq_vec(message_queue_list)?.map(|v| v.into_iter().map(Bound::unbind).collect()),
        })
    }

    #[getter]
    fn name(&self) -> &'static str {
        "CONFIG"
    }

    #[getter]
    fn message_queue_list<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.result(py)
    }

    #[pyo3(signature = (consumer_group, current_cid, mq_all, cid_all))]
    fn allocate<'py>(
        &self,
        py: Python<'py>,
        consumer_group: Option<&Bound<'py, PyAny>>,
        current_cid: Option<&Bound<'py, PyAny>>,
        mq_all: Option<&Bound<'py, PyAny>>,
        cid_all: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        let _ = (consumer_group, current_cid, mq_all, cid_all);
        self.result(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "AllocateMessageQueueByConfig({})",
            match self.result(py)? {
                None => "None".to_owned(),
                Some(l) => l.repr()?.to_string(),
            }
        ))
    }
}

/// A ring and the consumer list it was built from.
type CachedRing = (Vec<Arc<str>>, Arc<ConsistentHashRouter>);

/// `CONSISTENT_HASH`: each queue goes to the consumer `str(mq)` routes to on a ring of the consumers.
/// The last ring is kept, keyed by the exact consumer list: a rebalance asks again with the same group.
#[pyclass(
    frozen,
    name = "AllocateMessageQueueConsistentHash",
    module = "rocketroute._native"
)]
pub struct PyAllocateMessageQueueConsistentHash {
    vnodes: i32,
    hash_fn: Option<Py<PyAny>>,
    last_ring: Mutex<Option<CachedRing>>,
}

impl PyAllocateMessageQueueConsistentHash {
    fn ring(&self, py: Python<'_>, cids: &[Arc<str>]) -> PyResult<Arc<ConsistentHashRouter>> {
        if let Some((key, ring)) = &*self.last_ring.lock().unwrap_or_else(|e| e.into_inner()) {
            if key.as_slice() == cids {
                return Ok(ring.clone());
            }
        }
        let ring = Arc::new(match &self.hash_fn {
            None => py
                .detach(|| {
                    consistent_hash_ring(cids, self.vnodes, &mut |k| {
                        Ok::<_, JavaError>(md5_hash(k))
                    })
                })
                .map_err(|e| match e {
                    RingError::Java(j) | RingError::Hash(j) => java_err(j),
                })?,
            Some(f) => consistent_hash_ring(cids, self.vnodes, &mut |k| hash_key(py, Some(f), k))
                .map_err(|e| ring_err(py, e))?,
        });
        *self.last_ring.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((cids.to_vec(), ring.clone()));
        Ok(ring)
    }

    /// The owner of every queue on `ring`.
    fn owners(
        &self,
        py: Python<'_>,
        ring: &ConsistentHashRouter,
        mqs: &Mqs<'_>,
    ) -> PyResult<Vec<Option<Arc<str>>>> {
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
}

#[pymethods]
impl PyAllocateMessageQueueConsistentHash {
    #[new]
    #[pyo3(signature = (virtual_node_cnt = None, hash_function = None))]
    fn new(
        py: Python<'_>,
        virtual_node_cnt: Option<&Bound<'_, PyAny>>,
        hash_function: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        Ok(PyAllocateMessageQueueConsistentHash {
            vnodes: vnodes_arg(py, virtual_node_cnt)?,
            hash_fn: hash_fn_arg(hash_function)?,
            last_ring: Mutex::new(None),
        })
    }

    #[getter]
    fn name(&self) -> &'static str {
        "CONSISTENT_HASH"
    }

    #[getter]
    fn virtual_node_cnt(&self) -> i32 {
        self.vnodes
    }

    #[getter]
    fn hash_function(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.hash_fn.as_ref().map(|f| f.clone_ref(py))
    }

    /// The ring `allocate` builds for these consumers.
    fn router(
        &self,
        py: Python<'_>,
        cid_all: &Bound<'_, PyAny>,
    ) -> PyResult<Py<crate::ring::PyConsistentHashRouter>> {
        let cids = cid_vec(Some(cid_all))?.unwrap_or_default();
        let list = PyList::new(py, cids.iter().map(|c| &**c))?;
        let f = self.hash_fn.as_ref().map(|f| f.bind(py).clone());
        let r = py
            .get_type::<crate::ring::PyConsistentHashRouter>()
            .call1((list, self.vnodes, f))?;
        Ok(r.cast_into::<crate::ring::PyConsistentHashRouter>()?
            .unbind())
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
        let ring = self.ring(py, &cids)?;
        let owners = self.owners(py, &ring, &mqs)?;
        pick(
            py,
            &mqs,
            (0..mqs.len()).filter(|&i| owners[i].as_deref() == Some(cid.as_str())),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "AllocateMessageQueueConsistentHash(virtual_node_cnt={})",
            self.vnodes
        )
    }
}

/// `MACHINE_ROOM_NEARBY-<inner>`: consumers take their own room's queues with the inner strategy; queues
/// of a room without consumers are shared by all consumers.
#[pyclass(
    frozen,
    name = "AllocateMachineRoomNearby",
    module = "rocketroute._native"
)]
pub struct PyAllocateMachineRoomNearby {
    inner: Py<PyAny>,
    resolver: Py<PyAny>,
    broker_fn: Py<PyAny>,
    consumer_fn: Py<PyAny>,
}

fn room(
    py: Python<'_>,
    value: Bound<'_, PyAny>,
    what: impl FnOnce() -> String,
) -> PyResult<String> {
    if value.is_none() {
        return Err(illegal(py, format!("Machine room is null for {}", what())));
    }
    let s = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "the machine room resolver must return a str or None, not {}",
            type_name(&value)
        ))
    })?;
    let s = name_text(s, "the machine room")?;
    if s.is_empty() {
        return Err(illegal(py, format!("Machine room is null for {}", what())));
    }
    Ok(s.to_owned())
}

fn extend_inner(py: Python<'_>, out: &Bound<'_, PyList>, r: Bound<'_, PyAny>) -> PyResult<()> {
    if r.is_none() {
        return Err(npe(py, "the inner strategy returned None"));
    }
    for item in r.try_iter()? {
        out.append(item?)?;
    }
    Ok(())
}

#[pymethods]
impl PyAllocateMachineRoomNearby {
    #[new]
    #[pyo3(signature = (inner_strategy, resolver = None, *, broker_deploy_in = None, consumer_deploy_in = None))]
    fn new(
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
        let mut resolver = resolver.filter(|r| !r.is_none()).cloned();
        if resolver.is_none() {
            if let (Some(b), Some(c)) = (broker_deploy_in, consumer_deploy_in) {
                resolver = Some(PyTuple::new(py, [b, c])?.into_any());
            }
        }
        let Some(resolver) = resolver else {
            return Err(npe(py, "machineRoomResolver is null"));
        };
        let (broker_fn, consumer_fn) = if let Ok(t) = resolver.cast::<PyTuple>() {
            if t.len() == 2 && t.get_item(0)?.is_callable() && t.get_item(1)?.is_callable() {
                (t.get_item(0)?, t.get_item(1)?)
            } else {
                return Err(PyTypeError::new_err(
                    "resolver must have broker_deploy_in(mq) and consumer_deploy_in(cid)",
                ));
            }
        } else if resolver.hasattr("broker_deploy_in")? && resolver.hasattr("consumer_deploy_in")? {
            (
                resolver.getattr("broker_deploy_in")?,
                resolver.getattr("consumer_deploy_in")?,
            )
        } else {
            return Err(PyTypeError::new_err(
                "resolver must have broker_deploy_in(mq) and consumer_deploy_in(cid)",
            ));
        };
        Ok(PyAllocateMachineRoomNearby {
            inner: inner_strategy.clone().unbind(),
            resolver: resolver.unbind(),
            broker_fn: broker_fn.unbind(),
            consumer_fn: consumer_fn.unbind(),
        })
    }

    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "MACHINE_ROOM_NEARBY-{}",
            self.inner.bind(py).getattr("name")?
        ))
    }

    #[getter]
    fn inner_strategy(&self, py: Python<'_>) -> Py<PyAny> {
        self.inner.clone_ref(py)
    }

    #[getter]
    fn resolver(&self, py: Python<'_>) -> Py<PyAny> {
        self.resolver.clone_ref(py)
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
        let (mqs, cids) = (mq_vec(mq_all)?, cid_vec(cid_all)?);
        let cid = cid_arg(current_cid)?;
        let out = PyList::empty(py);
        if check(cid.as_deref(), mqs.as_ref().map(Vec::len), cids.as_deref())
            .map_err(java_err)?
            .is_none()
        {
            return Ok(out);
        }
        let (mqs, cids, cid) = (
            mqs.unwrap_or_default(),
            cids.unwrap_or_default(),
            cid.unwrap_or_default(),
        );
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
        let group = consumer_group
            .cloned()
            .unwrap_or_else(|| py.None().into_bound(py));
        let all_cids = PyList::new(py, cids.iter().map(|c| &**c))?;
        if let Some((local_mqs, local_cids)) = plan.local {
            let sub = pick(py, &mqs, local_mqs)?;
            let sub_cids = PyList::new(py, local_cids.into_iter().map(|i| &*cids[i]))?;
            extend_inner(
                py,
                &out,
                inner.call_method1("allocate", (&group, cid.as_str(), sub, sub_cids))?,
            )?;
        }
        for shared in plan.shared {
            let sub = pick(py, &mqs, shared)?;
            extend_inner(
                py,
                &out,
                inner.call_method1("allocate", (&group, cid.as_str(), sub, &all_cids))?,
            )?;
        }
        Ok(out)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "AllocateMachineRoomNearby({})",
            self.inner.bind(py).repr()?
        ))
    }
}

/// The distinct consumer ids of `cids`, in first-occurrence order.
pub(crate) fn unique_cids(cids: &[Arc<str>]) -> Vec<Arc<str>> {
    let mut seen: HashSet<&str> = HashSet::new();
    cids.iter().filter(|c| seen.insert(&**c)).cloned().collect()
}

/// The positions in `mqs` of its distinct queues (the first of equal ones), in order.
pub(crate) fn distinct_queues(mqs: &Mqs<'_>) -> Vec<usize> {
    let mut seen = HashSet::new();
    (0..mqs.len())
        .filter(|&i| seen.insert(&mqs[i].get().inner))
        .collect()
}

/// What `allocate_all` checks before a strategy that computes the whole assignment at once: what
/// `allocate` checks for each distinct consumer, the first failure raised. The queues and the distinct
/// consumers, or `None` for an empty or missing `cid_all` (an empty result).
pub(crate) fn checked_all<'py>(
    py: Python<'py>,
    mq_all: Option<&Bound<'py, PyAny>>,
    cid_all: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<(Mqs<'py>, Vec<Arc<str>>)>> {
    let Some(cids) = cid_vec(cid_all)?.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    let unique = unique_cids(&cids);
    let mqs = mq_vec(mq_all)?;
    for (k, c) in unique.iter().enumerate() {
        if c.is_empty() {
            return Err(illegal(py, "currentCID is empty"));
        }
        if k == 0 {
            check(Some(&**c), mqs.as_ref().map(Vec::len), Some(&cids[..])).map_err(java_err)?;
        }
    }
    Ok(Some((mqs.unwrap_or_default(), unique)))
}

/// `{cid: queues}` from each distinct consumer's positions in `mqs`.
pub(crate) fn assignment_dict<'py>(
    py: Python<'py>,
    mqs: &Mqs<'py>,
    cids: &[Arc<str>],
    positions: Vec<Vec<usize>>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (c, held) in cids.iter().zip(positions) {
        out.set_item(&**c, pick(py, mqs, held)?)?;
    }
    Ok(out)
}

/// Every consumer's queues in one pass: `{cid: strategy.allocate(consumer_group, cid, mq_all, cid_all)}`
/// for each distinct cid, equal to the per-consumer calls (the same first exception too).
#[pyfunction]
#[pyo3(signature = (strategy, mq_all, cid_all, consumer_group = None))]
pub fn allocate_all<'py>(
    py: Python<'py>,
    strategy: &Bound<'py, PyAny>,
    mq_all: Option<&Bound<'py, PyAny>>,
    cid_all: Option<&Bound<'py, PyAny>>,
    consumer_group: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    // strategies that compute the whole assignment at once
    if let Ok(s) = strategy.cast::<PyAllocateMessageQueueSticky>() {
        return s.get().allocate_all(py, mq_all, cid_all);
    }
    if let Ok(b) = strategy.cast::<PyAllocateMessageQueueConsistentHashBounded>() {
        return b.get().allocate_all(py, mq_all, cid_all);
    }
    let out = PyDict::new(py);
    let Some(cids) = cid_vec(cid_all)? else {
        return Ok(out);
    };
    let mut unique: Vec<Arc<str>> = Vec::new();
    let mut first: HashMap<Arc<str>, usize> = HashMap::new();
    for (i, c) in cids.iter().enumerate() {
        if !first.contains_key(c) {
            first.insert(c.clone(), i);
            unique.push(c.clone());
        }
    }
    let fast_checks = |mqs: &Option<Mqs<'py>>| -> PyResult<()> {
        for (k, c) in unique.iter().enumerate() {
            if c.is_empty() {
                return Err(illegal(py, "currentCID is empty"));
            }
            if k == 0 {
                check(Some(&**c), mqs.as_ref().map(Vec::len), Some(&cids[..])).map_err(java_err)?;
            }
        }
        Ok(())
    };
    let plain = if strategy.is_instance_of::<PyAllocateMessageQueueAveragely>() {
        Some(Plain::Averagely)
    } else if strategy.is_instance_of::<PyAllocateMessageQueueAveragelyByCircle>() {
        Some(Plain::Circle)
    } else {
        None
    };
    let machine_room = strategy.cast::<PyAllocateMessageQueueByMachineRoom>().ok();
    if plain.is_some() || machine_room.is_some() {
        let mqs = mq_vec(mq_all)?;
        fast_checks(&mqs)?;
        let mqs = mqs.unwrap_or_default();
        let kind = match (&plain, &machine_room) {
            (Some(p), _) => p,
            (None, Some(m)) => &m.get().kind,
            _ => unreachable!(),
        };
        for c in &unique {
            out.set_item(
                &**c,
                pick(py, &mqs, kind.positions(&mqs, cids.len(), first[c])?)?,
            )?;
        }
        return Ok(out);
    }
    if let Ok(ch) = strategy.cast::<PyAllocateMessageQueueConsistentHash>() {
        let mqs = mq_vec(mq_all)?;
        fast_checks(&mqs)?;
        let mqs = mqs.unwrap_or_default();
        let ch = ch.get();
        let ring = ch.ring(py, &cids)?;
        let owners = ch.owners(py, &ring, &mqs)?;
        let lists: Vec<Bound<'py, PyList>> = unique.iter().map(|_| PyList::empty(py)).collect();
        let slot: HashMap<&str, usize> =
            unique.iter().enumerate().map(|(i, c)| (&**c, i)).collect();
        for (i, owner) in owners.iter().enumerate() {
            if let Some(o) = owner {
                lists[slot[&**o]].append(&mqs[i])?;
            }
        }
        for (c, l) in unique.iter().zip(lists) {
            out.set_item(&**c, l)?;
        }
        return Ok(out);
    }
    let group = consumer_group
        .cloned()
        .unwrap_or_else(|| PyString::new(py, "").into_any());
    let mq_arg = mq_all.cloned().unwrap_or_else(|| py.None().into_bound(py));
    let cid_arg = cid_all.cloned().unwrap_or_else(|| py.None().into_bound(py));
    for c in &unique {
        out.set_item(
            &**c,
            strategy.call_method1("allocate", (&group, &**c, &mq_arg, &cid_arg))?,
        )?;
    }
    Ok(out)
}
