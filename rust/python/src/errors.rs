//! Java exceptions -> the Python classes of `rocketroute.errors`, and argument checks that raise
//! exactly what the reference backend raises.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use rocketroute_core::ring::RingError;
use rocketroute_core::JavaError;

/// The exception classes of `rocketroute.errors`, imported once (on first use) and cached by PyO3.
mod classes {
    pyo3::import_exception!(rocketroute.errors, IllegalArgumentError);
    pyo3::import_exception!(rocketroute.errors, NumberFormatError);
    pyo3::import_exception!(rocketroute.errors, JavaArithmeticError);
    pyo3::import_exception!(rocketroute.errors, NullPointerError);
    pyo3::import_exception!(rocketroute.errors, IndexOutOfBoundsError);
}
use classes::{
    IllegalArgumentError, IndexOutOfBoundsError, JavaArithmeticError, NullPointerError,
    NumberFormatError,
};

/// What a binding call fails with: a Java exception from the core or a Python one. `?` converts
/// either (and PyO3's cast errors), and PyO3 raises it as the Python exception it stands for.
#[derive(Debug)]
pub enum Error {
    Java(JavaError),
    Py(PyErr),
}

/// The result of a binding call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<JavaError> for Error {
    fn from(e: JavaError) -> Self {
        Error::Java(e)
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error::Py(e)
    }
}

impl From<pyo3::CastError<'_, '_>> for Error {
    fn from(e: pyo3::CastError<'_, '_>) -> Self {
        Error::Py(e.into())
    }
}

impl From<pyo3::CastIntoError<'_>> for Error {
    fn from(e: pyo3::CastIntoError<'_>) -> Self {
        Error::Py(e.into())
    }
}

/// A ring failure: the Java exception, or what a custom hash function raised.
impl<E: Into<Error>> From<RingError<E>> for Error {
    fn from(e: RingError<E>) -> Self {
        match e {
            RingError::Java(j) => Error::Java(j),
            RingError::Hash(h) => h.into(),
        }
    }
}

impl From<Error> for PyErr {
    fn from(e: Error) -> Self {
        match e {
            Error::Java(j) => java_err(j),
            Error::Py(p) => p,
        }
    }
}

/// The Python exception standing for a Java one.
pub fn java_err(e: JavaError) -> PyErr {
    let message = e.message().to_owned();
    match e {
        JavaError::IllegalArgument(_) => IllegalArgumentError::new_err(message),
        JavaError::NumberFormat(_) => NumberFormatError::new_err(message),
        JavaError::Arithmetic(_) => JavaArithmeticError::new_err(message),
        JavaError::NullPointer(_) => NullPointerError::new_err(message),
        JavaError::IndexOutOfBounds(_) => IndexOutOfBoundsError::new_err(message),
    }
}

/// Java's `ArithmeticException("/ by zero")`.
pub fn div_by_zero() -> PyErr {
    JavaArithmeticError::new_err("/ by zero")
}

pub fn illegal(_py: Python<'_>, message: impl Into<String>) -> PyErr {
    IllegalArgumentError::new_err(message.into())
}

pub fn npe(_py: Python<'_>, message: impl Into<String>) -> PyErr {
    NullPointerError::new_err(message.into())
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_owned())
}

/// A required `str` (`None` is a NullPointerError, as Java would dereference it).
pub fn req_str<'a, 'py>(
    obj: &'a Bound<'py, PyAny>,
    name: &str,
) -> PyResult<&'a Bound<'py, PyString>> {
    if obj.is_none() {
        return Err(npe(obj.py(), format!("{name} is None")));
    }
    obj.cast::<PyString>()
        .map_err(|_| PyTypeError::new_err(format!("{name} must be a str, not {}", type_name(obj))))
}

pub fn lone_surrogate(name: &str) -> String {
    format!("{name} contains a lone surrogate, which UTF-8 cannot carry")
}

/// The UTF-16 code units of a Python str (lone surrogates pass through, as in Java).
pub fn utf16_units(s: &Bound<'_, PyString>) -> PyResult<Vec<u16>> {
    if let Ok(t) = s.to_str() {
        return Ok(t.encode_utf16().collect());
    }
    let bytes = s
        .call_method1("encode", ("utf-16-le", "surrogatepass"))?
        .extract::<Vec<u8>>()?;
    Ok(bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect())
}

/// The text Java encodes for a Python str (`getBytes(UTF_8)`): itself when it is valid Unicode, else
/// with surrogate pairs joined and each unpaired surrogate as `?`.
pub fn java_utf8_text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<std::borrow::Cow<'a, str>> {
    match s.to_str() {
        Ok(t) => Ok(std::borrow::Cow::Borrowed(t)),
        Err(_) => Ok(std::borrow::Cow::Owned(
            rocketroute_core::java::utf16_to_java_utf8(&utf16_units(s)?),
        )),
    }
}

/// Panics with `message` (with the GIL released when `detached`): the diagnostics hook that proves a
/// panic inside the extension reaches Python as an exception (`pyo3_runtime.PanicException`, a
/// `BaseException`, so a bug is not swallowed by `except Exception`) instead of aborting the process.
#[pyfunction]
#[pyo3(signature = (message, *, detached = false))]
pub fn _panic_for_tests(py: Python<'_>, message: String, detached: bool) {
    if detached {
        py.detach(move || panic!("{message}"))
    } else {
        panic!("{message}")
    }
}

/// `(broker names interned now, ids ever handed out)`: the diagnostics hook that shows the interned
/// broker names are bounded by the names alive at once.
#[pyfunction]
pub fn _broker_name_table() -> (usize, usize) {
    rocketroute_core::intern::stats()
}
