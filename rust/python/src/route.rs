//! `PermName`, `QueueData`, `BrokerData`, `TopicRouteData`.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use rocketroute_core::route::{perm, BrokerData, QueueData, TopicRouteData};

use crate::convert::{
    arg, compat_of, Bool, BrokerAddrs, CompatArg, FilterServers, Given, Items, JavaInt, Name,
    RouteJson,
};
use crate::errors::Result;
use crate::message_queue::PyMessageQueue;
use crate::static_topic::{mapping_info_dict, PyTopicQueueMappingInfo, QueueMappings};

/// Broker / queue permission bits, as `org.apache.rocketmq.common.constant.PermName` (not instantiable).
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

    /// `PermName.perm2String(perm)`: `R`, `W`, `X` (inherit), each `-` when its bit is not set.
    #[staticmethod]
    fn perm_to_string(perm: JavaInt<arg::Perm>) -> String {
        perm::to_string(perm.0)
    }
    /// `PermName.isReadable(perm)`: the read bit is set.
    #[staticmethod]
    fn is_readable(perm: JavaInt<arg::Perm>) -> bool {
        perm::is_readable(perm.0)
    }
    /// `PermName.isWriteable(perm)`: the write bit is set.
    #[staticmethod]
    fn is_writeable(perm: JavaInt<arg::Perm>) -> bool {
        perm::is_writeable(perm.0)
    }
    /// `PermName.isInherited(perm)`: the inherit bit is set.
    #[staticmethod]
    fn is_inherited(perm: JavaInt<arg::Perm>) -> bool {
        perm::is_inherited(perm.0)
    }
    /// `PermName.isPriority(perm)`: the priority bit is set.
    #[staticmethod]
    fn is_priority(perm: JavaInt<arg::Perm>) -> bool {
        perm::is_priority(perm.0)
    }
    /// `PermName.isValid(perm)`: `0 <= perm < PERM_PRIORITY`.
    #[staticmethod]
    fn is_valid(perm: JavaInt<arg::Perm>) -> bool {
        perm::is_valid(perm.0)
    }
    /// `PermName.isAccessible(perm)`: readable or writeable.
    #[staticmethod]
    fn is_accessible(perm: JavaInt<arg::Perm>) -> bool {
        perm::is_accessible(perm.0)
    }
}

/// One broker's queues of a topic (`org.apache.rocketmq.remoting.protocol.route.QueueData`). Immutable;
/// `broker_name` may be None (Java null): such a queue data matches no broker.
#[pyclass(frozen, name = "QueueData", module = "rocketroute._native")]
pub struct PyQueueData {
    pub inner: QueueData,
}

#[pymethods]
impl PyQueueData {
    #[new]
    #[pyo3(signature = (broker_name, read_queue_nums, write_queue_nums, perm = None, topic_sys_flag = None))]
    fn new(
        broker_name: Option<Name<'_, arg::BrokerName>>,
        read_queue_nums: JavaInt<arg::ReadQueueNums>,
        write_queue_nums: JavaInt<arg::WriteQueueNums>,
        perm: Option<JavaInt<arg::Perm>>,
        topic_sys_flag: Option<JavaInt<arg::TopicSysFlag>>,
    ) -> Self {
        PyQueueData {
            inner: QueueData {
                broker_name: broker_name.as_deref().map(Arc::from),
                read_queue_nums: read_queue_nums.0,
                write_queue_nums: write_queue_nums.0,
                perm: perm.map_or(perm::PERM_READ | perm::PERM_WRITE, |p| p.0),
                topic_sys_flag: topic_sys_flag.map_or(0, |f| f.0),
            },
        }
    }

    /// `brokerName` (None: Java null).
    #[getter]
    fn broker_name(&self) -> Option<&str> {
        self.inner.broker_name.as_deref()
    }
    /// `readQueueNums`: the queues consumers read.
    #[getter]
    fn read_queue_nums(&self) -> i32 {
        self.inner.read_queue_nums
    }
    /// `writeQueueNums`: the queues producers write.
    #[getter]
    fn write_queue_nums(&self) -> i32 {
        self.inner.write_queue_nums
    }
    /// `perm`: the :class:`PermName` bits.
    #[getter]
    fn perm(&self) -> i32 {
        self.inner.perm
    }
    /// `topicSysFlag`.
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
    fn compare_to(&self, other: &Bound<'_, PyQueueData>) -> Result<i32> {
        Ok(self.inner.compare_to(&other.get().inner)?)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            "QueueData",
            &[
                "broker_name",
                "read_queue_nums",
                "write_queue_nums",
                "perm",
                "topic_sys_flag",
            ],
        )
    }

    /// The name server's camelCase JSON object.
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

