//! The 5.x gRPC client's load balancers: `Endpoints`, `GrpcMessageQueue`, `PublishingLoadBalancer`,
//! `SubscriptionLoadBalancer`. The balancers hold the caller's queue objects and return them.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyList, PySequence, PyString, PyTuple};
use rocketroute_core::grpc_balancer::{
    random_start_index, Address, AddressScheme, Endpoints, GrpcMessageQueue, MessageType,
    Permission, PublishingLoadBalancer, SubscriptionLoadBalancer,
};
use rocketroute_core::route::MAX_QUEUES;
use rocketroute_core::MessageQueue;

use crate::errors::{illegal, java_err, java_int, java_utf8_text, npe, req_name, type_name};
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

fn is_text(v: &Bound<'_, PyAny>) -> bool {
    v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>()
}

/// `Endpoints(scheme, addresses)` arguments, for pickling.
type EndpointsArgs<'py> = (&'static str, Bound<'py, PyTuple>);

#[pyclass(frozen, name = "Endpoints", module = "rocketroute._native")]
pub struct PyEndpoints {
    pub inner: Arc<Endpoints>,
}

fn scheme_arg(scheme: &Bound<'_, PyAny>) -> PyResult<AddressScheme> {
    if scheme.is_none() {
        return Err(npe(scheme.py(), "scheme is None"));
    }
    let s = scheme.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!("scheme must be a str, not {}", type_name(scheme)))
    })?;
    match s.to_str().ok().and_then(AddressScheme::parse) {
        Some(v) => Ok(v),
        None => Err(illegal(
            scheme.py(),
            format!(
                "unknown address scheme {}; expected one of ('IPv4', 'IPv6', 'DOMAIN_NAME')",
                s.repr()?
            ),
        )),
    }
}

fn address_arg(a: &Bound<'_, PyAny>) -> PyResult<Address> {
    let bad = || -> PyResult<PyErr> {
        Ok(PyTypeError::new_err(format!(
            "an address must be a (host, port) pair, not {}",
            a.repr()?
        )))
    };
    if is_text(a) {
        return Err(bad()?);
    }
    let Ok(seq) = a.cast::<PySequence>() else {
        return Err(bad()?);
    };
    if seq.len()? != 2 {
        return Err(bad()?);
    }
    let host = req_name(&seq.get_item(0)?, "host")?.to_owned();
    let port = java_int(&seq.get_item(1)?, "port")?;
    Ok(Address { host, port })
}

#[pymethods]
impl PyEndpoints {
    #[new]
    fn new(scheme: &Bound<'_, PyAny>, addresses: &Bound<'_, PyAny>) -> PyResult<Self> {
        let scheme = scheme_arg(scheme)?;
        if addresses.is_none() {
            return Err(npe(addresses.py(), "addresses is None"));
        }
        if is_text(addresses) {
            return Err(PyTypeError::new_err(
                "addresses must be an iterable of (host, port) pairs, not a str",
            ));
        }
        let mut parsed = Vec::new();
        for a in addresses.try_iter()? {
            parsed.push(address_arg(&a?)?);
        }
        let inner = Endpoints::new(scheme, parsed).map_err(java_err)?;
        Ok(PyEndpoints {
            inner: Arc::new(inner),
        })
    }

    #[getter]
    fn scheme(&self) -> &'static str {
        self.inner.scheme().name()
    }

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

#[pyclass(frozen, name = "GrpcMessageQueue", module = "rocketroute._native")]
pub struct PyGrpcMessageQueue {
    pub inner: GrpcMessageQueue,
}

fn permission_arg(v: Option<&Bound<'_, PyAny>>) -> PyResult<Permission> {
    let Some(v) = v.filter(|v| !v.is_none()) else {
        return Ok(Permission::ReadWrite);
    };
    let s = v.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!("permission must be a str, not {}", type_name(v)))
    })?;
    match s.to_str() {
        Ok(t) => Permission::parse(t).map_err(java_err),
        Err(_) => Permission::parse("").map_err(java_err),
    }
}

const MESSAGE_TYPES: &str = "('NORMAL', 'FIFO', 'LITE', 'DELAY', 'PRIORITY', 'TRANSACTION')";

fn message_types_arg(v: Option<&Bound<'_, PyAny>>) -> PyResult<Arc<[MessageType]>> {
    let Some(v) = v.filter(|v| !v.is_none()) else {
        return Ok(Arc::from([MessageType::Normal]));
    };
    if is_text(v) {
        return Err(PyTypeError::new_err(
            "accept_message_types must be an iterable of str, not a str",
        ));
    }
    let mut out = Vec::new();
    for t in v.try_iter()? {
        let t = t?;
        let s = t.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "a message type must be a str, not {}",
                type_name(&t)
            ))
        })?;
        match s.to_str().ok().and_then(MessageType::parse) {
            Some(m) => out.push(m),
            None => {
                return Err(illegal(
                    t.py(),
                    format!(
                        "unknown message type {}; expected one of {MESSAGE_TYPES}",
                        s.repr()?
                    ),
                ))
            }
        }
    }
    Ok(Arc::from(out))
}

