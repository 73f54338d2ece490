//! `_EagerFuture`: an asyncio future of one request's response, for `rocketroute.net.connection`, whose `wake`
//! resumes the task awaiting it within the call, instead of through a callback queued on the loop.
//!
//! A response read from a connection completes its request's future; with `asyncio.Future` that queues the
//! awaiting task's wake-up with `loop.call_soon` (a `Handle`, `call_soon` and `_call_soon` in Python), and the
//! loop runs it on its next pass: eleven of the 89 Python calls of an async send. The connection calls `wake` only
//! where no task is running (in the transport's read callback), so the woken task runs as it would from the loop:
//! in its own context, as the loop's current task. Everything else (`set_result`, `set_exception`, `cancel`, a
//! callback added to a done future) queues the callbacks on the loop as `asyncio.Future` does.
//!
//! Tasks and `asyncio.ensure_future` take it as a future: `_asyncio_future_blocking`, `get_loop`,
//! `add_done_callback(fn, *, context=None)`, `result()`, `exception()`, `cancel(msg=None)`, and `__await__`.
//! Python objects are never created, dropped or called while the state's lock is held.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::{PyKeyboardInterrupt, PyStopIteration, PySystemExit, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use pyo3::{PyTraverseError, PyVisit};

mod classes {
    pyo3::import_exception!(asyncio, InvalidStateError);
    pyo3::import_exception!(asyncio, CancelledError);
}
use classes::{CancelledError, InvalidStateError};

static COPY_CONTEXT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

enum Outcome {
    Pending,
    Result(Py<PyAny>),
    /// The exception and its traceback when it was set (raised again with it, as asyncio does, rather than with
    /// the frames each raise adds).
    Error(Py<PyAny>, Py<PyAny>),
    /// The cancel message, if one was given.
    Cancelled(Option<Py<PyAny>>),
}

/// A callback and the context it runs in.
type Callback = (Py<PyAny>, Py<PyAny>);

struct State {
    outcome: Outcome,
    callbacks: Vec<Callback>,
}

/// An asyncio future of one response. `loop` is the running loop it belongs to.
#[pyclass(frozen, name = "_EagerFuture", module = "rocketroute._native")]
pub struct PyEagerFuture {
    event_loop: Py<PyAny>,
    blocking: AtomicBool,
    state: Mutex<State>,
}

impl PyEagerFuture {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the outcome when it is pending and takes the callbacks; when it was done already, gives the outcome
    /// back (`Err`) unset.
    fn settle(&self, outcome: Outcome) -> std::result::Result<Vec<Callback>, Outcome> {
        let mut state = self.state();
        if !matches!(state.outcome, Outcome::Pending) {
            return Err(outcome); // dropped by the caller, after the lock is released
        }
        state.outcome = outcome;
        Ok(std::mem::take(&mut state.callbacks))
    }

    /// `loop.call_soon(fn, self, context=context)` for each callback, as `asyncio.Future` schedules them.
    fn schedule(slf: &Bound<'_, Self>, callbacks: Vec<Callback>) -> PyResult<()> {
        let py = slf.py();
        let event_loop = slf.get().event_loop.bind(py);
        for (callback, context) in callbacks {
            let kwargs = PyDict::new(py);
            kwargs.set_item(intern!(py, "context"), context)?;
            event_loop.call_method(intern!(py, "call_soon"), (callback, slf), Some(&kwargs))?;
        }
        Ok(())
    }

    fn settle_and_schedule(slf: &Bound<'_, Self>, outcome: Outcome) -> PyResult<()> {
        match slf.get().settle(outcome) {
            Ok(callbacks) => Self::schedule(slf, callbacks),
            Err(_) => Err(InvalidStateError::new_err("invalid state")),
        }
    }

