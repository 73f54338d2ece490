//! `MQFaultStrategy`.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rocketroute_core::{MQFaultStrategy, Selected};

use crate::counter::compat_arg;
use crate::errors::{flag, illegal, java_err, java_long, name_text, opt_str, req_name, type_name};
use crate::fault::PyLatencyFaultTolerance;
use crate::message_queue::PyMessageQueue;
use crate::publish_info::PyTopicPublishInfo;

#[pyclass(frozen, name = "MQFaultStrategy", module = "rocketroute._native")]
pub struct PyMQFaultStrategy {
    inner: MQFaultStrategy,
    lft: Py<PyLatencyFaultTolerance>,
}

fn table(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<Vec<i64>>> {
    let Some(o) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if o.is_instance_of::<pyo3::types::PyString>() || o.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a sequence of ints"
        )));
    }
    let mut v = Vec::new();
    for item in o.try_iter()? {
        v.push(java_long(&item?, name)?);
    }
    Ok(Some(v))
}

#[pymethods]
impl PyMQFaultStrategy {
    #[new]
    #[pyo3(signature = (compat = None, send_latency_fault_enable = None, *, start_detector_enable = None, clock = None, resolver = None, detector = None, detect_interval = None, detect_timeout = None, latency_max = None, not_available_duration = None, latency_fault_tolerance = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        compat: Option<&Bound<'_, PyAny>>,
        send_latency_fault_enable: Option<&Bound<'_, PyAny>>,
        start_detector_enable: Option<&Bound<'_, PyAny>>,
        clock: Option<&Bound<'_, PyAny>>,
        resolver: Option<&Bound<'_, PyAny>>,
        detector: Option<&Bound<'_, PyAny>>,
        detect_interval: Option<&Bound<'_, PyAny>>,
        detect_timeout: Option<&Bound<'_, PyAny>>,
        latency_max: Option<&Bound<'_, PyAny>>,
        not_available_duration: Option<&Bound<'_, PyAny>>,
        latency_fault_tolerance: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let compat = compat_arg(compat)?;
        let lm = table(latency_max, "latency_max")?;
        let nad = table(not_available_duration, "not_available_duration")?;
        let lft: Py<PyLatencyFaultTolerance> = match latency_fault_tolerance
            .filter(|l| !l.is_none())
        {
            None => Py::new(
                py,
                PyLatencyFaultTolerance::build(
                    py,
                    compat,
                    clock,
                    resolver,
                    detector,
                    detect_interval,
                    detect_timeout,
                    None,
                )?,
            )?,
            Some(l) => {
                let l = l.cast::<PyLatencyFaultTolerance>().map_err(|_| {
                    PyTypeError::new_err("latency_fault_tolerance must be a LatencyFaultTolerance")
                })?;
                if l.get().inner.compat() != compat {
                    return Err(illegal(
                        py,
                        "latency_fault_tolerance has another compat profile",
                    ));
                }
                l.clone().unbind()
            }
        };
        let inner = MQFaultStrategy::new(
            Arc::clone(&lft.get().inner),
            lm,
            nad,
            flag(send_latency_fault_enable, false)?,
        )
        .map_err(java_err)?;
        lft.get()
            .inner
            .set_start_detector_enable(flag(start_detector_enable, false)?);
        Ok(PyMQFaultStrategy { inner, lft })
    }

    #[getter]
    fn compat(&self) -> &'static str {
        self.inner.compat().as_str()
    }

    #[getter]
    fn latency_fault_tolerance(&self, py: Python<'_>) -> Py<PyLatencyFaultTolerance> {
        self.lft.clone_ref(py)
    }

    /// `latencyMax` (`None`: Java's null array).
    #[getter]
    fn get_latency_max<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.inner
            .tables()
            .latency_max
            .as_ref()
            .map(|t| PyTuple::new(py, t))
            .transpose()
    }
    /// `setLatencyMax`: the other table keeps its length; a latency that lands past the end of
    /// `not_available_duration` raises `IndexOutOfBoundsError` when it is computed, as in Java.
    #[setter]
    fn set_latency_max(&self, v: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.inner.set_latency_max(table(v, "latency_max")?);
        Ok(())
    }

    /// `notAvailableDuration` (`None`: Java's null array).
    #[getter]
    fn get_not_available_duration<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.inner
            .tables()
            .not_available_duration
            .as_ref()
            .map(|t| PyTuple::new(py, t))
            .transpose()
    }
    /// `setNotAvailableDuration`.
    #[setter]
    fn set_not_available_duration(&self, v: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.inner
            .set_not_available_duration(table(v, "not_available_duration")?);
        Ok(())
    }

    /// The latency an isolated send counts as: 10000 ms on 5.3, 30000 ms on 4.9.
    #[getter]
    fn isolation_latency(&self) -> i64 {
        self.inner.isolation_latency()
    }

    #[getter]
    fn get_send_latency_fault_enable(&self) -> bool {
        self.inner.send_latency_fault_enable()
    }
    #[setter]
    fn set_send_latency_fault_enable(&self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set_send_latency_fault_enable(v.is_truthy()?);
        Ok(())
    }

    #[getter]
    fn get_start_detector_enable(&self) -> bool {
        self.inner.latency_fault_tolerance().start_detector_enable()
    }
    #[setter]
    fn set_start_detector_enable(&self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner
            .latency_fault_tolerance()
            .set_start_detector_enable(v.is_truthy()?);
        Ok(())
    }

    fn compute_not_available_duration(&self, current_latency: &Bound<'_, PyAny>) -> PyResult<i64> {
        self.inner
            .compute_not_available_duration(java_long(current_latency, "current_latency")?)
            .map_err(java_err)
    }

    /// Records a send's latency (or an isolation); a no-op while fault tolerance is off.
    #[pyo3(signature = (broker_name, current_latency, isolation, reachable = None))]
    fn update_fault_item(
        &self,
        broker_name: &Bound<'_, PyAny>,
        current_latency: &Bound<'_, PyAny>,
        isolation: &Bound<'_, PyAny>,
        reachable: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let name = req_name(broker_name, "broker_name")?;
        let latency = java_long(current_latency, "current_latency")?;
        let reachable = flag(reachable, true)?;
        self.inner
            .update_fault_item(name, latency, isolation.is_truthy()?, reachable)
            .map_err(java_err)
    }

    /// The queue for the next send attempt.
    #[pyo3(signature = (tp_info, last_broker_name = None, reset_index = None))]
    fn select_one_message_queue(
        &self,
        py: Python<'_>,
        tp_info: &Bound<'_, PyAny>,
        last_broker_name: Option<&Bound<'_, PyAny>>,
        reset_index: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyMessageQueue>> {
        let tp = tp_info.cast::<PyTopicPublishInfo>().map_err(|_| {
            PyTypeError::new_err(format!(
                "tp_info must be a TopicPublishInfo, not {}",
                type_name(tp_info)
            ))
        })?;
        let last = match last_broker_name {
            Some(l) => opt_str(l, "last_broker_name")?,
            None => None,
        };
        let last = match last {
            Some(s) => Some(name_text(s, "last_broker_name")?),
            None => None,
        };
        let reset = flag(reset_index, false)?;
        let tp = tp.get();
        match self.inner.select(&tp.core, last, reset).map_err(java_err)? {
            Selected::Queue(p) => Ok(tp.queue(py, p)),
            Selected::New(mq) => PyMessageQueue::wrap(py, mq),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "MQFaultStrategy(compat='{}', send_latency_fault_enable={})",
            self.inner.compat().as_str(),
            if self.inner.send_latency_fault_enable() {
                "True"
            } else {
                "False"
            }
        )
    }
}
