//! `PermName`, `QueueData`, `BrokerData`, `TopicRouteData`.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyList, PyMapping, PyString, PyTuple,
};
use rocketroute_core::route::{
    broker_id, perm, BrokerAddrs, BrokerData, QueueData, TopicRouteData,
};

use crate::errors::{illegal, java_err, java_int, name_text, opt_str, req_name, type_name};
use crate::message_queue::PyMessageQueue;

#[pyclass(frozen, name = "PermName", module = "rocketroute._native")]
pub struct PyPermName;

#[pymethods]
impl PyPermName {
    #[classattr]
    const PERM_PRIORITY: i32 = perm::PERM_PRIORITY;
    #[classattr]
    const PERM_READ: i32 = perm::PERM_READ;
    #[classattr]
    const PERM_WRITE: i32 = perm::PERM_WRITE;
    #[classattr]
    const PERM_INHERIT: i32 = perm::PERM_INHERIT;

    #[staticmethod]
    fn perm_to_string(perm: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(perm::to_string(java_int(perm, "perm")?))
    }
    #[staticmethod]
    fn is_readable(perm: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(perm::is_readable(java_int(perm, "perm")?))
    }
    #[staticmethod]
    fn is_writeable(perm: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(perm::is_writeable(java_int(perm, "perm")?))
    }
    #[staticmethod]
    fn is_inherited(perm: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(perm::is_inherited(java_int(perm, "perm")?))
    }
    #[staticmethod]
    fn is_priority(perm: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(perm::is_priority(java_int(perm, "perm")?))
    }
    #[staticmethod]
    fn is_valid(perm: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(perm::is_valid(java_int(perm, "perm")?))
    }
    #[staticmethod]
    fn is_accessible(perm: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(perm::is_accessible(java_int(perm, "perm")?))
    }
}

#[pyclass(frozen, name = "QueueData", module = "rocketroute._native")]
pub struct PyQueueData {
    pub inner: QueueData,
}

#[pymethods]
impl PyQueueData {
    #[new]
    #[pyo3(signature = (broker_name, read_queue_nums, write_queue_nums, perm = None, topic_sys_flag = None))]
    fn new(
        broker_name: &Bound<'_, PyAny>,
        read_queue_nums: &Bound<'_, PyAny>,
        write_queue_nums: &Bound<'_, PyAny>,
        perm: Option<&Bound<'_, PyAny>>,
        topic_sys_flag: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        Ok(PyQueueData {
            inner: QueueData {
                broker_name: Arc::from(req_name(broker_name, "broker_name")?),
                read_queue_nums: java_int(read_queue_nums, "read_queue_nums")?,
                write_queue_nums: java_int(write_queue_nums, "write_queue_nums")?,
                perm: match perm {
                    Some(p) => java_int(p, "perm")?,
                    None => perm::PERM_READ | perm::PERM_WRITE,
                },
                topic_sys_flag: match topic_sys_flag {
                    Some(f) => java_int(f, "topic_sys_flag")?,
                    None => 0,
                },
            },
        })
    }

    #[getter]
    fn broker_name(&self) -> &str {
        &self.inner.broker_name
    }
    #[getter]
    fn read_queue_nums(&self) -> i32 {
        self.inner.read_queue_nums
    }
    #[getter]
    fn write_queue_nums(&self) -> i32 {
        self.inner.write_queue_nums
    }
    #[getter]
    fn perm(&self) -> i32 {
        self.inner.perm
    }
    #[getter]
    fn topic_sys_flag(&self) -> i32 {
        self.inner.topic_sys_flag
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyQueueData>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        let q = &self.inner;
        format!(
            "QueueData(broker_name={:?}, read_queue_nums={}, write_queue_nums={}, perm={}, topic_sys_flag={})",
            &*q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm, q.topic_sys_flag
        )
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        queue_data_dict(py, &self.inner)
    }
}

fn queue_data_dict<'py>(py: Python<'py>, q: &QueueData) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("brokerName", &*q.broker_name)?;
    d.set_item("readQueueNums", q.read_queue_nums)?;
    d.set_item("writeQueueNums", q.write_queue_nums)?;
    d.set_item("perm", q.perm)?;
    d.set_item("topicSysFlag", q.topic_sys_flag)?;
    Ok(d)
}

#[pyclass(frozen, name = "BrokerData", module = "rocketroute._native")]
pub struct PyBrokerData {
    pub inner: BrokerData,
}

