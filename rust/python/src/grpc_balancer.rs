//! The 5.x gRPC client's load balancers: `Endpoints`, `GrpcMessageQueue`, `PublishingLoadBalancer`,
//! `SubscriptionLoadBalancer`. The balancers hold the caller's queue objects and return them.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString, PyTuple};
use rocketroute_core::grpc_balancer::{
    random_start_index, Endpoints, GrpcMessageQueue, MessageType, Permission,
    PublishingLoadBalancer, SubscriptionLoadBalancer,
};
use rocketroute_core::route::MAX_QUEUES;
use rocketroute_core::{JavaResult, MessageQueue};

use crate::convert::{
    arg, items_up_to, Addresses, Items, JavaInt, MessageTypes, Name, PermissionArg, Required,
    Scheme, Text,
};
use crate::errors::{java_utf8_text, type_name, Result};
use crate::message_queue::PyMessageQueue;

fn py_hash<T: Hash>(v: &T) -> isize {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish() as isize
}

fn eq_only(py: Python<'_>, op: CompareOp, eq: Option<bool>) -> Py<PyAny> {
    let r = match (op, eq) {
        (CompareOp::Eq, Some(e)) => e,
        (CompareOp::Ne, Some(e)) => !e,
        _ => return py.NotImplemented(),
    };
    PyBool::new(py, r).to_owned().into_any().unbind()
}

/// `Endpoints(scheme, addresses)` arguments, for pickling.
type EndpointsArgs<'py> = (&'static str, Bound<'py, PyTuple>);

/// A broker's endpoints (Java 5.x `Endpoints`): an address scheme and `(host, port)` addresses, in order;
/// equal when the scheme and the addresses are. `str()` is Java's facade.
#[pyclass(frozen, name = "Endpoints", module = "rocketroute._native")]
pub struct PyEndpoints {
    pub inner: Arc<Endpoints>,
}

#[pymethods]
impl PyEndpoints {
    #[new]
    fn new(
        scheme: Required<arg::Scheme, Scheme>,
        addresses: Required<arg::Addresses, Addresses>,
    ) -> Result<Self> {
        let inner = Endpoints::new(scheme.0 .0, addresses.0 .0)?;
        Ok(PyEndpoints {
            inner: Arc::new(inner),
        })
    }

    /// The address scheme.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.inner.scheme().name()
    }

    /// The `(host, port)` addresses, in order.
    #[getter]
    fn addresses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items: Vec<(String, i32)> = self
            .inner
            .addresses()
            .iter()
            .map(|a| (a.host.clone(), a.port))
            .collect();
        PyTuple::new(py, items)
    }

    /// Java's `facade`: e.g. `ipv4:10.0.0.2:8081,10.0.0.3:8081`.
    #[getter]
    fn facade(&self) -> String {
        self.inner.facade()
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let eq = other
            .cast::<PyEndpoints>()
            .ok()
            .map(|o| *self.inner == *o.get().inner);
        eq_only(other.py(), op, eq)
    }

    fn __hash__(&self) -> isize {
        py_hash(&*self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.facade()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let list = PyList::new(py, self.addresses(py)?)?;
        Ok(format!(
            "Endpoints({}, {})",
            PyString::new(py, self.inner.scheme().name()).repr()?,
            list.repr()?
        ))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, EndpointsArgs<'py>)> {
        let me = slf.get();
        Ok((
            slf.get_type().into_any(),
            (me.inner.scheme().name(), me.addresses(slf.py())?),
        ))
    }
}

/// One message queue of a gRPC route (Java's `MessageQueueImpl`): topic, broker (name, id, endpoints), queue
/// id, permission and accepted message types. `str()` is Java's `brokerName.topic.queueId`.
#[pyclass(frozen, name = "GrpcMessageQueue", module = "rocketroute._native")]
pub struct PyGrpcMessageQueue {
    pub inner: GrpcMessageQueue,
}

#[pymethods]
impl PyGrpcMessageQueue {
    #[new]
    #[pyo3(signature = (topic, broker_name, broker_id, endpoints, queue_id, permission = None, accept_message_types = None))]
    fn new(
        topic: Name<'_, arg::Topic>,
        broker_name: Name<'_, arg::BrokerName>,
        broker_id: JavaInt<arg::BrokerId>,
        endpoints: Required<arg::Endpoints, Bound<'_, PyEndpoints>>,
        queue_id: JavaInt<arg::QueueId>,
        permission: Option<PermissionArg>,
        accept_message_types: Option<MessageTypes>,
    ) -> Self {
        PyGrpcMessageQueue {
            inner: GrpcMessageQueue {
                topic: Arc::from(&*topic),
                broker_name: Arc::from(&*broker_name),
                broker_id: broker_id.0,
                endpoints: endpoints.0.get().inner.clone(),
                queue_id: queue_id.0,
                permission: permission.map_or(Permission::ReadWrite, |p| p.0),
                accept_message_types: accept_message_types
                    .map_or_else(|| Arc::from([MessageType::Normal]), |t| t.0),
            },
        }
    }

