//! Typed arguments: `FromPyObject` newtypes that check a Python value as the reference backend does, so
//! that `#[pymethods]` signatures say what they take and the checks live in one place.
//!
//! A type error reads as PyO3 words it for an argument (`argument 'topic': must be a str, not int`). The
//! other failures keep the reference's words and exception class, which name the argument: the name is a
//! type parameter (`Name<'a, arg::Topic>`), declared once in [`arg`].
//!
//! Only generic arguments live here (nothing in this module names a `#[pyclass]`, so it imports no class
//! module): an argument that extracts one of our classes lives beside that class (`Queues` in
//! `message_queue`, `RandomArg` in `java`, `ClockArg` in `clock`, `GrpcQueues` in `grpc_balancer`,
//! `QueueMappings` in `static_topic`).

use std::hash::Hash;
use std::marker::PhantomData;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyInt, PyMapping, PyString};
use pyo3::{Borrowed, PyTypeInfo};
use rocketroute_core::grpc_balancer::{Address, AddressScheme, MessageType, Permission};
use rocketroute_core::java_collections::OrderedMap;
use rocketroute_core::route::{broker_id, FilterServerTable};
use rocketroute_core::Compat;

use crate::errors::{illegal, java_err, lone_surrogate, npe, type_name};

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
        MqAll = "mq_all";
        Name = "name";
        Node = "node";
        NowMs = "now_ms";
        NumQueues = "num_queues";
        Perm = "perm";
        Port = "port";
        QueueCount = "queue_count";
        QueueId = "queue_id";
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
    arg_names! {
        LatencyMax = "latency_max";
        Mqs = "mqs";
        NotAvailableDuration = "not_available_duration";
        ResolverAddress = "the resolver's address";
    }

    // names added for the route model (route, publish_info, static_topic, grpc_balancer)
    arg_names! {
        Addresses = "addresses";
        CurrIdMapKey = "curr_id_map key";
        CurrIdMapValue = "curr_id_map value";
        Endpoints = "endpoints";
        FilterServerTableKey = "filter_server_table key";
        MappingKey = "topic_queue_mapping_by_broker key";
        MessageGroup = "message_group";
        MessageQueues = "message_queues";
        OrderTopicConf = "order_topic_conf";
        RouteJson = "route JSON";
        Scheme = "scheme";
    }

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
            let t = s
                .to_str()
                .map_err(|_| illegal(obj.py(), lone_surrogate(N::NAME)))?;
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

// --- the route model's arguments (route, publish_info, static_topic, grpc_balancer) ---

/// An argument that tells "left out" (`Missing`, its default in the signature) from a value given, `None`
/// (Java's null) included.
pub enum Given<T> {
    Missing,
    Value(T),
}

impl<'a, 'py, T: FromPyObject<'a, 'py>> FromPyObject<'a, 'py> for Given<T> {
    type Error = T::Error;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> Result<Self, Self::Error> {
        T::extract(obj).map(Given::Value)
    }
}

/// A Python `bool` and nothing else (an `int`, or numpy's `bool_`, is a `TypeError`), as the reference checks.
pub struct Bool(pub bool);

impl FromPyObject<'_, '_> for Bool {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        obj.cast::<PyBool>()
            .map(|b| Bool(b.is_true()))
            .map_err(|_| PyTypeError::new_err(format!("must be a bool, not {}", type_name(&obj))))
    }
}

/// A `T` that may not be `None`: `None` is `NullPointerError`, as Java would dereference it.
pub struct Required<N, T>(pub T, PhantomData<N>);

impl<'a, 'py, N: ArgName, T: FromPyObject<'a, 'py>> FromPyObject<'a, 'py> for Required<N, T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Err(npe(obj.py(), format!("{} is None", N::NAME)));
        }
        T::extract(obj)
            .map(|v| Required(v, PhantomData))
            .map_err(Into::into)
    }
}

/// Any iterable of the class `T`, as the caller's objects.
pub struct Items<'py, T>(pub Vec<Bound<'py, T>>);

impl<'py, T: PyTypeInfo> FromPyObject<'_, 'py> for Items<'py, T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        items_up_to(obj, usize::MAX, String::new).map(Items)
    }
}

/// The items of an iterable of the class `T`, as the caller's objects. Past `max` items, reading stops with
/// `IllegalArgumentError(too_many())` (an endless iterable ends there too).
pub fn items_up_to<'py, T: PyTypeInfo>(
    obj: Borrowed<'_, 'py, PyAny>,
    max: usize,
    too_many: impl FnOnce() -> String,
) -> PyResult<Vec<Bound<'py, T>>> {
    let mut out = Vec::new();
    for item in obj.try_iter()? {
        out.push(item?.cast_into::<T>().map_err(|e| {
            PyTypeError::new_err(format!(
                "must hold {}, not {}",
                T::NAME,
                type_name(e.into_inner().as_any())
            ))
        })?);
        if out.len() > max {
            return Err(illegal(obj.py(), too_many()));
        }
    }
    Ok(out)
}