    /// A callback's exception to the loop's exception handler, as the loop reports one that a callback it runs
    /// raised.
    fn report(slf: &Bound<'_, Self>, callback: &Py<PyAny>, e: &PyErr) -> PyResult<()> {
        let py = slf.py();
        let report = PyDict::new(py);
        let message = format!("Exception in callback {}", callback.bind(py).repr()?);
        report.set_item(intern!(py, "message"), message)?;
        report.set_item(intern!(py, "exception"), e.value(py))?;
        report.set_item(intern!(py, "future"), slf)?;
        slf.get()
            .event_loop
            .bind(py)
            .call_method1(intern!(py, "call_exception_handler"), (report,))?;
        Ok(())
    }

    /// What `result()` gives: the result, or the error it raises (`InvalidStateError` while pending is the
    /// caller's: `__next__` yields then). The stored objects are taken under the lock, and the error made after it
    /// is released (`with_traceback` runs Python).
    fn outcome(&self, py: Python<'_>) -> Option<PyResult<Py<PyAny>>> {
        let stored = match &self.state().outcome {
            Outcome::Pending => return None,
            Outcome::Result(r) => return Some(Ok(r.clone_ref(py))),
            Outcome::Error(e, tb) => (e.clone_ref(py), tb.clone_ref(py)),
            Outcome::Cancelled(msg) => return Some(Err(Self::cancelled_error(py, msg))),
        };
        Some(Err(Self::stored_error(py, stored)))
    }

    /// The exception set, raised with the traceback it had when it was set.
    fn stored_error(py: Python<'_>, (exception, traceback): (Py<PyAny>, Py<PyAny>)) -> PyErr {
        match exception
            .bind(py)
            .call_method1(intern!(py, "with_traceback"), (traceback,))
        {
            Ok(e) => PyErr::from_value(e),
            Err(e) => e,
        }
    }

    /// The error `result()` raises for a cancelled future: `CancelledError(msg)`, or with no argument.
    fn cancelled_error(py: Python<'_>, msg: &Option<Py<PyAny>>) -> PyErr {
        match msg {
            Some(m) => CancelledError::new_err((m.clone_ref(py),)),
            None => CancelledError::new_err(()),
        }
    }
}

#[pymethods]
impl PyEagerFuture {
    #[new]
    fn new(event_loop: Py<PyAny>) -> Self {
        PyEagerFuture {
            event_loop,
            blocking: AtomicBool::new(false),
            state: Mutex::new(State {
                outcome: Outcome::Pending,
                callbacks: Vec::new(),
            }),
        }
    }

    /// Set by `__await__` before it yields the future to the task (asyncio's protocol), cleared by the task.
    #[getter(_asyncio_future_blocking)]
    fn blocking(&self) -> bool {
        self.blocking.load(Ordering::Relaxed)
    }

    #[setter(_asyncio_future_blocking)]
    fn set_blocking(&self, value: bool) {
        self.blocking.store(value, Ordering::Relaxed);
    }

    /// The loop the future belongs to.
    fn get_loop(&self, py: Python<'_>) -> Py<PyAny> {
        self.event_loop.clone_ref(py)
    }

    fn done(&self) -> bool {
        !matches!(self.state().outcome, Outcome::Pending)
    }

    fn cancelled(&self) -> bool {
        matches!(self.state().outcome, Outcome::Cancelled(_))
    }

    /// The result; raises the exception set, `CancelledError` when cancelled, `InvalidStateError` when pending.
    fn result(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.outcome(py)
            .unwrap_or_else(|| Err(InvalidStateError::new_err("Result is not set.")))
    }

    /// `CancelledError(msg)` (or with no argument), for asyncio's `gather`, which asks a cancelled child for it.
    fn _make_cancelled_error(&self, py: Python<'_>) -> Py<PyAny> {
        let error = match &self.state().outcome {
            Outcome::Cancelled(msg) => Self::cancelled_error(py, msg),
            _ => Self::cancelled_error(py, &None),
        }; // a lazy error: its object is made here, after the lock is released
        error.value(py).clone().into_any().unbind()
    }

