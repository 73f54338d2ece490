//! `_decode_stored`: the consumer's pull decoding (`rocketroute_core::stored`) for
//! `rocketroute.client.message_decode.decode_messages`, which calls it first when the native backend is in use.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
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
            props.set_item(k, v)?;
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
