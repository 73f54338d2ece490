//! Typed arguments of the batch and profile entry points (`rocketroute.batch`, `rocketroute.profiles`):
//! queue counts, the key type, the `"raise"` / `"mask"` options, the routing profile and a profile key. The
//! key column itself is [`crate::columns::Keys`]; an argument checked out of signature order is a
//! [`crate::convert::Later`].

use std::marker::PhantomData;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};
use pyo3::Borrowed;
use rocketroute_core::profiles::{Profile, PROFILES};
use rocketroute_core::select::KeyType;

use crate::convert::ArgName;
use crate::errors::{div_by_zero, illegal, npe, type_name};

/// A Python `int` that is not a `bool`; else `TypeError`.
fn int_arg<'a, 'py>(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Borrowed<'a, 'py, PyAny>> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "must be an int, not {}",
            type_name(&obj)
        )));
    }
    Ok(obj)
}

/// A batch call's queue count: an `int` in `0..=2147483647` (0 is `/ by zero` once a key needs it).
#[derive(Clone, Copy)]
pub struct NumQueues(pub i32);

impl NumQueues {
    /// The count of a sequence of queues.
    pub fn of_len(py: Python<'_>, n: usize) -> PyResult<Self> {
        i32::try_from(n)
            .map(NumQueues)
            .map_err(|_| illegal(py, format!("num_queues must be in 0..2147483647, not {n}")))
    }
}

impl FromPyObject<'_, '_> for NumQueues {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let obj = int_arg(obj)?;
        match obj.extract::<i64>().ok().map(i32::try_from) {
            Some(Ok(n)) if n >= 0 => Ok(NumQueues(n)),
            _ => Err(illegal(
                obj.py(),
                format!(
                    "num_queues must be in 0..2147483647, not {}",
                    obj.to_owned()
                ),
            )),
        }
    }
}

/// A `key_type=`: `"string"`, `"int"` or `"long"`; anything else, a non-`str` included, is
/// `IllegalArgumentError`, as the reference checks it. With `OR_NONE` the message lists `None` too (the hash
/// selector's default: a key hashed by its own type).
pub struct KeyTypeArg<const OR_NONE: bool>(pub KeyType);

impl<const OR_NONE: bool> FromPyObject<'_, '_> for KeyTypeArg<OR_NONE> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        match text_of(obj).and_then(KeyType::parse) {
            Some(k) => Ok(KeyTypeArg(k)),
            None => Err(illegal(
                obj.py(),
                format!(
                    "key_type must be one of {}{}, not {}",
                    KeyType::NAMES,
                    if OR_NONE { " or None" } else { "" },
                    obj.repr()?
                ),
            )),
        }
    }
}

/// An option's text: `None` for anything but a valid `str` (which matches no option).
fn text_of<'a>(obj: Borrowed<'a, '_, PyAny>) -> Option<&'a str> {
    <&'a str as FromPyObject<'a, '_>>::extract(obj).ok()
}

/// A `"raise"` / `"mask"` option (`nulls`, `refused`): `true` for `"mask"`. Left out or `None`, it is
/// `"raise"` ([`masks`]).
pub struct RaiseOrMask<N>(pub bool, PhantomData<N>);

impl<N: ArgName> FromPyObject<'_, '_> for RaiseOrMask<N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        match text_of(obj) {
            Some("raise") => Ok(RaiseOrMask(false, PhantomData)),
            Some("mask") => Ok(RaiseOrMask(true, PhantomData)),
            _ => Err(illegal(
                obj.py(),
                format!(
                    "{} must be one of ('raise', 'mask'), not {}",
                    N::NAME,
                    obj.repr()?
                ),
            )),
        }
    }
}

/// Whether an optional `"raise"` / `"mask"` option masks.
pub fn masks<N>(option: Option<RaiseOrMask<N>>) -> bool {
    option.is_some_and(|o| o.0)
}

/// `round_robin_indices`'s `count`: an `int` in `0..=i64::MAX` (whether a result that long can be made is
/// asked when it is made).
pub struct Count(pub u64);

impl FromPyObject<'_, '_> for Count {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let obj = int_arg(obj)?;
        let py = obj.py();
        match obj.extract::<i64>() {
            Ok(v) if v >= 0 => Ok(Count(v as u64)),
            Ok(v) => Err(illegal(py, format!("count must not be negative, not {v}"))),
            Err(_) if obj.lt(0)? => Err(illegal(
                py,
                format!("count must not be negative, not {}", obj.to_owned()),
            )),
            Err(_) => Err(illegal(
                py,
                format!("a result of {} items is too large", obj.to_owned()),
            )),
        }
    }
}

/// `round_robin_indices`'s `num_queues`: a positive `int` (0 is Java's `/ by zero`); past the `int` range
/// it acts as `2147483647` queues, as every position is below that.
pub struct Modulus(pub i32);

impl FromPyObject<'_, '_> for Modulus {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let obj = int_arg(obj)?;
        // past the i64 range only the sign matters
        let v: i64 = match obj.extract() {
            Ok(v) => v,
            Err(_) if obj.lt(0)? => i64::MIN,
            Err(_) => i64::MAX,
        };
        if v == 0 {
            return Err(div_by_zero());
        }
        if v < 0 {
            return Err(illegal(
                obj.py(),
                format!("num_queues must not be negative, not {}", obj.to_owned()),
            ));
        }
        Ok(Modulus(v.min(i32::MAX as i64) as i32))
    }
}

/// A routing profile, one of `PROFILES`.
pub struct ProfileArg(pub Profile);

impl FromPyObject<'_, '_> for ProfileArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        text_of(obj)
            .and_then(Profile::parse)
            .map(ProfileArg)
            .ok_or_else(|| {
                let repr = obj.repr().map(|r| r.to_string()).unwrap_or_default();
                let names: Vec<String> =
                    PROFILES.iter().map(|p| format!("'{}'", p.name())).collect();
                illegal(
                    obj.py(),
                    format!(
                        "unknown routing profile {repr}; expected one of ({})",
                        names.join(", ")
                    ),
                )
            })
    }
}

/// A key to place by profile: a `str` (`None` is Java's `NullPointerException`).
pub struct ProfileKey<'a, 'py>(pub Borrowed<'a, 'py, PyString>);

impl<'a, 'py> FromPyObject<'a, 'py> for ProfileKey<'a, 'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Err(npe(obj.py(), "the key is None"));
        }
        obj.cast::<PyString>().map(ProfileKey).map_err(|_| {
            PyTypeError::new_err(format!(
                "a profile key must be a str, not {}",
                type_name(&obj)
            ))
        })
    }
}