#[pymethods]
impl PyGrpcMessageQueue {
    #[new]
    #[pyo3(signature = (topic, broker_name, broker_id, endpoints, queue_id, permission = None, accept_message_types = None))]
    fn new(
        topic: &Bound<'_, PyAny>,
        broker_name: &Bound<'_, PyAny>,
        broker_id: &Bound<'_, PyAny>,
        endpoints: &Bound<'_, PyAny>,
        queue_id: &Bound<'_, PyAny>,
        permission: Option<&Bound<'_, PyAny>>,
        accept_message_types: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let topic = Arc::from(req_name(topic, "topic")?);
        let broker_name = Arc::from(req_name(broker_name, "broker_name")?);
        let broker_id = java_int(broker_id, "broker_id")?;
        if endpoints.is_none() {
            return Err(npe(endpoints.py(), "endpoints is None"));
        }
        let endpoints = endpoints
            .cast::<PyEndpoints>()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "endpoints must be an Endpoints, not {}",
                    type_name(endpoints)
                ))
            })?
            .get()
            .inner
            .clone();
        let queue_id = java_int(queue_id, "queue_id")?;
        let permission = permission_arg(permission)?;
        let accept_message_types = message_types_arg(accept_message_types)?;
        Ok(PyGrpcMessageQueue {
            inner: GrpcMessageQueue {
                topic,
                broker_name,
                broker_id,
                endpoints,
                queue_id,
                permission,
                accept_message_types,
            },
        })
    }

    #[getter]
    fn topic(&self) -> &str {
        &self.inner.topic
    }

    #[getter]
    fn broker_name(&self) -> &str {
        &self.inner.broker_name
    }

    #[getter]
    fn broker_id(&self) -> i32 {
        self.inner.broker_id
    }

    #[getter]
    fn endpoints(&self) -> PyEndpoints {
        PyEndpoints {
            inner: self.inner.endpoints.clone(),
        }
    }

    #[getter]
    fn queue_id(&self) -> i32 {
        self.inner.queue_id
    }

    #[getter]
    fn permission(&self) -> &'static str {
        self.inner.permission.name()
    }

    #[getter]
    fn accept_message_types<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.accept_message_types.iter().map(|t| t.name()))
    }

    fn is_writable(&self) -> bool {
        self.inner.permission.is_writable()
    }

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

/// A route argument: the caller's queue objects and their core values.
fn route_arg(
    message_queues: &Bound<'_, PyAny>,
) -> PyResult<(Vec<Py<PyGrpcMessageQueue>>, Vec<GrpcMessageQueue>)> {
    let py = message_queues.py();
    if message_queues.is_none() {
        return Err(npe(py, "message_queues is None"));
    }
    let mut objects = Vec::new();
    let mut core = Vec::new();
    for q in message_queues.try_iter()? {
        let q = q?;
        let g = q.cast::<PyGrpcMessageQueue>().map_err(|_| {
            PyTypeError::new_err(format!(
                "a message queue must be a GrpcMessageQueue, not {}",
                type_name(&q)
            ))
        })?;
        core.push(g.get().inner.clone());
        objects.push(g.clone().unbind());
        if core.len() > MAX_QUEUES {
            return Err(illegal(
                py,
                format!("route has more than {MAX_QUEUES} queues"),
            ));
        }
    }
    Ok((objects, core))
}

fn start_arg(start_index: Option<&Bound<'_, PyAny>>) -> PyResult<i32> {
    match start_index {
        Some(s) if !s.is_none() => java_int(s, "start_index"),
        _ => Ok(random_start_index()),
    }
}

/// The caller's objects for the balancer's queues.
fn kept(
    py: Python<'_>,
    objects: &[Py<PyGrpcMessageQueue>],
    positions: &[usize],
) -> Vec<Py<PyGrpcMessageQueue>> {
    positions
        .iter()
        .map(|&i| objects[i].clone_ref(py))
        .collect()
}

fn not_a_balancer(other: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "expected a load balancer, not {}",
        type_name(other)
    ))
}

#[pyclass(
    frozen,
    name = "PublishingLoadBalancer",
    module = "rocketroute._native"
)]
pub struct PyPublishingLoadBalancer {
    inner: PublishingLoadBalancer,
    queues: Vec<Py<PyGrpcMessageQueue>>,
}

impl PyPublishingLoadBalancer {
    fn build(
        py: Python<'_>,
        message_queues: &Bound<'_, PyAny>,
        make: impl FnOnce(&[GrpcMessageQueue]) -> rocketroute_core::JavaResult<PublishingLoadBalancer>,
    ) -> PyResult<Self> {
        let (objects, core) = route_arg(message_queues)?;
        let inner = make(&core).map_err(java_err)?;
        let queues = kept(py, &objects, inner.route_positions());
        Ok(PyPublishingLoadBalancer { inner, queues })
    }
}

