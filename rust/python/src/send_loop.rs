//! `_SendLoop`: the bookkeeping of one `sendDefaultImpl` loop (`rocketroute_core::send_loop`) for the native
//! strategy and publish info. `rocketroute.send` subclasses it with the Python ending (`failed`, `finish`), shared
//! with its own loop for other objects.

use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::{PyTraverseError, PyVisit};
use rocketroute_core::clock::Clock;
use rocketroute_core::send_loop::SendLoop;
use rocketroute_core::Selected;

use crate::clock::PyManualClock;
use crate::errors::Result;
use crate::message_queue::PyMessageQueue;
use crate::publish_info::PyTopicPublishInfo;
use crate::strategy::PyMQFaultStrategy;

/// The most attempts a loop is given (`rocketroute.send` hands larger counts to its Python loop).
const MAX_ATTEMPTS: u32 = 1 << 16;

struct State {
    sends: SendLoop,
    mq: Option<Py<PyMessageQueue>>,
    result: Option<Py<PyAny>>,
    last_error: Option<Py<PyAny>>,
}

/// The state of one send loop: which queue each attempt goes to and what the strategy learns from each outcome.
/// `clock` is a `ManualClock`, or `None` for a monotonic clock. Python objects are never created, dropped or
/// called while the state's lock is held.
#[pyclass(frozen, subclass, name = "_SendLoop", module = "rocketroute._native")]
pub struct PySendLoop {
    state: Mutex<State>,
    strategy: Py<PyMQFaultStrategy>,
    tp_info: Py<PyTopicPublishInfo>,
    retry_response_codes: Py<PyAny>,
    retry_result: Option<Py<PyAny>>,
    start_detector: bool,
}

impl PySendLoop {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets one of the state's objects, and drops the one it replaces once the lock is released.
    fn replace(&self, slot: fn(&mut State) -> &mut Option<Py<PyAny>>, value: Option<Py<PyAny>>) {
        let old = std::mem::replace(slot(&mut self.state()), value);
        drop(old);
    }

    fn record_attempt(&self, isolation: bool, reachable: bool) -> Result<()> {
        self.state()
            .sends
            .record(&self.strategy.get().inner, isolation, reachable)?;
        Ok(())
    }
}

