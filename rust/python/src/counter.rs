//! `SendWhichQueue`.

use std::sync::Arc;

use pyo3::prelude::*;
use rocketroute_core::SendWhichQueue;

use crate::convert::{arg, compat_of, CompatArg, JavaInt, NonNegative};
use crate::java::{random_of, RandomArg};

/// The index behind `sendWhichQueue` (and 4.9's `whichItemWorst`): Java's `ThreadLocalIndex`
/// arithmetic, one value shared by all threads and advanced atomically.
#[pyclass(frozen, name = "SendWhichQueue", module = "rocketroute._native")]
pub struct PySendWhichQueue {
    pub inner: Arc<SendWhichQueue>,
}

#[pymethods]
impl PySendWhichQueue {
    #[new]
    #[pyo3(signature = (compat = None, start = None, random = None))]
    fn new(
        compat: Option<CompatArg>,
        start: Option<JavaInt<arg::Start>>,
        random: Option<RandomArg>,
    ) -> Self {
        let start = start.map(|s| s.0);
        PySendWhichQueue {
            inner: Arc::new(SendWhichQueue::new(
                compat_of(compat),
                start,
                random_of(random),
            )),
        }
    }

    /// The compat profile: `"5.3"` or `"4.9"`.
    #[getter]
    fn compat(&self) -> &'static str {
        self.inner.compat().as_str()
    }

    /// `incrementAndGet()`: `(stored + 1) & 0x7FFFFFFF`, the first call starting from a random draw.
    fn increment_and_get(&self) -> i32 {
        self.inner.increment_and_get()
    }

    /// Advances by `count` steps at once (atomically); returns the stored value before them.
    fn advance(&self, count: NonNegative<arg::Count>) -> i32 {
        self.inner.advance(count.0)
    }

    /// 5.x `reset()`: store `Math.abs(random.nextInt(Integer.MAX_VALUE))`.
    fn reset(&self) {
        self.inner.reset()
    }

    /// The stored value (None before the first draw).
    fn get(&self) -> Option<i32> {
        self.inner.get()
    }

    /// Force the stored value (what the vectors call `start_index`).
    fn set(&self, value: JavaInt<arg::Value>) {
        self.inner.set(value.0);
    }

    fn __repr__(&self) -> String {
        let v = self
            .inner
            .get()
            .map_or("None".to_owned(), |v| v.to_string());
        format!(
            "SendWhichQueue(compat='{}', value={v})",
            self.inner.compat().as_str()
        )
    }
}
