//! `_OffsetMap`: a consumer queue's cached messages by offset (`rocketroute_core::offset_map`) for
//! `rocketroute.client.consumer.process_queue.ProcessQueue`, the twin of the Python `_OffsetMap` there.
//!
//! The messages' `queue_offset` and `body` are read before the map is locked, and whatever leaves the map (a value
//! replaced or removed) is released after it is unlocked: no Python code runs while the lock is held.

use std::sync::{Mutex, MutexGuard};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3::{PyTraverseError, PyVisit};
use rocketroute_core::offset_map::OffsetMap;

type Map = OffsetMap<Py<PyAny>>;

/// Values (messages) by queue offset, in ascending order.
#[pyclass(frozen, name = "_OffsetMap", module = "rocketroute._native")]
pub struct PyOffsetMap {
    inner: Mutex<Map>,
}

impl PyOffsetMap {
    fn map(&self) -> MutexGuard<'_, Map> {
        // nothing panics while the lock is held; a poisoned map is still consistent (each operation is one call)
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A message's `queue_offset` and body size (`len(body)`, 0 for `None`).
fn offset_and_size(msg: &Bound<'_, PyAny>) -> PyResult<(i64, u64)> {
    let py = msg.py();
    let offset: i64 = msg.getattr(intern!(py, "queue_offset"))?.extract()?;
    let body = msg.getattr(intern!(py, "body"))?;
    let size = if body.is_none() {
        0
    } else {
        body.len()? as u64
    };
    Ok((offset, size))
}

#[pymethods]
impl PyOffsetMap {
    #[new]
    fn new() -> Self {
        PyOffsetMap {
            inner: Mutex::new(OffsetMap::new()),
        }
    }

    /// The values, for the garbage collector (a message that refers back to what keeps this map). Skipped if the
    /// lock is taken: never a wait here.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Ok(map) = self.inner.try_lock() {
            for (_, value) in map.iter() {
                visit.call(value)?;
            }
        }
        Ok(())
    }

    /// Breaks a cycle through the map: the values are let go (after the lock is released).
    fn __clear__(&self) {
        let values = self.inner.try_lock().ok().map(|mut map| map.take_all());
        drop(values);
    }

    fn __len__(&self) -> usize {
        self.map().len()
    }

    fn __contains__(&self, key: i64) -> bool {
        self.map().contains(key)
    }

    /// Java's `put`: the value `key` had (replaced), or `None`.
    fn put(&self, key: i64, value: Py<PyAny>) -> Option<Py<PyAny>> {
        self.map().put(key, value)
    }

    /// Java's `remove`: the value of `key` (taken out), or `None`.
    fn remove(&self, key: i64) -> Option<Py<PyAny>> {
        self.map().remove(key)
    }

    /// `putMessage`'s loop: each message cached at its `queue_offset`. Returns how many offsets were new, the total
    /// body size of those, and the last new offset (`None` when none was).
    fn put_messages(&self, msgs: &Bound<'_, PyAny>) -> PyResult<(u64, u64, Option<i64>)> {
        let mut items = Vec::with_capacity(msgs.len().unwrap_or(0));
        for msg in msgs.try_iter()? {
            let msg = msg?;
            let (offset, size) = offset_and_size(&msg)?;
            items.push((offset, size, msg.unbind()));
        }
        let mut replaced = Vec::new();
        let done = self.map().put_all(items, &mut replaced);
        drop(replaced);
        Ok((done.added, done.size, done.last_added))
    }

    /// `removeMessage`'s loop: each message's `queue_offset` removed when cached. Returns how many were, the total
    /// body size of the messages given for those, and the first offset still cached (`None`: the map is empty).
    fn remove_messages(&self, msgs: &Bound<'_, PyAny>) -> PyResult<(u64, u64, Option<i64>)> {
        let mut items = Vec::with_capacity(msgs.len().unwrap_or(0));
        for msg in msgs.try_iter()? {
            items.push(offset_and_size(&msg?)?);
        }
        let mut removed = Vec::with_capacity(items.len());
        let done = self.map().remove_all(items, &mut removed);
        drop(removed);
        Ok((done.removed, done.size, done.first_left))
    }

    /// The lowest offset, or `None` when empty.
    fn first_key(&self) -> Option<i64> {
        self.map().first_key()
    }

    /// The highest offset, or `None` when empty.
    fn last_key(&self) -> Option<i64> {
        self.map().last_key()
    }

    /// The value of the lowest offset, or `None` when empty.
    fn first(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.map().first().map(|(_, v)| v.clone_ref(py))
    }

    /// Java's `pollFirstEntry`: `(offset, value)` taken out, or `None` when empty.
    fn poll_first<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let entry = self.map().poll_first();
        entry.map(|(k, v)| (k, v).into_pyobject(py)).transpose()
    }

    /// `(offset, value)` pairs in ascending offset order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let entries: Vec<(i64, Py<PyAny>)> = self
            .map()
            .iter()
            .map(|(k, v)| (k, v.clone_ref(py)))
            .collect();
        PyList::new(py, entries)
    }

    /// The values in ascending offset order.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let values: Vec<Py<PyAny>> = self.map().iter().map(|(_, v)| v.clone_ref(py)).collect();
        PyList::new(py, values)
    }

    fn clear(&self) {
        let values = self.map().take_all();
        drop(values);
    }
}
