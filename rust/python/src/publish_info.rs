//! `TopicPublishInfo`: keeps the Python `MessageQueue` objects, so a pick returns an existing object.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rocketroute_core::{Compat, SendWhichQueue, TopicPublishInfo};

use crate::convert::{arg, compat_of, lazy_arg, Bool, CompatArg, Name};
use crate::counter::PySendWhichQueue;
use crate::errors::{npe, Result};
use crate::message_queue::{PyMessageQueue, Queues};
use crate::route::PyTopicRouteData;

/// The queues a producer sends a topic's messages to, with its `sendWhichQueue` index (Java's
/// `TopicPublishInfo`).
#[pyclass(frozen, name = "TopicPublishInfo", module = "rocketroute._native")]
pub struct PyTopicPublishInfo {
    pub core: TopicPublishInfo,
    pub queues: Vec<Py<PyMessageQueue>>,
    route: Option<Py<PyTopicRouteData>>,
    index: Py<PySendWhichQueue>,
    /// `haveTopicRouterInfo` (a volatile boolean in Java).
    have_route: AtomicBool,
}

impl PyTopicPublishInfo {
    pub fn queue(&self, py: Python<'_>, pos: usize) -> Py<PyMessageQueue> {
        self.queues[pos].clone_ref(py)
    }
}

/// The caller's index, or a fresh one.
fn index_or_new(
    py: Python<'_>,
    compat: Compat,
    index: Option<Py<PySendWhichQueue>>,
) -> PyResult<Py<PySendWhichQueue>> {
    match index {
        Some(i) => Ok(i),
        None => Py::new(
            py,
            PySendWhichQueue {
                inner: Arc::new(SendWhichQueue::with_entropy(compat)),
            },
        ),
    }
}

#[pymethods]
impl PyTopicPublishInfo {
    #[new]
    #[pyo3(signature = (message_queues, *, order_topic = false, route = None, compat = None, send_which_queue = None))]
    fn new(
        py: Python<'_>,
        message_queues: Queues<'_>,
        order_topic: bool,
        route: Option<Py<PyTopicRouteData>>,
        compat: Option<CompatArg>,
        send_which_queue: Option<Py<PySendWhichQueue>>,
    ) -> Result<Self> {
        let compat = compat_of(compat);
        let mqs = message_queues
            .0
            .iter()
            .map(|q| q.get().inner.clone())
            .collect();
        let index = index_or_new(py, compat, send_which_queue)?;
        let core = TopicPublishInfo::new(
            mqs,
            order_topic,
            route.as_ref().map(|r| r.get().inner.clone()),
            compat,
            index.get().inner.clone(),
        )?;
        Ok(PyTopicPublishInfo {
            core,
            queues: message_queues.0.into_iter().map(Bound::unbind).collect(),
            route,
            index,
            have_route: AtomicBool::new(false),
        })
    }

    /// `topicRouteData2TopicPublishInfo`: the queues of `orderTopicConf` when set (an ordered topic),
    /// else `writeQueueNums` queues of every writeable broker with a master, brokers in name order.
    #[staticmethod]
    #[pyo3(signature = (topic, route, compat = None))]
    fn from_route(
        py: Python<'_>,
        topic: Name<'_, arg::Topic>,
        route: &Bound<'_, PyTopicRouteData>,
        compat: Option<CompatArg>,
    ) -> Result<Self> {
        let compat = compat_of(compat);
        let index = index_or_new(py, compat, None)?;
        let core = TopicPublishInfo::from_route(
            &topic,
            &route.get().inner,
            compat,
            index.get().inner.clone(),
        )?;
        let queues = core
            .queues()
            .iter()
            .map(|m| PyMessageQueue::wrap(py, m.clone()))
            .collect::<PyResult<Vec<_>>>()?;
        let route_obj = match core.route() {
            Some(r) => Some(Py::new(py, PyTopicRouteData { inner: r.clone() })?),
            None => None,
        };
        Ok(PyTopicPublishInfo {
            core,
            queues,
            route: route_obj,
            index,
            have_route: AtomicBool::new(false),
        })
    }