/// A part of an argument (a key, a value, an item) as `T`; a `TypeError` names the part, as PyO3 names the
/// argument (`argument 'curr_id_map': value must be an int, not str`).
pub fn part<'a, 'py, T: FromPyObject<'a, 'py>>(
    obj: &'a Bound<'py, PyAny>,
    what: &str,
) -> PyResult<T> {
    obj.extract::<T>().map_err(|e| {
        let (py, e) = (obj.py(), e.into());
        if e.get_type(py).is(py.get_type::<PyTypeError>()) {
            PyTypeError::new_err(format!("{what} {}", e.value(py)))
        } else {
            e
        }
    })
}

/// A Python mapping read into an [`OrderedMap`] in its iteration order (a later equal key replaces the value in
/// place, as `HashMap.put`), each key and value converted by `entry`.
pub fn ordered_map<'py, K: Hash + Eq + Clone, V>(
    obj: Borrowed<'_, 'py, PyAny>,
    mut entry: impl FnMut(&Bound<'py, PyAny>, &Bound<'py, PyAny>) -> PyResult<(K, V)>,
) -> PyResult<OrderedMap<K, V>> {
    let m = obj
        .cast::<PyMapping>()
        .map_err(|_| PyTypeError::new_err(format!("must be a mapping, not {}", type_name(&obj))))?;
    let mut out = OrderedMap::new();
    for item in m.items()?.iter() {
        let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
        let (k, v) = entry(&k, &v)?;
        out.put(k, v);
    }
    Ok(out)
}

/// `broker_addrs`: broker id (an int, or a decimal string as JSON writes keys) -> address or `None`.
pub struct BrokerAddrs(pub rocketroute_core::route::BrokerAddrs);

impl FromPyObject<'_, '_> for BrokerAddrs {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        ordered_map(obj, |k, v| {
            let addr = part::<Option<Name<arg::BrokerAddress>>>(v, "broker address")?;
            Ok((broker_id_key(k)?, addr.map(|a| a.0.to_owned())))
        })
        .map(BrokerAddrs)
    }
}

fn broker_id_key(k: &Bound<'_, PyAny>) -> PyResult<i64> {
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

/// `filter_server_table`: broker address -> a list of filter servers, or `None`.
pub struct FilterServers(pub FilterServerTable);

impl FromPyObject<'_, '_> for FilterServers {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        ordered_map(obj, |k, v| {
            let key = part::<Name<arg::FilterServerTableKey>>(k, "key")?
                .0
                .to_owned();
            if v.is_none() {
                return Ok((key, None));
            }
            if v.is_instance_of::<PyString>() {
                return Err(PyTypeError::new_err("values must be lists of str, not str"));
            }
            let mut servers = Vec::new();
            for s in v.try_iter()? {
                servers.push(
                    part::<Name<arg::FilterServer>>(&s?, "filter server")?
                        .0
                        .to_owned(),
                );
            }
            Ok((key, Some(servers)))
        })
        .map(FilterServers)
    }
}

/// `curr_id_map`: Java int -> Java int; a key may be a decimal string, as JSON writes keys.
pub struct IdMap(pub OrderedMap<i32, i32>);

impl FromPyObject<'_, '_> for IdMap {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        ordered_map(obj, |k, v| {
            let key = match k.cast::<PyString>() {
                Ok(s) => {
                    let text = s.to_str().unwrap_or("?");
                    broker_id(text)
                        .ok()
                        .and_then(|v| i32::try_from(v).ok())
                        .ok_or_else(|| {
                            illegal(
                                k.py(),
                                format!("{} {text:?} is not a Java int", arg::CurrIdMapKey::NAME),
                            )
                        })?
                }
                Err(_) => part::<JavaInt<arg::CurrIdMapKey>>(k, "key")?.0,
            };
            Ok((key, part::<JavaInt<arg::CurrIdMapValue>>(v, "value")?.0))
        })
        .map(IdMap)
    }
}

/// A route's JSON: text, bytes (decoded as Java's `new String(data, UTF_8)`: bad bytes become U+FFFD) or a
/// decoded mapping (written back as text). Anything else is `IllegalArgumentError`.
pub struct RouteJson(pub String);

