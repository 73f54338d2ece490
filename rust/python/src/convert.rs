//! Typed arguments: `FromPyObject` newtypes that check a Python value as the reference backend does, so
//! that `#[pymethods]` signatures say what they take and the checks live in one place.
//!
//! A type error reads as PyO3 words it for an argument (`argument 'topic': must be a str, not int`). The
//! other failures keep the reference's words and exception class, which name the argument: the name is a
//! type parameter (`Name<'a, arg::Topic>`), declared once in [`arg`].

use std::marker::PhantomData;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};
use pyo3::Borrowed;
use rocketroute_core::Compat;

use crate::errors::{illegal, lone_surrogate, npe, type_name};
use crate::message_queue::PyMessageQueue;

/// The name an argument goes by in messages.
pub trait ArgName {
    const NAME: &'static str;
}

macro_rules! arg_names {
    ($($t:ident = $s:literal;)*) => {
        $(
            #[doc = concat!("`", $s, "`")]
            pub enum $t {}
            impl super::ArgName for $t {
                const NAME: &'static str = $s;
            }
        )*
    };
}

/// The argument names that appear in messages.
pub mod arg {
    arg_names! {
        A = "a";
        B = "b";
        BName = "bname";
        Bound = "bound";
        BrokerAddress = "broker address";
        BrokerId = "broker_id";
        BrokerName = "broker_name";
        CidAll = "cid_all";
        Cluster = "cluster";
        ConsumerCount = "consumer_count";
        Count = "count";
        CurrentCid = "current_cid";
        CurrentLatency = "current_latency";
        DeltaMs = "delta_ms";
        DetectInterval = "detect_interval";
        DetectTimeout = "detect_timeout";
        Epoch = "epoch";
        FilterServer = "filter server";
        Host = "host";
        Key = "key";
        LastBrokerName = "last_broker_name";
        MachineRoom = "the machine room";
        Name = "name";
        Node = "node";
        NowMs = "now_ms";
        NumQueues = "num_queues";
        Perm = "perm";
        Port = "port";
        Previous = "previous";
        QueueCount = "queue_count";
        QueueId = "queue_id";
        Random = "random";
        ReadQueueNums = "read_queue_nums";
        S = "s";
        Scope = "scope";
        Seed = "seed";
        Start = "start";
        StartIndex = "start_index";
        Topic = "topic";
        TopicSysFlag = "topic_sys_flag";
        TotalQueues = "total_queues";
        Value = "value";
        VirtualNodeCnt = "virtual_node_cnt";
        VnodeCount = "vnode_count";
        WriteQueueNums = "write_queue_nums";
        ZoneName = "zone_name";
    }

    // names added for the producer side (fault, strategy, counter, clock, java, message_queue, select)
    arg_names! {}

    // names added for the route model (route, publish_info, static_topic, grpc_balancer)
    arg_names! {}

    // names added for batch and profiles
    arg_names! {
        Arg = "arg";
        KeyType = "key_type";
        Nulls = "nulls";
        Refused = "refused";
    }
}

/// A Python `int` (not a `bool`) as an `i64`, `None` when it is outside `i64`.
fn int_of(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Option<i64>> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "must be an int, not {}",
            type_name(&obj)
        )));
    }
    Ok(obj.extract::<i64>().ok())
}

/// A Python `int` that fits a Java `int`; outside it, `IllegalArgumentError`.
pub struct JavaInt<N>(pub i32, PhantomData<N>);

impl<N: ArgName> FromPyObject<'_, '_> for JavaInt<N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        match int_of(obj)?.map(i32::try_from) {
            Some(Ok(v)) => Ok(JavaInt(v, PhantomData)),
            _ => Err(illegal(
                obj.py(),
                format!("{} {} is out of the Java int range", N::NAME, obj.str()?),
            )),
        }
    }
}

/// A Python `int` that fits a Java `long`; outside it, `IllegalArgumentError`.
pub struct JavaLong<N>(pub i64, PhantomData<N>);

impl<N: ArgName> FromPyObject<'_, '_> for JavaLong<N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        match int_of(obj)? {
            Some(v) => Ok(JavaLong(v, PhantomData)),
            None => Err(illegal(
                obj.py(),
                format!("{} {} is out of the Java long range", N::NAME, obj.str()?),
            )),
        }
    }
}

