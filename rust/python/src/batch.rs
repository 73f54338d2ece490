//! Batch entry points (`rocketroute.batch`): whole columns of keys in one call. The keys are read in
//! place ([`crate::columns`]), the work runs with the GIL released, and results are written straight into
//! a new NumPy array.

use numpy::prelude::*;
use numpy::{dtype, Element, PyArray1, PyReadwriteArray1};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{IntoPyDict, PyBool, PyInt, PyList, PyString};
use rocketroute_core::batch::{
    self, for_each_piece, select_indices_in_place, utf8_hash, BatchError, Piece,
};
use rocketroute_core::java::{long_hash, utf16_hash};
use rocketroute_core::select::KeyType;

use crate::batch_args::{masks, KeyTypeArg, NumQueues, RaiseOrMask};
use crate::columns::{numpy_fn, Gathered, Keys, Source};
use crate::convert::{arg, later, JavaInt, JavaLong, Later};
use crate::errors::{div_by_zero, illegal, npe, type_name, utf16_units, Result};

/// `nulls` given as any object (`ConsistentHashRouter.route_nodes`): `true` for `"mask"`.
pub fn mask_arg(_py: Python<'_>, nulls: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
    let nulls = nulls.filter(|n| !n.is_none());
    Ok(masks(
        nulls
            .map(|n| n.extract::<RaiseOrMask<arg::Nulls>>())
            .transpose()?,
    ))
}

/// Keys as the Python objects they hold (a list; `None` for nulls): what a Python callback sees.
pub fn key_objects<'py>(
    _py: Python<'py>,
    keys: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    Keys::new(keys).objects()
}

/// Keys as UTF-8 strings for routing: `None` for nulls (an error unless masked).
pub fn key_strings(
    _py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    masked: bool,
) -> PyResult<Vec<Option<String>>> {
    Keys::new(keys).strings(masked)
}

fn null_err(py: Python<'_>, i: usize) -> PyErr {
    npe(py, format!("key {i} is null"))
}

/// Below this many keys the work is cheaper than releasing and re-taking the GIL.
const DETACH_AT: usize = 2048;

/// Runs `f` without the GIL when the batch is large enough for that to pay.
pub(crate) fn maybe_detach<T: Send>(py: Python<'_>, n: usize, f: impl FnOnce() -> T + Send) -> T {
    if n >= DETACH_AT {
        py.detach(f)
    } else {
        f()
    }
}

static ZEROS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static NUMPY_MA: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A new 1-D NumPy array of `n` zeros, borrowed for writing. NumPy allocates it with `calloc`: a large one
/// comes as fresh zero pages, with no pass over its memory before the caller's work writes it.
pub(crate) fn zeros<T: Element>(py: Python<'_>, n: usize) -> PyResult<PyReadwriteArray1<'_, T>> {
    // checked: a wrapped byte count once gave a short buffer under a long slice (found by the fuzz tests)
    if n.checked_mul(std::mem::size_of::<T>())
        .is_none_or(|bytes| isize::try_from(bytes).is_err())
    {
        return Err(illegal(py, format!("a result of {n} items is too large")));
    }
    let arr = numpy_fn(py, &ZEROS, "zeros")?.call1((n, dtype::<T>(py)))?;
    Ok(arr.cast_into::<PyArray1<T>>()?.try_readwrite()?)
}

/// Hashes of every key, in a new NumPy int32 array (and a bool mask array when nulls are masked).
pub(crate) struct Hashed<'py> {
    out: PyReadwriteArray1<'py, i32>,
    mask: Option<PyReadwriteArray1<'py, bool>>,
}

impl<'py> Hashed<'py> {
    /// A result of `n` zeros (and a mask of `n` `false`s with `masked`), to be filled.
    pub fn new(py: Python<'py>, n: usize, masked: bool) -> PyResult<Self> {
        let mask = if masked { Some(zeros(py, n)?) } else { None };
        Ok(Hashed {
            out: zeros(py, n)?,
            mask,
        })
    }

    /// A result holding `out` (and `mask`), without a copy.
    pub fn from_vecs(py: Python<'py>, out: Vec<i32>, mask: Option<Vec<bool>>) -> PyResult<Self> {
        // NumPy imported first: the `numpy` crate panics where it cannot reach NumPy's C API
        numpy_fn(py, &ZEROS, "zeros")?;
        Ok(Hashed {
            out: PyArray1::from_vec(py, out).try_readwrite()?,
            mask: match mask {
                Some(m) => Some(PyArray1::from_vec(py, m).try_readwrite()?),
                None => None,
            },
        })
    }