impl FromPyObject<'_, '_> for RouteJson {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let text = if obj.is_instance_of::<PyString>() {
            obj.extract::<Name<arg::RouteJson>>()?.0.to_owned()
        } else if let Ok(b) = obj.cast::<PyBytes>() {
            String::from_utf8_lossy(b.as_bytes()).into_owned()
        } else if let Ok(b) = obj.cast::<PyByteArray>() {
            String::from_utf8_lossy(&b.to_vec()).into_owned()
        } else if obj.cast::<PyMapping>().is_ok() {
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("allow_nan", false)?;
            py.import("json")?
                .call_method("dumps", (obj,), Some(&kwargs))
                .map_err(|e| illegal(py, format!("route is not valid JSON: {e}")))?
                .extract()?
        } else {
            return Err(illegal(py, "route JSON must be an object"));
        };
        Ok(RouteJson(text))
    }
}

fn is_text(v: &Bound<'_, PyAny>) -> bool {
    v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>()
}

/// An address scheme: `"IPv4"`, `"IPv6"` or `"DOMAIN_NAME"`.
pub struct Scheme(pub AddressScheme);

impl FromPyObject<'_, '_> for Scheme {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let s = obj
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("must be a str, not {}", type_name(&obj))))?;
        match s.to_str().ok().and_then(AddressScheme::parse) {
            Some(v) => Ok(Scheme(v)),
            None => Err(illegal(
                obj.py(),
                format!(
                    "unknown address scheme {}; expected one of ('IPv4', 'IPv6', 'DOMAIN_NAME')",
                    s.repr()?
                ),
            )),
        }
    }
}

/// `(host, port)` pairs: any iterable but a `str` or `bytes`.
pub struct Addresses(pub Vec<Address>);

impl FromPyObject<'_, '_> for Addresses {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if is_text(&obj) {
            return Err(PyTypeError::new_err(
                "must be an iterable of (host, port) pairs, not a str",
            ));
        }
        let mut out = Vec::new();
        for a in obj.try_iter()? {
            let a = a?;
            let bad = || -> PyResult<PyErr> {
                Ok(PyTypeError::new_err(format!(
                    "an address must be a (host, port) pair, not {}",
                    a.repr()?
                )))
            };
            let pair = match a.cast::<pyo3::types::PySequence>() {
                Ok(pair) if !is_text(&a) => pair,
                _ => return Err(bad()?),
            };
            if pair.len()? != 2 {
                return Err(bad()?);
            }
            let (host, port) = (pair.get_item(0)?, pair.get_item(1)?);
            out.push(Address {
                host: part::<Name<arg::Host>>(&host, "host")?.0.to_owned(),
                port: part::<JavaInt<arg::Port>>(&port, "port")?.0,
            });
        }
        Ok(Addresses(out))
    }
}

/// A gRPC queue's permission: `"NONE"`, `"READ"`, `"WRITE"` or `"READ_WRITE"`.
pub struct PermissionArg(pub Permission);

impl FromPyObject<'_, '_> for PermissionArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let s = obj
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("must be a str, not {}", type_name(&obj))))?;
        Permission::parse(s.to_str().unwrap_or(""))
            .map(PermissionArg)
            .map_err(java_err)
    }
}

const MESSAGE_TYPES: &str = "('NORMAL', 'FIFO', 'LITE', 'DELAY', 'PRIORITY', 'TRANSACTION')";

/// The message types a gRPC queue accepts: any iterable of their names but a `str` or `bytes`.
pub struct MessageTypes(pub Arc<[MessageType]>);

impl FromPyObject<'_, '_> for MessageTypes {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if is_text(&obj) {
            return Err(PyTypeError::new_err(
                "must be an iterable of str, not a str",
            ));
        }
        let mut out = Vec::new();
        for t in obj.try_iter()? {
            let t = t?;
            let s = t.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!("must hold str, not {}", type_name(&t)))
            })?;
            match s.to_str().ok().and_then(MessageType::parse) {
                Some(m) => out.push(m),
                None => {
                    return Err(illegal(
                        obj.py(),
                        format!(
                            "unknown message type {}; expected one of {MESSAGE_TYPES}",
                            s.repr()?
                        ),
                    ))
                }
            }
        }
        Ok(MessageTypes(Arc::from(out)))
    }
}

/// An argument that is read only in some cases, as the reference reads it (`MQFaultStrategy`'s `clock=`
/// or `detector=`, unread when it is given a `latency_fault_tolerance`): `None` or absent is `None`,
/// anything else is extracted as PyO3 extracts an argument, a `TypeError` naming it
/// (`argument 'clock': ...`).
pub fn lazy_arg<'a, 'py, T>(obj: Option<&'a Bound<'py, PyAny>>, name: &str) -> PyResult<Option<T>>
where
    T: FromPyObject<'a, 'py, Error = PyErr>,
{
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    obj.extract::<T>().map(Some).map_err(|e| {
        let py = obj.py();
        if !e.get_type(py).is(py.get_type::<PyTypeError>()) {
            return e;
        }
        let named = PyTypeError::new_err(format!("argument '{name}': {}", e.value(py)));
        named.set_cause(py, e.cause(py));
        named
    })
}

