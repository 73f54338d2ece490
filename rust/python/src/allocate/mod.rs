//! The allocation strategies and `allocate_all`. One base class, `AllocateMessageQueueStrategy`, holds
//! each strategy's state as an enum and does the work; the concrete classes only construct it and show
//! their own parameters. Results are lists of the caller's own `MessageQueue` objects; the arithmetic is
//! in `rocketroute_core::allocate`.
//!
//! Modules: `args` (the checks and result lists every strategy shares), then one per strategy that keeps
//! state (`plain`, `consistent_hash`, `bounded`, `sticky`, `nearby`); none of them depends on this one.

mod args;
mod bounded;
mod consistent_hash;
mod nearby;
mod plain;
mod sticky;

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyFrozenSet, PyList};
use pyo3::{PyClass, PyClassInitializer, PyTraverseError, PyVisit};

use self::args::{
    all_named, assignment_dict, checked, checked_all, named, pick, unique_cids, vnodes, Checked,
    CidAll, CurrentCid, Mqs,
};
use self::bounded::{Bounded, LoadFactor};
use self::consistent_hash::ConsistentHash;
use self::nearby::Nearby;
use self::plain::{MachineRoom, Positional};
use self::sticky::{Previous, Sticky};

use crate::convert::{arg, later, JavaInt, Later};
use crate::errors::{illegal, Result};
use crate::message_queue::PyMessageQueue;
use crate::message_queue::Queues;

use crate::ring::{HashFunction, PyConsistentHashRouter};

/// What a strategy is, with its state.
enum Strategy {
    Averagely,
    Circle,
    MachineRoom(MachineRoom),
    Config(Option<Vec<Py<PyMessageQueue>>>),
    ConsistentHash(ConsistentHash),
    Bounded(Bounded),
    Sticky(Sticky),
    Nearby(Nearby),
}

/// A consumer group's queue allocation (Java's `AllocateMessageQueueStrategy`): the base of the
/// strategies, not made directly. `allocate(consumer_group, current_cid, mq_all, cid_all)` gives the
/// current consumer's queues; `rocketroute.allocate_all` every consumer's.
#[pyclass(
    subclass,
    frozen,
    name = "AllocateMessageQueueStrategy",
    module = "rocketroute._native"
)]
pub struct PyAllocateStrategy {
    kind: Strategy,
}

impl PyAllocateStrategy {
    fn with<T: PyClass<BaseType = PyAllocateStrategy>>(
        kind: Strategy,
        class: T,
    ) -> PyClassInitializer<T> {
        PyClassInitializer::from(PyAllocateStrategy { kind }).add_subclass(class)
    }

    /// The positional strategy this is, if it is one.
    fn positional(&self) -> Option<Positional<'_>> {
        match &self.kind {
            Strategy::Averagely => Some(Positional::Averagely),
            Strategy::Circle => Some(Positional::Circle),
            Strategy::MachineRoom(m) => Some(Positional::MachineRoom(m)),
            _ => None,
        }
    }

    /// `{cid: queues}` for the strategies that compute the whole assignment at once, `None` for the
    /// others. `cids` are all the consumers, checked; `unique` the distinct ones.
    fn whole<'py>(
        &self,
        py: Python<'py>,
        mqs: &Mqs<'py>,
        cids: &[Arc<str>],
        unique: &[Arc<str>],
    ) -> Result<Option<Vec<Vec<usize>>>> {
        Ok(Some(match &self.kind {
            Strategy::ConsistentHash(c) => c.positions(py, mqs, cids, unique)?,
            Strategy::Bounded(b) => b.positions(py, mqs, unique)?,
            Strategy::Sticky(s) => s.positions(py, mqs, unique),
            _ => return Ok(None),
        }))
    }

    fn config_list<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        match &self.kind {
            Strategy::Config(Some(l)) => Ok(Some(PyList::new(py, l.iter().map(|m| m.bind(py)))?)),
            _ => Ok(None),
        }
    }

    fn allocate_checked<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
        args: Checked<'py>,
    ) -> Result<Bound<'py, PyList>> {
        if let Some(p) = self.positional() {
            let positions = p.positions(&args.mqs, args.cids.len(), args.index)?;
            return Ok(pick(py, &args.mqs, positions)?);
        }
        if let Strategy::Nearby(n) = &self.kind {
            return n.allocate(py, group, args);
        }
        let Checked { mqs, cids, cid, .. } = args;
        if let Strategy::ConsistentHash(c) = &self.kind {
            return Ok(pick(py, &mqs, c.positions_of(py, &mqs, &cids, &cid)?)?);
        }
        let unique = unique_cids(&cids);
        let mine = unique.iter().position(|c| **c == *cid).unwrap_or_default();
        let mut positions = self.whole(py, &mqs, &cids, &unique)?.unwrap_or_default();
        Ok(pick(py, &mqs, positions.swap_remove(mine))?)
    }
}

