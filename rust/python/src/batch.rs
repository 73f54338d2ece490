//! Batch entry points (`rocketroute.batch`): whole columns of keys in one call. Arrow arrays and NumPy
//! arrays are read in place through their buffers' addresses (validated: size, alignment, offsets), the
//! work runs with the GIL released, and results are written straight into a new NumPy array.

use std::ptr::NonNull;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{IntoPyDict, PyBool, PyByteArray, PyBytes, PyInt, PyList, PyString, PyTuple};
use rocketroute_core::batch::{
    hash_ucs4_column, hash_utf8_column, long_hashes, select_indices_in_place, utf8_hash,
    BatchError, Offsets, Validity,
};
use rocketroute_core::counter::POSITIVE_MASK;
use rocketroute_core::java::{long_hash, utf16_hash};

use crate::counter::PySendWhichQueue;
use crate::errors::{div_by_zero, illegal, java_int, npe, type_name, utf16_units};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    Str,
    Int,
    Long,
}

impl KeyType {
    /// `None` is the default, `"string"`.
    fn parse(py: Python<'_>, v: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        match choice(v) {
            None | Some("string") => Ok(KeyType::Str),
            Some("int") => Ok(KeyType::Int),
            Some("long") => Ok(KeyType::Long),
            Some(_) => Err(illegal(
                py,
                format!(
                    "key_type must be one of ('string', 'int', 'long'), not {}",
                    repr_of(v)?
                ),
            )),
        }
    }
    fn mismatch(self, got: &str) -> PyErr {
        match self {
            KeyType::Str => PyTypeError::new_err(format!("a string key must be a str, not {got}")),
            KeyType::Int => PyTypeError::new_err(format!("an int key must be an int, not {got}")),
            KeyType::Long => PyTypeError::new_err(format!("an long key must be an int, not {got}")),
        }
    }
}

/// An option given as a str: `None` when left out (or `None`), `Some("")` for anything not a valid str,
/// which matches no option.
pub(crate) fn choice<'a>(v: Option<&'a Bound<'_, PyAny>>) -> Option<&'a str> {
    let v = v.filter(|v| !v.is_none())?;
    Some(
        v.cast::<PyString>()
            .ok()
            .and_then(|s| s.to_str().ok())
            .unwrap_or(""),
    )
}

pub(crate) fn repr_of(v: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    Ok(match v {
        Some(v) => v.repr()?.to_string(),
        None => "None".to_owned(),
    })
}

/// `nulls`: `"raise"` (the default, also for `None`) or `"mask"`.
pub fn mask_arg(py: Python<'_>, nulls: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
    raise_or_mask(py, "nulls", nulls)
}

/// A `"raise"` / `"mask"` option named `name` (`nulls`, `refused`): `true` for `"mask"`; `None` is `"raise"`.
pub(crate) fn raise_or_mask(
    py: Python<'_>,
    name: &str,
    v: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    match choice(v) {
        None | Some("raise") => Ok(false),
        Some("mask") => Ok(true),
        Some(_) => Err(illegal(
            py,
            format!(
                "{name} must be one of ('raise', 'mask'), not {}",
                repr_of(v)?
            ),
        )),
    }
}

fn null_err(py: Python<'_>, i: usize) -> PyErr {
    npe(py, format!("key {i} is null"))
}

/// A slice over memory a live Python object owns, checked for size and alignment.
///
/// # Safety
/// `addr..addr+size` must stay valid and unmodified while the slice is used (the caller keeps the owner alive).
unsafe fn raw_slice<'a, T>(py: Python<'_>, addr: usize, size: usize) -> PyResult<&'a [T]> {
    let n = size / std::mem::size_of::<T>();
    if n == 0 {
        return Ok(&[]);
    }
    if addr == 0 || addr % std::mem::align_of::<T>() != 0 {
        return Err(illegal(
            py,
            "a key buffer is null or not aligned for its type",
        ));
    }
    Ok(std::slice::from_raw_parts(addr as *const T, n))
}