#[pymethods]
impl PyPublishingLoadBalancer {
    #[new]
    #[pyo3(signature = (message_queues, *, start_index = None))]
    fn new(
        py: Python<'_>,
        message_queues: &Bound<'_, PyAny>,
        start_index: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let start = start_arg(start_index)?;
        Self::build(py, message_queues, |r| {
            PublishingLoadBalancer::new(r, start)
        })
    }

    #[getter]
    fn message_queues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.queues.iter().map(|q| q.clone_ref(py)))
    }

    #[getter]
    fn index(&self) -> i32 {
        self.inner.index()
    }

    fn shares_index_with(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        if let Ok(o) = other.cast::<PyPublishingLoadBalancer>() {
            return Ok(self.inner.shares_index_with(&o.get().inner));
        }
        if other.is_instance_of::<PySubscriptionLoadBalancer>() {
            return Ok(false);
        }
        Err(not_a_balancer(other))
    }

    fn update(&self, py: Python<'_>, message_queues: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::build(py, message_queues, |r| self.inner.update(r))
    }

    #[pyo3(signature = (excluded = None, count = None))]
    fn take_message_queues<'py>(
        &self,
        py: Python<'py>,
        excluded: Option<&Bound<'py, PyAny>>,
        count: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut held: Vec<Bound<'py, PyEndpoints>> = Vec::new();
        if let Some(ex) = excluded {
            if !ex.is_none() {
                for e in ex.try_iter()? {
                    let e = e?;
                    let ep = e.cast::<PyEndpoints>().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "excluded must hold Endpoints, not {}",
                            type_name(&e)
                        ))
                    })?;
                    held.push(ep.clone());
                }
            }
        }
        let count = match count {
            Some(c) if !c.is_none() => java_int(c, "count")?,
            _ => 1,
        };
        let refs: Vec<&Endpoints> = held.iter().map(|e| &*e.get().inner).collect();
        let picks = self.inner.take_positions(&refs, count);
        PyList::new(py, picks.into_iter().map(|p| self.queues[p].clone_ref(py)))
    }

    fn take_message_queue_by_message_group(
        &self,
        py: Python<'_>,
        message_group: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyGrpcMessageQueue>> {
        if message_group.is_none() {
            return Err(npe(py, "message_group is None"));
        }
        let s = message_group.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "message_group must be a str, not {}",
                type_name(message_group)
            ))
        })?;
        let text = java_utf8_text(s)?;
        let p = self.inner.message_group_position(text.as_bytes());
        Ok(self.queues[p].clone_ref(py))
    }

    fn __len__(&self) -> usize {
        self.queues.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "PublishingLoadBalancer({} queues, index={})",
            self.queues.len(),
            self.inner.index()
        )
    }
}

#[pyclass(
    frozen,
    name = "SubscriptionLoadBalancer",
    module = "rocketroute._native"
)]
pub struct PySubscriptionLoadBalancer {
    inner: SubscriptionLoadBalancer,
    queues: Vec<Py<PyGrpcMessageQueue>>,
}

impl PySubscriptionLoadBalancer {
    fn build(
        py: Python<'_>,
        message_queues: &Bound<'_, PyAny>,
        make: impl FnOnce(&[GrpcMessageQueue]) -> rocketroute_core::JavaResult<SubscriptionLoadBalancer>,
    ) -> PyResult<Self> {
        let (objects, core) = route_arg(message_queues)?;
        let inner = make(&core).map_err(java_err)?;
        let queues = kept(py, &objects, inner.route_positions());
        Ok(PySubscriptionLoadBalancer { inner, queues })
    }
}

#[pymethods]
impl PySubscriptionLoadBalancer {
    #[new]
    #[pyo3(signature = (message_queues, *, start_index = None))]
    fn new(
        py: Python<'_>,
        message_queues: &Bound<'_, PyAny>,
        start_index: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let start = start_arg(start_index)?;
        Self::build(py, message_queues, |r| {
            SubscriptionLoadBalancer::new(r, start)
        })
    }

    #[getter]
    fn message_queues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.queues.iter().map(|q| q.clone_ref(py)))
    }

    #[getter]
    fn index(&self) -> i32 {
        self.inner.index()
    }

    fn shares_index_with(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        if let Ok(o) = other.cast::<PySubscriptionLoadBalancer>() {
            return Ok(self.inner.shares_index_with(&o.get().inner));
        }
        if other.is_instance_of::<PyPublishingLoadBalancer>() {
            return Ok(false);
        }
        Err(not_a_balancer(other))
    }

    fn update(&self, py: Python<'_>, message_queues: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::build(py, message_queues, |r| self.inner.update(r))
    }

    fn take_message_queue(&self, py: Python<'_>) -> Py<PyGrpcMessageQueue> {
        self.queues[self.inner.take_position()].clone_ref(py)
    }

    fn __len__(&self) -> usize {
        self.queues.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "SubscriptionLoadBalancer({} queues, index={})",
            self.queues.len(),
            self.inner.index()
        )
    }
}