fn addr_key(k: &Bound<'_, PyAny>) -> PyResult<i64> {
    let py = k.py();
    if k.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "broker id must be an int or a decimal string",
        ));
    }
    if k.is_instance_of::<PyInt>() {
        return k.extract::<i64>().map_err(|_| {
            illegal(
                py,
                format!(
                    "broker id {} is out of the Java long range",
                    k.repr().map(|r| r.to_string()).unwrap_or_default()
                ),
            )
        });
    }
    if let Ok(s) = k.cast::<PyString>() {
        return match s.to_str() {
            Ok(t) => broker_id(t).map_err(java_err),
            // not a number, whatever else it holds
            Err(_) => Err(illegal(
                py,
                format!("broker id {} is not a number", s.repr()?),
            )),
        };
    }
    Err(PyTypeError::new_err(format!(
        "broker id must be an int or a decimal string, not {}",
        type_name(k)
    )))
}

#[pymethods]
impl PyBrokerData {
    #[new]
    #[pyo3(signature = (cluster, broker_name, broker_addrs = None))]
    fn new(
        cluster: &Bound<'_, PyAny>,
        broker_name: &Bound<'_, PyAny>,
        broker_addrs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let cluster = match opt_str(cluster, "cluster")? {
            Some(s) => Some(name_text(s, "cluster")?.to_owned()),
            None => None,
        };
        let broker_name: Arc<str> = Arc::from(req_name(broker_name, "broker_name")?);
        let broker_addrs = match broker_addrs {
            Some(a) if !a.is_none() => {
                let m = a.cast::<PyMapping>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "broker_addrs must be a mapping, not {}",
                        type_name(a)
                    ))
                })?;
                let mut out = BrokerAddrs::default();
                for item in m.items()?.iter() {
                    let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
                    let id = addr_key(&k)?;
                    let addr = if v.is_none() {
                        None
                    } else {
                        Some(
                            v.cast::<PyString>()
                                .map_err(|_| {
                                    PyTypeError::new_err(format!(
                                        "broker address must be a str or None, not {}",
                                        type_name(&v)
                                    ))
                                })
                                .and_then(|s| name_text(s, "broker address"))?
                                .to_owned(),
                        )
                    };
                    out.put(id, addr);
                }
                Some(out.into_vec())
            }
            _ => None,
        };
        Ok(PyBrokerData {
            inner: BrokerData {
                cluster,
                broker_name,
                broker_addrs,
            },
        })
    }

    #[getter]
    fn cluster(&self) -> Option<&str> {
        self.inner.cluster.as_deref()
    }
    #[getter]
    fn broker_name(&self) -> &str {
        &self.inner.broker_name
    }
    #[getter]
    fn broker_addrs<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(addrs) = &self.inner.broker_addrs else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        for (k, v) in addrs {
            d.set_item(k, v.as_deref())?;
        }
        Ok(Some(d))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyBrokerData>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "BrokerData(cluster={:?}, broker_name={:?}, broker_addrs={})",
            self.inner.cluster,
            &*self.inner.broker_name,
            self.broker_addrs(py)?
                .map(|d| d.repr().map(|r| r.to_string()))
                .transpose()?
                .unwrap_or_else(|| "None".into())
        ))
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        broker_data_dict(py, &self.inner)
    }
}

fn broker_data_dict<'py>(py: Python<'py>, b: &BrokerData) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("cluster", b.cluster.as_deref())?;
    d.set_item("brokerName", &*b.broker_name)?;
    match &b.broker_addrs {
        None => d.set_item("brokerAddrs", py.None())?,
        Some(addrs) => {
            let a = PyDict::new(py);
            for (k, v) in addrs {
                a.set_item(k.to_string(), v.as_deref())?;
            }
            d.set_item("brokerAddrs", a)?;
        }
    }
    Ok(d)
}

#[pyclass(frozen, name = "TopicRouteData", module = "rocketroute._native")]
pub struct PyTopicRouteData {
    pub inner: TopicRouteData,
}

fn mq_list<'py>(
    py: Python<'py>,
    mqs: Vec<rocketroute_core::MessageQueue>,
) -> PyResult<Bound<'py, PyList>> {
    let objs = mqs
        .into_iter()
        .map(|m| PyMessageQueue::wrap(py, m))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, objs)
}