fn buffer_of<'a, T>(py: Python<'_>, buf: &Bound<'_, PyAny>) -> PyResult<Option<&'a [T]>> {
    if buf.is_none() {
        return Ok(None);
    }
    let addr: usize = buf.getattr("address")?.extract()?;
    let size: usize = buf.getattr("size")?.extract()?;
    // SAFETY: a pyarrow Buffer owns `size` bytes at `address`; the caller holds the array alive.
    Ok(Some(unsafe { raw_slice::<T>(py, addr, size)? }))
}

/// One column of keys, borrowed from the Python object that owns it.
pub(crate) enum Column<'a> {
    Utf8 {
        offsets: Offsets<'a>,
        data: &'a [u8],
        validity: Option<Validity<'a>>,
    },
    I32(&'a [i32], Option<Validity<'a>>),
    I64(&'a [i64], Option<Validity<'a>>),
    Ucs4(&'a [u32], usize),
}

pub(crate) struct Piece<'a> {
    pub len: usize,
    pub column: Column<'a>,
}

/// The keys of a batch call: columns read in place (Arrow, NumPy), or a Python sequence to iterate.
pub(crate) enum Gathered<'a, 'py> {
    Pieces(Vec<Piece<'a>>),
    Sequence(Bound<'py, PyAny>),
}

/// `keys` is a container of keys: not `None`, not a single `str` or `bytes`.
fn check_keys(py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<()> {
    if keys.is_none() {
        return Err(npe(py, "keys is None"));
    }
    if keys.is_instance_of::<PyString>() || keys.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(
            "keys must be a sequence of keys, not a single str",
        ));
    }
    Ok(())
}

/// The keys as columns or a sequence; `keep` holds what the columns borrow from.
pub(crate) fn gather<'a, 'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    keep: &mut Vec<Py<PyAny>>,
) -> PyResult<Gathered<'a, 'py>> {
    check_keys(py, keys)?;
    let keys = &unmasked(keys)?;
    Ok(match input_kind(keys)? {
        Input::Sequence => Gathered::Sequence(keys.clone()),
        Input::Chunked => {
            let mut pieces = Vec::new();
            for chunk in keys.getattr("chunks")?.try_iter()? {
                pieces.push(arrow_piece(py, &chunk?, keep)?);
            }
            Gathered::Pieces(pieces)
        }
        Input::Arrow => Gathered::Pieces(vec![arrow_piece(py, keys, keep)?]),
        Input::NumPy => match numpy_piece(py, keys, keep)? {
            Some(p) => Gathered::Pieces(vec![p]),
            None => Gathered::Sequence(keys.clone()),
        },
    })
}

/// A NumPy masked array with its masked entries as nulls (an object array with `None` there); any
/// other container as it is.
fn unmasked<'py>(keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let ty = keys.get_type();
    let module: String = ty.module()?.extract()?;
    if module.starts_with("numpy.ma") && ty.name()?.to_str()? == "MaskedArray" {
        let py = keys.py();
        let object = py.import("builtins")?.getattr("object")?;
        let data = keys.getattr("data")?.call_method1("astype", (object,))?;
        let mask = py
            .import("numpy")?
            .getattr("ma")?
            .call_method1("getmaskarray", (keys,))?;
        data.set_item(mask, py.None())?;
        return Ok(data);
    }
    Ok(keys.clone())
}

enum Input {
    Sequence,
    Arrow,
    Chunked,
    NumPy,
}

/// What kind of key container `keys` is, from its type (no failed attribute probes on a plain list).
fn input_kind(keys: &Bound<'_, PyAny>) -> PyResult<Input> {
    if keys.is_instance_of::<PyList>() || keys.is_instance_of::<PyTuple>() {
        return Ok(Input::Sequence);
    }
    let ty = keys.get_type();
    let module: String = ty.module()?.extract()?;
    if module.starts_with("pyarrow") {
        if ty.name()?.to_str()? == "ChunkedArray" {
            return Ok(Input::Chunked);
        }
        if keys.hasattr("buffers")? && keys.hasattr("offset")? {
            return Ok(Input::Arrow);
        }
    }
    if module.starts_with("numpy") && keys.hasattr("__array_interface__")? {
        return Ok(Input::NumPy);
    }
    Ok(Input::Sequence)
}

