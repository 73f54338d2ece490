//! `_MessageIdCounter`: the core's message-id counter (`rocketroute_core::message_id`) for
//! `rocketroute.client.message_id.MessageIdGenerator`, which keeps the prefix and the month windows.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rocketroute_core::message_id::{current_time_millis, MessageIdCounter};

/// The time window and the counter of one generator's ids: `create` is `createUniqID()`'s moving part.
#[pyclass(frozen, name = "_MessageIdCounter", module = "rocketroute._native")]
pub struct PyMessageIdCounter {
    inner: MessageIdCounter,
}

impl PyMessageIdCounter {
    /// `create` at `now_ms`, for the native encoder.
    pub(crate) fn create_at(&self, now_ms: i64) -> Option<String> {
        self.inner.create(now_ms)
    }

    /// `n` ids in a row, or `None` (none made) when `now_ms` is past the window (a new month).
    pub(crate) fn create_many_at(&self, now_ms: i64, n: usize) -> Option<Vec<String>> {
        self.inner.create_many(now_ms, n)
    }
}

#[pymethods]
impl PyMessageIdCounter {
    #[new]
    #[pyo3(signature = (prefix, start, next_start, counter = 0))]
    fn new(prefix: &str, start: i64, next_start: i64, counter: u32) -> Self {
        PyMessageIdCounter {
            inner: MessageIdCounter::new(prefix, start, next_start, counter),
        }
    }

    /// A new id at `now_ms` (default: the system clock, `System.currentTimeMillis()`), or `None` when that is
    /// past the window: set the next one, then ask again.
    #[pyo3(signature = (now_ms = None))]
    fn create(&self, now_ms: Option<i64>) -> Option<String> {
        self.inner
            .create(now_ms.unwrap_or_else(current_time_millis))
    }

    /// `n` ids as `n` calls of `create` in a row would give them, or `None` when `now_ms` is past the window.
    #[pyo3(signature = (n, now_ms = None))]
    fn create_many(&self, n: i64, now_ms: Option<i64>) -> PyResult<Option<Vec<String>>> {
        let n = usize::try_from(n)
            .map_err(|_| PyValueError::new_err(format!("n must be >= 0, not {n}")))?;
        Ok(self
            .inner
            .create_many(now_ms.unwrap_or_else(current_time_millis), n))
    }

    /// Ids are written in the window `[start, next_start)` from now on.
    fn set_window(&self, start: i64, next_start: i64) {
        self.inner.set_window(start, next_start)
    }

    /// The counter's next value (16 bits).
    #[getter]
    fn counter(&self) -> u16 {
        self.inner.counter()
    }

    #[getter]
    fn prefix(&self) -> &str {
        self.inner.prefix()
    }

    fn __repr__(&self) -> String {
        format!(
            "<_MessageIdCounter {} next {:04X}>",
            self.inner.prefix(),
            self.inner.counter()
        )
    }
}