#[pymethods]
impl PyAllocateStrategy {
    /// The Python objects a strategy holds (the user's hash function, resolver or functions, a nearby
    /// strategy's inner one), shown to the garbage collector: a cycle through them is collected.
    fn __traverse__(&self, visit: PyVisit<'_>) -> std::result::Result<(), PyTraverseError> {
        match &self.kind {
            Strategy::ConsistentHash(c) => match &c.hash_fn {
                Some(f) => visit.call(&f.0),
                None => Ok(()),
            },
            Strategy::Bounded(b) => match &b.hash_fn {
                Some(f) => visit.call(&f.0),
                None => Ok(()),
            },
            Strategy::Nearby(n) => n.traverse(&visit),
            // queues and frozen sets of names: no cycle can go through them
            Strategy::Averagely
            | Strategy::Circle
            | Strategy::MachineRoom(_)
            | Strategy::Config(_)
            | Strategy::Sticky(_) => Ok(()),
        }
    }

    /// The strategy's name, as RocketMQ's `getName()` (e.g. `"AVG"`).
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        Ok(match &self.kind {
            Strategy::Averagely => "AVG".to_owned(),
            Strategy::Circle => "AVG_BY_CIRCLE".to_owned(),
            Strategy::MachineRoom(_) => "MACHINE_ROOM".to_owned(),
            Strategy::Config(_) => "CONFIG".to_owned(),
            Strategy::ConsistentHash(_) => "CONSISTENT_HASH".to_owned(),
            Strategy::Bounded(_) => "CONSISTENT_HASH_BOUNDED".to_owned(),
            Strategy::Sticky(_) => "STICKY".to_owned(),
            Strategy::Nearby(n) => {
                format!("MACHINE_ROOM_NEARBY-{}", n.inner.bind(py).getattr("name")?)
            }
        })
    }

    /// The queues of `current_cid` among the consumers `cid_all`, from `mq_all`: Java's checks (an empty
    /// id or list raises `IllegalArgumentError`), an empty list for a consumer not in `cid_all`.
    #[pyo3(signature = (consumer_group, current_cid, mq_all, cid_all))]
    fn allocate<'py>(
        &self,
        py: Python<'py>,
        consumer_group: Bound<'py, PyAny>,
        current_cid: Option<Later<CurrentCid<'_>, arg::CurrentCid>>,
        mq_all: Option<Later<Queues<'py>, arg::MqAll>>,
        cid_all: Option<Later<CidAll, arg::CidAll>>,
    ) -> Result<Option<Bound<'py, PyList>>> {
        if let Strategy::Config(_) = self.kind {
            return Ok(self.config_list(py)?); // Java reads none of the arguments
        }
        let (current_cid, mq_all, cid_all) = (
            later(py, current_cid)?,
            later(py, mq_all)?,
            later(py, cid_all)?,
        );
        match checked(current_cid, mq_all, cid_all)? {
            None => Ok(Some(PyList::empty(py))),
            Some(args) => self.allocate_checked(py, &consumer_group, args).map(Some),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(match &self.kind {
            Strategy::Averagely => "AllocateMessageQueueAveragely()".to_owned(),
            Strategy::Circle => "AllocateMessageQueueAveragelyByCircle()".to_owned(),
            Strategy::MachineRoom(m) => format!(
                "AllocateMessageQueueByMachineRoom({})",
                match &m.given {
                    None => "None".to_owned(),
                    Some(s) => s.bind(py).repr()?.to_string(),
                }
            ),
            Strategy::Config(_) => format!(
                "AllocateMessageQueueByConfig({})",
                match self.config_list(py)? {
                    None => "None".to_owned(),
                    Some(l) => l.repr()?.to_string(),
                }
            ),
            Strategy::ConsistentHash(c) => format!(
                "AllocateMessageQueueConsistentHash(virtual_node_cnt={})",
                c.vnodes
            ),
            Strategy::Bounded(b) => format!(
                "AllocateMessageQueueConsistentHashBounded(load_factor={}, virtual_node_cnt={})",
                PyFloat::new(py, b.load_factor).repr()?,
                b.vnodes
            ),
            Strategy::Sticky(s) => format!(
                "AllocateMessageQueueSticky(previous={} consumers)",
                s.previous_len()
            ),
            Strategy::Nearby(n) => {
                format!("AllocateMachineRoomNearby({})", n.inner.bind(py).repr()?)
            }
        })
    }
}