fn arrow_piece<'a>(
    py: Python<'_>,
    arr: &Bound<'_, PyAny>,
    keep: &mut Vec<Py<PyAny>>,
) -> PyResult<Piece<'a>> {
    let ty: String = arr.getattr("type")?.str()?.extract()?;
    // dictionary-encoded and view columns, and small ints, are read as their plain equivalents
    let plain = if ty.starts_with("dictionary<") {
        Some(arr.getattr("type")?.getattr("value_type")?)
    } else {
        let pa = || py.import("pyarrow");
        match ty.as_str() {
            "string_view" => Some(pa()?.call_method0("large_string")?),
            "int8" | "int16" | "uint8" | "uint16" | "uint32" => Some(pa()?.call_method0("int64")?),
            _ => None,
        }
    };
    if let Some(plain) = plain {
        let cast = arr.call_method1("cast", (plain,))?;
        return arrow_piece(py, &cast, keep);
    }
    let len: usize = arr.len()?;
    let offset: usize = arr.getattr("offset")?.extract()?;
    let null_count: usize = arr.getattr("null_count")?.extract()?;
    let bufs = arr.call_method0("buffers")?;
    keep.push(bufs.clone().unbind());
    keep.push(arr.clone().unbind());
    let validity = if null_count > 0 {
        buffer_of::<u8>(py, &bufs.get_item(0)?)?.map(|bits| Validity { bits, offset })
    } else {
        None
    };
    let need = |have: usize, want: usize| -> PyResult<()> {
        if have < want {
            return Err(illegal(py, "an Arrow buffer is shorter than its array"));
        }
        Ok(())
    };
    let column = match ty.as_str() {
        "string" | "large_string" => {
            let data = buffer_of::<u8>(py, &bufs.get_item(2)?)?.unwrap_or(&[]);
            let offsets = if ty == "string" {
                let o = buffer_of::<i32>(py, &bufs.get_item(1)?)?.unwrap_or(&[]);
                need(o.len(), offset + len + 1)?;
                Offsets::I32(&o[offset..offset + len + 1])
            } else {
                let o = buffer_of::<i64>(py, &bufs.get_item(1)?)?.unwrap_or(&[]);
                need(o.len(), offset + len + 1)?;
                Offsets::I64(&o[offset..offset + len + 1])
            };
            if len == 0 {
                Column::Utf8 {
                    offsets: Offsets::I32(&[0]),
                    data: &[],
                    validity: None,
                }
            } else {
                Column::Utf8 {
                    offsets,
                    data,
                    validity,
                }
            }
        }
        "int32" => {
            let v = buffer_of::<i32>(py, &bufs.get_item(1)?)?.unwrap_or(&[]);
            need(v.len(), offset + len)?;
            Column::I32(&v[offset..offset + len], validity)
        }
        "int64" => {
            let v = buffer_of::<i64>(py, &bufs.get_item(1)?)?.unwrap_or(&[]);
            need(v.len(), offset + len)?;
            Column::I64(&v[offset..offset + len], validity)
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "unsupported Arrow type {other}; expected string, large_string, int32 or int64"
            )))
        }
    };
    Ok(Piece { len, column })
}

