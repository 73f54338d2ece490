//! `_decode_stored`: the consumer's pull decoding (`rocketroute_core::stored`) for
//! `rocketroute.client.message_decode.decode_messages`, which calls it first when the native backend is in use.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rocketroute_core::stored::{decode_stored, host_text, offset_msg_id, properties_pairs};

/// Each message of a pull response body as a tuple of `MessageExt`'s first 17 fields, in their order (topic, body,
/// flag, properties, queue_id, store_size, queue_offset, sys_flag, born_timestamp, born_host, store_timestamp,
/// store_host, offset_msg_id, commit_log_offset, body_crc, reconsume_times, prepared_transaction_offset); `None`
/// when one message is not the common case (malformed, compressed, not UTF-8): the Python decoder reads it.
#[pyfunction]
pub fn _decode_stored<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Option<Bound<'py, PyList>>> {
    let Some(msgs) = decode_stored(data) else {
        return Ok(None);
    };
    let out = PyList::empty(py);
    for m in msgs {
        let props = PyDict::new(py);
        for (k, v) in properties_pairs(m.properties) {
            props.set_item(property_name(py, k), property_value(py, v))?;
        }
        let row = PyTuple::new(
            py,
            [
                m.topic.into_pyobject(py)?.into_any(),
                PyBytes::new(py, m.body).into_any(),
                m.flag.into_pyobject(py)?.into_any(),
                props.into_any(),
                m.queue_id.into_pyobject(py)?.into_any(),
                m.store_size.into_pyobject(py)?.into_any(),
                m.queue_offset.into_pyobject(py)?.into_any(),
                m.sys_flag.into_pyobject(py)?.into_any(),
                m.born_timestamp.into_pyobject(py)?.into_any(),
                host_text(m.born_ip, m.born_port)
                    .into_pyobject(py)?
                    .into_any(),
                m.store_timestamp.into_pyobject(py)?.into_any(),
                host_text(m.store_ip, m.store_port)
                    .into_pyobject(py)?
                    .into_any(),
                offset_msg_id(m.store_ip, m.store_port, m.commit_log_offset)
                    .into_pyobject(py)?
                    .into_any(),
                m.commit_log_offset.into_pyobject(py)?.into_any(),
                m.body_crc.into_pyobject(py)?.into_any(),
                m.reconsume_times.into_pyobject(py)?.into_any(),
                m.prepared_transaction_offset.into_pyobject(py)?.into_any(),
            ],
        )?;
        out.append(row)?;
    }
    Ok(Some(out))
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
