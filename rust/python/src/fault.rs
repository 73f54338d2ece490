//! `LatencyFaultTolerance`, with Python resolver / detector callables for 5.3's detector rounds.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString};
use pyo3::{PyTraverseError, PyVisit};
use rocketroute_core::{Compat, LatencyFaultTolerance};

use crate::clock::{clock_of, ClockArg};
use crate::convert::{
    arg, compat_of, CompatArg, Detector, Flag, JavaInt, JavaLong, Name, Resolver,
};
use crate::counter::PySendWhichQueue;
use crate::errors::type_name;
use crate::java::{random_of, RandomArg};

/// Fault items by broker name (Java's `LatencyFaultToleranceImpl`): an item is available once the clock
/// reaches its start timestamp; 5.3 items also carry a reachable flag a detector round can restore.
#[pyclass(frozen, name = "LatencyFaultTolerance", module = "rocketroute._native")]
pub struct PyLatencyFaultTolerance {
    pub inner: Arc<LatencyFaultTolerance>,
    clock: Py<PyAny>,
    resolver: Option<Py<PyAny>>,
    detector: Option<Py<PyAny>>,
    which_item_worst: Py<PySendWhichQueue>,
}

impl PyLatencyFaultTolerance {
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        py: Python<'_>,
        compat: Compat,
        clock: Option<ClockArg>,
        resolver: Option<Resolver>,
        detector: Option<Detector>,
        detect_interval: Option<JavaInt<arg::DetectInterval>>,
        detect_timeout: Option<JavaInt<arg::DetectTimeout>>,
        random: Option<RandomArg>,
    ) -> PyResult<Self> {
        let ClockArg(clock, clock_obj) = clock_of(py, clock)?;
        let lft = LatencyFaultTolerance::new(compat, clock, random_of(random));
        if let Some(v) = detect_interval {
            lft.set_detect_interval(v.0 as i64);
        }
        if let Some(v) = detect_timeout {
            lft.set_detect_timeout(v.0 as i64);
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
            resolver: resolver.map(|r| r.0),
            detector: detector.map(|d| d.0),
            which_item_worst,
        })
    }
}

#[pymethods]
impl PyLatencyFaultTolerance {
    /// The clock and the user's resolver and detector, shown to the garbage collector: a cycle through them
    /// (a resolver that is a method of the object keeping this table) is collected.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.clock)?;
        visit.call(&self.resolver)?;
        visit.call(&self.detector)?;
        Ok(())
    }

    #[new]
    #[pyo3(signature = (compat = None, *, clock = None, resolver = None, detector = None, detect_interval = None, detect_timeout = None, random = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        compat: Option<CompatArg>,
        clock: Option<ClockArg>,
        resolver: Option<Resolver>,
        detector: Option<Detector>,
        detect_interval: Option<JavaInt<arg::DetectInterval>>,
        detect_timeout: Option<JavaInt<arg::DetectTimeout>>,
        random: Option<RandomArg>,
    ) -> PyResult<Self> {
        Self::build(
            py,
            compat_of(compat),
            clock,
            resolver,
            detector,
            detect_interval,
            detect_timeout,
            random,
        )
    }

    /// The compat profile: `"5.3"` or `"4.9"`.
    #[getter]
    fn compat(&self) -> &'static str {
        self.inner.compat().as_str()
    }

    /// The clock the items are timed on.
    #[getter]
    fn clock(&self, py: Python<'_>) -> Py<PyAny> {
        self.clock.clone_ref(py)
    }

    /// 4.9's `whichItemWorst` index, used by `pick_one_at_least`.
    #[getter]
    fn which_item_worst(&self, py: Python<'_>) -> Py<PySendWhichQueue> {
        self.which_item_worst.clone_ref(py)
    }

    /// 5.3 `detectInterval`: milliseconds between detector rounds.
    #[getter]
    fn get_detect_interval(&self) -> i64 {
        self.inner.detect_interval()
    }
    #[setter]
    fn set_detect_interval(&self, detect_interval: JavaInt<arg::DetectInterval>) {
        self.inner.set_detect_interval(detect_interval.0 as i64);
    }
    /// 5.3 `detectTimeout`: the probe timeout in milliseconds.
    #[getter]
    fn get_detect_timeout(&self) -> i64 {
        self.inner.detect_timeout()
    }
    #[setter]
    fn set_detect_timeout(&self, detect_timeout: JavaInt<arg::DetectTimeout>) {
        self.inner.set_detect_timeout(detect_timeout.0 as i64);
    }
    /// 5.3 `startDetectorEnable`: whether the detector runs.
    #[getter]
    fn get_start_detector_enable(&self) -> bool {
        self.inner.start_detector_enable()
    }
    #[setter]
    fn set_start_detector_enable(&self, start_detector_enable: Flag) {
        self.inner
            .set_start_detector_enable(start_detector_enable.0);
    }

    /// `updateFaultItem`: record `name`'s latency and make it unavailable for `not_available_duration`
    /// ms; `reachable` (None: True) is 5.3's flag.
    #[pyo3(signature = (name, current_latency, not_available_duration, reachable = None))]
    fn update_fault_item(
        &self,
        name: Name<'_, arg::Name>,
        current_latency: JavaLong<arg::CurrentLatency>,
        not_available_duration: JavaLong<arg::NotAvailableDuration>,
        reachable: Option<Flag>,
    ) {
        let reachable = reachable.is_none_or(|r| r.0);
        self.inner.update_fault_item(
            &name,
            current_latency.0,
            not_available_duration.0,
            reachable,
        );
    }

    /// `isAvailable(name)`: no item, or the clock has reached its start timestamp.
    fn is_available(&self, name: Name<'_, arg::Name>) -> bool {
        self.inner.is_available(&name)
    }

    /// 5.3: the item's reachable flag (`True` for an unknown broker); 4.9 has no such flag: `True`.
    fn is_reachable(&self, name: Name<'_, arg::Name>) -> bool {
        self.inner.is_reachable(&name)
    }

    /// `remove(name)`: drop the broker's fault item.
    fn remove(&self, name: Name<'_, arg::Name>) {
        self.inner.remove(&name);
    }

    /// Any object may be asked about: a non-`str` is never in the table, nor a name with a lone
    /// surrogate (`update_fault_item` refuses it).
    fn __contains__(&self, name: &Bound<'_, PyAny>) -> bool {
        name.cast::<PyString>()
            .is_ok_and(|s| s.to_str().is_ok_and(|t| self.inner.contains(t)))
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
            let address = s.extract::<Name<'_, arg::ResolverAddress>>()?;
            Ok(Some(address.to_owned()))
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