/// A NumPy array as a column, or `None` for an object array (read as a Python sequence).
fn numpy_piece<'a>(
    py: Python<'_>,
    arr: &Bound<'_, PyAny>,
    keep: &mut Vec<Py<PyAny>>,
) -> PyResult<Option<Piece<'a>>> {
    let ndim: usize = arr.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(illegal(
            py,
            format!("keys must be one-dimensional, not {ndim}-dimensional"),
        ));
    }
    let dtype = arr.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    if kind == "O" {
        return Ok(None);
    }
    // read in place when the layout is ours; else a copy: contiguous, aligned, in the machine's byte
    // order, and small or unsigned ints widened to int64 (their values unchanged)
    let np = py.import("numpy")?;
    let wanted = match (kind.as_str(), itemsize) {
        ("i", 1 | 2) | ("u", 1 | 2 | 4) => np.getattr("int64")?,
        _ => dtype.call_method1("newbyteorder", ("=",))?,
    };
    let arr = np.call_method1("require", (arr, wanted, ("C", "A")))?;
    let dtype = arr.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    keep.push(arr.clone().unbind());
    let len: usize = arr.len()?;
    let addr: usize = arr
        .getattr("__array_interface__")?
        .get_item("data")?
        .get_item(0)?
        .extract()?;
    let bytes = len * itemsize;
    // SAFETY: a contiguous NumPy array owns `len * itemsize` bytes at its data address; `keep` holds it.
    let column = match (kind.as_str(), itemsize) {
        ("U", w) => Column::Ucs4(unsafe { raw_slice::<u32>(py, addr, bytes)? }, w / 4),
        ("i", 4) => Column::I32(unsafe { raw_slice::<i32>(py, addr, bytes)? }, None),
        ("i", 8) => Column::I64(unsafe { raw_slice::<i64>(py, addr, bytes)? }, None),
        _ => {
            return Err(PyTypeError::new_err(format!(
                "unsupported NumPy dtype {}; expected str (U), object, int32 or int64",
                dtype.str()?
            )))
        }
    };
    Ok(Some(Piece { len, column }))
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

static FROMBUFFER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static MASKED_ARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn numpy_attr<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    path: &[&str],
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        let mut obj = py.import("numpy")?.into_any();
        for name in path {
            obj = obj.getattr(*name)?;
        }
        Ok::<_, PyErr>(obj.unbind())
    })
    .map(|o| o.bind(py))
}

/// A new 1-D NumPy array of `n` items of `dtype` over a `bytearray`, and its data as a slice.
/// With `zeroed` false the memory is left as allocated (and first touched by the caller's work, without
/// the GIL): the caller must write every item.
pub(crate) fn new_array<'py, T>(
    py: Python<'py>,
    n: usize,
    dtype: &str,
    zeroed: bool,
) -> PyResult<(Bound<'py, PyAny>, &'py mut [T])> {
    // checked: a wrapped product would give a short buffer under a long slice (found by the fuzz tests)
    let len = n
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&l| pyo3::ffi::Py_ssize_t::try_from(l).is_ok())
        .ok_or_else(|| illegal(py, format!("a result of {n} items is too large")))?;
    let bytes = if zeroed {
        PyByteArray::new_with(py, len, |b| {
            b.fill(0);
            Ok(())
        })?
    } else {
        let len = len as pyo3::ffi::Py_ssize_t; // fits: checked above
                                                // SAFETY: a null source asks CPython for an uninitialised bytearray of `len` bytes; we own the
                                                // new reference.
        unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                pyo3::ffi::PyByteArray_FromStringAndSize(std::ptr::null(), len),
            )?
            .cast_into_unchecked::<PyByteArray>()
        }
    };
    let arr = numpy_attr(py, &FROMBUFFER, &["frombuffer"])?.call1((&bytes, dtype))?;
    if n == 0 {
        // SAFETY: an empty slice may use a dangling, aligned pointer.
        return Ok((arr, unsafe {
            std::slice::from_raw_parts_mut(NonNull::<T>::dangling().as_ptr(), 0)
        }));
    }
    let ptr = bytes.data();
    if (ptr as usize) % std::mem::align_of::<T>() != 0 {
        return Err(illegal(py, "could not allocate an aligned result array"));
    }
    // SAFETY: the bytearray holds `len` bytes (every bit pattern is a valid i32; bool arrays are always
    // zeroed), the NumPy array keeps it alive and unresizable (it exports its buffer), and nothing else
    // has seen it yet.
    Ok((arr, unsafe {
        std::slice::from_raw_parts_mut(ptr as *mut T, n)
    }))
}