/// The whole assignment of a strategy that computes it at once: `{cid: queues}` for each distinct
/// consumer of `cid_all`, in order (`{}` for none), the same first exception as `allocate` would raise.
fn whole_assignment<'py>(
    strategy: &PyAllocateStrategy,
    py: Python<'py>,
    mq_all: Option<&Bound<'py, PyAny>>,
    cid_all: Option<CidAll>,
) -> Result<Bound<'py, PyDict>> {
    let Some((mqs, cids, unique)) = checked_all(mq_all, cid_all.map(|c| c.0))? else {
        return Ok(PyDict::new(py));
    };
    all_named(py, &unique)?;
    let positions = strategy
        .whole(py, &mqs, &cids, &unique)?
        .unwrap_or_default();
    Ok(assignment_dict(py, &mqs, &unique, positions)?)
}

/// Every consumer's queues in one pass: `{cid: strategy.allocate(consumer_group, cid, mq_all, cid_all)}`
/// for each distinct cid, equal to the per-consumer calls (the same first exception too). Any object
/// with `allocate` is taken; the native strategies compute the assignment without calling it.
#[pyfunction]
#[pyo3(signature = (strategy, mq_all, cid_all, consumer_group = None))]
pub fn allocate_all<'py>(
    py: Python<'py>,
    strategy: &Bound<'py, PyAny>,
    mq_all: Option<&Bound<'py, PyAny>>,
    cid_all: Option<&Bound<'py, PyAny>>,
    consumer_group: Option<&Bound<'py, PyAny>>,
) -> Result<Bound<'py, PyDict>> {
    let cids = cid_all
        .map(|c| c.extract::<CidAll>())
        .transpose()?
        .map(|c| c.0);
    let Ok(native) = strategy.cast::<PyAllocateStrategy>() else {
        // a strategy of the caller's own: asked for each consumer, with the arguments as given
        let out = PyDict::new(py);
        for c in unique_cids(&cids.unwrap_or_default()) {
            let got = strategy.call_method1("allocate", (consumer_group, &*c, mq_all, cid_all))?;
            out.set_item(&*c, got)?;
        }
        return Ok(out);
    };
    let s = native.get();
    let out = PyDict::new(py);
    if let Strategy::Config(_) = s.kind {
        for c in unique_cids(&cids.unwrap_or_default()) {
            out.set_item(&*c, s.config_list(py)?)?;
        }
        return Ok(out);
    }
    let Some((mqs, cids, unique)) = checked_all(mq_all, cids)? else {
        return Ok(out);
    };
    if !matches!(s.kind, Strategy::Nearby(_)) {
        all_named(py, &unique)?;
    }
    if let Some(p) = s.positional() {
        let first: HashMap<&str, usize> = cids
            .iter()
            .enumerate()
            .rev()
            .map(|(i, c)| (&**c, i))
            .collect();
        for c in &unique {
            out.set_item(
                &**c,
                pick(py, &mqs, p.positions(&mqs, cids.len(), first[&**c])?)?,
            )?;
        }
        return Ok(out);
    }
    if let Some(positions) = s.whole(py, &mqs, &cids, &unique)? {
        return Ok(assignment_dict(py, &mqs, &unique, positions)?);
    }
    // MACHINE_ROOM_NEARBY: each consumer in turn, as its allocate would
    let group = consumer_group
        .cloned()
        .unwrap_or_else(|| py.None().into_bound(py));
    for (index, c) in unique.iter().enumerate() {
        named(py, c)?;
        let args = Checked {
            mqs: mqs.clone(),
            cids: cids.clone(),
            cid: c.to_string(),
            index,
        };
        out.set_item(&**c, s.allocate_checked(py, &group, args)?)?;
    }
    Ok(out)
}

