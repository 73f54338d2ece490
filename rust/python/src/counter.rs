//! `SendWhichQueue`.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use rocketroute_core::{Compat, SendWhichQueue};

use crate::errors::{illegal, java_int, type_name};
use crate::java::random_arg;

#[pyclass(frozen, name = "SendWhichQueue", module = "rocketroute._native")]
pub struct PySendWhichQueue {
    pub inner: Arc<SendWhichQueue>,
}

/// A compat profile argument: a `str` (`"5.3"`, `"4.9"` or a full version), or `None` for the default.
pub fn compat_arg(compat: Option<&Bound<'_, PyAny>>) -> PyResult<Compat> {
    let Some(compat) = compat.filter(|c| !c.is_none()) else {
        return Ok(Compat::default());
    };
    let text = compat.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!("compat must be a str, not {}", type_name(compat)))
    })?;
    match text.to_str().ok().and_then(|t| Compat::parse(t).ok()) {
        Some(c) => Ok(c),
        // named as Python writes it (a quote, a lone surrogate), as the reference backend does
        None => Err(illegal(
            compat.py(),
            format!(
                "unknown compat profile {}; expected one of ('5.3', '4.9')",
                text.repr()?
            ),
        )),
    }
}

#[pymethods]
impl PySendWhichQueue {
    #[new]
    #[pyo3(signature = (compat = None, start = None, random = None))]
    fn new(
        compat: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        random: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let compat = compat_arg(compat)?;
        let random = random_arg(random, "random")?;
        let start = match start {
            Some(s) if !s.is_none() => Some(java_int(s, "start")?),
            _ => None,
        };
        Ok(PySendWhichQueue {
            inner: Arc::new(SendWhichQueue::new(compat, start, random)),
        })
    }

    #[getter]
    fn compat(&self) -> &'static str {
        self.inner.compat().as_str()
    }

    fn increment_and_get(&self) -> i32 {
        self.inner.increment_and_get()
    }

    /// Advances by `count` steps at once (atomically); returns the stored value before them.
    fn advance(&self, py: Python<'_>, count: &Bound<'_, PyAny>) -> PyResult<i32> {
        if count.is_instance_of::<pyo3::types::PyBool>()
            || !count.is_instance_of::<pyo3::types::PyInt>()
        {
            return Err(crate::errors::illegal(
                py,
                format!("count must be a non-negative int, not {}", count.repr()?),
            ));
        }
        match count.extract::<u64>() {
            Ok(c) => Ok(self.inner.advance(c)),
            Err(_) => Err(crate::errors::illegal(
                py,
                format!("count must be a non-negative int, not {}", count.repr()?),
            )),
        }
    }

    fn reset(&self) {
        self.inner.reset()
    }

    fn get(&self) -> Option<i32> {
        self.inner.get()
    }

    fn set(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set(java_int(value, "value")?);
        Ok(())
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
