//! `LatencyFaultTolerance`, with Python resolver / detector callables for 5.3's detector rounds.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString};
use rocketroute_core::{Compat, LatencyFaultTolerance};

use crate::clock::clock_arg;
use crate::counter::{compat_arg, PySendWhichQueue};
use crate::errors::{flag, java_int, java_long, name_text, req_name, type_name};
use crate::java::random_arg;

#[pyclass(frozen, name = "LatencyFaultTolerance", module = "rocketroute._native")]
pub struct PyLatencyFaultTolerance {
    pub inner: Arc<LatencyFaultTolerance>,
    clock: Py<PyAny>,
    resolver: Option<Py<PyAny>>,
    detector: Option<Py<PyAny>>,
    which_item_worst: Py<PySendWhichQueue>,
}

fn callable_arg(
    obj: Option<&Bound<'_, PyAny>>,
    method: &str,
    what: &str,
) -> PyResult<Option<Py<PyAny>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => {
            if o.hasattr(method)? {
                Ok(Some(o.getattr(method)?.unbind()))
            } else if o.is_callable() {
                Ok(Some(o.clone().unbind()))
            } else {
                Err(PyTypeError::new_err(what.to_owned()))
            }
        }
    }
}

impl PyLatencyFaultTolerance {
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        py: Python<'_>,
        compat: Compat,
        clock: Option<&Bound<'_, PyAny>>,
        resolver: Option<&Bound<'_, PyAny>>,
        detector: Option<&Bound<'_, PyAny>>,
        detect_interval: Option<&Bound<'_, PyAny>>,
        detect_timeout: Option<&Bound<'_, PyAny>>,
        random: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (clock, clock_obj) = clock_arg(py, clock)?;
        let resolver = callable_arg(
            resolver,
            "resolve",
            "resolver must be a callable name -> address, or have a resolve(name) method",
        )?;
        let detector = callable_arg(
            detector,
            "detect",
            "detector must be a callable (endpoint, timeout_ms) -> bool, or have a detect() method",
        )?;
        let random = random_arg(random, "random")?;
        let lft = LatencyFaultTolerance::new(compat, clock, random);
        if let Some(v) = detect_interval {
            lft.set_detect_interval(java_int(v, "detect_interval")? as i64);
        }
        if let Some(v) = detect_timeout {
            lft.set_detect_timeout(java_int(v, "detect_timeout")? as i64);
        }
        let inner = Arc::new(lft);
        let which_item_worst = Py::new(
            py,
            PySendWhichQueue {
                inner: inner.which_item_worst().clone(),
            },
        )?;
        Ok(PyLatencyFaultTolerance {
            inner,
            clock: clock_obj,
            resolver,
            detector,
            which_item_worst,
        })
    }
}