/// `AVG`: consecutive blocks, the first `len(mq_all) % len(cid_all)` consumers one queue more.
#[pyclass(extends = PyAllocateStrategy, frozen, name = "AllocateMessageQueueAveragely", module = "rocketroute._native")]
pub struct PyAllocateMessageQueueAveragely;

#[pymethods]
impl PyAllocateMessageQueueAveragely {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyAllocateStrategy::with(Strategy::Averagely, PyAllocateMessageQueueAveragely)
    }
}

/// `AVG_BY_CIRCLE`: queue `i` goes to consumer `i % len(cid_all)`.
#[pyclass(extends = PyAllocateStrategy, frozen, name = "AllocateMessageQueueAveragelyByCircle", module = "rocketroute._native")]
pub struct PyAllocateMessageQueueAveragelyByCircle;

#[pymethods]
impl PyAllocateMessageQueueAveragelyByCircle {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyAllocateStrategy::with(Strategy::Circle, PyAllocateMessageQueueAveragelyByCircle)
    }
}

/// The state of the strategy `slf` is, which its class guarantees.
macro_rules! state {
    ($slf:expr, $variant:ident) => {
        match &$slf.as_super().get().kind {
            Strategy::$variant(s) => s,
            _ => unreachable!(concat!(
                "a ",
                stringify!($variant),
                " class holds its own state"
            )),
        }
    };
}

/// `MACHINE_ROOM`: queues of brokers named `"<room>@<name>"` with `room` in `consumer_idcs`, in blocks.
#[pyclass(extends = PyAllocateStrategy, frozen, name = "AllocateMessageQueueByMachineRoom", module = "rocketroute._native")]
pub struct PyAllocateMessageQueueByMachineRoom;

#[pymethods]
impl PyAllocateMessageQueueByMachineRoom {
    #[new]
    #[pyo3(signature = (consumer_idcs = None))]
    fn new(
        py: Python<'_>,
        consumer_idcs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let rooms = MachineRoom::new(py, consumer_idcs)?;
        Ok(PyAllocateStrategy::with(
            Strategy::MachineRoom(rooms),
            PyAllocateMessageQueueByMachineRoom,
        ))
    }

    /// The rooms whose brokers' queues are allocated, as given (a frozenset), or `None`.
    #[getter]
    fn consumer_idcs(slf: &Bound<'_, Self>) -> Option<Py<PyFrozenSet>> {
        state!(slf, MachineRoom)
            .given
            .as_ref()
            .map(|s| s.clone_ref(slf.py()))
    }
}

/// `CONFIG`: every consumer gets `message_queue_list` whatever the arguments (Java checks nothing).
#[pyclass(extends = PyAllocateStrategy, frozen, name = "AllocateMessageQueueByConfig", module = "rocketroute._native")]
pub struct PyAllocateMessageQueueByConfig;

#[pymethods]
impl PyAllocateMessageQueueByConfig {
    #[new]
    #[pyo3(signature = (message_queue_list = None))]
    fn new(message_queue_list: Option<Queues<'_>>) -> PyClassInitializer<Self> {
        let list = message_queue_list.map(|q| q.0.into_iter().map(Bound::unbind).collect());
        PyAllocateStrategy::with(Strategy::Config(list), PyAllocateMessageQueueByConfig)
    }

