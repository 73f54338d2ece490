//! `_encode_batch_body`: a batch's body (`rocketroute_core::message_batch`) for
//! `rocketroute.client.message.encode_batch`, and `_properties_string`: one message's properties string for
//! `rocketroute.client.message._join_properties` (every send's). Both are called first when the native backend is
//! in use, and say `None` for what they leave to the Python code.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyList, PyString, PyTuple};
use rocketroute_core::message_batch::{properties_string, push_entry};

fn text<'a>(v: &'a Bound<'_, PyAny>) -> Option<&'a str> {
    v.cast::<PyString>().ok()?.to_str().ok()
}

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
