//! `_SendResultMaker`: the `SendResult` of a usual send response (`rocketroute_core::send_result`) in one call,
//! for `rocketroute.client.producer.send_result.result_maker`. What is not the usual response is left to the Python
//! reader (`None`), which raises Java's errors as it always did.

use std::sync::Arc;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use rocketroute_core::send_result::{
    field, region_given, trace_on, usual_int, usual_long, SendStatus,
};
use rocketroute_core::MessageQueue;

use crate::frame::{exact_int, optional_text, text};
use crate::message_queue::PyMessageQueue;

/// Builds the `SendResult` of a usual send response: the class, the four `SendStatus` members in declaration order
/// and the default region are given once; `compat_53` keeps 5.3.3's `recallHandle`.
#[pyclass(frozen, name = "_SendResultMaker", module = "rocketroute._native")]
pub struct PySendResultMaker {
    send_result: Py<PyAny>,
    statuses: [Py<PyAny>; 4],
    default_region: Py<PyString>,
    compat_53: bool,
}

/// A field's value as it is in the dict (`None`: absent), when it is a str; `Err`: present and not a str.
fn str_field<'py>(
    fields: &Bound<'py, PyDict>,
    name: &Bound<'py, PyString>,
) -> Result<Option<Bound<'py, PyAny>>, ()> {
    match fields.get_item(name) {
        Ok(Some(v)) if v.is_instance_of::<PyString>() => Ok(Some(v)),
        Ok(None) => Ok(None),
        _ => Err(()),
    }
}

#[pymethods]
impl PySendResultMaker {
    #[new]
    fn new(
        send_result: Py<PyAny>,
        statuses: (Py<PyAny>, Py<PyAny>, Py<PyAny>, Py<PyAny>),
        default_region: Py<PyString>,
        compat_53: bool,
    ) -> Self {
        PySendResultMaker {
            send_result,
            statuses: [statuses.0, statuses.1, statuses.2, statuses.3],
            default_region,
            compat_53,
        }
    }

    /// The `SendResult` of a response with `code` and `ext_fields` to a send of `msg_id` (a single message's
    /// `UNIQ_KEY`) to `mq`, in `topic` (the producer's topic as the user sees it); `None` when the response is not
    /// the usual one (an error code, a missing or unusual number, a field that is not a str, `mq` not a native
    /// `MessageQueue`).
    #[pyo3(signature = (code, ext_fields, mq, msg_id, topic))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        code: &Bound<'py, PyAny>,
        ext_fields: &Bound<'py, PyAny>,
        mq: &Bound<'py, PyAny>,
        msg_id: &Bound<'py, PyAny>,
        topic: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.make(py, code, ext_fields, mq, msg_id, topic)
            .transpose()
    }
}

impl PySendResultMaker {
    /// `__call__`'s answer, `None` at the first thing only the Python reader reads.
    fn make<'py>(
        &self,
        py: Python<'py>,
        code: &Bound<'py, PyAny>,
        ext_fields: &Bound<'py, PyAny>,
        mq: &Bound<'py, PyAny>,
        msg_id: &Bound<'py, PyAny>,
        topic: &Bound<'py, PyAny>,
    ) -> Option<PyResult<Bound<'py, PyAny>>> {
        let status = SendStatus::of_response_code(exact_int(code)?)?;
        let fields = ext_fields.cast_exact::<PyDict>().ok()?;
        let queue_id = usual_int(text(
            &str_field(fields, intern!(py, field::QUEUE_ID)).ok()??,
        )?)?;
        let queue_offset = usual_long(text(
            &str_field(fields, intern!(py, field::QUEUE_OFFSET)).ok()??,
        )?)?;
        let offset_msg_id = str_field(fields, intern!(py, field::MSG_ID)).ok()?;
        let transaction_id = str_field(fields, intern!(py, field::TRANSACTION_ID)).ok()?;
        let recall_handle = if self.compat_53 {
            str_field(fields, intern!(py, field::RECALL_HANDLE)).ok()?
        } else {
            None
        };
        let region = str_field(fields, intern!(py, field::MSG_REGION)).ok()?;
        // a str with lone surrogates has no text here: such a response is the Python reader's
        let region = match region {
            Some(r) if region_given(Some(text(&r)?)) => r,
            _ => self.default_region.bind(py).clone().into_any(),
        };
        let trace = match str_field(fields, intern!(py, field::TRACE_ON)).ok()? {
            Some(t) => trace_on(Some(text(&t)?)),
            None => trace_on(None),
        };
        optional_text(msg_id)?;
        let sent_to = mq.cast::<PyMessageQueue>().ok()?.get();
        let topic = text(topic)?;
        // the result's queue shares the names of the queue sent to (the same topic, unless a namespace is cut off)
        let topic = match sent_to.inner.topic_arc() {
            Some(t) if &**t == topic => Arc::clone(t),
            _ => Arc::from(topic),
        };
        let queue = MessageQueue::new(Some(topic), sent_to.inner.broker_arc().cloned(), queue_id);
        let queue = match PyMessageQueue::wrap(py, queue) {
            Ok(q) => q,
            Err(e) => return Some(Err(e)),
        };
        let none = || py.None().into_bound(py);
        Some(self.send_result.bind(py).call1((
            self.statuses[status.ordinal()].bind(py),
            msg_id,
            offset_msg_id.unwrap_or_else(none),
            queue,
            queue_offset,
            transaction_id.unwrap_or_else(none),
            region,
            trace,
            recall_handle.unwrap_or_else(none),
        )))
    }
}
