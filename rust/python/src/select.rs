//! Selectors: by hash, at random, by machine room.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFrozenSet, PyInt, PyString};
use rocketroute_core::java::{int_hash, long_hash};
use rocketroute_core::select::{hash_index, random_index, KeyType};
use rocketroute_core::JavaRandom;

use crate::batch_args::KeyTypeArg;
use crate::convert::{arg, JavaInt, JavaLong, NonNull};
use crate::errors::{illegal, npe, type_name, Result};
use crate::java::str_hash;
use crate::java::{random_of, RandomArg};

/// A key's Java hash: a `str` as a `String`, an `int` as `key_type` says, another object (with no
/// `key_type`) by its `java_hash_code()`.
fn key_hash(key: &Bound<'_, PyAny>, key_type: Option<KeyType>) -> PyResult<i32> {
    let py = key.py();
    if let Ok(s) = key.cast::<PyString>() {
        if let Some(kt @ (KeyType::Int | KeyType::Long)) = key_type {
            return Err(PyTypeError::new_err(format!(
                "key_type '{}' needs an int key, got a str",
                kt.name()
            )));
        }
        return str_hash(s);
    }
    if key.is_instance_of::<PyInt>() && !key.is_instance_of::<PyBool>() {
        return match key_type {
            Some(KeyType::Int) => Ok(int_hash(key.extract::<JavaInt<arg::Value>>()?.0)),
            Some(KeyType::Long) => Ok(long_hash(key.extract::<JavaLong<arg::Value>>()?.0)),
            _ => Err(PyTypeError::new_err(
                "an int key needs key_type=\"int\" or key_type=\"long\" (Java Integer or Long)",
            )),
        };
    }
    if key.is_none() {
        return Err(npe(py, "the key (arg) is None"));
    }
    if key_type.is_none() {
        if let Ok(hc) = key.getattr("java_hash_code") {
            // Java's hashCode() is an int: anything else is the object's bug, named as such
            let h = hc.call0()?;
            if h.is_instance_of::<PyBool>() || !h.is_instance_of::<PyInt>() {
                return Err(PyTypeError::new_err(format!(
                    "java_hash_code() must return an int, not {}",
                    type_name(&h)
                )));
            }
            return h.extract::<i32>().map_err(|_| {
                illegal(
                    py,
                    format!("java_hash_code() returned {h}, out of the Java int range"),
                )
            });
        }
    }
    Err(PyTypeError::new_err(format!(
        "cannot hash a {} as Java does; pass a str, or an int with key_type",
        type_name(key)
    )))
}

/// Java's `SelectMessageQueueByHash`: `mqs[|arg.hashCode() % len(mqs)|]` (Java remainder, then abs).
#[pyclass(
    frozen,
    name = "SelectMessageQueueByHash",
    module = "rocketroute._native"
)]
pub struct PySelectMessageQueueByHash {
    key_type: Option<KeyType>,
}

#[pymethods]
impl PySelectMessageQueueByHash {
    #[new]
    #[pyo3(signature = (key_type = None))]
    fn new(key_type: Option<KeyTypeArg<true>>) -> Self {
        PySelectMessageQueueByHash {
            key_type: key_type.map(|k| k.0),
        }
    }

    /// `"string"`, `"int"`, `"long"`, or None.
    #[getter]
    fn key_type(&self) -> Option<&'static str> {
        self.key_type.map(KeyType::name)
    }

    /// The index `select` picks among `num_queues` queues.
    fn select_index(
        &self,
        py: Python<'_>,
        arg: &Bound<'_, PyAny>,
        num_queues: JavaInt<arg::NumQueues>,
    ) -> Result<usize> {
        let h = key_hash(arg, self.key_type)?;
        let n = usize::try_from(num_queues.0)
            .map_err(|_| illegal(py, "num_queues must not be negative"))?;
        Ok(hash_index(h, n)?)
    }

    /// `MessageQueueSelector.select(mqs, msg, arg)`: the queue `arg` hashes to.
    #[pyo3(signature = (mqs, msg, arg))]
    fn select<'py>(
        &self,
        mqs: NonNull<'py, arg::Mqs>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> Result<Bound<'py, PyAny>> {
        let _ = msg;
        let h = key_hash(arg, self.key_type)?;
        let i = hash_index(h, mqs.len()?)?;
        Ok(mqs.get_item(i)?)
    }

    fn __call__<'py>(
        &self,
        mqs: NonNull<'py, arg::Mqs>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> Result<Bound<'py, PyAny>> {
        self.select(mqs, msg, arg)
    }

    fn __repr__(&self) -> String {
        match self.key_type() {
            None => "SelectMessageQueueByHash(key_type=None)".to_owned(),
            Some(k) => format!("SelectMessageQueueByHash(key_type='{k}')"),
        }
    }
}

/// Java's `SelectMessageQueueByRandom`: `mqs[random.nextInt(len(mqs))]`.
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
    fn new(seed: Option<RandomArg>) -> Self {
        PySelectMessageQueueByRandom {
            random: random_of(seed),
        }
    }

    /// `random.nextInt(num_queues)`.
    fn select_index(&self, num_queues: JavaInt<arg::NumQueues>) -> Result<i32> {
        Ok(self.random.next_int_bounded(num_queues.0)?)
    }

    /// `MessageQueueSelector.select(mqs, msg, arg)`: a random queue.
    #[pyo3(signature = (mqs, msg, arg))]
    fn select<'py>(
        &self,
        mqs: NonNull<'py, arg::Mqs>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> Result<Bound<'py, PyAny>> {
        let _ = (msg, arg);
        let i = random_index(&self.random, mqs.len()?)?;
        Ok(mqs.get_item(i)?)
    }

    fn __call__<'py>(
        &self,
        mqs: NonNull<'py, arg::Mqs>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> Result<Bound<'py, PyAny>> {
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

    /// `consumerIdcs` (None: Java null).
    #[getter]
    fn consumer_idcs(&self, py: Python<'_>) -> Option<Py<PyFrozenSet>> {
        self.consumer_idcs.as_ref().map(|c| c.clone_ref(py))
    }

    /// Always None, as Java's.
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
