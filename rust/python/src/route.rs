//! `PermName`, `QueueData`, `BrokerData`, `TopicRouteData`.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyList, PyMapping, PyString, PyTuple,
};
use rocketroute_core::route::{
    broker_id, perm, BrokerData, FilterServerTable, QueueData, TopicRouteData,
};
use rocketroute_core::static_topic::QueueMapping;

use crate::counter::compat_arg;
use crate::errors::{illegal, java_err, java_int, name_text, opt_str, req_name, type_name};
use crate::message_queue::PyMessageQueue;
use crate::static_topic::{
    given_bool, mapping_info_dict, opt_text, ordered_map, Given, PyTopicQueueMappingInfo,
};

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
                broker_name: opt_text(broker_name, "broker_name")?.map(Arc::from),
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
    fn broker_name(&self) -> Option<&str> {
        self.inner.broker_name.as_deref()
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

    /// Java's `hashCode()`.
    fn java_hash_code(&self) -> i32 {
        self.inner.java_hash_code()
    }

    /// Java's `compareTo`: the broker names in UTF-16 order (a None name is a NullPointerError).
    fn compare_to(&self, other: &Bound<'_, PyAny>) -> PyResult<i32> {
        let o = other.cast::<PyQueueData>().map_err(|_| {
            PyTypeError::new_err(format!(
                "other must be a QueueData, not {}",
                type_name(other)
            ))
        })?;
        self.inner.compare_to(&o.get().inner).map_err(java_err)
    }

    fn __repr__(&self) -> String {
        let q = &self.inner;
        let name = q
            .broker_name
            .as_deref()
            .map_or("None".to_owned(), |n| format!("{n:?}"));
        format!(
            "QueueData(broker_name={name}, read_queue_nums={}, write_queue_nums={}, perm={}, topic_sys_flag={})",
            q.read_queue_nums, q.write_queue_nums, q.perm, q.topic_sys_flag
        )
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        queue_data_dict(py, &self.inner)
    }
}

fn queue_data_dict<'py>(py: Python<'py>, q: &QueueData) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("brokerName", q.broker_name.as_deref())?;
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
    #[pyo3(signature = (cluster, broker_name, broker_addrs = None, *, zone_name = None, enable_acting_master = Given::Missing))]
    fn new(
        cluster: &Bound<'_, PyAny>,
        broker_name: &Bound<'_, PyAny>,
        broker_addrs: Option<&Bound<'_, PyAny>>,
        zone_name: Option<&Bound<'_, PyAny>>,
        enable_acting_master: Given<'_>,
    ) -> PyResult<Self> {
        let zone_name = match zone_name {
            Some(z) => opt_text(z, "zone_name")?,
            None => None,
        };
        let enable_acting_master = given_bool(enable_acting_master, "enable_acting_master")?;
        let cluster = match opt_str(cluster, "cluster")? {
            Some(s) => Some(name_text(s, "cluster")?.to_owned()),
            None => None,
        };
        let broker_name: Arc<str> = Arc::from(req_name(broker_name, "broker_name")?);
        let broker_addrs = match broker_addrs {
            Some(a) if !a.is_none() => Some(ordered_map(a, "broker_addrs", |k, v| {
                let addr = if v.is_none() {
                    None
                } else {
                    let s = v.cast::<PyString>().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "broker address must be a str or None, not {}",
                            type_name(v)
                        ))
                    })?;
                    Some(name_text(s, "broker address")?.to_owned())
                };
                Ok((addr_key(k)?, addr))
            })?),
            _ => None,
        };
        Ok(PyBrokerData {
            inner: BrokerData {
                cluster,
                broker_name,
                broker_addrs,
                zone_name,
                enable_acting_master,
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
        for (k, v) in addrs.iter() {
            d.set_item(k, v.as_deref())?;
        }
        Ok(Some(d))
    }

    #[getter]
    fn zone_name(&self) -> Option<&str> {
        self.inner.zone_name.as_deref()
    }
    #[getter]
    fn enable_acting_master(&self) -> bool {
        self.inner.enable_acting_master
    }

    /// Java's `equals`: broker name and addresses (as a map); cluster, zone name and acting master ignored.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyBrokerData>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    /// Java's `hashCode()`.
    fn java_hash_code(&self) -> i32 {
        self.inner.java_hash_code()
    }

    /// Java's `compareTo`: the broker names in UTF-16 order.
    fn compare_to(&self, other: &Bound<'_, PyAny>) -> PyResult<i32> {
        let o = other.cast::<PyBrokerData>().map_err(|_| {
            PyTypeError::new_err(format!(
                "other must be a BrokerData, not {}",
                type_name(other)
            ))
        })?;
        Ok(self.inner.compare_to(&o.get().inner))
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
            for (k, v) in addrs.iter() {
                a.set_item(k.to_string(), v.as_deref())?;
            }
            d.set_item("brokerAddrs", a)?;
        }
    }
    d.set_item("zoneName", b.zone_name.as_deref())?;
    d.set_item("enableActingMaster", b.enable_acting_master)?;
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

fn items_of<'py, T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync, R>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    holds: &str,
    get: impl Fn(&T) -> R,
) -> PyResult<Vec<R>> {
    let mut out = Vec::new();
    for item in obj.try_iter()? {
        let item = item?;
        let v = item.cast::<T>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{what} must hold {holds}, not {}",
                type_name(&item)
            ))
        })?;
        out.push(get(v.get()));
    }
    Ok(out)
}