/// A name (topic, broker, consumer id, ring node, room, address): a `str` without a lone surrogate, as
/// RocketMQ carries names as UTF-8. `None` is `NullPointerError` (Java would dereference it); as an
/// `Option<Name>` argument, `None` is `None`.
pub struct Name<'a, N>(pub &'a str, PhantomData<N>);

impl<'a, N: ArgName> FromPyObject<'a, '_> for Name<'a, N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, '_, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Err(npe(obj.py(), format!("{} is None", N::NAME)));
        }
        if !obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "must be a str, not {}",
                type_name(&obj)
            )));
        }
        <&'a str as FromPyObject<'a, '_>>::extract(obj)
            .map(|t| Name(t, PhantomData))
            .map_err(|_| illegal(obj.py(), lone_surrogate(N::NAME)))
    }
}

impl<N> std::ops::Deref for Name<'_, N> {
    type Target = str;

    fn deref(&self) -> &str {
        self.0
    }
}

/// A text that is hashed or compared as Java's UTF-16 (a key): any `str`, lone surrogates included.
/// `None` is `NullPointerError`.
pub struct Text<'py, N>(pub Bound<'py, PyString>, PhantomData<N>);

impl<'py, N: ArgName> FromPyObject<'_, 'py> for Text<'py, N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Err(npe(obj.py(), format!("{} is None", N::NAME)));
        }
        obj.cast::<PyString>()
            .map(|s| Text(s.to_owned(), PhantomData))
            .map_err(|_| PyTypeError::new_err(format!("must be a str, not {}", type_name(&obj))))
    }
}

/// A flag read as Python truth, as the reference reads it.
pub struct Flag(pub bool);

impl FromPyObject<'_, '_> for Flag {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        obj.is_truthy().map(Flag)
    }
}

/// A list of queues: any iterable of `MessageQueue`, as the caller's own objects.
pub struct Queues<'py>(pub Vec<Bound<'py, PyMessageQueue>>);

impl<'py> FromPyObject<'_, 'py> for Queues<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let mut out = Vec::new();
        for item in obj.try_iter()? {
            let item = item?;
            let mq = item.cast_into::<PyMessageQueue>().map_err(|e| {
                PyTypeError::new_err(format!(
                    "must hold MessageQueue, not {}",
                    type_name(e.into_inner().as_any())
                ))
            })?;
            out.push(mq);
        }
        Ok(Queues(out))
    }
}

/// A list of names (consumer ids): any iterable of `str`; a `None` in it is `NullPointerError`, a lone
/// surrogate `IllegalArgumentError`.
pub struct Names<N>(pub Vec<Arc<str>>, PhantomData<N>);

impl<N: ArgName> FromPyObject<'_, '_> for Names<N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let mut out = Vec::new();
        for item in obj.try_iter()? {
            let item = item?;
            if item.is_none() {
                return Err(npe(obj.py(), format!("{} holds None", N::NAME)));
            }
            let s = item.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!("must hold str, not {}", type_name(&item)))
            })?;
            let t = s.to_str().map_err(|_| illegal(obj.py(), lone_surrogate(N::NAME)))?;
            out.push(Arc::from(t));
        }
        Ok(Names(out, PhantomData))
    }
}

/// A compat profile: `"5.3"`, `"4.9"` or a full version such as `"5.3.3"` (`None` gives the default).
pub struct CompatArg(pub Compat);

impl FromPyObject<'_, '_> for CompatArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Ok(CompatArg(Compat::default()));
        }
        let text = obj
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("must be a str, not {}", type_name(&obj))))?;
        match text.to_str().ok().and_then(|t| Compat::parse(t).ok()) {
            Some(c) => Ok(CompatArg(c)),
            // named as Python writes it (a quote, a lone surrogate), as the reference backend does
            None => Err(illegal(
                obj.py(),
                format!(
                    "unknown compat profile {}; expected one of ('5.3', '4.9')",
                    text.repr()?
                ),
            )),
        }
    }
}

/// The compat profile of an optional argument.
pub fn compat_of(c: Option<CompatArg>) -> Compat {
    c.map_or_else(Compat::default, |c| c.0)
}