fn first_valid(validity: Option<Validity<'_>>, len: usize) -> Option<usize> {
    (0..len).find(|&i| validity.is_none_or(|v| v.is_valid(i)))
}

/// A column whose type does not fit `key_type`: Java would fail on the first key, so the first null
/// (unless masked) or else the first valid key decides the error; an all-null masked column is all masked.
#[allow(clippy::too_many_arguments)]
fn column_mismatch(
    py: Python<'_>,
    validity: Option<Validity<'_>>,
    len: usize,
    base: usize,
    key_type: KeyType,
    got: &str,
    out: &mut [i32],
    mask: Option<&mut [bool]>,
) -> PyResult<()> {
    match (first_valid(validity, len), mask) {
        (None, Some(m)) => {
            m.fill(true);
            out.fill(0);
            Ok(())
        }
        (None, None) if len == 0 => Ok(()),
        (None, None) => Err(null_err(py, base)),
        (Some(i), None) if i > 0 => Err(null_err(py, base)),
        _ => Err(key_type.mismatch(got)),
    }
}

fn int_column<T: Copy>(
    py: Python<'_>,
    values: &[T],
    validity: Option<Validity<'_>>,
    base: usize,
    out: &mut [i32],
    mut mask: Option<&mut [bool]>,
    hash: impl Fn(T) -> PyResult<i32>,
) -> PyResult<()> {
    for (i, &v) in values.iter().enumerate() {
        if validity.is_some_and(|m| !m.is_valid(i)) {
            match mask.as_deref_mut() {
                Some(m) => m[i] = true,
                None => return Err(null_err(py, base + i)),
            }
            out[i] = 0;
            continue;
        }
        out[i] = hash(v)?;
    }
    Ok(())
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
    let len = piece.len;
    match &piece.column {
        Column::Utf8 { validity, .. } if key_type != KeyType::Str => {
            column_mismatch(py, *validity, len, base, key_type, "str", out, mask)
        }
        Column::Ucs4(..) if key_type != KeyType::Str => {
            column_mismatch(py, None, len, base, key_type, "str", out, mask)
        }
        Column::I32(_, validity) | Column::I64(_, validity) if key_type == KeyType::Str => {
            column_mismatch(py, *validity, len, base, key_type, "int", out, mask)
        }
        Column::Utf8 {
            offsets,
            data,
            validity,
        } => {
            let (offsets, data, validity) = (*offsets, *data, *validity);
            maybe_detach(py, len, || {
                hash_utf8_column(offsets, data, validity, out, mask)
            })
            .map_err(|e| match e {
                BatchError::Null(i) => null_err(py, base + i),
                BatchError::MalformedOffsets(_) => illegal(py, "malformed Arrow string offsets"),
            })
        }
        Column::Ucs4(data, width) => {
            let (data, width) = (*data, *width);
            maybe_detach(py, len, || hash_ucs4_column(data, width, out));
            Ok(())
        }
        Column::I32(values, validity) => int_column(py, values, *validity, base, out, mask, |v| {
            Ok(if key_type == KeyType::Int {
                v
            } else {
                long_hash(v as i64)
            })
        }),
        Column::I64(values, None) if key_type == KeyType::Long => {
            let values = *values;
            maybe_detach(py, len, || long_hashes(values, out));
            Ok(())
        }
        Column::I64(values, validity) => {
            int_column(py, values, *validity, base, out, mask, |v| match key_type {
                KeyType::Long => Ok(long_hash(v)),
                _ => i32::try_from(v)
                    .map_err(|_| illegal(py, format!("value {v} is out of the Java int range"))),
            })
        }
    }
}