    /// `messageQueueList`.
    #[getter]
    fn message_queues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.queues.iter().map(|q| q.clone_ref(py)))
    }

    /// `haveTopicRouterInfo`: False until set (the converter does not set it; Java's client instance sets
    /// it to True right after converting a route from the name server).
    #[getter]
    fn have_topic_router_info(&self) -> bool {
        self.have_route.load(Ordering::Acquire)
    }

    #[setter]
    fn set_have_topic_router_info(&self, value: Bool) {
        self.have_route.store(value.0, Ordering::Release);
    }

    /// `orderTopic`.
    #[getter]
    fn order_topic(&self) -> bool {
        self.core.order_topic()
    }

    /// `topicRouteData`, the route it was built from (None when built without one).
    #[getter]
    fn route(&self, py: Python<'_>) -> Option<Py<PyTopicRouteData>> {
        self.route.as_ref().map(|r| r.clone_ref(py))
    }

    /// The compat profile: `"5.3"` or `"4.9"`.
    #[getter]
    fn compat(&self) -> &'static str {
        self.core.compat().as_str()
    }

    /// `sendWhichQueue`, the round-robin index.
    #[getter]
    fn send_which_queue(&self, py: Python<'_>) -> Py<PySendWhichQueue> {
        self.index.clone_ref(py)
    }

    /// Java's `ok()`: the queue list is non-empty.
    fn ok(&self) -> bool {
        self.core.ok()
    }

    fn __len__(&self) -> usize {
        self.queues.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "TopicPublishInfo(order_topic={}, queues={}, compat='{}')",
            if self.core.order_topic() {
                "True"
            } else {
                "False"
            },
            self.queues.len(),
            self.core.compat().as_str()
        )
    }

    /// The next queue round-robin; with `last_broker_name`, the next one on another broker if any.
    #[pyo3(signature = (last_broker_name = None))]
    fn select_one_message_queue(
        &self,
        py: Python<'_>,
        last_broker_name: Option<&Bound<'_, PyAny>>,
    ) -> Result<Py<PyMessageQueue>> {
        // the hot call has no argument: an `Option<&Bound>` costs PyO3 no out-of-line default extraction (a
        // typed `Option<Name>` did: 53 more instructions a call, measured with callgrind), and the plain
        // round-robin needs no broker filter
        let pos = match lazy_arg::<Name<'_, arg::LastBrokerName>>(
            last_broker_name,
            "last_broker_name",
        )? {
            None => self.core.next_pos()?,
            Some(last) => self.core.select_one(Some(&last))?,
        };
        Ok(self.queue(py, pos))
    }

    /// 5.x `selectOneMessageQueue(QueueFilter...)`: one turn at most for a queue every filter accepts.
    #[pyo3(signature = (*filters))]
    fn select_one_message_queue_filtered(
        &self,
        py: Python<'_>,
        filters: &Bound<'_, PyTuple>,
    ) -> PyResult<Option<Py<PyMessageQueue>>> {
        let pos = if filters.is_empty() {
            self.core.select_filtered::<PyErr>(None)?
        } else {
            let mut accept = |p: usize| -> PyResult<bool> {
                let mq = self.queues[p].bind(py);
                let mut ok = true;
                for f in filters.iter() {
                    if f.is_none() {
                        return Err(npe(py, "queue filter is None"));
                    }
                    ok &= f.call1((mq,))?.is_truthy()?;
                }
                Ok(ok)
            };
            self.core.select_filtered(Some(&mut accept))?
        };
        Ok(pos.map(|p| self.queue(py, p)))
    }

    /// 5.x `resetIndex()`: re-draw the round-robin start.
    fn reset_index(&self) {
        self.core.index().reset()
    }

    /// `writeQueueNums` of the first queue data of `broker_name` in the route (4.9: writeable only), or -1.
    #[pyo3(signature = (broker_name))]
    fn write_queue_nums_by_broker(
        &self,
        broker_name: Option<Name<'_, arg::BrokerName>>,
    ) -> Result<i32> {
        Ok(self
            .core
            .write_queue_nums_by_broker(broker_name.as_deref())?)
    }
}
