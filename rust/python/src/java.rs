//! Java hashing / ordering functions, `JavaRandom` and the `random=` / `seed=` argument ([`RandomArg`]).

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};
use rocketroute_core::java;
use rocketroute_core::JavaRandom;

use crate::convert::{arg, JavaInt, JavaLong, Text};
use crate::errors::{type_name, utf16_units, Result};

/// `String.hashCode()` of a Python str (over its UTF-16 code units).
pub fn str_hash(s: &Bound<'_, PyString>) -> PyResult<i32> {
    match s.to_str() {
        Ok(t) => Ok(java::string_hash(t)),
        Err(_) => Ok(java::utf16_hash(&utf16_units(s)?)),
    }
}

/// `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, in int arithmetic.
#[pyfunction]
pub fn java_string_hash(s: Text<'_, arg::S>) -> PyResult<i32> {
    str_hash(&s.0)
}

/// `a.compareTo(b)`: the first differing UTF-16 code unit decides, else the length difference.
#[pyfunction]
pub fn java_string_compare(a: Text<'_, arg::A>, b: Text<'_, arg::B>) -> PyResult<i32> {
    let (a, b) = (&a.0, &b.0);
    match (a.to_str(), b.to_str()) {
        (Ok(x), Ok(y)) => Ok(java::string_compare(x, y)),
        _ => Ok(java::utf16_compare(&utf16_units(a)?, &utf16_units(b)?)),
    }
}

/// `Integer.hashCode(v)`: the value itself.
#[pyfunction]
pub fn java_int_hash(value: JavaInt<arg::Value>) -> i32 {
    java::int_hash(value.0)
}

/// `Long.hashCode(v)`: `(int)(v ^ (v >>> 32))`.
#[pyfunction]
pub fn java_long_hash(value: JavaLong<arg::Value>) -> i32 {
    java::long_hash(value.0)
}

/// `java.util.Random`, bit for bit: the same seed gives the same numbers as the JVM.
///
/// `JavaRandom()` (`seed` None) seeds itself from the OS. Thread-safe (Java's Random is too).
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

    /// `setSeed(seed)`: restart the sequence as `new Random(seed)` would.
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

    /// `nextLong()`: a signed 64-bit value.
    fn next_long(&self) -> i64 {
        self.inner.next_long()
    }

    /// `nextBoolean()`.
    fn next_boolean(&self) -> bool {
        self.inner.next_boolean()
    }

    /// `nextDouble()`: uniform in `[0.0, 1.0)`.
    fn next_double(&self) -> f64 {
        self.inner.next_double()
    }

    fn __repr__(&self) -> &'static str {
        "JavaRandom(...)"
    }
}

/// A `random=` / `seed=` source: a `JavaRandom` (shared), an int seed (outside a Java long,
/// `IllegalArgumentError` naming the seed), or `None` (seeded from the OS).
pub struct RandomArg(pub Arc<JavaRandom>);

impl FromPyObject<'_, '_> for RandomArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Ok(RandomArg(Arc::new(JavaRandom::from_entropy())));
        }
        if let Ok(r) = obj.cast::<PyJavaRandom>() {
            return Ok(RandomArg(Arc::clone(&r.get().inner)));
        }
        if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
            let seed = obj.extract::<JavaLong<arg::Seed>>()?.0;
            return Ok(RandomArg(Arc::new(JavaRandom::new(seed))));
        }
        Err(PyTypeError::new_err(format!(
            "must be a JavaRandom, an int seed or None, not {}",
            type_name(&obj)
        )))
    }
}

/// The random source of an optional argument (`None`: seeded from the OS).
pub fn random_of(r: Option<RandomArg>) -> Arc<JavaRandom> {
    r.map_or_else(|| Arc::new(JavaRandom::from_entropy()), |r| r.0)
}
