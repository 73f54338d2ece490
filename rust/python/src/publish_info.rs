//! `TopicPublishInfo`: keeps the Python `MessageQueue` objects, so a pick returns an existing object.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString, PyTuple};
use rocketroute_core::{SendWhichQueue, TopicPublishInfo};

use crate::counter::{compat_arg, PySendWhichQueue};
use crate::errors::{java_err, name_text, npe, opt_str, req_name, type_name};
use crate::message_queue::PyMessageQueue;
use crate::route::PyTopicRouteData;

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

fn index_arg(
    py: Python<'_>,
    compat: rocketroute_core::Compat,
    obj: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PySendWhichQueue>> {
    match obj {
        Some(o) if !o.is_none() => Ok(o
            .cast::<PySendWhichQueue>()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "send_which_queue must be a SendWhichQueue, not {}",
                    type_name(o)
                ))
            })?
            .clone()
            .unbind()),
        _ => Py::new(
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
        message_queues: &Bound<'_, PyAny>,
        order_topic: bool,
        route: Option<&Bound<'_, PyAny>>,
        compat: Option<&Bound<'_, PyAny>>,
        send_which_queue: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let compat = compat_arg(compat)?;
        let mut objs = Vec::new();
        let mut mqs = Vec::new();
        for item in message_queues.try_iter()? {
            let item = item?;
            let mq = item.cast::<PyMessageQueue>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "message_queues must hold MessageQueue, not {}",
                    type_name(&item)
                ))
            })?;
            mqs.push(mq.get().inner.clone());
            objs.push(mq.clone().unbind());
        }
        let route_obj = match route {
            Some(r) if !r.is_none() => Some(
                r.cast::<PyTopicRouteData>()
                    .map_err(|_| {
                        PyTypeError::new_err(format!(
                            "route must be a TopicRouteData, not {}",
                            type_name(r)
                        ))
                    })?
                    .clone()
                    .unbind(),
            ),
            _ => None,
        };
        let index = index_arg(py, compat, send_which_queue)?;
        let core = TopicPublishInfo::new(
            mqs,
            order_topic,
            route_obj.as_ref().map(|r| r.get().inner.clone()),
            compat,
            index.get().inner.clone(),
        )
        .map_err(java_err)?;
        Ok(PyTopicPublishInfo {
            core,
            queues: objs,
            route: route_obj,
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
        topic: &Bound<'_, PyAny>,
        route: &Bound<'_, PyAny>,
        compat: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let compat = compat_arg(compat)?;
        let route = route.cast::<PyTopicRouteData>().map_err(|_| {
            PyTypeError::new_err(format!(
                "route must be a TopicRouteData, not {}",
                type_name(route)
            ))
        })?;
        let topic = req_name(topic, "topic")?.to_owned();
        let index = index_arg(py, compat, None)?;
        let core = TopicPublishInfo::from_route(
            &topic,
            &route.get().inner,
            compat,
            index.get().inner.clone(),
        )
        .map_err(java_err)?;
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
    fn set_have_topic_router_info(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if !value.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "have_topic_router_info must be a bool, not {}",
                type_name(value)
            )));
        }
        self.have_route.store(value.is_truthy()?, Ordering::Release);
        Ok(())
    }

    #[getter]
    fn order_topic(&self) -> bool {
        self.core.order_topic()
    }

    #[getter]
    fn route(&self, py: Python<'_>) -> Option<Py<PyTopicRouteData>> {
        self.route.as_ref().map(|r| r.clone_ref(py))
    }

    #[getter]
    fn compat(&self) -> &'static str {
        self.core.compat().as_str()
    }

    #[getter]
    fn send_which_queue(&self, py: Python<'_>) -> Py<PySendWhichQueue> {
        self.index.clone_ref(py)
    }

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
    ) -> PyResult<Py<PyMessageQueue>> {
        let last = match last_broker_name {
            Some(l) => opt_str(l, "last_broker_name")?,
            None => None,
        };
        let pos = match last {
            None => self.core.select_one(None),
            Some(s) => self
                .core
                .select_one(Some(name_text(s, "last_broker_name")?)),
        }
        .map_err(java_err)?;
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

    fn reset_index(&self) {
        self.core.index().reset()
    }

    /// `writeQueueNums` of the first queue data of `broker_name` in the route (4.9: writeable only), or -1.
    fn write_queue_nums_by_broker(&self, broker_name: &Bound<'_, PyAny>) -> PyResult<i32> {
        let name: Option<Bound<'_, PyString>> = opt_str(broker_name, "broker_name")?.cloned();
        let s = match &name {
            Some(n) => Some(name_text(n, "broker_name")?),
            None => None,
        };
        self.core.write_queue_nums_by_broker(s).map_err(java_err)
    }
}