    /// The topic.
    #[getter]
    fn topic(&self) -> &str {
        &self.inner.topic
    }

    /// The broker name.
    #[getter]
    fn broker_name(&self) -> &str {
        &self.inner.broker_name
    }

    /// The broker id (0 is the master).
    #[getter]
    fn broker_id(&self) -> i32 {
        self.inner.broker_id
    }

    /// The broker's endpoints.
    #[getter]
    fn endpoints(&self) -> PyEndpoints {
        PyEndpoints {
            inner: self.inner.endpoints.clone(),
        }
    }

    /// The queue id on the broker.
    #[getter]
    fn queue_id(&self) -> i32 {
        self.inner.queue_id
    }

    /// `"NONE"`, `"READ"`, `"WRITE"` or `"READ_WRITE"`.
    #[getter]
    fn permission(&self) -> &'static str {
        self.inner.permission.name()
    }

    /// The message types the queue accepts (e.g. `"NORMAL"`, `"FIFO"`).
    #[getter]
    fn accept_message_types<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.accept_message_types.iter().map(|t| t.name()))
    }

    /// Java's `Permission.isWritable()`: `WRITE` or `READ_WRITE`.
    fn is_writable(&self) -> bool {
        self.inner.permission.is_writable()
    }

    /// Java's `Permission.isReadable()`: `READ` or `READ_WRITE`.
    fn is_readable(&self) -> bool {
        self.inner.permission.is_readable()
    }

    /// On the master broker (`broker_id == 0`).
    fn is_master(&self) -> bool {
        self.inner.is_master()
    }

    /// The remoting `MessageQueue(topic, broker_name, queue_id)`.
    fn to_message_queue(&self, py: Python<'_>) -> PyResult<Py<PyMessageQueue>> {
        PyMessageQueue::wrap(
            py,
            MessageQueue::new(
                Some(self.inner.topic.clone()),
                Some(self.inner.broker_name.clone()),
                self.inner.queue_id,
            ),
        )
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let eq = other
            .cast::<PyGrpcMessageQueue>()
            .ok()
            .map(|o| self.inner == o.get().inner);
        eq_only(other.py(), op, eq)
    }

    fn __hash__(&self) -> isize {
        py_hash(&self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let q = &self.inner;
        Ok(format!(
            "GrpcMessageQueue({}, {}, {}, {}, {}, {}, {})",
            PyString::new(py, &q.topic).repr()?,
            PyString::new(py, &q.broker_name).repr()?,
            q.broker_id,
            self.endpoints().__repr__(py)?,
            q.queue_id,
            PyString::new(py, q.permission.name()).repr()?,
            self.accept_message_types(py)?.repr()?
        ))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let me = slf.get();
        let q = &me.inner;
        let args = PyTuple::new(
            py,
            [
                (&*q.topic).into_pyobject(py)?.into_any(),
                (&*q.broker_name).into_pyobject(py)?.into_any(),
                q.broker_id.into_pyobject(py)?.into_any(),
                Bound::new(py, me.endpoints())?.into_any(),
                q.queue_id.into_pyobject(py)?.into_any(),
                q.permission.name().into_pyobject(py)?.into_any(),
                me.accept_message_types(py)?.into_any(),
            ],
        )?;
        Ok((slf.get_type().into_any(), args))
    }
}

/// The caller's objects for the balancer's queues.
fn kept(queues: GrpcQueues<'_>, positions: &[usize]) -> Vec<Py<PyGrpcMessageQueue>> {
    positions
        .iter()
        .map(|&i| queues.0[i].clone().unbind())
        .collect()
}

/// The core values of a route's queues.
fn route_of(queues: &GrpcQueues<'_>) -> Vec<GrpcMessageQueue> {
    queues.0.iter().map(|q| q.get().inner.clone()).collect()
}

