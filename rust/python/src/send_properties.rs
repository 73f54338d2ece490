//! `_send_properties`: the usual message's checks and properties string for a send
//! (`rocketroute_core::send_properties`), with its new message id, for
//! `rocketroute.client.message.encode_for_send`. Whatever is not the usual message is left to the Python encoder
//! (`None`), which raises Java's errors as it always did.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFrozenSet, PySet, PyString, PyTuple};
use rocketroute_core::message_id::current_time_millis;
use rocketroute_core::send_properties::{send_items, send_properties, UsualMessage};

use crate::frame::{boolean, exact_int, optional_text, text};
use crate::message_id::PyMessageIdCounter;

fn in_set(set: &Bound<'_, PyAny>, item: &Bound<'_, PyAny>) -> Option<bool> {
    if let Ok(s) = set.cast::<PyFrozenSet>() {
        return s.contains(item).ok();
    }
    set.cast::<PySet>().ok()?.contains(item).ok()
}

/// The fields of a usual message (`rocketroute.client.message.Message`'s), read from its object: its topic is
/// one of `checked_topics` (which `check_topic` passed), its body `bytes` of 1 to `max_message_size` bytes, no
/// delay or timer, a `bool` wait, tags and keys `str` or `None`, and a `dict` of `str` user properties, none of
/// them one of `system_names` nor 5.3's `INNER_MULTI_DISPATCH` (whose check is the Python encoder's).
pub(crate) struct UsualFields<'py> {
    pub topic: Bound<'py, PyString>,
    pub body: Bound<'py, PyBytes>,
    pub wait: bool,
    tags: Bound<'py, PyAny>,
    keys: Bound<'py, PyAny>,
    user: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
}

impl UsualFields<'_> {
    /// The user properties as text, in put order (`None`: a lone surrogate, for the Python encoder).
    pub fn user(&self) -> Option<Vec<(&str, &str)>> {
        self.user
            .iter()
            .map(|(name, value)| Some((text(name)?, text(value)?)))
            .collect()
    }

    /// The message for [`send_items`], over the user properties of [`UsualFields::user`].
    pub fn usual<'a>(&'a self, user: &'a [(&'a str, &'a str)]) -> Option<UsualMessage<'a>> {
        Some(UsualMessage {
            tags: optional_text(&self.tags)?,
            keys: optional_text(&self.keys)?,
            wait_store_msg_ok: self.wait,
            user,
        })
    }
}

/// `msg`'s fields if it is the usual message (see [`UsualFields`]); `None`: the Python encoder decides.
pub(crate) fn usual_fields<'py>(
    msg: &Bound<'py, PyAny>,
    max_message_size: i64,
    checked_topics: &Bound<'py, PyAny>,
    system_names: &Bound<'py, PyAny>,
) -> Option<UsualFields<'py>> {
    let py = msg.py();
    let topic = msg.getattr(intern!(py, "topic")).ok()?;
    let topic = topic.cast_exact::<PyString>().ok()?.clone();
    if !in_set(checked_topics, &topic)? {
        return None;
    }
    let body = msg.getattr(intern!(py, "body")).ok()?;
    let body = body.cast_exact::<PyBytes>().ok()?.clone();
    let body_len = i64::try_from(body.as_bytes().len()).ok()?;
    if body_len == 0 || body_len > max_message_size {
        return None;
    }
    if exact_int(&msg.getattr(intern!(py, "delay_level")).ok()?)? != 0 {
        return None;
    }
    for timer in [
        intern!(py, "delay_sec"),
        intern!(py, "delay_ms"),
        intern!(py, "deliver_time_ms"),
    ] {
        if !msg.getattr(timer).ok()?.is_none() {
            return None;
        }
    }
    let wait = boolean(&msg.getattr(intern!(py, "wait_store_msg_ok")).ok()?)?;
    let tags = msg.getattr(intern!(py, "tags")).ok()?;
    let keys = msg.getattr(intern!(py, "keys")).ok()?;
    let properties = msg.getattr(intern!(py, "properties")).ok()?;
    let properties = properties.cast_exact::<PyDict>().ok()?;
    let mut user = Vec::with_capacity(properties.len());
    for (name, value) in properties.iter() {
        if !name.is_exact_instance_of::<PyString>() || in_set(system_names, &name)? {
            return None;
        }
        if text(&name)? == "INNER_MULTI_DISPATCH" {
            return None; // 5.3's light message queue check is the Python encoder's
        }
        user.push((name, value));
    }
    Some(UsualFields {
        topic,
        body,
        wait,
        tags,
        keys,
        user,
    })
}

/// `(properties, msg_id)` of `msg` for a send: the message is the usual one ([`usual_fields`]) with a body under
/// `compress_over`, and its `UNIQ_KEY` is `msg_id` or, when that is `None`, a new id of `counter`. `None`: the
/// Python encoder decides.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (msg, drop_last_separator, compress_over, max_message_size, checked_topics, system_names, counter, msg_id))]
pub fn _send_properties<'py>(
    py: Python<'py>,
    msg: &Bound<'py, PyAny>,
    drop_last_separator: bool,
    compress_over: &Bound<'py, PyAny>,
    max_message_size: &Bound<'py, PyAny>,
    checked_topics: &Bound<'py, PyAny>,
    system_names: &Bound<'py, PyAny>,
    counter: &Bound<'py, PyAny>,
    msg_id: &Bound<'py, PyAny>,
) -> Option<Bound<'py, PyTuple>> {
    // settings of another type (a float, a bool) are compared by the Python encoder, as they always were
    let compress_over = exact_int(compress_over)?;
    let max_message_size = exact_int(max_message_size)?;
    let fields = usual_fields(msg, max_message_size, checked_topics, system_names)?;
    if i64::try_from(fields.body.as_bytes().len()).ok()? >= compress_over {
        return None;
    }
    let user = fields.user()?;
    let items = send_items(&fields.usual(&user)?)?;
    let (id, joined) = if msg_id.is_none() {
        let counter = counter.cast::<PyMessageIdCounter>().ok()?;
        let made = counter.get().create_at(current_time_millis())?; // None: a new month, which Python sets
        let joined = send_properties(items, &made, drop_last_separator);
        (PyString::new(py, &made), joined)
    } else {
        let joined = send_properties(items, text(msg_id)?, drop_last_separator);
        (msg_id.cast::<PyString>().ok()?.clone(), joined)
    };
    (PyString::new(py, &joined), id).into_pyobject(py).ok()
}