/// A broker group (`org.apache.rocketmq.remoting.protocol.route.BrokerData`): its cluster, name, addresses
/// by broker id (0 is the master) and, in 5.x, `zone_name` and `enable_acting_master`. Immutable.
#[pyclass(frozen, name = "BrokerData", module = "rocketroute._native")]
pub struct PyBrokerData {
    pub inner: BrokerData,
}

#[pymethods]
impl PyBrokerData {
    #[new]
    #[pyo3(signature = (cluster, broker_name, broker_addrs = None, *, zone_name = None, enable_acting_master = Bool(false)))]
    fn new(
        cluster: Option<Name<'_, arg::Cluster>>,
        broker_name: Name<'_, arg::BrokerName>,
        broker_addrs: Option<BrokerAddrs>,
        zone_name: Option<Name<'_, arg::ZoneName>>,
        enable_acting_master: Bool,
    ) -> Self {
        PyBrokerData {
            inner: BrokerData {
                cluster: cluster.as_deref().map(String::from),
                broker_name: Arc::from(&*broker_name),
                broker_addrs: broker_addrs.map(|a| a.0),
                zone_name: zone_name.as_deref().map(String::from),
                enable_acting_master: enable_acting_master.0,
            },
        }
    }

    /// `cluster` (None: Java null).
    #[getter]
    fn cluster(&self) -> Option<&str> {
        self.inner.cluster.as_deref()
    }
    /// `brokerName`.
    #[getter]
    fn broker_name(&self) -> &str {
        &self.inner.broker_name
    }
    /// `brokerAddrs`: broker id -> address, a fresh copy, or None (Java null).
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

    /// 5.x `zoneName` (None: Java null).
    #[getter]
    fn zone_name(&self) -> Option<&str> {
        self.inner.zone_name.as_deref()
    }
    /// 5.x `enableActingMaster`.
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
    fn compare_to(&self, other: &Bound<'_, PyBrokerData>) -> i32 {
        self.inner.compare_to(&other.get().inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            "BrokerData",
            &[
                "cluster",
                "broker_name",
                "broker_addrs",
                "zone_name",
                "enable_acting_master",
            ],
        )
    }

