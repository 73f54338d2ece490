//! `_DirectConnection`: the core's connection for blocking callers, with Python's lock released while a call
//! connects, writes or waits, and its errors raised as `rocketroute.protocol.errors`' classes.

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rocketroute_core::direct::{DirectConnection, DirectError};

use crate::frame::command_of;

mod classes {
    pyo3::import_exception!(rocketroute.protocol.errors, RemotingConnectError);
    pyo3::import_exception!(rocketroute.protocol.errors, RemotingSendRequestError);
    pyo3::import_exception!(rocketroute.protocol.errors, RemotingTimeoutError);
}
use classes::{RemotingConnectError, RemotingSendRequestError, RemotingTimeoutError};

/// One connection to a broker for threads that block on their requests (the sync facade of
/// `rocketroute.net.RemotingClient`): frames in, commands out, matched by opaque. A response is made into its
/// command here (`command(...)` as the loop's connections make it, or `decode(frame, max_frame_size)` for a frame
/// the native reader leaves to the Python decoder).
#[pyclass(frozen, name = "_DirectConnection", module = "rocketroute._native")]
pub struct PyDirectConnection {
    inner: DirectConnection,
    command: Py<PyAny>,
    serialize_type: Py<PyAny>,
    decode: Py<PyAny>,
    max_frame_size: usize,
}

fn raise(py: Python<'_>, addr: &str, e: DirectError, timeout_ms: u64, code: i32) -> PyErr {
    match e {
        DirectError::Connect(why) => RemotingConnectError::new_err((addr.to_owned(), why)),
        DirectError::Send(why) => RemotingSendRequestError::new_err((addr.to_owned(), why)),
        DirectError::Timeout => RemotingTimeoutError::new_err((addr.to_owned(), timeout_ms, code)),
        DirectError::DuplicateOpaque(opaque) => PyValueError::new_err(format!(
            "a request with opaque {opaque} is already in flight to {addr}"
        )),
        DirectError::Frame(why) => frame_error(py, addr, &why),
    }
}

/// `FrameError(message, addr=addr)`, as the event loop's connections raise it.
fn frame_error(py: Python<'_>, addr: &str, why: &str) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let class = py
            .import("rocketroute.protocol.errors")?
            .getattr("FrameError")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("addr", addr)?;
        let message = format!("malformed frame from <{addr}>, connection closed: {why}");
        Ok(PyErr::from_value(class.call((message,), Some(&kwargs))?))
    })();
    made.unwrap_or_else(|e| e)
}

#[pymethods]
impl PyDirectConnection {
    /// Connect to `host:port` within `connect_timeout_ms` (`addr` names it in errors); `language` goes in the
    /// answers to the peer's requests; a frame over `max_frame_size` bytes from the peer closes the connection.
    /// Responses are made into commands with `command` and `serialize_type` (`RemotingCommand`,
    /// `SerializeType.JSON`), or with `decode` (`decode_frame`).
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (addr, host, port, *, connect_timeout_ms, max_frame_size, language, command, serialize_type, decode))]
    fn new(
        py: Python<'_>,
        addr: String,
        host: String,
        port: u16,
        connect_timeout_ms: u64,
        max_frame_size: usize,
        language: String,
        command: Py<PyAny>,
        serialize_type: Py<PyAny>,
        decode: Py<PyAny>,
    ) -> PyResult<Self> {
        let timeout = Duration::from_millis(connect_timeout_ms);
        let connected = py.detach(|| {
            DirectConnection::connect(&addr, &host, port, timeout, max_frame_size, &language)
        });
        match connected {
            Ok(inner) => Ok(PyDirectConnection {
                inner,
                command,
                serialize_type,
                decode,
                max_frame_size,
            }),
            Err(e) => Err(raise(py, &addr, e, connect_timeout_ms, 0)),
        }
    }

    /// Write `frame` (request `code`, `opaque`) and return the response's command; raises `RemotingTimeoutError`
    /// after `timeout_ms`, `RemotingSendRequestError` when the connection fails or is closed, and what `decode`
    /// raises for a malformed response.
    fn invoke<'py>(
        &self,
        py: Python<'py>,
        opaque: i32,
        frame: &[u8],
        timeout_ms: u64,
        code: i32,
    ) -> PyResult<Bound<'py, PyAny>> {
        let timeout = Duration::from_millis(timeout_ms);
        let response = py
            .detach(|| self.inner.invoke(opaque, frame, timeout))
            .map_err(|e| raise(py, self.inner.addr(), e, timeout_ms, code))?;
        let (command, serialize_type) = (self.command.bind(py), self.serialize_type.bind(py));
        match command_of(py, &response, self.max_frame_size, command, serialize_type) {
            Some(made) => made,
            None => self
                .decode
                .bind(py)
                .call1((PyBytes::new(py, &response), self.max_frame_size)),
        }
    }

    /// Write a oneway request's `frame` (within `timeout_ms`); nothing is awaited.
    fn send_oneway(&self, py: Python<'_>, frame: &[u8], timeout_ms: u64) -> PyResult<()> {
        let timeout = Duration::from_millis(timeout_ms);
        py.detach(|| self.inner.send_oneway(frame, timeout))
            .map_err(|e| raise(py, self.inner.addr(), e, timeout_ms, 0))
    }

    /// Close it: the requests waiting, and every later one, fail with `RemotingSendRequestError(addr, reason)`.
    fn close(&self, reason: &str) {
        self.inner.close(reason)
    }

    /// Whether it is closed (by `close`, the peer, or a failure); a closed connection never opens again.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.closed().is_some()
    }

    /// Requests waiting for their response.
    #[getter]
    fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }

    #[getter]
    fn addr(&self) -> &str {
        self.inner.addr()
    }

    fn __repr__(&self) -> String {
        let state = if self.inner.closed().is_some() {
            "closed"
        } else {
            "open"
        };
        format!("<_DirectConnection {} {state}>", self.inner.addr())
    }
}