#[pymethods]
impl PySendLoop {
    #[new]
    #[pyo3(signature = (tp_info, strategy, sync, total, timeout_ms, retry_response_codes, retry_result = None, clock = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        tp_info: Py<PyTopicPublishInfo>,
        strategy: Py<PyMQFaultStrategy>,
        sync: bool,
        total: u32,
        timeout_ms: i64,
        retry_response_codes: Py<PyAny>,
        retry_result: Option<Py<PyAny>>,
        clock: Option<Bound<'_, PyManualClock>>,
    ) -> PyResult<Self> {
        if total > MAX_ATTEMPTS {
            return Err(PyValueError::new_err(format!(
                "total {total}: a send loop makes at most {MAX_ATTEMPTS} attempts"
            )));
        }
        let clock = match clock {
            Some(m) => Clock::Manual(m.get().inner.clone()),
            None => Clock::Monotonic,
        };
        let start_detector = strategy
            .get()
            .inner
            .latency_fault_tolerance()
            .start_detector_enable();
        Ok(PySendLoop {
            state: Mutex::new(State {
                sends: SendLoop::new(clock, total, sync, timeout_ms),
                mq: None,
                result: None,
                last_error: None,
            }),
            strategy,
            tp_info,
            retry_response_codes,
            retry_result,
            start_detector,
        })
    }

    /// The queue of the next attempt, or `None` when the loop is over (no attempt left, no queue, or the send
    /// timeout passed).
    fn next_queue(&self, py: Python<'_>) -> Result<Option<Py<PyMessageQueue>>> {
        let tp = self.tp_info.get();
        let selected = self
            .state()
            .sends
            .next(&self.strategy.get().inner, &tp.core)?;
        let mq = match selected {
            None => return Ok(None),
            Some(Selected::Queue(p)) => tp.queue(py, p),
            Some(Selected::New(mq)) => PyMessageQueue::wrap(py, mq)?,
        };
        let old = self.state().mq.replace(mq.clone_ref(py));
        drop(old);
        Ok(Some(mq))
    }

    /// Records an attempt that returned; `True` when `result` is the answer (else the loop goes on: the
    /// `retry_result` asked for another broker, and `result` is kept as the answer if no later attempt stores).
    fn succeeded(&self, py: Python<'_>, result: Py<PyAny>) -> Result<bool> {
        self.record_attempt(false, true)?;
        self.state().sends.count_attempt();
        if let Some(retry) = &self.retry_result {
            if retry.bind(py).call1((result.bind(py),))?.is_truthy()? {
                self.replace(|s| &mut s.result, Some(result));
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Tells the strategy how the latest attempt went (`error` is not kept: this loop keeps no attempts list).
    #[pyo3(signature = (error, *, isolation, reachable))]
    fn _record(&self, error: &Bound<'_, PyAny>, isolation: bool, reachable: bool) -> Result<()> {
        let _ = error;
        self.record_attempt(isolation, reachable)
    }

    /// One more attempt made.
    fn _count(&self) {
        self.state().sends.count_attempt();
    }

    /// Milliseconds since the loop began.
    fn _elapsed_ms(&self) -> i64 {
        self.state().sends.elapsed_ms()
    }

    /// Attempts made so far.
    #[getter]
    fn times(&self) -> u32 {
        self.state().sends.times()
    }

    /// Attempts allowed.
    #[getter]
    fn total(&self) -> u32 {
        self.state().sends.total()
    }

    /// Whether the loop ended because the send timeout passed.
    #[getter]
    fn timed_out(&self) -> bool {
        self.state().sends.timed_out()
    }

    /// Whether a result not stored well enough was kept (see `succeeded`).
    #[getter]
    fn has_result(&self) -> bool {
        self.state().result.is_some()
    }

    /// That result, else `None`.
    #[getter]
    fn result(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.state().result.as_ref().map(|r| r.clone_ref(py))
    }

    /// The latest attempt's error, set by the loop's `failed`.
    #[getter]
    fn last_error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.state().last_error.as_ref().map(|r| r.clone_ref(py))
    }

    #[setter]
    fn set_last_error(&self, error: Option<Py<PyAny>>) {
        self.replace(|s| &mut s.last_error, error);
    }

    /// The queue of the latest attempt (`None` before the first).
    #[getter]
    fn mq(&self, py: Python<'_>) -> Option<Py<PyMessageQueue>> {
        self.state().mq.as_ref().map(|r| r.clone_ref(py))
    }

    /// The broker of each attempt (`None` for those not made).
    #[getter]
    fn brokers_sent<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let names: Vec<Option<String>> = self
            .state()
            .sends
            .brokers_sent()
            .iter()
            .map(|b| b.as_deref().map(str::to_owned))
            .collect();
        PyList::new(py, names)
    }

    #[getter]
    fn tp_info(&self, py: Python<'_>) -> Py<PyTopicPublishInfo> {
        self.tp_info.clone_ref(py)
    }

    #[getter]
    fn strategy(&self, py: Python<'_>) -> Py<PyMQFaultStrategy> {
        self.strategy.clone_ref(py)
    }

    /// The response codes a failed attempt is retried after.
    #[getter]
    fn retry_response_codes(&self, py: Python<'_>) -> Py<PyAny> {
        self.retry_response_codes.clone_ref(py)
    }

    /// The strategy's `start_detector_enable` when the loop began.
    #[getter]
    fn start_detector(&self) -> bool {
        self.start_detector
    }

    /// What the loop holds, for the garbage collector: the error it keeps holds a traceback whose frames hold the
    /// loop. The state's objects are skipped if its lock is taken (a thread stopped holding it): never a wait here.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.strategy)?;
        visit.call(&self.tp_info)?;
        visit.call(&self.retry_response_codes)?;
        visit.call(&self.retry_result)?;
        if let Ok(state) = self.state.try_lock() {
            visit.call(&state.mq)?;
            visit.call(&state.result)?;
            visit.call(&state.last_error)?;
        }
        Ok(())
    }

    /// Breaks a cycle through the loop: the objects of its state are let go (after the lock is released).
    fn __clear__(&self) {
        let held = self.state.try_lock().ok().map(|mut state| {
            (
                state.mq.take(),
                state.result.take(),
                state.last_error.take(),
            )
        });
        drop(held);
    }

    /// Always `None`: a loop that keeps its attempts is the Python one.
    #[getter]
    fn attempts(&self) -> Option<Py<PyAny>> {
        None
    }
}
