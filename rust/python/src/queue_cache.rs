//! `_QueueCache`: a consumer queue's cache (`rocketroute_core::queue_cache`) for
//! `rocketroute.client.consumer.process_queue.ProcessQueue`, the twin of the Python `_QueueCache` there.
//!
//! Each operation is one call holding the cache's lock: the messages' `queue_offset` and `body` are read before it
//! is taken, and whatever leaves the cache is released after it is let go, so no Python code runs under it and the
//! GIL never changes hands while it is held (a Python lock held over a call into the cache could: after the call
//! the interpreter may switch threads, and the consume pool's threads then queue on that lock).

use std::sync::{Mutex, MutexGuard};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::{PyTraverseError, PyVisit};
use rocketroute_core::queue_cache::QueueCache;

type Cache = QueueCache<Py<PyAny>>;

/// The state `info()` reads at once: the counts, `queue_offset_max`, `consuming`, then the cached messages'
/// number, first and last offsets, and the taken ones'.
type State = (
    i64,
    i64,
    i64,
    bool,
    usize,
    Option<i64>,
    Option<i64>,
    usize,
    Option<i64>,
    Option<i64>,
);

/// See the module.
#[pyclass(frozen, name = "_QueueCache", module = "rocketroute._native")]
pub struct PyQueueCache {
    inner: Mutex<Cache>,
}

impl PyQueueCache {
    fn cache(&self) -> MutexGuard<'_, Cache> {
        // nothing panics while the lock is held; a poisoned cache is still consistent (each operation is one call)
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A message's `queue_offset`.
fn offset_of(msg: &Bound<'_, PyAny>) -> PyResult<i64> {
    msg.getattr(intern!(msg.py(), "queue_offset"))?.extract()
}

/// A message's body size (`len(body)`, 0 for `None`).
fn size_of(msg: &Bound<'_, PyAny>) -> PyResult<u64> {
    let body = msg.getattr(intern!(msg.py(), "body"))?;
    Ok(if body.is_none() {
        0
    } else {
        body.len()? as u64
    })
}

#[pymethods]
impl PyQueueCache {
    #[new]
    fn new() -> Self {
        PyQueueCache {
            inner: Mutex::new(QueueCache::new()),
        }
    }

    /// The messages held, for the garbage collector (a message that refers back to what keeps this cache). Skipped
    /// if the lock is taken: never a wait here.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Ok(cache) = self.inner.try_lock() {
            for value in cache.values() {
                visit.call(value)?;
            }
        }
        Ok(())
    }

    /// Breaks a cycle through the cache: the messages are let go (after the lock is released).
    fn __clear__(&self) {
        let mut released = Vec::new();
        if let Ok(mut cache) = self.inner.try_lock() {
            cache.clear(&mut released);
        }
        drop(released);
    }

    /// How many messages are cached, not counting those taken.
    fn __len__(&self) -> usize {
        self.cache().cached_len()
    }

    /// Whether the offset is cached (not counting taken messages).
    fn __contains__(&self, offset: i64) -> bool {
        self.cache().contains(offset)
    }

    #[getter]
    fn msg_count(&self) -> i64 {
        self.cache().count()
    }

    #[getter]
    fn msg_size(&self) -> i64 {
        self.cache().size()
    }

    #[getter]
    fn queue_offset_max(&self) -> i64 {
        self.cache().offset_max()
    }

    #[getter]
    fn consuming(&self) -> bool {
        self.cache().consuming()
    }

    /// `putMessage`: each message cached at its `queue_offset`. Returns whether to dispatch a consume request.
    fn put_messages(&self, msgs: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut items = Vec::with_capacity(msgs.len().unwrap_or(0));
        for msg in msgs.try_iter()? {
            let msg = msg?;
            items.push((offset_of(&msg)?, size_of(&msg)?, msg.unbind()));
        }
        let mut released = Vec::new();
        let dispatch = self.cache().put(items, &mut released);
        drop(released);
        Ok(dispatch)
    }

    /// `removeMessage`: the messages' offsets removed when cached. Returns the offset to commit, or -1.
    fn remove_messages(&self, msgs: &Bound<'_, PyAny>) -> PyResult<i64> {
        let mut items = Vec::with_capacity(msgs.len().unwrap_or(0));
        for msg in msgs.try_iter()? {
            let msg = msg?;
            items.push((offset_of(&msg)?, size_of(&msg)?));
        }
        let mut released = Vec::with_capacity(items.len());
        let offset = self.cache().remove(items, &mut released);
        drop(released);
        Ok(offset)
    }

    /// `takeMessages`: up to `n` messages, lowest offsets first, moved to the taken map and returned.
    fn take_messages<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyList>> {
        let mut taken = Vec::new();
        self.cache().take(n, |v| taken.push(v.clone_ref(py)));
        PyList::new(py, taken)
    }

    /// `commit`: the taken messages uncounted and forgotten; the offset to commit, or -1 when none was taken.
    /// Their sizes are read first, without the lock: only the thread consuming the queue takes, commits or puts
    /// back, so the taken map is the same at the second step unless a clear emptied it (then -1).
    fn commit(&self, py: Python<'_>) -> PyResult<i64> {
        let taken: Vec<Py<PyAny>> = self
            .cache()
            .taken_values()
            .map(|v| v.clone_ref(py))
            .collect();
        let mut size = 0u64;
        for msg in &taken {
            size = size.wrapping_add(size_of(msg.bind(py))?);
        }
        let mut released = Vec::with_capacity(taken.len());
        let offset = self.cache().commit(size, &mut released);
        drop(released);
        Ok(offset)
    }

    /// `rollback`: every taken message back in the cache.
    fn rollback(&self) {
        let mut released = Vec::new();
        self.cache().rollback(&mut released);
        drop(released);
    }

    /// `makeMessageToConsumeAgain`: the messages leave the taken map and are cached again.
    fn make_again(&self, msgs: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut items = Vec::with_capacity(msgs.len().unwrap_or(0));
        for msg in msgs.try_iter()? {
            let msg = msg?;
            items.push((offset_of(&msg)?, msg.unbind()));
        }
        let mut released = Vec::new();
        self.cache().make_again(items, &mut released);
        drop(released);
        Ok(())
    }

    /// Both maps emptied, the counts and `queue_offset_max` 0.
    fn clear(&self) {
        let mut released = Vec::new();
        self.cache().clear(&mut released);
        drop(released);
    }

    /// The last cached offset minus the first, 0 when none is cached.
    fn max_span(&self) -> i64 {
        self.cache().max_span()
    }

    /// The cached message with the lowest offset, or `None`.
    fn first(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.cache().first().map(|v| v.clone_ref(py))
    }

    /// `(msg_count, msg_size, queue_offset_max, consuming, cached, cached_first, cached_last, taken, taken_first,
    /// taken_last)`, read at once.
    fn state(&self) -> State {
        let s = self.cache().state();
        (
            s.count,
            s.size,
            s.offset_max,
            s.consuming,
            s.cached,
            s.cached_first,
            s.cached_last,
            s.taken,
            s.taken_first,
            s.taken_last,
        )
    }
}