    /// The result of `fill` for each piece of `sources`, in order (`base`: the piece's first position).
    pub fn of_pieces(
        py: Python<'py>,
        sources: &[Source<'_>],
        masked: bool,
        fill: impl FnMut(&Piece<'_>, usize, &mut [i32], Option<&mut [bool]>) -> PyResult<()>,
    ) -> PyResult<Self> {
        let pieces = sources
            .iter()
            .map(Source::piece)
            .collect::<PyResult<Vec<_>>>()?;
        let mut hashed = Hashed::new(py, pieces.iter().map(|p| p.len).sum(), masked)?;
        let (out, mask) = hashed.slices()?;
        for_each_piece(&pieces, out, mask, fill)?;
        Ok(hashed)
    }

    /// The result and the mask, to be written.
    pub fn slices(&mut self) -> PyResult<(&mut [i32], Option<&mut [bool]>)> {
        let mask = match self.mask.as_mut() {
            Some(m) => Some(m.as_slice_mut()?),
            None => None,
        };
        Ok((self.out.as_slice_mut()?, mask))
    }

    /// The int32 array, or a `numpy.ma.MaskedArray` of it with its mask.
    pub fn finish(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let out = Bound::clone(&self.out).into_any();
        let mask = self.mask.as_ref().map(|m| Bound::clone(m).into_any());
        drop(self);
        match mask {
            None => Ok(out),
            Some(m) => numpy_fn(py, &NUMPY_MA, "ma")?
                .getattr("MaskedArray")?
                .call((out,), Some(&[("mask", m)].into_py_dict(py)?)),
        }
    }
}

/// The `TypeError` of a key that is not of `key_type`.
fn mismatch(key_type: KeyType, got: &str) -> PyErr {
    PyTypeError::new_err(key_type.mismatch(got))
}

/// Hash one piece into `out` (`mask` for nulls, else the first null is an error at `base + i`).
fn hash_piece(
    py: Python<'_>,
    piece: &Piece<'_>,
    key_type: KeyType,
    base: usize,
    out: &mut [i32],
    mask: Option<&mut [bool]>,
) -> PyResult<()> {
    maybe_detach(py, piece.len, || {
        batch::hash_piece(piece, key_type, out, mask)
    })
    .map_err(|e| match e {
        BatchError::Null(i) => null_err(py, base + i),
        BatchError::MalformedOffsets(_) => illegal(py, "malformed Arrow string offsets"),
        BatchError::Mismatch(got) => mismatch(key_type, got),
        BatchError::OutOfIntRange(v) => {
            illegal(py, format!("value {v} is out of the Java int range"))
        }
    })
}

/// Hash the items of a Python sequence (and a mask of its nulls with `masked`).
fn hash_sequence(
    py: Python<'_>,
    items: &Bound<'_, PyAny>,
    key_type: KeyType,
    masked: bool,
) -> PyResult<(Vec<i32>, Option<Vec<bool>>)> {
    let mut out = Vec::new();
    let mut mask = masked.then(Vec::new);
    for item in items.try_iter()? {
        let item = item?;
        if item.is_none() {
            match mask.as_mut() {
                Some(m) => {
                    m.push(true);
                    out.push(0);
                    continue;
                }
                None => return Err(null_err(py, out.len())),
            }
        }
        let h = match key_type {
            KeyType::Str => {
                let s = item
                    .cast::<PyString>()
                    .map_err(|_| mismatch(key_type, &type_name(&item)))?;
                match s.to_str() {
                    Ok(t) => utf8_hash(t.as_bytes()),
                    Err(_) => utf16_hash(&utf16_units(s)?),
                }
            }
            _ if item.is_instance_of::<PyBool>() || !item.is_instance_of::<PyInt>() => {
                return Err(mismatch(key_type, &type_name(&item)))
            }
            KeyType::Int => item.extract::<JavaInt<arg::Value>>()?.0,
            KeyType::Long => long_hash(item.extract::<JavaLong<arg::Value>>()?.0),
        };
        out.push(h);
        if let Some(m) = mask.as_mut() {
            m.push(false);
        }
    }
    Ok((out, mask))
}

fn hashes<'py>(
    py: Python<'py>,
    keys: &Keys<'py>,
    key_type: KeyType,
    masked: bool,
) -> PyResult<Hashed<'py>> {
    let sources = match keys.gather()? {
        Gathered::Columns(sources) => sources,
        Gathered::Sequence(seq) => {
            let (out, mask) = hash_sequence(py, &seq, key_type, masked)?;
            return Hashed::from_vecs(py, out, mask);
        }
    };
    Hashed::of_pieces(py, &sources, masked, |p, base, out, mask| {
        hash_piece(py, p, key_type, base, out, mask)
    })
}

/// Java `String.hashCode` of every key, as an int32 array.
#[pyfunction]
#[pyo3(signature = (keys, *, nulls = None))]
pub fn java_string_hashes<'py>(
    py: Python<'py>,
    keys: Keys<'py>,
    nulls: Option<RaiseOrMask<arg::Nulls>>,
) -> PyResult<Bound<'py, PyAny>> {
    hashes(py, &keys, KeyType::Str, masks(nulls))?.finish(py)
}

/// The index `SelectMessageQueueByHash` picks among `num_queues` queues for every key.
#[pyfunction]
#[pyo3(signature = (keys, num_queues, key_type = None, *, nulls = None))]
pub fn hash_select_indices<'py>(
    py: Python<'py>,
    keys: Keys<'py>,
    num_queues: NumQueues,
    key_type: Option<Later<KeyTypeArg<false>, arg::KeyType>>,
    nulls: Option<RaiseOrMask<arg::Nulls>>,
) -> Result<Bound<'py, PyAny>> {
    // the reference checks `nulls` before `key_type` (and the keys last)
    let key_type = later(py, key_type)?.map(|k| k.0);
    let mut hashed = hashes(py, &keys, key_type.unwrap_or(KeyType::Str), masks(nulls))?;
    let (out, mask) = hashed.slices()?;
    let n = num_queues.0;
    if n == 0 {
        let any_valid = match mask {
            None => !out.is_empty(),
            Some(m) => m.iter().any(|null| !null),
        };
        if any_valid {
            return Err(div_by_zero().into());
        }
    } else {
        // a masked null's hash is 0, and so is its index
        maybe_detach(py, out.len(), || select_indices_in_place(out, n));
    }
    Ok(hashed.finish(py)?)
}