/// Hash the items of a Python sequence.
fn hash_sequence(
    py: Python<'_>,
    items: &Bound<'_, PyAny>,
    key_type: KeyType,
    out: &mut Vec<i32>,
    mask: &mut Option<Vec<bool>>,
) -> PyResult<()> {
    for item in items.try_iter()? {
        let item = item?;
        let i = out.len();
        if item.is_none() {
            match mask.as_mut() {
                Some(m) => {
                    m.push(true);
                    out.push(0);
                    continue;
                }
                None => return Err(null_err(py, i)),
            }
        }
        let h = match key_type {
            KeyType::Str => {
                let s = item
                    .cast::<PyString>()
                    .map_err(|_| key_type.mismatch(&type_name(&item)))?;
                match s.to_str() {
                    Ok(t) => utf8_hash(t.as_bytes()),
                    Err(_) => utf16_hash(&utf16_units(s)?),
                }
            }
            _ => {
                if item.is_instance_of::<PyBool>() || !item.is_instance_of::<PyInt>() {
                    return Err(key_type.mismatch(&type_name(&item)));
                }
                if key_type == KeyType::Int {
                    java_int(&item, "value")?
                } else {
                    long_hash(crate::errors::java_long(&item, "value")?)
                }
            }
        };
        out.push(h);
        if let Some(m) = mask.as_mut() {
            m.push(false);
        }
    }
    Ok(())
}

/// Hashes of every key, written into a new NumPy int32 array (and a bool mask array with `masked`).
pub(crate) struct Hashed<'py> {
    pub arr: Bound<'py, PyAny>,
    pub out: &'py mut [i32],
    pub mask: Option<(Bound<'py, PyAny>, &'py mut [bool])>,
}

impl<'py> Hashed<'py> {
    /// An int32 result array of `n` items (and a zeroed bool mask with `masked`), to be filled.
    pub fn new(py: Python<'py>, n: usize, masked: bool) -> PyResult<Self> {
        let (arr, out) = new_array::<i32>(py, n, "int32", false)?;
        let mask = if masked {
            Some(new_array::<bool>(py, n, "bool", true)?)
        } else {
            None
        };
        Ok(Hashed { arr, out, mask })
    }

    /// A result array holding `out` (and `mask`).
    pub fn filled(py: Python<'py>, out: &[i32], mask: Option<&[bool]>) -> PyResult<Self> {
        let mut h = Hashed::new(py, out.len(), mask.is_some())?;
        h.out.copy_from_slice(out);
        if let (Some((_, ms)), Some(m)) = (h.mask.as_mut(), mask) {
            ms.copy_from_slice(m);
        }
        Ok(h)
    }

    pub fn finish(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.mask {
            None => Ok(self.arr),
            Some((m, _)) => numpy_attr(py, &MASKED_ARRAY, &["ma", "MaskedArray"])?
                .call((self.arr,), Some(&[("mask", m)].into_py_dict(py)?)),
        }
    }
}

fn hashes<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    key_type: KeyType,
    masked: bool,
) -> PyResult<Hashed<'py>> {
    let mut keep: Vec<Py<PyAny>> = Vec::new();
    let pieces = match gather(py, keys, &mut keep)? {
        Gathered::Pieces(p) => p,
        Gathered::Sequence(seq) => {
            let mut out = Vec::new();
            let mut mask = if masked { Some(Vec::new()) } else { None };
            hash_sequence(py, &seq, key_type, &mut out, &mut mask)?;
            return Hashed::filled(py, &out, mask.as_deref());
        }
    };
    let total: usize = pieces.iter().map(|p| p.len).sum();
    let Hashed { arr, out, mut mask } = Hashed::new(py, total, masked)?;
    let mut base = 0;
    for p in &pieces {
        let m = mask.as_mut().map(|(_, m)| &mut m[base..base + p.len]);
        hash_piece(py, p, key_type, base, &mut out[base..base + p.len], m)?;
        base += p.len;
    }
    drop(keep);
    Ok(Hashed { arr, out, mask })
}

