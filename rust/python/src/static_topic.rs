//! `TopicQueueMappingInfo`, `mock_broker_name` and the static-topic constants.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyMapping, PyString};
use rocketroute_core::java_collections::OrderedMap;
use rocketroute_core::route::broker_id;
use rocketroute_core::static_topic::{self, TopicQueueMappingInfo};

use crate::errors::{illegal, java_int, java_long, name_text, opt_str, req_name, type_name};

/// An argument that tells "left out" from an explicit `None` (Java's null).
pub enum Given<'py> {
    Missing,
    Value(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Given<'py> {
    type Error = PyErr;

    fn extract(ob: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Given::Value(ob.to_owned()))
    }
}

/// A `bool` argument (False when left out; anything but a bool is a TypeError).
pub fn given_bool(v: Given<'_>, name: &str) -> PyResult<bool> {
    match v {
        Given::Missing => Ok(false),
        Given::Value(b) if b.is_instance_of::<PyBool>() => b.is_truthy(),
        Given::Value(b) => Err(PyTypeError::new_err(format!(
            "{name} must be a bool, not {}",
            type_name(&b)
        ))),
    }
}

/// An optional name (`None` stands for Java's null).
pub fn opt_text(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<String>> {
    Ok(match opt_str(obj, name)? {
        Some(s) => Some(name_text(s, name)?.to_owned()),
        None => None,
    })
}

/// A mapping key or value that is a Java int: an int, or (a key as JSON writes it) a decimal string.
fn id_int(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<i32> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_str().unwrap_or("?");
        return broker_id(text)
            .ok()
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(|| illegal(obj.py(), format!("{name} {text:?} is not a Java int")));
    }
    java_int(obj, name)
}

/// A Python mapping read into an [`OrderedMap`] in its iteration order (a later equal key replaces the value in
/// place, as `HashMap.put`), each key and value converted by `entry`; `what` names the argument in the
/// `TypeError` for a non-mapping.
pub fn ordered_map<K: std::hash::Hash + Eq + Clone, V>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    mut entry: impl FnMut(&Bound<'_, PyAny>, &Bound<'_, PyAny>) -> PyResult<(K, V)>,
) -> PyResult<OrderedMap<K, V>> {
    let m = obj.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!("{what} must be a mapping, not {}", type_name(obj)))
    })?;
    let mut out = OrderedMap::new();
    for item in m.items()?.iter() {
        let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        let (k, v) = entry(&k, &v)?;
        out.put(k, v);
    }
    Ok(out)
}

pub fn id_map(obj: &Bound<'_, PyAny>) -> PyResult<OrderedMap<i32, i32>> {
    ordered_map(obj, "curr_id_map", |k, v| {
        Ok((
            id_int(k, "curr_id_map key")?,
            java_int(v, "curr_id_map value")?,
        ))
    })
}

#[pyclass(frozen, name = "TopicQueueMappingInfo", module = "rocketroute._native")]
pub struct PyTopicQueueMappingInfo {
    pub inner: std::sync::Arc<TopicQueueMappingInfo>,
}

#[pymethods]
impl PyTopicQueueMappingInfo {
    #[new]
    #[pyo3(signature = (topic, total_queues, bname, epoch, *, scope = Given::Missing, dirty = Given::Missing, curr_id_map = Given::Missing))]
    fn new(
        topic: &Bound<'_, PyAny>,
        total_queues: &Bound<'_, PyAny>,
        bname: &Bound<'_, PyAny>,
        epoch: &Bound<'_, PyAny>,
        scope: Given<'_>,
        dirty: Given<'_>,
        curr_id_map: Given<'_>,
    ) -> PyResult<Self> {
        let mut info = TopicQueueMappingInfo::new(
            opt_text(topic, "topic")?,
            java_int(total_queues, "total_queues")?,
            opt_text(bname, "bname")?,
            java_long(epoch, "epoch")?,
        );
        if let Given::Value(s) = scope {
            info.scope = opt_text(&s, "scope")?;
        }
        info.dirty = given_bool(dirty, "dirty")?;
        if let Given::Value(m) = curr_id_map {
            info.curr_id_map = if m.is_none() { None } else { Some(id_map(&m)?) };
        }
        Ok(PyTopicQueueMappingInfo {
            inner: std::sync::Arc::new(info),
        })
    }

    #[getter]
    fn topic(&self) -> Option<&str> {
        self.inner.topic.as_deref()
    }
    #[getter]
    fn scope(&self) -> Option<&str> {
        self.inner.scope.as_deref()
    }
    #[getter]
    fn total_queues(&self) -> i32 {
        self.inner.total_queues
    }
    #[getter]
    fn bname(&self) -> Option<&str> {
        self.inner.bname.as_deref()
    }
    #[getter]
    fn epoch(&self) -> i64 {
        self.inner.epoch
    }
    #[getter]
    fn dirty(&self) -> bool {
        self.inner.dirty
    }
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
pub fn mock_broker_name(scope: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(static_topic::mock_broker_name(req_name(scope, "scope")?))
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