fn filter_table(obj: &Bound<'_, PyAny>) -> PyResult<FilterServerTable> {
    ordered_map(obj, "filter_server_table", |k, v| {
        let key = req_name(k, "filter_server_table key")?.to_owned();
        if v.is_none() {
            return Ok((key, None));
        }
        if v.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "filter_server_table values must be lists of str, not str",
            ));
        }
        let mut l = Vec::new();
        for s in v.try_iter()? {
            l.push(req_name(&s?, "filter server")?.to_owned());
        }
        Ok((key, Some(l)))
    })
}

fn mapping_table(obj: &Bound<'_, PyAny>) -> PyResult<QueueMapping> {
    ordered_map(obj, "topic_queue_mapping_by_broker", |k, v| {
        let key = req_name(k, "topic_queue_mapping_by_broker key")?.to_owned();
        let info = v.cast::<PyTopicQueueMappingInfo>().map_err(|_| {
            PyTypeError::new_err(format!(
                "topic_queue_mapping_by_broker must hold TopicQueueMappingInfo, not {}",
                type_name(v)
            ))
        })?;
        Ok((key, info.get().inner.clone()))
    })
}

impl PyTopicRouteData {
    fn wrap(py: Python<'_>, inner: TopicRouteData) -> PyResult<Py<PyTopicRouteData>> {
        Py::new(py, PyTopicRouteData { inner })
    }
}