/// A queue count of a batch call: an `int` in `0..=i32::MAX`.
pub(crate) fn num_queues_arg(py: Python<'_>, num_queues: &Bound<'_, PyAny>) -> PyResult<i32> {
    if num_queues.is_instance_of::<PyBool>() || !num_queues.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "num_queues must be an int, not {}",
            type_name(num_queues)
        )));
    }
    Ok(num_queues
        .extract::<i64>()
        .ok()
        .filter(|n| (0..=i32::MAX as i64).contains(n))
        .ok_or_else(|| {
            illegal(
                py,
                format!("num_queues must be in 0..2147483647, not {num_queues}"),
            )
        })? as i32)
}

/// Java `String.hashCode` of every key, as an int32 array.
#[pyfunction]
#[pyo3(signature = (keys, *, nulls = None))]
pub fn java_string_hashes<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    nulls: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let masked = mask_arg(py, nulls)?;
    hashes(py, keys, KeyType::Str, masked)?.finish(py)
}

/// The index `SelectMessageQueueByHash` picks among `num_queues` queues for every key.
#[pyfunction]
#[pyo3(signature = (keys, num_queues, key_type = None, *, nulls = None))]
pub fn hash_select_indices<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    num_queues: &Bound<'py, PyAny>,
    key_type: Option<&Bound<'py, PyAny>>,
    nulls: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let n = num_queues_arg(py, num_queues)?;
    let masked = mask_arg(py, nulls)?;
    let kt = KeyType::parse(py, key_type)?;
    let hashed = hashes(py, keys, kt, masked)?;
    let any_valid = match &hashed.mask {
        None => !hashed.out.is_empty(),
        Some((_, m)) => m.iter().any(|null| !null),
    };
    if n == 0 {
        if any_valid {
            return Err(div_by_zero());
        }
        return hashed.finish(py);
    }
    let Hashed { arr, out, mask } = hashed;
    maybe_detach(py, out.len(), || select_indices_in_place(out, n));
    if let Some((_, m)) = &mask {
        for (o, &null) in out.iter_mut().zip(m.iter()) {
            if null {
                *o = 0;
            }
        }
    }
    Hashed { arr, out, mask }.finish(py)
}

/// The next `count` values of `counter.increment_and_get()` (positions modulo `num_queues` if given),
/// the counter advanced atomically by `count`.
#[pyfunction]
#[pyo3(signature = (counter, count, num_queues = None))]
pub fn round_robin_indices<'py>(
    py: Python<'py>,
    counter: &Bound<'py, PyAny>,
    count: &Bound<'py, PyAny>,
    num_queues: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let counter = counter.cast::<PySendWhichQueue>().map_err(|_| {
        PyTypeError::new_err(format!(
            "counter must be a SendWhichQueue, not {}",
            type_name(counter)
        ))
    })?;
    if count.is_instance_of::<PyBool>() || !count.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "count must be an int, not {}",
            type_name(count)
        )));
    }
    let count: i64 = match count.extract::<i64>() {
        Ok(v) => v,
        Err(_) if count.lt(0)? => {
            return Err(illegal(
                py,
                format!("count must not be negative, not {count}"),
            ))
        }
        Err(_) => {
            return Err(illegal(
                py,
                format!("a result of {count} items is too large"),
            ))
        }
    };
    if count < 0 {
        return Err(illegal(
            py,
            format!("count must not be negative, not {count}"),
        ));
    }
    let n = match num_queues.filter(|n| !n.is_none()) {
        None => None,
        Some(q) => {
            if q.is_instance_of::<PyBool>() || !q.is_instance_of::<PyInt>() {
                return Err(PyTypeError::new_err(format!(
                    "num_queues must be an int, not {}",
                    type_name(q)
                )));
            }
            // past the i64 range only the sign matters: huge counts act as i32::MAX queues
            let v: i64 = match q.extract() {
                Ok(v) => v,
                Err(_) if q.lt(0)? => i64::MIN,
                Err(_) => i64::MAX,
            };
            if v == 0 {
                return Err(div_by_zero());
            }
            if v < 0 {
                return Err(illegal(
                    py,
                    format!("num_queues must not be negative, not {q}"),
                ));
            }
            Some(v.min(i32::MAX as i64) as i32)
        }
    };
    let (arr, out) = new_array::<i32>(py, count as usize, "int32", false)?;
    if count == 0 {
        return Ok(arr);
    }
    let before = counter.get().inner.advance(count as u64);
    maybe_detach(py, count as usize, || {
        let mut v = before;
        for o in out.iter_mut() {
            v = v.wrapping_add(1);
            let x = v & POSITIVE_MASK;
            *o = match n {
                Some(n) => x % n,
                None => x,
            };
        }
    });
    Ok(arr)
}

