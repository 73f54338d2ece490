//! `TopicQueueMappingInfo`, `mock_broker_name` and the static-topic constants.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rocketroute_core::static_topic::{self, QueueMapping, TopicQueueMappingInfo};

use crate::convert::{arg, ordered_map, part, Bool, Given, IdMap, JavaInt, JavaLong, Name};
use crate::errors::type_name;

/// 5.x `TopicQueueMappingInfo`: which logic queue ids (`curr_id_map`: global id -> physical queue id) one
/// broker hosts for a static topic, under which `scope` and `epoch`. Immutable.
#[pyclass(frozen, name = "TopicQueueMappingInfo", module = "rocketroute._native")]
pub struct PyTopicQueueMappingInfo {
    pub inner: std::sync::Arc<TopicQueueMappingInfo>,
}

#[pymethods]
impl PyTopicQueueMappingInfo {
    #[new]
    #[pyo3(signature = (topic, total_queues, bname, epoch, *, scope = Given::Missing, dirty = Bool(false), curr_id_map = Given::Missing))]
    fn new(
        topic: Option<Name<'_, arg::Topic>>,
        total_queues: JavaInt<arg::TotalQueues>,
        bname: Option<Name<'_, arg::BName>>,
        epoch: JavaLong<arg::Epoch>,
        scope: Given<Option<Name<'_, arg::Scope>>>,
        dirty: Bool,
        curr_id_map: Given<Option<IdMap>>,
    ) -> Self {
        let mut info = TopicQueueMappingInfo::new(
            topic.as_deref().map(String::from),
            total_queues.0,
            bname.as_deref().map(String::from),
            epoch.0,
        );
        if let Given::Value(s) = scope {
            info.scope = s.as_deref().map(String::from);
        }
        info.dirty = dirty.0;
        if let Given::Value(m) = curr_id_map {
            info.curr_id_map = m.map(|m| m.0);
        }
        PyTopicQueueMappingInfo {
            inner: std::sync::Arc::new(info),
        }
    }

    /// `topic` (None: Java null).
    #[getter]
    fn topic(&self) -> Option<&str> {
        self.inner.topic.as_deref()
    }
    /// `scope` (None: Java null).
    #[getter]
    fn scope(&self) -> Option<&str> {
        self.inner.scope.as_deref()
    }
    /// `totalQueues`: the logic queues of the static topic.
    #[getter]
    fn total_queues(&self) -> i32 {
        self.inner.total_queues
    }
    /// `bname`: the broker this mapping is for (None: Java null).
    #[getter]
    fn bname(&self) -> Option<&str> {
        self.inner.bname.as_deref()
    }
    /// `epoch`.
    #[getter]
    fn epoch(&self) -> i64 {
        self.inner.epoch
    }
    /// `dirty`.
    #[getter]
    fn dirty(&self) -> bool {
        self.inner.dirty
    }
    /// `currIdMap`: a fresh copy (insertion order), or None (Java null).
    #[getter]
    fn curr_id_map<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(m) = &self.inner.curr_id_map else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        for (k, v) in m.iter() {
            d.set_item(k, v)?;
        }
        Ok(Some(d))
    }

    /// Java's `hashCode()`.
    fn java_hash_code(&self) -> i32 {
        self.inner.java_hash_code()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyTopicQueueMappingInfo>()
            .is_ok_and(|o| *o.get().inner == *self.inner)
    }

    /// The name server's camelCase JSON object (fastjson's bean names); `currIdMap` keys as strings.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        mapping_info_dict(py, &self.inner)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let i = &self.inner;
        let ids = match self.curr_id_map(py)? {
            Some(d) => d.repr()?.to_string(),
            None => "None".into(),
        };
        let s = |v: &Option<String>| v.as_ref().map_or("None".to_owned(), |s| format!("{s:?}"));
        Ok(format!(
            "TopicQueueMappingInfo(topic={}, total_queues={}, bname={}, epoch={}, scope={}, dirty={}, curr_id_map={ids})",
            s(&i.topic),
            i.total_queues,
            s(&i.bname),
            i.epoch,
            s(&i.scope),
            if i.dirty { "True" } else { "False" },
        ))
    }
}

pub fn mapping_info_dict<'py>(
    py: Python<'py>,
    i: &TopicQueueMappingInfo,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("topic", i.topic.as_deref())?;
    d.set_item("scope", i.scope.as_deref())?;
    d.set_item("totalQueues", i.total_queues)?;
    d.set_item("bname", i.bname.as_deref())?;
    d.set_item("epoch", i.epoch)?;
    d.set_item("dirty", i.dirty)?;
    match &i.curr_id_map {
        None => d.set_item("currIdMap", py.None())?,
        Some(m) => {
            let ids = PyDict::new(py);
            for (k, v) in m.iter() {
                ids.set_item(k.to_string(), v)?;
            }
            d.set_item("currIdMap", ids)?;
        }
    }
    Ok(d)
}

/// `TopicQueueMappingUtils.getMockBrokerName(scope)`: the broker name of a scope's logic queues.
#[pyfunction]
pub fn mock_broker_name(scope: Name<'_, arg::Scope>) -> String {
    static_topic::mock_broker_name(&scope)
}

pub fn add_constants(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add(
        "LOGICAL_QUEUE_MOCK_BROKER_PREFIX",
        static_topic::LOGICAL_QUEUE_MOCK_BROKER_PREFIX,
    )?;
    m.add(
        "LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST",
        static_topic::LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST,
    )?;
    m.add("METADATA_SCOPE_GLOBAL", static_topic::METADATA_SCOPE_GLOBAL)?;
    Ok(())
}

/// `topic_queue_mapping_by_broker`: broker name -> `TopicQueueMappingInfo`.
pub struct QueueMappings(pub QueueMapping);

impl FromPyObject<'_, '_> for QueueMappings {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        ordered_map(obj, |k, v| {
            let key = part::<Name<arg::MappingKey>>(k, "key")?.0.to_owned();
            let info = v.cast::<PyTopicQueueMappingInfo>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "values must be TopicQueueMappingInfo, not {}",
                    type_name(v)
                ))
            })?;
            Ok((key, info.get().inner.clone()))
        })
        .map(QueueMappings)
    }
}
