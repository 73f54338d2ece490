//! `MessageQueue`.

use std::sync::{Arc, OnceLock};

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rocketroute_core::MessageQueue;

use crate::convert::{arg, Items, JavaInt, Name};
use crate::errors::Result;

/// A topic queue: `(topic, broker_name, queue_id)`, ordered and hashed as Java's `MessageQueue`.
/// `topic` and `broker_name` may be None (Java null); ordering such a queue raises `NullPointerError`.
#[pyclass(frozen, name = "MessageQueue", module = "rocketroute._native")]
pub struct PyMessageQueue {
    pub inner: MessageQueue,
    /// MD5 ring hash of `str(mq)`, computed on first use (the queue is immutable).
    md5: OnceLock<i64>,
}

impl PyMessageQueue {
    pub fn from_core(mq: MessageQueue) -> Self {
        PyMessageQueue {
            inner: mq,
            md5: OnceLock::new(),
        }
    }

    pub fn wrap(py: Python<'_>, mq: MessageQueue) -> PyResult<Py<PyMessageQueue>> {
        Py::new(py, Self::from_core(mq))
    }

    /// `ConsistentHashRouter.MD5Hash.hash(mq.toString())`, cached.
    pub fn md5_of_name(&self) -> i64 {
        *self
            .md5
            .get_or_init(|| rocketroute_core::ring::md5_hash(&self.inner.to_string()))
    }
}

#[pymethods]
impl PyMessageQueue {
    #[new]
    fn new(
        topic: Option<Name<'_, arg::Topic>>,
        broker_name: Option<Name<'_, arg::BrokerName>>,
        queue_id: JavaInt<arg::QueueId>,
    ) -> Self {
        Self::from_core(MessageQueue::new(
            topic.as_deref().map(Arc::from),
            broker_name.as_deref().map(Arc::from),
            queue_id.0,
        ))
    }

    /// The topic (None: Java null).
    #[getter]
    fn topic(&self) -> Option<&str> {
        self.inner.topic()
    }

    /// The broker name (None: Java null).
    #[getter]
    fn broker_name(&self) -> Option<&str> {
        self.inner.broker_name()
    }

    /// The queue id on the broker.
    #[getter]
    fn queue_id(&self) -> i32 {
        self.inner.queue_id()
    }

    /// Java's `hashCode()`.
    fn java_hash_code(&self) -> i32 {
        self.inner.java_hash_code()
    }

    /// Java's `compareTo` (int overflow included).
    fn compare_to(&self, other: &Bound<'_, PyMessageQueue>) -> Result<i32> {
        Ok(self.inner.compare_to(&other.get().inner)?)
    }

    // against anything but a MessageQueue, PyO3 answers NotImplemented (a failed `other` extraction)
    fn __richcmp__(&self, other: &Bound<'_, PyMessageQueue>, op: CompareOp) -> Result<bool> {
        let o = &other.get().inner;
        Ok(match op {
            CompareOp::Eq => self.inner == *o,
            CompareOp::Ne => self.inner != *o,
            _ => {
                let c = self.inner.compare_to(o)?;
                match op {
                    CompareOp::Lt => c < 0,
                    CompareOp::Le => c <= 0,
                    CompareOp::Gt => c > 0,
                    _ => c >= 0,
                }
            }
        })
    }

    fn __hash__(&self) -> isize {
        self.inner.java_hash_code() as isize
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let r = |s: Option<&str>| -> PyResult<String> {
            Ok(match s {
                Some(s) => pyo3::types::PyString::new(py, s).repr()?.to_string(),
                None => "None".to_owned(),
            })
        };
        Ok(format!(
            "MessageQueue({}, {}, {})",
            r(self.inner.topic())?,
            r(self.inner.broker_name())?,
            self.inner.queue_id()
        ))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let mq = &slf.get().inner;
        let args = PyTuple::new(
            py,
            [
                mq.topic().into_pyobject(py)?.into_any(),
                mq.broker_name().into_pyobject(py)?.into_any(),
                mq.queue_id().into_pyobject(py)?.into_any(),
            ],
        )?;
        Ok((slf.get_type().into_any(), args))
    }

    /// `[topic, broker_name, queue_id]`, the vectors' encoding.
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        pyo3::types::PyList::new(
            py,
            [
                self.inner.topic().into_pyobject(py)?.into_any(),
                self.inner.broker_name().into_pyobject(py)?.into_any(),
                self.inner.queue_id().into_pyobject(py)?.into_any(),
            ],
        )
    }
}

/// A list of queues: any iterable of `MessageQueue`, as the caller's own objects.
pub type Queues<'py> = Items<'py, PyMessageQueue>;
