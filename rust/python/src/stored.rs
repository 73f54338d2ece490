//! `_decode_stored`: the consumer's pull decoding (`rocketroute_core::stored`) for
//! `rocketroute.client.message_decode.decode_messages` (and the consumer's pulls, `decode_pulled`), which call it
//! first when the native backend is in use.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyType};
use rocketroute_core::stored::{decode_stored, host_text, offset_msg_id, properties_pairs};

static OBJECT_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The extras a consumer's pull gives each message (Java's `processPullResult`): the `MIN_OFFSET` and
/// `MAX_OFFSET` properties and the broker's name.
type Pulled<'py> = (
    Bound<'py, PyString>,
    Bound<'py, PyString>,
    Bound<'py, PyAny>,
);

/// Each message of a pull response body as an instance of `cls` (`MessageExt`, a class with `__slots__`) made
/// without its `__init__` and given all of its fields; with `pulled`, `(min_offset, max_offset, broker_name)`:
/// those two properties are put last and `broker_name` set, as the consumer's pull does. `None` when one
/// message is not the common case (malformed, compressed, not UTF-8): the Python decoder reads it.
///
/// Messages of one body mostly share their topic, born host and store host: each is one `str` while it repeats.
#[pyfunction]
#[pyo3(signature = (data, cls, pulled=None))]
pub fn _decode_stored<'py>(
    py: Python<'py>,
    data: &[u8],
    cls: &Bound<'py, PyType>,
    pulled: Option<Pulled<'py>>,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let Some(msgs) = decode_stored(data) else {
        return Ok(None);
    };
    let new = OBJECT_NEW
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                py.import("builtins")?
                    .getattr("object")?
                    .getattr("__new__")?
                    .unbind(),
            )
        })?
        .bind(py);
    let broker_name = match &pulled {
        Some((_, _, name)) => name.clone(),
        None => py.None().into_bound(py),
    };
    let none = py.None().into_bound(py);
    let mut topics = Repeated::new();
    let mut born_hosts = Repeated::new();
    let mut store_hosts = Repeated::new();
    let out = PyList::empty(py);
    for m in msgs {
        let props = PyDict::new(py);
        for (k, v) in properties_pairs(m.properties) {
            props.set_item(property_name(py, k), property_value(py, v))?;
        }
        if let Some((min_offset, max_offset, _)) = &pulled {
            props.set_item(intern!(py, "MIN_OFFSET"), min_offset)?;
            props.set_item(intern!(py, "MAX_OFFSET"), max_offset)?;
        }
        let obj = new.call1((cls,))?;
        let topic = topics.get(py, m.topic, || m.topic.to_owned());
        let born_host = born_hosts.get(py, (m.born_ip, m.born_port), || {
            host_text(m.born_ip, m.born_port)
        });
        let store_host = store_hosts.get(py, (m.store_ip, m.store_port), || {
            host_text(m.store_ip, m.store_port)
        });
        let offset_msg_id = offset_msg_id(m.store_ip, m.store_port, m.commit_log_offset);
        let fields: [(&Bound<'py, PyString>, Bound<'py, PyAny>); 19] = [
            (intern!(py, "topic"), topic.into_any()),
            (intern!(py, "body"), PyBytes::new(py, m.body).into_any()),
            (intern!(py, "flag"), m.flag.into_pyobject(py)?.into_any()),
            (intern!(py, "properties"), props.into_any()),
            (
                intern!(py, "queue_id"),
                m.queue_id.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "store_size"),
                m.store_size.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "queue_offset"),
                m.queue_offset.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "sys_flag"),
                m.sys_flag.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "born_timestamp"),
                m.born_timestamp.into_pyobject(py)?.into_any(),
            ),
            (intern!(py, "born_host"), born_host.into_any()),
            (
                intern!(py, "store_timestamp"),
                m.store_timestamp.into_pyobject(py)?.into_any(),
            ),
            (intern!(py, "store_host"), store_host.into_any()),
            (
                intern!(py, "offset_msg_id"),
                offset_msg_id.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "commit_log_offset"),
                m.commit_log_offset.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "body_crc"),
                m.body_crc.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "reconsume_times"),
                m.reconsume_times.into_pyobject(py)?.into_any(),
            ),
            (
                intern!(py, "prepared_transaction_offset"),
                m.prepared_transaction_offset.into_pyobject(py)?.into_any(),
            ),
            (intern!(py, "broker_name"), broker_name.clone()),
            (intern!(py, "decode_error"), none.clone()),
        ];
        for (name, value) in fields {
            obj.setattr(name, value)?;
        }
        out.append(obj)?;
    }
    Ok(Some(out))
}