    /// The exception set (`None` for a result); raises `CancelledError` when cancelled, `InvalidStateError`
    /// when pending.
    fn exception(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        match &self.state().outcome {
            Outcome::Result(_) => Ok(None),
            Outcome::Error(e, _) => Ok(Some(e.clone_ref(py))),
            Outcome::Cancelled(msg) => Err(Self::cancelled_error(py, msg)),
            Outcome::Pending => Err(InvalidStateError::new_err("Exception is not set.")),
        }
    }

    /// `callback(future)` once the future is done, in `context` (a copy of the current one by default); queued
    /// on the loop at once when it is done already.
    #[pyo3(signature = (callback, *, context = None))]
    fn add_done_callback(
        slf: &Bound<'_, Self>,
        callback: Py<PyAny>,
        context: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let py = slf.py();
        let context = match context {
            Some(c) if !c.is_none(py) => c,
            _ => COPY_CONTEXT
                .get_or_try_init(py, || {
                    Ok::<_, PyErr>(py.import("contextvars")?.getattr("copy_context")?.unbind())
                })?
                .call0(py)?,
        };
        let entry = (callback, context);
        let rejected = {
            let mut state = slf.get().state();
            if matches!(state.outcome, Outcome::Pending) {
                state.callbacks.push(entry);
                None
            } else {
                Some(entry)
            }
        };
        match rejected {
            Some(entry) => Self::schedule(slf, vec![entry]),
            None => Ok(()),
        }
    }

    /// Removes every registration of `callback` (compared with `==`); how many there were.
    fn remove_done_callback(slf: &Bound<'_, Self>, callback: &Bound<'_, PyAny>) -> PyResult<usize> {
        let py = slf.py();
        let this = slf.get();
        let taken = std::mem::take(&mut this.state().callbacks);
        let mut kept = Vec::with_capacity(taken.len());
        let mut removed = Vec::new();
        let mut failed = None;
        for entry in taken {
            if failed.is_none() {
                match entry.0.bind(py).eq(callback) {
                    Ok(true) => {
                        removed.push(entry);
                        continue;
                    }
                    Ok(false) => {}
                    Err(e) => failed = Some(e),
                }
            }
            kept.push(entry);
        }
        let count = removed.len();
        let settled_meanwhile = {
            let mut state = this.state();
            if matches!(state.outcome, Outcome::Pending) {
                // callbacks added meanwhile (by an `__eq__`) stay after the kept ones
                kept.append(&mut state.callbacks);
                state.callbacks = kept;
                Vec::new()
            } else {
                kept // settled by an `__eq__` while they were out: queued now, as settling would have
            }
        };
        drop(removed);
        if !settled_meanwhile.is_empty() {
            Self::schedule(slf, settled_meanwhile)?;
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(count),
        }
    }

    /// Completes the future with `result`; its callbacks are queued on the loop. `InvalidStateError` when done.
    fn set_result(slf: &Bound<'_, Self>, result: Py<PyAny>) -> PyResult<()> {
        Self::settle_and_schedule(slf, Outcome::Result(result))
    }

