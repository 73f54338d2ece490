//! Cross-client routing profiles (`rocketroute.profiles`): each RocketMQ client's (and Kafka's) keyed
//! placement, one key at a time or a whole column without the GIL.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use rocketroute_core::profiles::{
    mask_key, select_ucs4_column, select_utf8_column, KeyError, Masking, Placement, Profile,
    PROFILES,
};
use rocketroute_core::JavaError;

use crate::batch::{
    gather, maybe_detach, num_queues_arg, raise_or_mask, Column, Gathered, Hashed, Piece,
};
use crate::errors::{illegal, java_err, npe, type_name, utf16_units};

/// The profile names, as the Python tuple `PROFILES` prints.
fn names_tuple() -> String {
    let quoted: Vec<String> = PROFILES.iter().map(|p| format!("'{}'", p.name())).collect();
    format!("({})", quoted.join(", "))
}

pub fn profile_arg(v: &Bound<'_, PyAny>) -> PyResult<Profile> {
    v.cast::<PyString>()
        .ok()
        .and_then(|s| s.to_str().ok())
        .and_then(Profile::parse)
        .ok_or_else(|| {
            let repr = v.repr().map(|r| r.to_string()).unwrap_or_default();
            illegal(
                v.py(),
                format!(
                    "unknown routing profile {repr}; expected one of {}",
                    names_tuple()
                ),
            )
        })
}

/// A profile key: a `str` (`None` is Java's NullPointerException).
fn key_str<'a, 'py>(key: &'a Bound<'py, PyAny>) -> PyResult<&'a Bound<'py, PyString>> {
    if key.is_none() {
        return Err(npe(key.py(), "the key is None"));
    }
    key.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "a profile key must be a str, not {}",
            type_name(key)
        ))
    })
}

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

/// One key's index: the key, then the queue count, checked in that order.
fn select_one(
    profile: Profile,
    key: &Bound<'_, PyAny>,
    num_queues: &Bound<'_, PyAny>,
) -> PyResult<i32> {
    let key = key_str(key)?;
    let n = num_queues_arg(key.py(), num_queues)?;
    key_index(profile, key, n)?.map_err(java_err)
}

/// The queue index `profile`'s client picks for `key` among `num_queues` queues.
#[pyfunction]
pub fn profile_select_index(
    key: &Bound<'_, PyAny>,
    num_queues: &Bound<'_, PyAny>,
    profile: &Bound<'_, PyAny>,
) -> PyResult<i32> {
    select_one(profile_arg(profile)?, key, num_queues)
}

fn column_error(py: Python<'_>, base: usize, e: KeyError) -> PyErr {
    match e {
        KeyError::Null(i) => npe(py, format!("key {} is null", base + i)),
        KeyError::Malformed(_) => illegal(py, "malformed Arrow string column"),
        KeyError::Key(_, e) => java_err(e),
    }
}

/// One column of keys into `out` / `mask`.
fn select_piece(
    py: Python<'_>,
    p: Placement,
    piece: &Piece<'_>,
    base: usize,
    out: &mut [i32],
    mut mask: Option<&mut [bool]>,
) -> PyResult<()> {
    match &piece.column {
        Column::Utf8 {
            offsets,
            data,
            validity,
        } => {
            let (offsets, data, validity) = (*offsets, *data, *validity);
            maybe_detach(py, piece.len, || {
                select_utf8_column(p, offsets, data, validity, out, mask)
            })
            .map_err(|e| column_error(py, base, e))
        }
        Column::Ucs4(data, width) => {
            let (data, width) = (*data, *width);
            maybe_detach(py, piece.len, || {
                select_ucs4_column(p, data, width, out, mask)
            })
            .map_err(|e| column_error(py, base, e))
        }
        // an int column: the first key decides, a null first as in a sequence of Python values
        Column::I32(_, validity) | Column::I64(_, validity) => {
            for i in 0..piece.len {
                if validity.is_some_and(|v| !v.is_valid(i)) {
                    if !p.masking.nulls {
                        return Err(npe(py, format!("key {} is null", base + i)));
                    }
                    mask_key(i, out, &mut mask);
                    continue;
                }
                return Err(PyTypeError::new_err("a profile key must be a str, not int"));
            }
            Ok(())
        }
    }
}