    /// The name server's camelCase JSON object.
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

/// A topic's route as the name server returns it (`TopicRouteData`, 5.3.3 with 4.9.8's behaviour under
/// `compat="4.9"`). Immutable: every dict or list it hands out is a fresh copy.
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
        queue_datas: Given<Option<Items<'_, PyQueueData>>>,
        broker_datas: Given<Option<Items<'_, PyBrokerData>>>,
        order_topic_conf: Option<Name<'_, arg::OrderTopicConf>>,
        filter_server_table: Given<Option<FilterServers>>,
        topic_queue_mapping_by_broker: Option<QueueMappings>,
    ) -> Self {
        let mut route = TopicRouteData::default();
        if let Given::Value(q) = queue_datas {
            route.queue_datas = q.map(|q| q.0.iter().map(|d| d.get().inner.clone()).collect());
        }
        if let Given::Value(b) = broker_datas {
            route.broker_datas = b.map(|b| b.0.iter().map(|d| d.get().inner.clone()).collect());
        }
        route.order_topic_conf = order_topic_conf.as_deref().map(String::from);
        if let Given::Value(f) = filter_server_table {
            route.filter_server_table = f.map(|f| f.0);
        }
        route.topic_queue_mapping_by_broker = topic_queue_mapping_by_broker.map(|m| m.0);
        PyTopicRouteData { inner: route }
    }

    /// Builds from the name server's JSON (text, bytes or a decoded dict; camelCase or snake_case keys).
    #[staticmethod]
    fn from_json(data: RouteJson) -> Result<Self> {
        Ok(PyTopicRouteData {
            inner: TopicRouteData::from_json_str(&data.0)?,
        })
    }

    /// `queueDatas`, or None (Java null).
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

    /// `brokerDatas`, or None (Java null).
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

    /// `orderTopicConf` (None: Java null).
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

    /// Whether `orderTopicConf` decides the publish queues (a non-empty string).
    fn is_order_topic(&self) -> bool {
        self.inner.is_order_topic()
    }

    /// Queue datas in the order Java's `Collections.sort` leaves them (by broker name, stable).
    fn sorted_queue_datas<'py>(&self, py: Python<'py>) -> Result<Bound<'py, PyTuple>> {
        let objs = self
            .inner
            .sorted_queue_datas()?
            .into_iter()
            .map(|q| Py::new(py, PyQueueData { inner: q }))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyTuple::new(py, objs)?)
    }

    /// The queues a consumer reads, without duplicates, sorted by `MessageQueue.compareTo` (5.3: the logic
    /// queues of a static topic).
    #[pyo3(signature = (topic, compat = None))]
    fn subscribe_queues<'py>(
        &self,
        py: Python<'py>,
        topic: Name<'_, arg::Topic>,
        compat: Option<CompatArg>,
    ) -> Result<Bound<'py, PyList>> {
        let compat = compat_of(compat);
        let mqs = py.detach(|| self.inner.subscribe_queues(&topic, compat))?;
        Ok(mq_list(py, mqs)?)
    }

    /// The publish queues and whether the topic is ordered (5.3: the logic queues of a static topic).
    #[pyo3(signature = (topic, compat = None))]
    fn publish_queues<'py>(
        &self,
        py: Python<'py>,
        topic: Name<'_, arg::Topic>,
        compat: Option<CompatArg>,
    ) -> Result<(Bound<'py, PyList>, bool)> {
        let compat = compat_of(compat);
        let (mqs, order) = py.detach(|| self.inner.publish_queues(&topic, compat))?;
        Ok((mq_list(py, mqs)?, order))
    }

    /// 5.3.3's `ClientMetadata.topicRouteData2EndpointsForStaticTopic`: each logic queue -> the broker
    /// holding it, ordered by `MessageQueue.compareTo`.
    fn endpoints_for_static_topic<'py>(
        &self,
        py: Python<'py>,
        topic: Name<'_, arg::Topic>,
    ) -> Result<Bound<'py, PyDict>> {
        let mut entries = py.detach(|| self.inner.endpoints_for_static_topic(&topic))?;
        entries.sort_by(|a, b| a.0.java_cmp(&b.0));
        let d = PyDict::new(py);
        for (mq, broker) in entries {
            d.set_item(PyMessageQueue::wrap(py, mq)?, broker.as_deref())?;
        }
        Ok(d)
    }

    /// Java's `hashCode()` (4.9.8's has no mapping term).
    #[pyo3(signature = (compat = None))]
    fn java_hash_code(&self, compat: Option<CompatArg>) -> i32 {
        self.inner.java_hash_code(compat_of(compat))
    }

    /// 5.3.3's `topicRouteDataChanged(old)`: whether this route differs from `old` once both are copied and
    /// their queue and broker datas sorted (None is a change).
    #[pyo3(signature = (old))]
    fn topic_route_data_changed(&self, old: Option<&Bound<'_, PyTopicRouteData>>) -> Result<bool> {
        Ok(self
            .inner
            .topic_route_data_changed(old.map(|o| &o.get().inner))?)
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
        compat: Option<CompatArg>,
    ) -> Result<Py<PyTopicRouteData>> {
        let r = self.inner.clone_topic_route_data(compat_of(compat))?;
        Ok(Self::wrap(py, r)?)
    }

    /// 5.3.3's `deepCloneTopicRouteData()`: NullPointerError on a None list or filter table.
    fn deep_clone_topic_route_data(&self, py: Python<'_>) -> Result<Py<PyTopicRouteData>> {
        let r = self.inner.deep_clone_topic_route_data()?;
        Ok(Self::wrap(py, r)?)
    }

    /// The name server's camelCase JSON object (`from_json` reads it back to an equal route).
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

    /// `to_dict()` as JSON text.
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

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            "TopicRouteData",
            &[
                "queue_datas",
                "broker_datas",
                "order_topic_conf",
                "filter_server_table",
                "topic_queue_mapping_by_broker",
            ],
        )
    }
}

/// `Class(field=value, ...)` from the object's own properties (tuples shown as lists), as the reference
/// writes its reprs.
fn fields_repr(obj: &Bound<'_, PyAny>, class: &str, fields: &[&str]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for f in fields {
        let v = obj.getattr(*f)?;
        let v = match v.cast::<PyTuple>() {
            Ok(t) => t.to_list().into_any(),
            Err(_) => v,
        };
        parts.push(format!("{f}={}", v.repr()?));
    }
    Ok(format!("{class}({})", parts.join(", ")))
}