#[pymethods]
impl PyLatencyFaultTolerance {
    #[new]
    #[pyo3(signature = (compat = None, *, clock = None, resolver = None, detector = None, detect_interval = None, detect_timeout = None, random = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        compat: Option<&Bound<'_, PyAny>>,
        clock: Option<&Bound<'_, PyAny>>,
        resolver: Option<&Bound<'_, PyAny>>,
        detector: Option<&Bound<'_, PyAny>>,
        detect_interval: Option<&Bound<'_, PyAny>>,
        detect_timeout: Option<&Bound<'_, PyAny>>,
        random: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let compat = compat_arg(compat)?;
        Self::build(
            py,
            compat,
            clock,
            resolver,
            detector,
            detect_interval,
            detect_timeout,
            random,
        )
    }

    #[getter]
    fn compat(&self) -> &'static str {
        self.inner.compat().as_str()
    }

    #[getter]
    fn clock(&self, py: Python<'_>) -> Py<PyAny> {
        self.clock.clone_ref(py)
    }

    /// 4.9's `whichItemWorst` index, used by `pick_one_at_least`.
    #[getter]
    fn which_item_worst(&self, py: Python<'_>) -> Py<PySendWhichQueue> {
        self.which_item_worst.clone_ref(py)
    }

    #[getter]
    fn get_detect_interval(&self) -> i64 {
        self.inner.detect_interval()
    }
    #[setter]
    fn set_detect_interval(&self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner
            .set_detect_interval(java_int(v, "detect_interval")? as i64);
        Ok(())
    }
    #[getter]
    fn get_detect_timeout(&self) -> i64 {
        self.inner.detect_timeout()
    }
    #[setter]
    fn set_detect_timeout(&self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner
            .set_detect_timeout(java_int(v, "detect_timeout")? as i64);
        Ok(())
    }
    #[getter]
    fn get_start_detector_enable(&self) -> bool {
        self.inner.start_detector_enable()
    }
    #[setter]
    fn set_start_detector_enable(&self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set_start_detector_enable(v.is_truthy()?);
        Ok(())
    }

    #[pyo3(signature = (name, current_latency, not_available_duration, reachable = None))]
    fn update_fault_item(
        &self,
        name: &Bound<'_, PyAny>,
        current_latency: &Bound<'_, PyAny>,
        not_available_duration: &Bound<'_, PyAny>,
        reachable: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let name = req_name(name, "name")?;
        let latency = java_long(current_latency, "current_latency")?;
        let duration = java_long(not_available_duration, "not_available_duration")?;
        let reachable = flag(reachable, true)?;
        self.inner
            .update_fault_item(name, latency, duration, reachable);
        Ok(())
    }

    fn is_available(&self, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.is_available(req_name(name, "name")?))
    }

    /// 5.3: the item's reachable flag (`True` for an unknown broker); 4.9 has no such flag: `True`.
    fn is_reachable(&self, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.is_reachable(req_name(name, "name")?))
    }

    fn remove(&self, name: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.remove(req_name(name, "name")?);
        Ok(())
    }

    fn __contains__(&self, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        match name.cast::<PyString>() {
            // a name with a lone surrogate is never in the table (update_fault_item refuses it)
            Ok(s) => Ok(s.to_str().is_ok_and(|t| self.inner.contains(t))),
            Err(_) => Ok(false),
        }
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Names that have a fault item.
    fn broker_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.items().iter().map(|v| v.name.to_string()))
    }

    /// A broker to fall back on when none is available (`None` for an empty table).
    fn pick_one_at_least(&self) -> Option<String> {
        self.inner.pick_one_at_least().map(|s| s.to_string())
    }

    /// 5.3: probe every item whose check time has come.
    fn detect_by_one_round(&self, py: Python<'_>) -> PyResult<()> {
        let resolve = |name: &str| -> PyResult<Option<String>> {
            let Some(r) = &self.resolver else {
                return Ok(Some(name.to_owned()));
            };
            let out = r.bind(py).call1((name,))?;
            if out.is_none() {
                return Ok(None);
            }
            let s = out.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "resolver must return a str or None, not {}",
                    type_name(&out)
                ))
            })?;
            Ok(Some(name_text(s, "the resolver's address")?.to_owned()))
        };
        let mut detect = |addr: &str, timeout: i64| -> PyResult<bool> {
            let d = self.detector.as_ref().expect("only called with a detector");
            let out = d.bind(py).call1((addr, timeout))?;
            match out.cast::<PyBool>() {
                Ok(b) => Ok(b.is_true()),
                Err(_) => Err(PyTypeError::new_err(format!(
                    "detector must return a bool, not {}",
                    type_name(&out)
                ))),
            }
        };
        let detect_ref: Option<rocketroute_core::fault::Detector<'_, PyErr>> =
            if self.detector.is_some() {
                Some(&mut detect)
            } else {
                None
            };
        self.inner.detect_by_one_round(resolve, detect_ref)
    }

    fn __repr__(&self) -> String {
        format!(
            "LatencyFaultTolerance(compat='{}', items={})",
            self.inner.compat().as_str(),
            self.inner.len()
        )
    }
}
