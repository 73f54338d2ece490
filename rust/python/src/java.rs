//! Java hashing / ordering functions and `JavaRandom`.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use rocketroute_core::java;
use rocketroute_core::JavaRandom;

use crate::errors::{java_err, java_int, java_long, req_str, type_name, utf16_units};

/// `String.hashCode()` of a Python str (over its UTF-16 code units).
pub fn str_hash(s: &Bound<'_, PyString>) -> PyResult<i32> {
    match s.to_str() {
        Ok(t) => Ok(java::string_hash(t)),
        Err(_) => Ok(java::utf16_hash(&utf16_units(s)?)),
    }
}

#[pyfunction]
pub fn java_string_hash(s: &Bound<'_, PyAny>) -> PyResult<i32> {
    str_hash(req_str(s, "s")?)
}

#[pyfunction]
pub fn java_string_compare(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<i32> {
    let (a, b) = (req_str(a, "a")?, req_str(b, "b")?);
    match (a.to_str(), b.to_str()) {
        (Ok(x), Ok(y)) => Ok(java::string_compare(x, y)),
        _ => Ok(java::utf16_compare(&utf16_units(a)?, &utf16_units(b)?)),
    }
}

#[pyfunction]
pub fn java_int_hash(value: &Bound<'_, PyAny>) -> PyResult<i32> {
    Ok(java::int_hash(java_int(value, "value")?))
}

#[pyfunction]
pub fn java_long_hash(value: &Bound<'_, PyAny>) -> PyResult<i32> {
    Ok(java::long_hash(java_long(value, "value")?))
}

#[pyclass(frozen, name = "JavaRandom", module = "rocketroute._native")]
pub struct PyJavaRandom {
    pub inner: Arc<JavaRandom>,
}

#[pymethods]
impl PyJavaRandom {
    #[new]
    #[pyo3(signature = (seed = None))]
    fn new(seed: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let inner = match seed {
            Some(s) if !s.is_none() => JavaRandom::new(java_long(s, "seed")?),
            _ => JavaRandom::from_entropy(),
        };
        Ok(PyJavaRandom {
            inner: Arc::new(inner),
        })
    }

    fn set_seed(&self, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set_seed(java_long(seed, "seed")?);
        Ok(())
    }

    /// `nextInt()`, or `nextInt(bound)`.
    #[pyo3(signature = (bound = None))]
    fn next_int(&self, bound: Option<&Bound<'_, PyAny>>) -> PyResult<i32> {
        match bound {
            Some(b) if !b.is_none() => self
                .inner
                .next_int_bounded(java_int(b, "bound")?)
                .map_err(java_err),
            _ => Ok(self.inner.next_int()),
        }
    }

    fn next_long(&self) -> i64 {
        self.inner.next_long()
    }

    fn next_boolean(&self) -> bool {
        self.inner.next_boolean()
    }

    fn next_double(&self) -> f64 {
        self.inner.next_double()
    }

    fn __repr__(&self) -> &'static str {
        "JavaRandom(...)"
    }
}

/// A `random=` / `seed=` argument: a `JavaRandom` (shared), an int seed, or `None` (OS entropy).
pub fn random_arg(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Arc<JavaRandom>> {
    match obj {
        None => Ok(Arc::new(JavaRandom::from_entropy())),
        Some(o) if o.is_none() => Ok(Arc::new(JavaRandom::from_entropy())),
        Some(o) => {
            if let Ok(r) = o.cast::<PyJavaRandom>() {
                Ok(r.get().inner.clone())
            } else if o.is_instance_of::<pyo3::types::PyInt>()
                && !o.is_instance_of::<pyo3::types::PyBool>()
            {
                Ok(Arc::new(JavaRandom::new(java_long(o, "seed")?)))
            } else {
                Err(PyTypeError::new_err(format!(
                    "{what} must be a JavaRandom, an int seed or None, not {}",
                    type_name(o)
                )))
            }
        }
    }
}