    /// The configured queues (a new list), or `None`.
    #[getter]
    fn message_queue_list<'py>(slf: &Bound<'py, Self>) -> PyResult<Option<Bound<'py, PyList>>> {
        slf.as_super().get().config_list(slf.py())
    }
}

/// `CONSISTENT_HASH`: each queue goes to the consumer `str(mq)` routes to on a ring of the consumers.
/// The last ring is kept, keyed by the exact consumer list: a rebalance asks again with the same group.
#[pyclass(extends = PyAllocateStrategy, frozen, name = "AllocateMessageQueueConsistentHash", module = "rocketroute._native")]
pub struct PyAllocateMessageQueueConsistentHash;

#[pymethods]
impl PyAllocateMessageQueueConsistentHash {
    #[new]
    #[pyo3(signature = (virtual_node_cnt = None, hash_function = None))]
    fn new(
        virtual_node_cnt: Option<JavaInt<arg::VirtualNodeCnt>>,
        hash_function: Option<HashFunction>,
    ) -> Result<PyClassInitializer<Self>> {
        let state = ConsistentHash::new(vnodes(virtual_node_cnt)?, hash_function);
        Ok(PyAllocateStrategy::with(
            Strategy::ConsistentHash(state),
            PyAllocateMessageQueueConsistentHash,
        ))
    }

    /// Virtual nodes per consumer on the ring.
    #[getter]
    fn virtual_node_cnt(slf: &Bound<'_, Self>) -> i32 {
        state!(slf, ConsistentHash).vnodes
    }

    /// The ring hash (`None`: MD5).
    #[getter]
    fn hash_function(slf: &Bound<'_, Self>) -> Option<Py<PyAny>> {
        state!(slf, ConsistentHash)
            .hash_fn
            .as_ref()
            .map(|f| f.0.clone_ref(slf.py()))
    }

    /// The ring `allocate` builds for these consumers.
    fn router<'py>(
        slf: &Bound<'py, Self>,
        cid_all: CidAll,
    ) -> PyResult<Bound<'py, PyConsistentHashRouter>> {
        let py = slf.py();
        let state = state!(slf, ConsistentHash);
        let list = PyList::new(py, cid_all.0.iter().map(|c| &**c))?;
        let f = state.hash_fn.as_ref().map(|f| f.0.bind(py));
        let r = py
            .get_type::<PyConsistentHashRouter>()
            .call1((list, state.vnodes, f))?;
        Ok(r.cast_into::<PyConsistentHashRouter>()?)
    }
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
#[pyclass(extends = PyAllocateStrategy, frozen, name = "AllocateMessageQueueConsistentHashBounded", module = "rocketroute._native")]
pub struct PyAllocateMessageQueueConsistentHashBounded;

#[pymethods]
impl PyAllocateMessageQueueConsistentHashBounded {
    #[new]
    #[pyo3(signature = (load_factor = None, virtual_node_cnt = None, hash_function = None))]
    fn new(
        load_factor: Option<LoadFactor>,
        virtual_node_cnt: Option<JavaInt<arg::VirtualNodeCnt>>,
        hash_function: Option<HashFunction>,
    ) -> Result<PyClassInitializer<Self>> {
        let load_factor = load_factor.map_or(1.25, |l| l.0);
        let state = Bounded::new(load_factor, vnodes(virtual_node_cnt)?, hash_function);
        Ok(PyAllocateStrategy::with(
            Strategy::Bounded(state),
            PyAllocateMessageQueueConsistentHashBounded,
        ))
    }

    /// The load bound: no consumer takes more than `ceil(load_factor * queues / consumers)`.
    #[getter]
    fn load_factor(slf: &Bound<'_, Self>) -> f64 {
        state!(slf, Bounded).load_factor
    }

    /// Virtual nodes per consumer on the ring.
    #[getter]
    fn virtual_node_cnt(slf: &Bound<'_, Self>) -> i32 {
        state!(slf, Bounded).vnodes
    }

    /// The ring hash (`None`: MD5).
    #[getter]
    fn hash_function(slf: &Bound<'_, Self>) -> Option<Py<PyAny>> {
        state!(slf, Bounded)
            .hash_fn
            .as_ref()
            .map(|f| f.0.clone_ref(slf.py()))
    }

