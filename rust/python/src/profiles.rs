//! Cross-client routing profiles (`rocketroute.profiles`): each RocketMQ client's (and Kafka's) keyed
//! placement, one key at a time or a whole column without the GIL.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use rocketroute_core::profiles::{select_piece, KeyError, Masking, Placement, Profile, PROFILES};
use rocketroute_core::JavaError;

use crate::batch::{maybe_detach, Hashed};
use crate::batch_args::{masks, NumQueues, ProfileArg, ProfileKey, RaiseOrMask};
use crate::columns::{Gathered, Keys};
use crate::convert::{arg, later, Later};
use crate::errors::{illegal, java_err, npe, utf16_units, Result};

/// A key's index among `n` queues, or the key's own error (a refusal, `/ by zero`).
fn key_index(
    profile: Profile,
    key: &Bound<'_, PyString>,
    n: i32,
) -> PyResult<Result<i32, JavaError>> {
    Ok(match key.to_str() {
        Ok(t) => profile.select_index(t, n),
        Err(_) => profile.select_index_units(&utf16_units(key)?, n),
    })
}

fn select_one(profile: Profile, key: ProfileKey<'_, '_>, n: NumQueues) -> Result<i32> {
    Ok(key_index(profile, &key.0, n.0)??)
}

/// The queue index `profile`'s client picks for `key` among `num_queues` queues.
#[pyfunction]
pub fn profile_select_index<'py>(
    py: Python<'py>,
    key: Later<ProfileKey<'_, 'py>, arg::Key>,
    num_queues: Later<NumQueues, arg::NumQueues>,
    profile: ProfileArg,
) -> Result<i32> {
    // the reference checks the profile first, then the key and the queue count
    select_one(profile.0, key.get(py)?, num_queues.get(py)?)
}

fn column_error(py: Python<'_>, base: usize, e: KeyError) -> PyErr {
    match e {
        KeyError::Null(i) => npe(py, format!("key {} is null", base + i)),
        KeyError::Malformed(_) => illegal(py, "malformed Arrow string column"),
        KeyError::Key(_, e) => java_err(e),
        KeyError::NotText(_) => PyTypeError::new_err("a profile key must be a str, not int"),
    }
}

/// A sequence of Python keys: their indices and the mask of the null and refused ones.
fn select_sequence(
    py: Python<'_>,
    p: Placement,
    keys: &Bound<'_, PyAny>,
) -> Result<(Vec<i32>, Vec<bool>)> {
    let mut out = Vec::new();
    let mut mask = Vec::new();
    for (i, item) in keys.try_iter()?.enumerate() {
        let item = item?;
        if item.is_none() {
            if !p.masking.nulls {
                return Err(npe(py, format!("key {i} is null")).into());
            }
            out.push(0);
            mask.push(true);
            continue;
        }
        match key_index(p.profile, &item.extract::<ProfileKey>()?.0, p.n)? {
            Ok(v) => {
                out.push(v);
                mask.push(false);
            }
            Err(JavaError::IllegalArgument(_)) if p.masking.refused => {
                out.push(0);
                mask.push(true);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok((out, mask))
}

/// `profile_select_index` of every key, as an int32 array (a `numpy.ma.MaskedArray` when nulls or refused
/// keys are masked).
#[pyfunction]
#[pyo3(signature = (keys, num_queues, profile, *, nulls = None, refused = None))]
pub fn profile_select_indices<'py>(
    py: Python<'py>,
    keys: Keys<'py>,
    num_queues: Later<NumQueues, arg::NumQueues>,
    profile: ProfileArg,
    nulls: Option<Later<RaiseOrMask<arg::Nulls>, arg::Nulls>>,
    refused: Option<Later<RaiseOrMask<arg::Refused>, arg::Refused>>,
) -> Result<Bound<'py, PyAny>> {
    // the reference checks the profile, then num_queues, nulls and refused, and the keys last
    let n = num_queues.get(py)?.0;
    let masking = Masking {
        nulls: masks(later(py, nulls)?),
        refused: masks(later(py, refused)?),
    };
    let placement = Placement {
        profile: profile.0,
        n,
        masking,
    };
    let masked = masking.nulls || masking.refused;
    let sources = match keys.gather()? {
        Gathered::Columns(sources) => sources,
        Gathered::Sequence(seq) => {
            let (out, mask) = select_sequence(py, placement, &seq)?;
            return Ok(Hashed::from_vecs(py, out, masked.then_some(mask))?.finish(py)?);
        }
    };
    let result = Hashed::of_pieces(py, &sources, masked, |p, base, out, mask| {
        maybe_detach(py, p.len, || select_piece(placement, p, out, mask))
            .map_err(|e| column_error(py, base, e))
    })?;
    Ok(result.finish(py)?)
}

/// A `MessageQueueSelector` that picks as `profile`'s client does.
#[pyclass(frozen, name = "ProfileSelector", module = "rocketroute._native")]
pub struct PyProfileSelector {
    profile: Profile,
}

#[pymethods]
impl PyProfileSelector {
    #[new]
    fn new(profile: ProfileArg) -> Self {
        PyProfileSelector { profile: profile.0 }
    }

    /// The client profile it picks as.
    #[getter]
    fn profile(&self) -> &'static str {
        self.profile.name()
    }

    /// The queue index the profile's client picks for `key` among `num_queues` queues.
    fn select_index(&self, key: ProfileKey<'_, '_>, num_queues: NumQueues) -> Result<i32> {
        select_one(self.profile, key, num_queues)
    }

    /// `MessageQueueSelector.select(mqs, msg, arg)`: `mqs[select_index(arg, len(mqs))]`.
    #[pyo3(signature = (mqs, msg, arg))]
    fn select<'py>(
        &self,
        mqs: &Bound<'py, PyAny>,
        msg: &Bound<'py, PyAny>,
        arg: Later<ProfileKey<'_, 'py>, arg::Arg>,
    ) -> Result<Bound<'py, PyAny>> {
        let _ = msg;
        let py = mqs.py();
        if mqs.is_none() {
            return Err(npe(py, "mqs is None").into());
        }
        let n = NumQueues::of_len(py, mqs.len()?)?;
        let i = select_one(self.profile, arg.get(py)?, n)?;
        Ok(mqs.get_item(i)?)
    }

    fn __call__<'py>(
        &self,
        mqs: &Bound<'py, PyAny>,
        msg: &Bound<'py, PyAny>,
        arg: Later<ProfileKey<'_, 'py>, arg::Arg>,
    ) -> Result<Bound<'py, PyAny>> {
        self.select(mqs, msg, arg)
    }

    fn __repr__(&self) -> String {
        format!("ProfileSelector('{}')", self.profile.name())
    }
}

pub fn profiles_tuple(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(py, PROFILES.iter().map(|p| p.name()))
}
