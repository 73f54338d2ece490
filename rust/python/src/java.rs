//! Java hashing / ordering functions and `JavaRandom` (a `random=` / `seed=` argument is
//! [`crate::convert::RandomArg`]).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyString;
use rocketroute_core::java;
use rocketroute_core::JavaRandom;

use crate::convert::{arg, JavaInt, JavaLong, Text};
use crate::errors::{utf16_units, Result};

/// `String.hashCode()` of a Python str (over its UTF-16 code units).
pub fn str_hash(s: &Bound<'_, PyString>) -> PyResult<i32> {
    match s.to_str() {
        Ok(t) => Ok(java::string_hash(t)),
        Err(_) => Ok(java::utf16_hash(&utf16_units(s)?)),
    }
}

#[pyfunction]
pub fn java_string_hash(s: Text<'_, arg::S>) -> PyResult<i32> {
    str_hash(&s.0)
}

#[pyfunction]
pub fn java_string_compare(a: Text<'_, arg::A>, b: Text<'_, arg::B>) -> PyResult<i32> {
    let (a, b) = (&a.0, &b.0);
    match (a.to_str(), b.to_str()) {
        (Ok(x), Ok(y)) => Ok(java::string_compare(x, y)),
        _ => Ok(java::utf16_compare(&utf16_units(a)?, &utf16_units(b)?)),
    }
}

#[pyfunction]
pub fn java_int_hash(value: JavaInt<arg::Value>) -> i32 {
    java::int_hash(value.0)
}

#[pyfunction]
pub fn java_long_hash(value: JavaLong<arg::Value>) -> i32 {
    java::long_hash(value.0)
}

#[pyclass(frozen, name = "JavaRandom", module = "rocketroute._native")]
pub struct PyJavaRandom {
    pub inner: Arc<JavaRandom>,
}

#[pymethods]
impl PyJavaRandom {
    #[new]
    #[pyo3(signature = (seed = None))]
    fn new(seed: Option<JavaLong<arg::Seed>>) -> Self {
        let inner = match seed {
            Some(s) => JavaRandom::new(s.0),
            None => JavaRandom::from_entropy(),
        };
        PyJavaRandom {
            inner: Arc::new(inner),
        }
    }

    fn set_seed(&self, seed: JavaLong<arg::Seed>) {
        self.inner.set_seed(seed.0);
    }

    /// `nextInt()`, or `nextInt(bound)`.
    #[pyo3(signature = (bound = None))]
    fn next_int(&self, bound: Option<JavaInt<arg::Bound>>) -> Result<i32> {
        Ok(match bound {
            Some(b) => self.inner.next_int_bounded(b.0)?,
            None => self.inner.next_int(),
        })
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
