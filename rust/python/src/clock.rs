//! `ManualClock` and `SystemClock`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rocketroute_core::{Clock, ManualClock};

use crate::errors::{illegal, java_long};

#[pyclass(frozen, name = "ManualClock", module = "rocketroute._native")]
pub struct PyManualClock {
    pub inner: ManualClock,
}

#[pymethods]
impl PyManualClock {
    #[new]
    #[pyo3(signature = (now_ms = None))]
    fn new(now_ms: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let now = match now_ms {
            Some(v) => java_long(v, "now_ms")?,
            None => 0,
        };
        Ok(PyManualClock {
            inner: ManualClock::new(now),
        })
    }

    fn now_ms(&self) -> i64 {
        self.inner.now_ms()
    }

    fn set(&self, now_ms: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set(java_long(now_ms, "now_ms")?);
        Ok(())
    }

    /// Moves the clock by `delta_ms` (back if negative); returns the new time.
    fn advance(&self, py: Python<'_>, delta_ms: &Bound<'_, PyAny>) -> PyResult<i64> {
        let d = java_long(delta_ms, "delta_ms")?;
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

#[pyclass(frozen, name = "SystemClock", module = "rocketroute._native")]
pub struct PySystemClock;

#[pymethods]
impl PySystemClock {
    #[new]
    fn new() -> Self {
        PySystemClock
    }

    fn now_ms(&self) -> i64 {
        Clock::System.now_ms()
    }

    fn __repr__(&self) -> &'static str {
        "SystemClock()"
    }
}

/// A `clock=` argument: `None`, a `ManualClock` or a `SystemClock`.
pub fn clock_arg(py: Python<'_>, clock: Option<&Bound<'_, PyAny>>) -> PyResult<(Clock, Py<PyAny>)> {
    match clock {
        None => Ok((Clock::System, Py::new(py, PySystemClock)?.into_any())),
        Some(c) if c.is_none() => Ok((Clock::System, Py::new(py, PySystemClock)?.into_any())),
        Some(c) => {
            if let Ok(m) = c.cast::<PyManualClock>() {
                Ok((Clock::Manual(m.get().inner.clone()), c.clone().unbind()))
            } else if c.is_instance_of::<PySystemClock>() {
                Ok((Clock::System, c.clone().unbind()))
            } else {
                Err(PyTypeError::new_err(
                    "clock must be a ManualClock, a SystemClock or None",
                ))
            }
        }
    }
}