/// The `str`s of the two keys seen last (topics; born hosts; store hosts): a key seen again gives the same object,
/// a new one makes a `str` remembered in place of the one seen longer ago.
struct Repeated<'py, K> {
    recent: [Option<(K, Bound<'py, PyString>)>; 2],
}

impl<'py, K: PartialEq> Repeated<'py, K> {
    fn new() -> Self {
        Repeated {
            recent: [None, None],
        }
    }

    fn get(
        &mut self,
        py: Python<'py>,
        key: K,
        text: impl FnOnce() -> String,
    ) -> Bound<'py, PyString> {
        for i in 0..2 {
            if let Some((k, s)) = &self.recent[i] {
                if *k == key {
                    let s = s.clone();
                    self.recent.swap(0, i); // the most recent first
                    return s;
                }
            }
        }
        let s = PyString::new(py, &text());
        self.recent.swap(0, 1);
        self.recent[0] = Some((key, s.clone()));
        s
    }
}

/// A property name as a str: the names brokers and producers put on most messages are each one shared object
/// (made and hashed once, so a message's dict costs no new str for them); any other name is a new str.
fn property_name<'py>(py: Python<'py>, name: &str) -> Bound<'py, PyString> {
    macro_rules! shared {
        ($($known:literal),* $(,)?) => {
            match name {
                $($known => intern!(py, $known).clone(),)*
                _ => PyString::new(py, name),
            }
        };
    }
    shared!(
        "UNIQ_KEY",
        "WAIT",
        "TAGS",
        "KEYS",
        "CLUSTER",
        "MIN_OFFSET",
        "MAX_OFFSET",
        "TRACE_ON",
        "MSG_REGION",
        "RETRY_TOPIC",
        "REAL_TOPIC",
        "REAL_QID",
        "DELAY",
        "CONSUME_START_TIME",
        "ORIGIN_MESSAGE_ID",
        "RECONSUME_TIME",
        "MAX_RECONSUME_TIMES",
        "PGROUP",
        "TRAN_MSG",
        "__transactionId__",
        "INNER_NUM",
        "TRANSACTION_CHECK_TIMES",
        "MSG_TYPE",
        "__SHARDINGKEY",
        "TIMER_DELIVER_MS",
        "TIMER_DELAY_SEC",
        "TIMER_DELAY_MS",
        "TIMER_OUT_MS",
        "TIMER_ENQUEUE_MS",
        "TIMER_DEQUEUE_MS",
        "TIMER_ROLL_TIMES",
        "DLQ_ORIGIN_TOPIC",
        "DLQ_ORIGIN_MESSAGE_ID",
        "BORN_TIMESTAMP",
        "__BORNHOST",
        "INSTANCE_ID",
    )
}

/// A property value as a str: `true` and `false` (`WAIT`, `TRACE_ON`, ...) are shared objects.
fn property_value<'py>(py: Python<'py>, value: &str) -> Bound<'py, PyString> {
    match value {
        "true" => intern!(py, "true").clone(),
        "false" => intern!(py, "false").clone(),
        _ => PyString::new(py, value),
    }
}
