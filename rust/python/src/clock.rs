//! `ManualClock`, `SystemClock` and the `clock=` argument ([`ClockArg`]).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rocketroute_core::{Clock, ManualClock};

use crate::convert::{arg, JavaLong};
use crate::errors::illegal;

/// A clock that moves only when told to. Thread-safe.
#[pyclass(frozen, name = "ManualClock", module = "rocketroute._native")]
pub struct PyManualClock {
    pub inner: ManualClock,
}

#[pymethods]
impl PyManualClock {
    #[new]
    #[pyo3(signature = (now_ms = None))]
    fn new(now_ms: Option<JavaLong<arg::NowMs>>) -> Self {
        PyManualClock {
            inner: ManualClock::new(now_ms.map_or(0, |v| v.0)),
        }
    }

    /// The current time in milliseconds.
    fn now_ms(&self) -> i64 {
        self.inner.now_ms()
    }

    /// Set the time to `now_ms`.
    fn set(&self, now_ms: JavaLong<arg::NowMs>) {
        self.inner.set(now_ms.0);
    }

    /// Moves the clock by `delta_ms` (back if negative); returns the new time.
    fn advance(&self, py: Python<'_>, delta_ms: JavaLong<arg::DeltaMs>) -> PyResult<i64> {
        let d = delta_ms.0;
        self.inner.advance(d).ok_or_else(|| {
            illegal(
                py,
                format!(
                    "now_ms {} is out of the Java long range",
                    self.inner.now_ms() as i128 + d as i128
                ),
            )
        })
    }

    fn __repr__(&self) -> String {
        format!("ManualClock(now_ms={})", self.inner.now_ms())
    }
}

/// Wall-clock milliseconds (`System.currentTimeMillis()`).
#[pyclass(frozen, name = "SystemClock", module = "rocketroute._native")]
pub struct PySystemClock;

#[pymethods]
impl PySystemClock {
    #[new]
    fn new() -> Self {
        PySystemClock
    }

    /// `System.currentTimeMillis()`.
    fn now_ms(&self) -> i64 {
        Clock::System.now_ms()
    }

    fn __repr__(&self) -> &'static str {
        "SystemClock()"
    }
}

/// A `clock=` argument: a `ManualClock` (shared) or a `SystemClock`, with the object itself (what the
/// `clock` property gives back); `None` is a new `SystemClock`.
pub struct ClockArg(pub Clock, pub Py<PyAny>);

impl ClockArg {
    /// A new `SystemClock`.
    pub fn system(py: Python<'_>) -> PyResult<Self> {
        Ok(ClockArg(
            Clock::System,
            Py::new(py, PySystemClock)?.into_any(),
        ))
    }
}

impl FromPyObject<'_, '_> for ClockArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return ClockArg::system(obj.py());
        }
        if let Ok(m) = obj.cast::<PyManualClock>() {
            let clock = Clock::Manual(m.get().inner.clone());
            return Ok(ClockArg(clock, obj.to_owned().unbind()));
        }
        if obj.is_instance_of::<PySystemClock>() {
            return Ok(ClockArg(Clock::System, obj.to_owned().unbind()));
        }
        Err(PyTypeError::new_err(
            "must be a ManualClock, a SystemClock or None",
        ))
    }
}

/// The clock of an optional argument (`None`: a new `SystemClock`).
pub fn clock_of(py: Python<'_>, c: Option<ClockArg>) -> PyResult<ClockArg> {
    c.map_or_else(|| ClockArg::system(py), Ok)
}
