//! Selectors: by hash, at random, by machine room.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFrozenSet, PyInt, PyString};
use rocketroute_core::java::{int_hash, long_hash};
use rocketroute_core::select::{hash_index, random_index};
use rocketroute_core::JavaRandom;

use crate::errors::{illegal, java_err, java_int, java_long, npe};
use crate::java::{random_arg, str_hash};

#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyType {
    Auto,
    Str,
    Int,
    Long,
}

fn key_hash(arg: &Bound<'_, PyAny>, key_type: KeyType) -> PyResult<i32> {
    let py = arg.py();
    if let Ok(s) = arg.cast::<PyString>() {
        if !matches!(key_type, KeyType::Auto | KeyType::Str) {
            let kt = if key_type == KeyType::Int {
                "int"
            } else {
                "long"
            };
            return Err(PyTypeError::new_err(format!(
                "key_type '{kt}' needs an int key, got a str"
            )));
        }
        return str_hash(s);
    }
    if arg.is_instance_of::<PyInt>() && !arg.is_instance_of::<PyBool>() {
        return match key_type {
            KeyType::Int => Ok(int_hash(java_int(arg, "value")?)),
            KeyType::Long => Ok(long_hash(java_long(arg, "value")?)),
            _ => Err(PyTypeError::new_err(
                "an int key needs key_type=\"int\" or key_type=\"long\" (Java Integer or Long)",
            )),
        };
    }
    if arg.is_none() {
        return Err(npe(py, "the key (arg) is None"));
    }
    if key_type == KeyType::Auto {
        if let Ok(hc) = arg.getattr("java_hash_code") {
            // Java's hashCode() is an int: anything else is the object's bug, named as such
            let h = hc.call0()?;
            if h.is_instance_of::<pyo3::types::PyBool>()
                || !h.is_instance_of::<pyo3::types::PyInt>()
            {
                return Err(PyTypeError::new_err(format!(
                    "java_hash_code() must return an int, not {}",
                    crate::errors::type_name(&h)
                )));
            }
            return h.extract::<i32>().map_err(|_| {
                crate::errors::illegal(
                    py,
                    format!("java_hash_code() returned {h}, out of the Java int range"),
                )
            });
        }
    }
    Err(PyTypeError::new_err(format!(
        "cannot hash a {} as Java does; pass a str, or an int with key_type",
        crate::errors::type_name(arg)
    )))
}

fn queue_count(mqs: &Bound<'_, PyAny>) -> PyResult<usize> {
    if mqs.is_none() {
        return Err(npe(mqs.py(), "mqs is None"));
    }
    mqs.len()
}

#[pyclass(
    frozen,
    name = "SelectMessageQueueByHash",
    module = "rocketroute._native"
)]
pub struct PySelectMessageQueueByHash {
    key_type: KeyType,
}

#[pymethods]
impl PySelectMessageQueueByHash {
    #[new]
    #[pyo3(signature = (key_type = None))]
    fn new(py: Python<'_>, key_type: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let kt = match key_type.filter(|k| !k.is_none()) {
            None => KeyType::Auto,
            Some(k) => match k
                .cast::<PyString>()
                .ok()
                .and_then(|s| s.to_str().ok().map(str::to_owned))
                .as_deref()
            {
                Some("string") => KeyType::Str,
                Some("int") => KeyType::Int,
                Some("long") => KeyType::Long,
                _ => {
                    return Err(illegal(
                        py,
                        format!(
                            "key_type must be one of ('string', 'int', 'long') or None, not {}",
                            k.repr()?
                        ),
                    ))
                }
            },
        };
        Ok(PySelectMessageQueueByHash { key_type: kt })
    }

    #[getter]
    fn key_type(&self) -> Option<&'static str> {
        match self.key_type {
            KeyType::Auto => None,
            KeyType::Str => Some("string"),
            KeyType::Int => Some("int"),
            KeyType::Long => Some("long"),
        }
    }

    /// The index `select` picks among `num_queues` queues.
    fn select_index(
        &self,
        py: Python<'_>,
        arg: &Bound<'_, PyAny>,
        num_queues: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let h = key_hash(arg, self.key_type)?;
        let n = java_int(num_queues, "num_queues")?;
        if n < 0 {
            return Err(illegal(py, "num_queues must not be negative"));
        }
        hash_index(h, n as usize).map_err(java_err)
    }

    #[pyo3(signature = (mqs, msg, arg))]
    fn select<'py>(
        &self,
        mqs: &Bound<'py, PyAny>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = msg;
        if mqs.is_none() {
            return Err(npe(mqs.py(), "mqs is None"));
        }
        let h = key_hash(arg, self.key_type)?;
        let i = hash_index(h, queue_count(mqs)?).map_err(java_err)?;
        mqs.get_item(i)
    }

    fn __call__<'py>(
        &self,
        mqs: &Bound<'py, PyAny>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.select(mqs, msg, arg)
    }

    fn __repr__(&self) -> String {
        match self.key_type() {
            None => "SelectMessageQueueByHash(key_type=None)".to_owned(),
            Some(k) => format!("SelectMessageQueueByHash(key_type='{k}')"),
        }
    }
}