/// A callable, or an object with the method `method` (its bound method is what is called), as Java's
/// `Resolver` and `ServiceDetector` are objects; otherwise a `TypeError` saying `what` it must be.
fn callback(obj: Borrowed<'_, '_, PyAny>, method: &str, what: &str) -> PyResult<Py<PyAny>> {
    if obj.hasattr(method)? {
        Ok(obj.getattr(method)?.unbind())
    } else if obj.is_callable() {
        Ok(obj.to_owned().unbind())
    } else {
        Err(PyTypeError::new_err(what.to_owned()))
    }
}

/// A `resolver=`: a callable name -> address (`str` or `None`), or an object with `resolve(name)`.
pub struct Resolver(pub Py<PyAny>);

impl FromPyObject<'_, '_> for Resolver {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        callback(
            obj,
            "resolve",
            "must be a callable name -> address, or have a resolve(name) method",
        )
        .map(Resolver)
    }
}

/// A `detector=`: a callable (endpoint, timeout_ms) -> bool, or an object with `detect()`.
pub struct Detector(pub Py<PyAny>);

impl FromPyObject<'_, '_> for Detector {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        callback(
            obj,
            "detect",
            "must be a callable (endpoint, timeout_ms) -> bool, or have a detect() method",
        )
        .map(Detector)
    }
}

/// A table of Java longs: any iterable of `int` but a `str` or `bytes`; an item outside a Java long is
/// `IllegalArgumentError`.
pub struct JavaLongs<N>(pub Vec<i64>, PhantomData<N>);

impl<N: ArgName> FromPyObject<'_, '_> for JavaLongs<N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
            return Err(PyTypeError::new_err("must be a sequence of ints"));
        }
        let mut out = Vec::new();
        for item in obj.try_iter()? {
            out.push(item?.extract::<JavaLong<N>>()?.0);
        }
        Ok(JavaLongs(out, PhantomData))
    }
}

/// A count of steps: a non-negative Python `int` that fits 64 bits. Anything else, a `bool` or a
/// non-int included, is `IllegalArgumentError` (the reference's check).
pub struct NonNegative<N>(pub u64, PhantomData<N>);

impl<N: ArgName> FromPyObject<'_, '_> for NonNegative<N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let value = (obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>())
            .then(|| obj.extract::<u64>().ok())
            .flatten();
        match value {
            Some(v) => Ok(NonNegative(v, PhantomData)),
            None => Err(illegal(
                obj.py(),
                format!(
                    "{} must be a non-negative int, not {}",
                    N::NAME,
                    obj.repr()?
                ),
            )),
        }
    }
}

/// Any object but `None`, which is `NullPointerError` (Java would dereference it).
pub struct NonNull<'py, N>(pub Bound<'py, PyAny>, PhantomData<N>);

impl<'py, N: ArgName> FromPyObject<'_, 'py> for NonNull<'py, N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Err(npe(obj.py(), format!("{} is None", N::NAME)));
        }
        Ok(NonNull(obj.to_owned(), PhantomData))
    }
}

impl<'py, N> std::ops::Deref for NonNull<'py, N> {
    type Target = Bound<'py, PyAny>;

    fn deref(&self) -> &Bound<'py, PyAny> {
        &self.0
    }
}

/// An argument converted when the call asks for it ([`Later::get`]) rather than before the call: PyO3
/// converts arguments in the signature's order, and the reference backend checks some in another (the
/// profile before the queue count, `nulls` before `key_type`, the keys last). A `TypeError` is worded as
/// PyO3 words an argument's (`argument 'num_queues': ...`).
pub struct Later<T, N>(PyResult<T>, PhantomData<N>);

impl<'a, 'py, T, N> FromPyObject<'a, 'py> for Later<T, N>
where
    T: FromPyObject<'a, 'py>,
{
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Later(T::extract(obj).map_err(Into::into), PhantomData))
    }
}

impl<T, N: ArgName> Later<T, N> {
    pub fn get(self, py: Python<'_>) -> PyResult<T> {
        self.0.map_err(|e| {
            if !e.get_type(py).is(py.get_type::<PyTypeError>()) {
                return e;
            }
            let named = PyTypeError::new_err(format!("argument '{}': {}", N::NAME, e.value(py)));
            named.set_cause(py, e.cause(py));
            named
        })
    }
}

/// An optional argument converted when the call asks for it.
pub fn later<T, N: ArgName>(py: Python<'_>, arg: Option<Later<T, N>>) -> PyResult<Option<T>> {
    arg.map(|a| a.get(py)).transpose()
}
