//! `MQFaultStrategy`.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::{PyTraverseError, PyVisit};
use rocketroute_core::{MQFaultStrategy, Selected};

use crate::convert::{arg, compat_of, lazy_arg, CompatArg, Flag, JavaLong, JavaLongs, Name};
use crate::errors::{illegal, Result};
use crate::fault::PyLatencyFaultTolerance;
use crate::message_queue::PyMessageQueue;
use crate::publish_info::PyTopicPublishInfo;

/// Java's `MQFaultStrategy`: chooses the queue of each send attempt and keeps the broker fault table up to
/// date (round-robin skipping the last failed broker; with fault tolerance on, unavailable brokers avoided).
#[pyclass(frozen, name = "MQFaultStrategy", module = "rocketroute._native")]
pub struct PyMQFaultStrategy {
    pub(crate) inner: MQFaultStrategy,
    lft: Py<PyLatencyFaultTolerance>,
}

#[pymethods]
impl PyMQFaultStrategy {
    /// The fault table, shown to the garbage collector (it holds the user's resolver and detector).
    fn __traverse__(&self, visit: PyVisit<'_>) -> std::result::Result<(), PyTraverseError> {
        visit.call(&self.lft)
    }

    // `clock` to `detect_timeout` build the fault table and go unread when one is given, as in the
    // reference: they are extracted (`lazy_arg`) only when a table is built.
    #[new]
    #[pyo3(signature = (compat = None, send_latency_fault_enable = None, *, start_detector_enable = None, clock = None, resolver = None, detector = None, detect_interval = None, detect_timeout = None, latency_max = None, not_available_duration = None, latency_fault_tolerance = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        compat: Option<CompatArg>,
        send_latency_fault_enable: Option<Flag>,
        start_detector_enable: Option<Flag>,
        clock: Option<&Bound<'_, PyAny>>,
        resolver: Option<&Bound<'_, PyAny>>,
        detector: Option<&Bound<'_, PyAny>>,
        detect_interval: Option<&Bound<'_, PyAny>>,
        detect_timeout: Option<&Bound<'_, PyAny>>,
        latency_max: Option<JavaLongs<arg::LatencyMax>>,
        not_available_duration: Option<JavaLongs<arg::NotAvailableDuration>>,
        latency_fault_tolerance: Option<Bound<'_, PyLatencyFaultTolerance>>,
    ) -> Result<Self> {
        let compat = compat_of(compat);
        let lft = match latency_fault_tolerance {
            None => Py::new(
                py,
                PyLatencyFaultTolerance::build(
                    py,
                    compat,
                    lazy_arg(clock, "clock")?,
                    lazy_arg(resolver, "resolver")?,
                    lazy_arg(detector, "detector")?,
                    lazy_arg(detect_interval, "detect_interval")?,
                    lazy_arg(detect_timeout, "detect_timeout")?,
                    None,
                )?,
            )?,
            Some(l) if l.get().inner.compat() != compat => {
                return Err(
                    illegal(py, "latency_fault_tolerance has another compat profile").into(),
                )
            }
            Some(l) => l.unbind(),
        };
        let inner = MQFaultStrategy::new(
            Arc::clone(&lft.get().inner),
            latency_max.map(|t| t.0),
            not_available_duration.map(|t| t.0),
            send_latency_fault_enable.is_some_and(|f| f.0),
        )?;
        lft.get()
            .inner
            .set_start_detector_enable(start_detector_enable.is_some_and(|f| f.0));
        Ok(PyMQFaultStrategy { inner, lft })
    }

    /// The compat profile: `"5.3"` or `"4.9"`.
    #[getter]
    fn compat(&self) -> &'static str {
        self.inner.compat().as_str()
    }

    /// The broker fault table.
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
    fn set_latency_max(&self, latency_max: Option<JavaLongs<arg::LatencyMax>>) {
        self.inner.set_latency_max(latency_max.map(|t| t.0));
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
    fn set_not_available_duration(
        &self,
        not_available_duration: Option<JavaLongs<arg::NotAvailableDuration>>,
    ) {
        self.inner
            .set_not_available_duration(not_available_duration.map(|t| t.0));
    }

    /// The latency an isolated send counts as: 10000 ms on 5.3, 30000 ms on 4.9.
    #[getter]
    fn isolation_latency(&self) -> i64 {
        self.inner.isolation_latency()
    }

    /// `sendLatencyFaultEnable`: whether the fault table steers the choice (Java default: False).
    #[getter]
    fn get_send_latency_fault_enable(&self) -> bool {
        self.inner.send_latency_fault_enable()
    }
    #[setter]
    fn set_send_latency_fault_enable(&self, send_latency_fault_enable: Flag) {
        self.inner
            .set_send_latency_fault_enable(send_latency_fault_enable.0);
    }

    /// 5.3 `startDetectorEnable`: whether the fault table's detector runs.
    #[getter]
    fn get_start_detector_enable(&self) -> bool {
        self.inner.latency_fault_tolerance().start_detector_enable()
    }
    #[setter]
    fn set_start_detector_enable(&self, start_detector_enable: Flag) {
        self.inner
            .latency_fault_tolerance()
            .set_start_detector_enable(start_detector_enable.0);
    }

    /// `notAvailableDuration[i]` for the highest `i` with `current_latency >= latencyMax[i]`, else 0.
    fn compute_not_available_duration(
        &self,
        current_latency: JavaLong<arg::CurrentLatency>,
    ) -> Result<i64> {
        Ok(self
            .inner
            .compute_not_available_duration(current_latency.0)?)
    }

    /// Records a send's latency (or an isolation); a no-op while fault tolerance is off.
    #[pyo3(signature = (broker_name, current_latency, isolation, reachable = None))]
    fn update_fault_item(
        &self,
        broker_name: Name<'_, arg::BrokerName>,
        current_latency: JavaLong<arg::CurrentLatency>,
        isolation: Flag,
        reachable: Option<Flag>,
    ) -> Result<()> {
        let reachable = reachable.is_none_or(|r| r.0);
        Ok(self
            .inner
            .update_fault_item(&broker_name, current_latency.0, isolation.0, reachable)?)
    }

    /// The queue for the next send attempt.
    #[pyo3(signature = (tp_info, last_broker_name = None, reset_index = None))]
    fn select_one_message_queue(
        &self,
        py: Python<'_>,
        tp_info: &Bound<'_, PyTopicPublishInfo>,
        last_broker_name: Option<Name<'_, arg::LastBrokerName>>,
        reset_index: Option<Flag>,
    ) -> Result<Py<PyMessageQueue>> {
        let last = last_broker_name.as_deref();
        let reset = reset_index.is_some_and(|f| f.0);
        let tp = tp_info.get();
        Ok(match self.inner.select(&tp.core, last, reset)? {
            Selected::Queue(p) => tp.queue(py, p),
            Selected::New(mq) => PyMessageQueue::wrap(py, mq)?,
        })
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
