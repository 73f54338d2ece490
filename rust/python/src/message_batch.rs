//! `_encode_batch_body`: a batch's body (`rocketroute_core::message_batch`) for
//! `rocketroute.client.message.encode_batch`, and `_properties_string`: one message's properties string for
//! `rocketroute.client.message._join_properties` (every send's). Both are called first when the native backend is
//! in use, and say `None` for what they leave to the Python code.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyList, PyString, PyTuple, PyType};
use rocketroute_core::message_batch::{properties_string, push_entry};
use rocketroute_core::message_id::current_time_millis;
use rocketroute_core::send_properties::{send_items, send_properties};

use crate::frame::{exact_int, text};
use crate::message_id::PyMessageIdCounter;
use crate::send_properties::{usual_fields, UsualFields};

/// Java's `MixAll.RETRY_GROUP_TOPIC_PREFIX`: a batch to a retry topic is refused.
const RETRY_GROUP_TOPIC_PREFIX: &str = "%RETRY%";

type Pair<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>);

/// The items of a list of `(name, value)` tuples; `None` for anything else.
fn pairs<'py>(list: &Bound<'py, PyList>) -> Option<Vec<Pair<'py>>> {
    let mut owned = Vec::with_capacity(list.len());
    for pair in list.iter() {
        let pair = pair.cast::<PyTuple>().ok()?;
        if pair.len() != 2 {
            return None;
        }
        owned.push((pair.get_item(0).ok()?, pair.get_item(1).ok()?));
    }
    Some(owned)
}

/// The pairs' names and values as `&str`; `None` when one is not a `str` or holds a lone surrogate.
fn texts<'a>(owned: &'a [Pair<'_>]) -> Option<Vec<(&'a str, &'a str)>> {
    owned
        .iter()
        .map(|(n, v)| Some((text(n)?, text(v)?)))
        .collect()
}

/// The properties string of a list of `(name, value)` tuples in put order; `None` for what the Python code
/// writes (see `properties_string`) or a list of anything else.
fn list_properties_string(items: &Bound<'_, PyList>, drop_last_separator: bool) -> Option<String> {
    properties_string(&texts(&pairs(items)?)?, drop_last_separator)
}

/// The body of a batch of checked messages, each `(flag, body, [(name, value), ...])` with its properties in put
/// order (`UNIQ_KEY` last); `None` when one of them is for the Python encoder: a flag past 64 bits, a body that is
/// not `bytes`, a string with lone surrogates, more than 8 properties, properties past 32767 bytes (which it
/// refuses with Java's words).
#[pyfunction]
pub fn _encode_batch_body<'py>(
    py: Python<'py>,
    entries: &Bound<'py, PyList>,
    drop_last_separator: bool,
) -> Option<Bound<'py, PyBytes>> {
    let mut out = Vec::new();
    for entry in entries.iter() {
        let t = entry.cast::<PyTuple>().ok()?;
        if t.len() != 3 {
            return None;
        }
        let flag: i64 = t.get_item(0).ok()?.cast::<PyInt>().ok()?.extract().ok()?;
        let body = t.get_item(1).ok()?;
        let body = body.cast::<PyBytes>().ok()?;
        let props = t.get_item(2).ok()?;
        let s = list_properties_string(props.cast::<PyList>().ok()?, drop_last_separator)?;
        push_entry(
            &mut out,
            (flag & 0xFFFF_FFFF) as u32 as i32,
            body.as_bytes(),
            &s,
        )
        .ok()?;
    }
    Some(PyBytes::new(py, &out))
}

/// The properties string of one message (`MessageDecoder.messageProperties2String`) from its `[(name, value),
/// ...]` in put order, for `rocketroute.client.message._join_properties`; `None` past 8 properties or for a
/// string with lone surrogates (the Python code then writes it).
#[pyfunction]
pub fn _properties_string<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyList>,
    drop_last_separator: bool,
) -> Option<Bound<'py, PyString>> {
    let s = list_properties_string(items, drop_last_separator)?;
    Some(PyString::new(py, &s))
}

/// `(body, msg_ids)` of a batch of usual messages, checked and written at once (`encode_batch`'s checks, each
/// message's properties and the body, without a Python call per message): every message is a `message_class`
/// (not a subclass) and the usual message of a send (`crate::send_properties::usual_fields`), of the first one's
/// topic (not a retry topic) and wait, with a flag of 32 bits; the ids are `counter`'s next ones, in a row. `None`
/// for anything else (the Python encoder then checks, writes or refuses the batch with Java's errors); no id is
/// made unless every message passed.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _usual_batch_body<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyList>,
    message_class: &Bound<'py, PyType>,
    drop_last_separator: bool,
    max_message_size: &Bound<'py, PyAny>,
    checked_topics: &Bound<'py, PyAny>,
    system_names: &Bound<'py, PyAny>,
    counter: &Bound<'py, PyAny>,
) -> Option<(Bound<'py, PyBytes>, Vec<String>)> {
    let max_message_size = exact_int(max_message_size)?;
    let mut fields: Vec<(i32, UsualFields<'py>)> = Vec::with_capacity(messages.len());
    for msg in messages.iter() {
        if !msg.get_type().is(message_class) {
            return None;
        }
        let flag = i32::try_from(exact_int(&msg.getattr(pyo3::intern!(py, "flag")).ok()?)?).ok()?;
        let f = usual_fields(&msg, max_message_size, checked_topics, system_names)?;
        match fields.first() {
            None => {
                if f.topic.to_str().ok()?.starts_with(RETRY_GROUP_TOPIC_PREFIX) {
                    return None;
                }
            }
            Some((_, first)) => {
                if first.wait != f.wait || first.topic.to_str().ok()? != f.topic.to_str().ok()? {
                    return None;
                }
            }
        }
        fields.push((flag, f));
    }
    if fields.is_empty() {
        return None;
    }
    let users: Vec<Vec<(&str, &str)>> = fields
        .iter()
        .map(|(_, f)| f.user())
        .collect::<Option<_>>()?;
    let mut items = Vec::with_capacity(fields.len());
    for ((_, f), user) in fields.iter().zip(&users) {
        items.push(send_items(&f.usual(user)?)?);
    }
    let counter = counter.cast::<PyMessageIdCounter>().ok()?;
    // None: a new month, which the Python generator sets
    let ids = counter
        .get()
        .create_many_at(current_time_millis(), fields.len())?;
    let mut out = Vec::new();
    for (((flag, f), items), id) in fields.iter().zip(items).zip(&ids) {
        let props = send_properties(items, id, drop_last_separator);
        push_entry(&mut out, *flag, f.body.as_bytes(), &props).ok()?;
    }
    Some((PyBytes::new(py, &out), ids))
}