#[pyclass(
    frozen,
    name = "SelectMessageQueueByRandom",
    module = "rocketroute._native"
)]
pub struct PySelectMessageQueueByRandom {
    random: Arc<JavaRandom>,
}

#[pymethods]
impl PySelectMessageQueueByRandom {
    #[new]
    #[pyo3(signature = (seed = None))]
    fn new(seed: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(PySelectMessageQueueByRandom {
            random: random_arg(seed, "seed")?,
        })
    }

    fn select_index(&self, num_queues: &Bound<'_, PyAny>) -> PyResult<i32> {
        self.random
            .next_int_bounded(java_int(num_queues, "num_queues")?)
            .map_err(java_err)
    }

    #[pyo3(signature = (mqs, msg, arg))]
    fn select<'py>(
        &self,
        mqs: &Bound<'py, PyAny>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = (msg, arg);
        let i = random_index(&self.random, queue_count(mqs)?).map_err(java_err)?;
        mqs.get_item(i)
    }

    fn __call__<'py>(
        &self,
        mqs: &Bound<'py, PyAny>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.select(mqs, msg, arg)
    }

    fn __repr__(&self) -> &'static str {
        "SelectMessageQueueByRandom()"
    }
}

/// As Java ships it, `select` always returns `None` (the class is an unfinished stub upstream).
#[pyclass(
    frozen,
    name = "SelectMessageQueueByMachineRoom",
    module = "rocketroute._native"
)]
pub struct PySelectMessageQueueByMachineRoom {
    consumer_idcs: Option<Py<PyFrozenSet>>,
}

#[pymethods]
impl PySelectMessageQueueByMachineRoom {
    #[new]
    #[pyo3(signature = (consumer_idcs = None))]
    fn new(py: Python<'_>, consumer_idcs: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let consumer_idcs = match consumer_idcs.filter(|c| !c.is_none()) {
            None => None,
            Some(c) => {
                let items: Vec<Bound<'_, PyAny>> = c.try_iter()?.collect::<PyResult<_>>()?;
                Some(PyFrozenSet::new(py, items)?.unbind())
            }
        };
        Ok(PySelectMessageQueueByMachineRoom { consumer_idcs })
    }

    #[getter]
    fn consumer_idcs(&self, py: Python<'_>) -> Option<Py<PyFrozenSet>> {
        self.consumer_idcs.as_ref().map(|c| c.clone_ref(py))
    }

    #[pyo3(signature = (mqs, msg, arg))]
    fn select(
        &self,
        mqs: &Bound<'_, PyAny>,
        msg: &Bound<'_, PyAny>,
        arg: &Bound<'_, PyAny>,
    ) -> Option<Py<PyAny>> {
        let _ = (mqs, msg, arg);
        None
    }

    fn __call__(
        &self,
        mqs: &Bound<'_, PyAny>,
        msg: &Bound<'_, PyAny>,
        arg: &Bound<'_, PyAny>,
    ) -> Option<Py<PyAny>> {
        self.select(mqs, msg, arg)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let r = match &self.consumer_idcs {
            None => "None".to_owned(),
            Some(c) => c.bind(py).repr()?.to_string(),
        };
        Ok(format!(
            "SelectMessageQueueByMachineRoom(consumer_idcs={r})"
        ))
    }
}