#[pymethods]
impl PyTopicRouteData {
    #[new]
    #[pyo3(signature = (queue_datas = None, broker_datas = None, order_topic_conf = None))]
    fn new(
        queue_datas: Option<&Bound<'_, PyAny>>,
        broker_datas: Option<&Bound<'_, PyAny>>,
        order_topic_conf: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut qds = Vec::new();
        if let Some(q) = queue_datas.filter(|q| !q.is_none()) {
            for item in q.try_iter()? {
                let item = item?;
                let qd = item.cast::<PyQueueData>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "queue_datas must hold QueueData, not {}",
                        type_name(&item)
                    ))
                })?;
                qds.push(qd.get().inner.clone());
            }
        }
        let mut bds = Vec::new();
        if let Some(b) = broker_datas.filter(|b| !b.is_none()) {
            for item in b.try_iter()? {
                let item = item?;
                let bd = item.cast::<PyBrokerData>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "broker_datas must hold BrokerData, not {}",
                        type_name(&item)
                    ))
                })?;
                bds.push(bd.get().inner.clone());
            }
        }
        let conf = match order_topic_conf {
            Some(c) => match opt_str(c, "order_topic_conf")? {
                Some(s) => Some(name_text(s, "order_topic_conf")?.to_owned()),
                None => None,
            },
            None => None,
        };
        Ok(PyTopicRouteData {
            inner: TopicRouteData {
                queue_datas: qds,
                broker_datas: bds,
                order_topic_conf: conf,
            },
        })
    }

    /// Builds from the name server's JSON (text, bytes or a decoded dict; camelCase or snake_case keys).
    #[staticmethod]
    fn from_json(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text: String = if let Ok(s) = data.cast::<PyString>() {
            name_text(s, "route JSON")?.to_owned()
        } else if let Ok(b) = data.cast::<PyBytes>() {
            // Java decodes the body with `new String(data, UTF_8)`: bad bytes become U+FFFD
            String::from_utf8_lossy(b.as_bytes()).into_owned()
        } else if let Ok(b) = data.cast::<PyByteArray>() {
            String::from_utf8_lossy(&b.to_vec()).into_owned()
        } else if data.cast::<PyMapping>().is_ok() {
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("allow_nan", false)?;
            py.import("json")?
                .call_method("dumps", (data,), Some(&kwargs))
                .map_err(|e| illegal(py, format!("route is not valid JSON: {e}")))?
                .extract()?
        } else {
            return Err(illegal(py, "route JSON must be an object"));
        };
        Ok(PyTopicRouteData {
            inner: TopicRouteData::from_json_str(&text).map_err(java_err)?,
        })
    }

    #[getter]
    fn queue_datas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let objs = self
            .inner
            .queue_datas
            .iter()
            .map(|q| Py::new(py, PyQueueData { inner: q.clone() }))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, objs)
    }

    #[getter]
    fn broker_datas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let objs = self
            .inner
            .broker_datas
            .iter()
            .map(|b| Py::new(py, PyBrokerData { inner: b.clone() }))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, objs)
    }

    #[getter]
    fn order_topic_conf(&self) -> Option<&str> {
        self.inner.order_topic_conf.as_deref()
    }

    fn is_order_topic(&self) -> bool {
        self.inner.is_order_topic()
    }

    /// Queue datas in the order Java's `Collections.sort` leaves them (by broker name, stable).
    fn sorted_queue_datas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let objs = self
            .inner
            .sorted_queue_datas()
            .into_iter()
            .map(|q| Py::new(py, PyQueueData { inner: q }))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, objs)
    }

    /// The queues a consumer reads, without duplicates, sorted by `MessageQueue.compareTo`.
    fn subscribe_queues<'py>(
        &self,
        py: Python<'py>,
        topic: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let topic = req_name(topic, "topic")?.to_owned();
        let mqs = py
            .detach(|| self.inner.subscribe_queues(&topic))
            .map_err(java_err)?;
        mq_list(py, mqs)
    }

    /// The publish queues and whether the topic is ordered.
    fn publish_queues<'py>(
        &self,
        py: Python<'py>,
        topic: &Bound<'_, PyAny>,
    ) -> PyResult<(Bound<'py, PyList>, bool)> {
        let topic = req_name(topic, "topic")?.to_owned();
        let (mqs, order) = py
            .detach(|| self.inner.publish_queues(&topic))
            .map_err(java_err)?;
        Ok((mq_list(py, mqs)?, order))
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("orderTopicConf", self.inner.order_topic_conf.as_deref())?;
        let q = PyList::empty(py);
        for qd in &self.inner.queue_datas {
            q.append(queue_data_dict(py, qd)?)?;
        }
        d.set_item("queueDatas", q)?;
        let b = PyList::empty(py);
        for bd in &self.inner.broker_datas {
            b.append(broker_data_dict(py, bd)?)?;
        }
        d.set_item("brokerDatas", b)?;
        Ok(d)
    }

    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        py.import("json")?
            .call_method1("dumps", (self.to_dict(py)?,))?
            .extract()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyTopicRouteData>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("TopicRouteData({})", self.to_dict(py)?.repr()?))
    }
}