    /// Completes the future with `exception` (an instance, or a class called without arguments); its callbacks
    /// are queued on the loop. `InvalidStateError` when done; `TypeError` for `StopIteration`, as asyncio.
    fn set_exception(slf: &Bound<'_, Self>, exception: Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let exception = if exception.is_instance_of::<PyType>() {
            exception.call0()?
        } else {
            exception
        };
        if exception.is_instance_of::<PyStopIteration>() {
            return Err(PyTypeError::new_err(
                "StopIteration interacts badly with generators and cannot be raised into a Future",
            ));
        }
        if !exception.is_instance(&py.get_type::<pyo3::exceptions::PyBaseException>())? {
            return Err(PyTypeError::new_err(format!(
                "exception must be a BaseException, not {}",
                exception.get_type().name()?
            )));
        }
        let traceback = exception.getattr(intern!(py, "__traceback__"))?.unbind();
        Self::settle_and_schedule(slf, Outcome::Error(exception.unbind(), traceback))
    }

    /// Cancels a pending future (its callbacks are queued on the loop) and says `True`; `False` when done.
    #[pyo3(signature = (msg = None))]
    fn cancel(slf: &Bound<'_, Self>, msg: Option<Py<PyAny>>) -> PyResult<bool> {
        match slf.get().settle(Outcome::Cancelled(msg)) {
            Ok(callbacks) => Self::schedule(slf, callbacks).map(|()| true),
            Err(_) => Ok(false),
        }
    }

    /// Completes a pending future with `result` and runs its callbacks now, each in its context (a task's
    /// wake-up resumes the task within this call); nothing when it is done already. Only where no task is
    /// running: a callback that raises is reported to the loop's exception handler, as the loop reports one it
    /// runs; `KeyboardInterrupt` or `SystemExit` is raised once the remaining callbacks are queued on the loop.
    fn wake(slf: &Bound<'_, Self>, result: Py<PyAny>) -> PyResult<()> {
        let Ok(callbacks) = slf.get().settle(Outcome::Result(result)) else {
            return Ok(());
        };
        let py = slf.py();
        let mut rest = callbacks.into_iter();
        while let Some((callback, context)) = rest.next() {
            let Err(e) = context
                .bind(py)
                .call_method1(intern!(py, "run"), (&callback, slf))
            else {
                continue;
            };
            if e.is_instance_of::<PyKeyboardInterrupt>(py) || e.is_instance_of::<PySystemExit>(py) {
                if let Err(lost) = Self::schedule(slf, rest.collect()) {
                    lost.write_unraisable(py, Some(slf.as_any())); // the interrupt is what goes up
                }
                return Err(e);
            }
            if let Err(lost) = Self::report(slf, &callback, &e) {
                lost.write_unraisable(py, Some(slf.as_any())); // the other callbacks still run
            }
        }
        Ok(())
    }

    fn __await__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// `await`'s steps: the future itself while it is pending (to the task, which waits for it), then its result.
    fn __next__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        match this.outcome(slf.py()) {
            None => {
                this.blocking.store(true, Ordering::Relaxed);
                Ok(slf.clone().into_any().unbind())
            }
            Some(Ok(r)) => Err(PyStopIteration::new_err((r,))),
            Some(Err(error)) => Err(error),
        }
    }

    fn __repr__(&self) -> String {
        let state = match self.state().outcome {
            Outcome::Pending => "pending",
            Outcome::Result(_) => "finished",
            Outcome::Error(..) => "finished with an exception",
            Outcome::Cancelled(_) => "cancelled",
        };
        format!("<_EagerFuture {state}>")
    }

    /// What the future holds, for the garbage collector (a task's wake-up holds the task, which holds the
    /// future). The state is skipped if its lock is taken: never a wait here.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.event_loop)?;
        if let Ok(state) = self.state.try_lock() {
            match &state.outcome {
                Outcome::Result(o) | Outcome::Cancelled(Some(o)) => visit.call(o)?,
                Outcome::Error(e, tb) => {
                    visit.call(e)?;
                    visit.call(tb)?
                }
                Outcome::Cancelled(None) | Outcome::Pending => {}
            }
            for (callback, context) in &state.callbacks {
                visit.call(callback)?;
                visit.call(context)?;
            }
        }
        Ok(())
    }

    /// Breaks a cycle through the future: its callbacks and outcome are let go (after the lock is released).
    fn __clear__(&self) {
        let held = self.state.try_lock().ok().map(|mut state| {
            let callbacks = std::mem::take(&mut state.callbacks);
            let outcome = std::mem::replace(&mut state.outcome, Outcome::Cancelled(None));
            (callbacks, outcome)
        });
        drop(held);
    }
}