#[pymethods]
impl PyTopicRouteData {
    #[new]
    #[pyo3(signature = (queue_datas = Given::Missing, broker_datas = Given::Missing, order_topic_conf = None, *, filter_server_table = Given::Missing, topic_queue_mapping_by_broker = None))]
    fn new(
        queue_datas: Given<'_>,
        broker_datas: Given<'_>,
        order_topic_conf: Option<&Bound<'_, PyAny>>,
        filter_server_table: Given<'_>,
        topic_queue_mapping_by_broker: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut route = TopicRouteData::default();
        if let Given::Value(q) = queue_datas {
            route.queue_datas = if q.is_none() {
                None
            } else {
                Some(items_of(
                    &q,
                    "queue_datas",
                    "QueueData",
                    |d: &PyQueueData| d.inner.clone(),
                )?)
            };
        }
        if let Given::Value(b) = broker_datas {
            route.broker_datas = if b.is_none() {
                None
            } else {
                Some(items_of(
                    &b,
                    "broker_datas",
                    "BrokerData",
                    |d: &PyBrokerData| d.inner.clone(),
                )?)
            };
        }
        route.order_topic_conf = match order_topic_conf {
            Some(c) => opt_text(c, "order_topic_conf")?,
            None => None,
        };
        if let Given::Value(f) = filter_server_table {
            route.filter_server_table = if f.is_none() {
                None
            } else {
                Some(filter_table(&f)?)
            };
        }
        route.topic_queue_mapping_by_broker = match topic_queue_mapping_by_broker {
            Some(m) if !m.is_none() => Some(mapping_table(m)?),
            _ => None,
        };
        Ok(PyTopicRouteData { inner: route })
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
    fn queue_datas<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(qds) = &self.inner.queue_datas else {
            return Ok(None);
        };
        let objs = qds
            .iter()
            .map(|q| Py::new(py, PyQueueData { inner: q.clone() }))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Some(PyTuple::new(py, objs)?))
    }

    #[getter]
    fn broker_datas<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(bds) = &self.inner.broker_datas else {
            return Ok(None);
        };
        let objs = bds
            .iter()
            .map(|b| Py::new(py, PyBrokerData { inner: b.clone() }))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Some(PyTuple::new(py, objs)?))
    }

    #[getter]
    fn order_topic_conf(&self) -> Option<&str> {
        self.inner.order_topic_conf.as_deref()
    }

    /// `filterServerTable`: broker address -> filter servers (a fresh dict), or None.
    #[getter]
    fn filter_server_table<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(t) = &self.inner.filter_server_table else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        for (k, v) in t.iter() {
            match v {
                None => d.set_item(k, py.None())?,
                Some(l) => d.set_item(k, PyList::new(py, l)?)?,
            }
        }
        Ok(Some(d))
    }

    /// 5.x `topicQueueMappingByBroker`: broker name -> `TopicQueueMappingInfo` (a fresh dict), or None.
    #[getter]
    fn topic_queue_mapping_by_broker<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(m) = &self.inner.topic_queue_mapping_by_broker else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        for (k, v) in m.iter() {
            d.set_item(
                k,
                Py::new(py, PyTopicQueueMappingInfo { inner: v.clone() })?,
            )?;
        }
        Ok(Some(d))
    }

    fn is_order_topic(&self) -> bool {
        self.inner.is_order_topic()
    }

    /// Queue datas in the order Java's `Collections.sort` leaves them (by broker name, stable).
    fn sorted_queue_datas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let objs = self
            .inner
            .sorted_queue_datas()
            .map_err(java_err)?
            .into_iter()
            .map(|q| Py::new(py, PyQueueData { inner: q }))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, objs)
    }

    /// The queues a consumer reads, without duplicates, sorted by `MessageQueue.compareTo` (5.3: the logic
    /// queues of a static topic).
    #[pyo3(signature = (topic, compat = None))]
    fn subscribe_queues<'py>(
        &self,
        py: Python<'py>,
        topic: &Bound<'_, PyAny>,
        compat: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let compat = compat_arg(compat)?;
        let topic = req_name(topic, "topic")?.to_owned();
        let mqs = py
            .detach(|| self.inner.subscribe_queues(&topic, compat))
            .map_err(java_err)?;
        mq_list(py, mqs)
    }

    /// The publish queues and whether the topic is ordered (5.3: the logic queues of a static topic).
    #[pyo3(signature = (topic, compat = None))]
    fn publish_queues<'py>(
        &self,
        py: Python<'py>,
        topic: &Bound<'_, PyAny>,
        compat: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Bound<'py, PyList>, bool)> {
        let compat = compat_arg(compat)?;
        let topic = req_name(topic, "topic")?.to_owned();
        let (mqs, order) = py
            .detach(|| self.inner.publish_queues(&topic, compat))
            .map_err(java_err)?;
        Ok((mq_list(py, mqs)?, order))
    }

    /// 5.3.3's `ClientMetadata.topicRouteData2EndpointsForStaticTopic`: each logic queue -> the broker
    /// holding it, ordered by `MessageQueue.compareTo`.
    fn endpoints_for_static_topic<'py>(
        &self,
        py: Python<'py>,
        topic: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let topic = req_name(topic, "topic")?.to_owned();
        let mut entries = py
            .detach(|| self.inner.endpoints_for_static_topic(&topic))
            .map_err(java_err)?;
        entries.sort_by(|a, b| a.0.java_cmp(&b.0));
        let d = PyDict::new(py);
        for (mq, broker) in entries {
            d.set_item(PyMessageQueue::wrap(py, mq)?, broker.as_deref())?;
        }
        Ok(d)
    }

    /// Java's `hashCode()` (4.9.8's has no mapping term).
    #[pyo3(signature = (compat = None))]
    fn java_hash_code(&self, compat: Option<&Bound<'_, PyAny>>) -> PyResult<i32> {
        Ok(self.inner.java_hash_code(compat_arg(compat)?))
    }

    /// 5.3.3's `topicRouteDataChanged(old)`: whether this route differs from `old` once both are copied and
    /// their queue and broker datas sorted (None is a change).
    fn topic_route_data_changed(&self, old: &Bound<'_, PyAny>) -> PyResult<bool> {
        let old = if old.is_none() {
            None
        } else {
            Some(old.cast::<PyTopicRouteData>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "old must be a TopicRouteData or None, not {}",
                    type_name(old)
                ))
            })?)
        };
        self.inner
            .topic_route_data_changed(old.as_ref().map(|o| &o.get().inner))
            .map_err(java_err)
    }

    /// 5.3.3's copy constructor `new TopicRouteData(route)`: null lists and filter table become empty.
    fn copy(&self, py: Python<'_>) -> PyResult<Py<PyTopicRouteData>> {
        Self::wrap(py, self.inner.copy())
    }

    /// `cloneTopicRouteData()`: 5.3 raises NullPointerError on a None list or filter table, 4.9 copies them
    /// as empty.
    #[pyo3(signature = (compat = None))]
    fn clone_topic_route_data(
        &self,
        py: Python<'_>,
        compat: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTopicRouteData>> {
        let r = self
            .inner
            .clone_topic_route_data(compat_arg(compat)?)
            .map_err(java_err)?;
        Self::wrap(py, r)
    }

    /// 5.3.3's `deepCloneTopicRouteData()`: NullPointerError on a None list or filter table.
    fn deep_clone_topic_route_data(&self, py: Python<'_>) -> PyResult<Py<PyTopicRouteData>> {
        let r = self.inner.deep_clone_topic_route_data().map_err(java_err)?;
        Self::wrap(py, r)
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("orderTopicConf", self.inner.order_topic_conf.as_deref())?;
        match &self.inner.queue_datas {
            None => d.set_item("queueDatas", py.None())?,
            Some(qds) => {
                let q = PyList::empty(py);
                for qd in qds {
                    q.append(queue_data_dict(py, qd)?)?;
                }
                d.set_item("queueDatas", q)?;
            }
        }
        match &self.inner.broker_datas {
            None => d.set_item("brokerDatas", py.None())?,
            Some(bds) => {
                let b = PyList::empty(py);
                for bd in bds {
                    b.append(broker_data_dict(py, bd)?)?;
                }
                d.set_item("brokerDatas", b)?;
            }
        }
        d.set_item("filterServerTable", self.filter_server_table(py)?)?;
        match &self.inner.topic_queue_mapping_by_broker {
            None => d.set_item("topicQueueMappingByBroker", py.None())?,
            Some(m) => {
                let md = PyDict::new(py);
                for (k, v) in m.iter() {
                    md.set_item(k, mapping_info_dict(py, v)?)?;
                }
                d.set_item("topicQueueMappingByBroker", md)?;
            }
        }
        Ok(d)
    }

    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        py.import("json")?
            .call_method1("dumps", (self.to_dict(py)?,))?
            .extract()
    }

    /// Java's `equals` over every field.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyTopicRouteData>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("TopicRouteData({})", self.to_dict(py)?.repr()?))
    }
}