/// `profile_select_index` of every key, as an int32 array (a `numpy.ma.MaskedArray` when nulls or refused
/// keys are masked).
#[pyfunction]
#[pyo3(signature = (keys, num_queues, profile, *, nulls = None, refused = None))]
pub fn profile_select_indices<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    num_queues: &Bound<'py, PyAny>,
    profile: &Bound<'py, PyAny>,
    nulls: Option<&Bound<'py, PyAny>>,
    refused: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let profile = profile_arg(profile)?;
    let n = num_queues_arg(py, num_queues)?;
    let masking = Masking {
        nulls: raise_or_mask(py, "nulls", nulls)?,
        refused: raise_or_mask(py, "refused", refused)?,
    };
    let masked = masking.nulls || masking.refused;
    let mut keep: Vec<Py<PyAny>> = Vec::new();
    let pieces = match gather(py, keys, &mut keep)? {
        Gathered::Pieces(p) => p,
        Gathered::Sequence(seq) => {
            let mut out = Vec::new();
            let mut mask = Vec::new();
            for (i, item) in seq.try_iter()?.enumerate() {
                let item = item?;
                if item.is_none() {
                    if !masking.nulls {
                        return Err(npe(py, format!("key {i} is null")));
                    }
                    out.push(0);
                    mask.push(true);
                    continue;
                }
                match key_index(profile, key_str(&item)?, n)? {
                    Ok(v) => {
                        out.push(v);
                        mask.push(false);
                    }
                    Err(JavaError::IllegalArgument(_)) if masking.refused => {
                        out.push(0);
                        mask.push(true);
                    }
                    Err(e) => return Err(java_err(e)),
                }
            }
            return Hashed::filled(py, &out, masked.then_some(&mask[..]))?.finish(py);
        }
    };
    let total: usize = pieces.iter().map(|p| p.len).sum();
    let mut result = Hashed::new(py, total, masked)?;
    let mut base = 0;
    for p in &pieces {
        let m = result
            .mask
            .as_mut()
            .map(|(_, m)| &mut m[base..base + p.len]);
        let placement = Placement {
            profile,
            n,
            masking,
        };
        select_piece(
            py,
            placement,
            p,
            base,
            &mut result.out[base..base + p.len],
            m,
        )?;
        base += p.len;
    }
    drop(keep);
    result.finish(py)
}

/// A `MessageQueueSelector` that picks as `profile`'s client does.
#[pyclass(frozen, name = "ProfileSelector", module = "rocketroute._native")]
pub struct PyProfileSelector {
    profile: Profile,
}

#[pymethods]
impl PyProfileSelector {
    #[new]
    fn new(profile: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyProfileSelector {
            profile: profile_arg(profile)?,
        })
    }

    #[getter]
    fn profile(&self) -> &'static str {
        self.profile.name()
    }

    fn select_index(&self, key: &Bound<'_, PyAny>, num_queues: &Bound<'_, PyAny>) -> PyResult<i32> {
        select_one(self.profile, key, num_queues)
    }

    #[pyo3(signature = (mqs, msg, arg))]
    fn select<'py>(
        &self,
        mqs: &Bound<'py, PyAny>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = msg;
        if mqs.is_none() {
            return Err(npe(mqs.py(), "mqs is None"));
        }
        let n = mqs.len()?.into_pyobject(mqs.py())?;
        let i = self.select_index(arg, n.as_any())?;
        mqs.get_item(i)
    }

    fn __call__<'py>(
        &self,
        mqs: &Bound<'py, PyAny>,
        msg: &Bound<'py, PyAny>,
        arg: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.select(mqs, msg, arg)
    }

    fn __repr__(&self) -> String {
        format!("ProfileSelector('{}')", self.profile.name())
    }
}

pub fn profiles_tuple(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(py, PROFILES.iter().map(|p| p.name()))
}