    /// The most queues one consumer takes: `ceil(load_factor * queue_count / consumer_count)` exactly,
    /// at most `queue_count`.
    fn capacity(
        slf: &Bound<'_, Self>,
        queue_count: JavaInt<arg::QueueCount>,
        consumer_count: JavaInt<arg::ConsumerCount>,
    ) -> PyResult<usize> {
        let (q, c) = (queue_count.0, consumer_count.0);
        if q < 0 {
            return Err(illegal(
                slf.py(),
                format!("queue_count must not be negative: {q}"),
            ));
        }
        if c < 1 {
            return Err(illegal(
                slf.py(),
                format!("consumer_count must be positive: {c}"),
            ));
        }
        Ok(rocketroute_core::bounded::capacity(
            state!(slf, Bounded).load_factor,
            q as usize,
            c as usize,
        ))
    }

    /// The whole assignment, `{cid: queues}` for each distinct consumer of `cid_all`, in order.
    fn allocate_all<'py>(
        slf: &Bound<'py, Self>,
        mq_all: Option<&Bound<'py, PyAny>>,
        cid_all: Option<CidAll>,
    ) -> Result<Bound<'py, PyDict>> {
        whole_assignment(slf.as_super().get(), slf.py(), mq_all, cid_all)
    }
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
#[pyclass(extends = PyAllocateStrategy, frozen, name = "AllocateMessageQueueSticky", module = "rocketroute._native")]
pub struct PyAllocateMessageQueueSticky;

#[pymethods]
impl PyAllocateMessageQueueSticky {
    #[new]
    #[pyo3(signature = (previous = None))]
    fn new(py: Python<'_>, previous: Option<Previous>) -> PyClassInitializer<Self> {
        PyAllocateStrategy::with(
            Strategy::Sticky(Sticky::new(py, previous)),
            PyAllocateMessageQueueSticky,
        )
    }

    /// The previous assignment, `{cid: (queue, ...)}` (a copy).
    #[getter]
    fn previous<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        state!(slf, Sticky).previous_dict(slf.py())
    }

    /// A new strategy with `assignment` as the previous one (e.g. this strategy's last `allocate_all`).
    fn with_previous<'py>(
        slf: &Bound<'py, Self>,
        assignment: Option<Previous>,
    ) -> PyResult<Bound<'py, Self>> {
        Bound::new(slf.py(), Self::new(slf.py(), assignment))
    }

    /// The whole assignment, `{cid: queues}` for each distinct consumer of `cid_all`, in order.
    fn allocate_all<'py>(
        slf: &Bound<'py, Self>,
        mq_all: Option<&Bound<'py, PyAny>>,
        cid_all: Option<CidAll>,
    ) -> Result<Bound<'py, PyDict>> {
        whole_assignment(slf.as_super().get(), slf.py(), mq_all, cid_all)
    }
}

/// `MACHINE_ROOM_NEARBY-<inner>`: consumers take their own room's queues with the inner strategy; queues
/// of a room without consumers are shared by all consumers.
#[pyclass(extends = PyAllocateStrategy, frozen, name = "AllocateMachineRoomNearby", module = "rocketroute._native")]
pub struct PyAllocateMachineRoomNearby;

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
    ) -> PyResult<PyClassInitializer<Self>> {
        let state = Nearby::new(
            py,
            inner_strategy,
            resolver,
            broker_deploy_in,
            consumer_deploy_in,
        )?;
        Ok(PyAllocateStrategy::with(
            Strategy::Nearby(state),
            PyAllocateMachineRoomNearby,
        ))
    }

    /// The strategy used within a room.
    #[getter]
    fn inner_strategy(slf: &Bound<'_, Self>) -> Py<PyAny> {
        state!(slf, Nearby).inner.clone_ref(slf.py())
    }

    /// The machine room resolver, as given.
    #[getter]
    fn resolver(slf: &Bound<'_, Self>) -> Py<PyAny> {
        state!(slf, Nearby).resolver.clone_ref(slf.py())
    }
}