/// A balancer class: `$py` over the core's `$core`, named `$name` in Python; `$other` is the other
/// balancer class (never sharing an index with this one). The methods both have are written once here;
/// `$($methods)*` are the class's own.
macro_rules! load_balancer {
    ($(#[$doc:meta])* $py:ident, $core:ident, $name:literal, $other:ident, { $($methods:tt)* }) => {
        $(#[$doc])*
        #[pyclass(frozen, name = $name, module = "rocketroute._native")]
        pub struct $py {
            inner: $core,
            queues: Vec<Py<PyGrpcMessageQueue>>,
        }

        impl $py {
            fn build(
                message_queues: Required<arg::MessageQueues, GrpcQueues<'_>>,
                make: impl FnOnce(&[GrpcMessageQueue]) -> JavaResult<$core>,
            ) -> Result<Self> {
                let inner = make(&route_of(&message_queues.0))?;
                let queues = kept(message_queues.0, inner.route_positions());
                Ok($py { inner, queues })
            }
        }

        #[pymethods]
        impl $py {
            #[new]
            #[pyo3(signature = (message_queues, *, start_index = None))]
            fn new(
                message_queues: Required<arg::MessageQueues, GrpcQueues<'_>>,
                start_index: Option<JavaInt<arg::StartIndex>>,
            ) -> Result<Self> {
                let start = start_index.map_or_else(random_start_index, |s| s.0);
                Self::build(message_queues, |r| $core::new(r, start))
            }

            /// The queues it picks from: the eligible master queues, in route order.
            #[getter]
            fn message_queues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
                PyTuple::new(py, self.queues.iter().map(|q| q.clone_ref(py)))
            }

            /// The round-robin index now (the value the next pick reads).
            #[getter]
            fn index(&self) -> i32 {
                self.inner.index()
            }

            /// Whether `other` advances the same index (one balancer built from the other by `update`).
            fn shares_index_with(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
                if let Ok(o) = other.cast::<$py>() {
                    return Ok(self.inner.shares_index_with(&o.get().inner));
                }
                if other.is_instance_of::<$other>() {
                    return Ok(false);
                }
                Err(PyTypeError::new_err(format!(
                    "expected a load balancer, not {}",
                    type_name(other)
                )))
            }

            /// A balancer over a new route that shares this one's index (Java's `update`).
            fn update(
                &self,
                message_queues: Required<arg::MessageQueues, GrpcQueues<'_>>,
            ) -> Result<Self> {
                Self::build(message_queues, |r| self.inner.update(r))
            }

            fn __len__(&self) -> usize {
                self.queues.len()
            }

            fn __repr__(&self) -> String {
                format!(
                    "{}({} queues, index={})",
                    $name,
                    self.queues.len(),
                    self.inner.index()
                )
            }

            $($methods)*
        }
    };
}

load_balancer!(
    /// The producer's queue choice over the writable master queues of a route (Java 5.x gRPC client).
    PyPublishingLoadBalancer,
    PublishingLoadBalancer,
    "PublishingLoadBalancer",
    PySubscriptionLoadBalancer,
    {
        /// Java's `takeMessageQueues`: up to `count` queues on distinct brokers from the next round-robin
        /// position, avoiding `excluded` endpoints unless every broker is; None means no exclusion, a count of 1.
        #[pyo3(signature = (excluded = None, count = None))]
        fn take_message_queues<'py>(
            &self,
            py: Python<'py>,
            excluded: Option<Items<'py, PyEndpoints>>,
            count: Option<JavaInt<arg::Count>>,
        ) -> PyResult<Bound<'py, PyList>> {
            let excluded = excluded.map_or_else(Vec::new, |e| e.0);
            let refs: Vec<&Endpoints> = excluded.iter().map(|e| &*e.get().inner).collect();
            let picks = self.inner.take_positions(&refs, count.map_or(1, |c| c.0));
            PyList::new(py, picks.into_iter().map(|p| self.queues[p].clone_ref(py)))
        }

        /// `queues[LongMath.mod(sipHash24(utf8(message_group)).asLong(), n)]`; the index does not move.
        fn take_message_queue_by_message_group(
            &self,
            py: Python<'_>,
            message_group: Text<'_, arg::MessageGroup>,
        ) -> PyResult<Py<PyGrpcMessageQueue>> {
            let text = java_utf8_text(&message_group.0)?;
            let p = self.inner.message_group_position(text.as_bytes());
            Ok(self.queues[p].clone_ref(py))
        }
    }
);

load_balancer!(
    /// The simple consumer's queue choice over the readable master queues of a route (Java 5.x gRPC client).
    PySubscriptionLoadBalancer,
    SubscriptionLoadBalancer,
    "SubscriptionLoadBalancer",
    PyPublishingLoadBalancer,
    {
        /// `queues[IntMath.mod(index.getAndIncrement(), n)]`.
        fn take_message_queue(&self, py: Python<'_>) -> Py<PyGrpcMessageQueue> {
            self.queues[self.inner.take_position()].clone_ref(py)
        }
    }
);

/// A gRPC route's queues: any iterable of `GrpcMessageQueue`, as the caller's objects; more than
/// [`MAX_QUEUES`] is `IllegalArgumentError`.
pub struct GrpcQueues<'py>(pub Vec<Bound<'py, PyGrpcMessageQueue>>);

impl<'py> FromPyObject<'_, 'py> for GrpcQueues<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        items_up_to(obj, MAX_QUEUES, || {
            format!("route has more than {MAX_QUEUES} queues")
        })
        .map(GrpcQueues)
    }
}