/// Keys as the Python objects they hold (a list; `None` for nulls): what a Python callback sees.
pub fn key_objects<'py>(py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    check_keys(py, keys)?;
    let items = match input_kind(keys)? {
        Input::Arrow | Input::Chunked => keys.call_method0("to_pylist")?,
        Input::NumPy => {
            let ndim: usize = keys.getattr("ndim")?.extract()?;
            if ndim != 1 {
                return Err(illegal(
                    py,
                    format!("keys must be one-dimensional, not {ndim}-dimensional"),
                ));
            }
            keys.call_method0("tolist")?
        }
        Input::Sequence => keys.clone(),
    };
    PyList::new(py, items.try_iter()?.collect::<PyResult<Vec<_>>>()?)
}

/// Keys as UTF-8 strings for routing: `None` for nulls (an error unless masked).
pub fn key_strings(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    masked: bool,
) -> PyResult<Vec<Option<String>>> {
    check_keys(py, keys)?;
    let mut out = Vec::new();
    let mut keep = Vec::new();
    let mut push_arrow = |arr: &Bound<'_, PyAny>, out: &mut Vec<Option<String>>| -> PyResult<()> {
        let piece = arrow_piece(py, arr, &mut keep)?;
        let Column::Utf8 {
            offsets,
            data,
            validity,
        } = piece.column
        else {
            return Err(PyTypeError::new_err("route keys must be strings"));
        };
        for i in 0..piece.len {
            if validity.is_some_and(|v| !v.is_valid(i)) {
                if !masked {
                    return Err(null_err(py, out.len()));
                }
                out.push(None);
                continue;
            }
            let (s, e) = match offsets {
                Offsets::I32(o) => (o[i] as i64, o[i + 1] as i64),
                Offsets::I64(o) => (o[i], o[i + 1]),
            };
            if s < 0 || e < s || e as u64 > data.len() as u64 {
                return Err(illegal(py, "malformed Arrow string offsets"));
            }
            out.push(Some(
                String::from_utf8_lossy(&data[s as usize..e as usize]).into_owned(),
            ));
        }
        Ok(())
    };
    let kind = input_kind(keys)?;
    if let Input::Chunked = kind {
        for chunk in keys.getattr("chunks")?.try_iter()? {
            push_arrow(&chunk?, &mut out)?;
        }
        return Ok(out);
    }
    if let Input::Arrow = kind {
        push_arrow(keys, &mut out)?;
        return Ok(out);
    }
    let items = if let Input::NumPy = kind {
        let ndim: usize = keys.getattr("ndim")?.extract()?;
        if ndim != 1 {
            return Err(illegal(
                py,
                format!("keys must be one-dimensional, not {ndim}-dimensional"),
            ));
        }
        keys.call_method0("tolist")?
    } else {
        keys.clone()
    };
    for item in items.try_iter()? {
        let item = item?;
        if item.is_none() {
            if !masked {
                return Err(null_err(py, out.len()));
            }
            out.push(None);
            continue;
        }
        let s = crate::errors::req_str(&item, "key")?;
        out.push(Some(crate::errors::java_utf8_text(s)?.into_owned()));
    }
    Ok(out)
}
