//! The key column of a batch call (`keys`): a Python sequence, a NumPy array, or a pyarrow `Array` /
//! `ChunkedArray`. Columns are read in place, without a copy: NumPy arrays borrowed read-only through the
//! `numpy` crate, pyarrow arrays imported through the Arrow C data interface (`__arrow_c_array__`, the
//! PyCapsule protocol of pyarrow >= 14) into `arrow-array`, which keeps pyarrow's buffers alive until it
//! drops them. The slices of a [`Piece`] can be read without the GIL.

use arrow_array::ffi::{from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, Int32Array, Int64Array, LargeStringArray, StringArray};
use arrow_schema::DataType;
use numpy::prelude::*;
use numpy::{dtype, PyArray1, PyReadonlyArray1, PyUntypedArray};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyCapsule, PyList, PyString, PyTuple};
use pyo3::{intern, Borrowed};
use rocketroute_core::batch::{Column, Offsets, Piece, Validity};

use crate::errors::{illegal, java_utf8_text, npe};

/// The `keys` of a batch call, taken as given: they are read (and checked) when the call gets to them,
/// after its other arguments, as the reference backend does.
pub struct Keys<'py>(Bound<'py, PyAny>);

impl<'py> FromPyObject<'_, 'py> for Keys<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        Ok(Keys(obj.to_owned()))
    }
}

/// Where a column's keys are while they are read: an imported Arrow array, or a NumPy array borrowed
/// read-only.
pub(crate) enum Source<'py> {
    Utf8(StringArray),
    LargeUtf8(LargeStringArray),
    ArrowI32(Int32Array),
    ArrowI64(Int64Array),
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
    /// The code points of `len` items of `width` each (`None` for a width of 0).
    Ucs4 {
        chars: Option<PyReadonlyArray1<'py, u32>>,
        width: usize,
        len: usize,
    },
}

/// The validity of an Arrow array with nulls.
fn validity(array: &dyn Array) -> Option<Validity<'_>> {
    array
        .nulls()
        .filter(|n| n.null_count() > 0)
        .map(|n| Validity {
            bits: n.validity(),
            offset: n.offset(),
        })
}

impl Source<'_> {
    pub fn piece(&self) -> PyResult<Piece<'_>> {
        let (len, column) = match self {
            Source::Utf8(a) => (a.len(), utf8(Offsets::I32(a.value_offsets()), a)),
            Source::LargeUtf8(a) => (a.len(), utf8(Offsets::I64(a.value_offsets()), a)),
            Source::ArrowI32(a) => (a.len(), Column::I32(a.values(), validity(a))),
            Source::ArrowI64(a) => (a.len(), Column::I64(a.values(), validity(a))),
            Source::I32(a) => (a.len(), Column::I32(a.as_slice()?, None)),
            Source::I64(a) => (a.len(), Column::I64(a.as_slice()?, None)),
            Source::Ucs4 { chars, width, len } => {
                let data = match chars {
                    Some(c) => c.as_slice()?,
                    None => &[],
                };
                (*len, Column::Ucs4(data, *width))
            }
        };
        Ok(Piece { len, column })
    }
}

fn utf8<'a, O: arrow_array::OffsetSizeTrait>(
    offsets: Offsets<'a>,
    array: &'a arrow_array::GenericStringArray<O>,
) -> Column<'a> {
    Column::Utf8 {
        offsets,
        data: array.values().as_slice(),
        validity: validity(array),
    }
}

/// The keys of a batch call: columns read in place (Arrow, NumPy), or a Python sequence to iterate.
pub(crate) enum Gathered<'py> {
    Columns(Vec<Source<'py>>),
    Sequence(Bound<'py, PyAny>),
}

enum Input<'py> {
    Sequence,
    Arrow,
    Chunked,
    NumPy(Bound<'py, PyUntypedArray>),
}

impl<'py> Keys<'py> {
    pub fn new(keys: &Bound<'py, PyAny>) -> Self {
        Keys(keys.clone())
    }

    /// `keys` is a container of keys: not `None`, not a single `str` or `bytes`.
    fn check(&self) -> PyResult<()> {
        let keys = &self.0;
        if keys.is_none() {
            return Err(npe(keys.py(), "keys is None"));
        }
        if keys.is_instance_of::<PyString>() || keys.is_instance_of::<PyBytes>() {
            return Err(PyTypeError::new_err(
                "keys must be a sequence of keys, not a single str",
            ));
        }
        Ok(())
    }

    /// The keys as columns or a sequence. A NumPy masked array's masked entries are nulls.
    pub fn gather(&self) -> PyResult<Gathered<'py>> {
        self.check()?;
        let keys = unmasked(&self.0)?;
        Ok(match input_kind(&keys)? {
            Input::Sequence => Gathered::Sequence(keys),
            Input::Arrow => Gathered::Columns(vec![arrow_source(&keys)?]),
            Input::Chunked => Gathered::Columns(chunks(&keys)?),
            Input::NumPy(arr) => match numpy_source(&arr)? {
                Some(s) => Gathered::Columns(vec![s]),
                None => Gathered::Sequence(keys),
            },
        })
    }

    /// The keys as the Python objects they hold (a list; `None` for nulls): what a Python callback sees.
    pub fn objects(&self) -> PyResult<Bound<'py, PyList>> {
        self.check()?;
        let keys = &self.0;
        let items = match input_kind(keys)? {
            Input::Arrow | Input::Chunked => keys.call_method0("to_pylist")?,
            Input::NumPy(arr) => {
                one_dimensional(&arr)?;
                arr.call_method0("tolist")?
            }
            Input::Sequence => keys.clone(),
        };
        PyList::new(keys.py(), items.try_iter()?.collect::<PyResult<Vec<_>>>()?)
    }

    /// The keys as UTF-8 strings for routing (as Java encodes them): `None` for nulls, an error unless
    /// `masked`.
    pub fn strings(&self, masked: bool) -> PyResult<Vec<Option<String>>> {
        self.check()?;
        let keys = &self.0;
        let py = keys.py();
        let null = |i: usize| -> PyResult<Option<String>> {
            if masked {
                Ok(None)
            } else {
                Err(npe(py, format!("key {i} is null")))
            }
        };
        let mut out = Vec::new();
        let sources = match input_kind(keys)? {
            Input::Arrow => vec![arrow_source(keys)?],
            Input::Chunked => chunks(keys)?,
            kind => {
                let items = match kind {
                    Input::NumPy(arr) => {
                        one_dimensional(&arr)?;
                        arr.call_method0("tolist")?
                    }
                    _ => keys.clone(),
                };
                for item in items.try_iter()? {
                    let item = item?;
                    if item.is_none() {
                        out.push(null(out.len())?);
                        continue;
                    }
                    let s = crate::errors::req_str(&item, "key")?;
                    out.push(Some(java_utf8_text(s)?.into_owned()));
                }
                return Ok(out);
            }
        };
        for source in &sources {
            let piece = source.piece()?;
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
                    out.push(null(out.len())?);
                    continue;
                }
                let bytes = (i + 1 < offsets.len())
                    .then(|| offsets.range(i, data.len()))
                    .flatten()
                    .ok_or_else(|| illegal(py, "malformed Arrow string offsets"))?;
                out.push(Some(String::from_utf8_lossy(&data[bytes]).into_owned()));
            }
        }
        Ok(out)
    }
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

/// What kind of key container `keys` is, from its type (no failed attribute probes on a plain list, and
/// NumPy is asked about nothing but its own objects: it stays optional).
fn input_kind<'py>(keys: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
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
        // NumPy imported before its C API is asked (the `numpy` crate panics where it cannot reach it)
        let asarray = numpy_fn(keys.py(), &ASARRAY, "asarray")?;
        // an array, or a NumPy scalar as the 0-dimensional array it stands for
        let arr = match keys.cast::<PyUntypedArray>() {
            Ok(arr) => arr.clone(),
            Err(_) => asarray.call1((keys,))?.cast_into::<PyUntypedArray>()?,
        };
        return Ok(Input::NumPy(arr));
    }
    Ok(Input::Sequence)
}

fn chunks<'py>(keys: &Bound<'py, PyAny>) -> PyResult<Vec<Source<'py>>> {
    keys.getattr("chunks")?
        .try_iter()?
        .map(|chunk| arrow_source(&chunk?))
        .collect()
}

fn one_dimensional(arr: &Bound<'_, PyUntypedArray>) -> PyResult<()> {
    match arr.ndim() {
        1 => Ok(()),
        ndim => Err(illegal(
            arr.py(),
            format!("keys must be one-dimensional, not {ndim}-dimensional"),
        )),
    }
}

static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static REQUIRE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `numpy.<name>`, looked up once.
pub(crate) fn numpy_fn<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("numpy")?.getattr(name)?.unbind())
    })
    .map(|f| f.bind(py))
}

/// A NumPy array as a column, or `None` for an object array (read as a Python sequence).
fn numpy_source<'py>(arr: &Bound<'py, PyUntypedArray>) -> PyResult<Option<Source<'py>>> {
    let py = arr.py();
    one_dimensional(arr)?;
    let descr = arr.dtype();
    let (kind, itemsize) = (descr.kind(), descr.itemsize());
    if kind == b'O' {
        return Ok(None);
    }
    // read in place when the layout is ours; else a copy: contiguous, aligned, in the machine's byte
    // order, and small or unsigned ints widened to int64 (their values unchanged)
    let wanted = match (kind, itemsize) {
        (b'i', 1 | 2) | (b'u', 1 | 2 | 4) => dtype::<i64>(py).into_any(),
        _ if descr.is_native_byteorder() == Some(false) => {
            descr.call_method1("newbyteorder", ("=",))?
        }
        _ => descr.into_any(),
    };
    let arr = numpy_fn(py, &REQUIRE, "require")?
        .call1((arr, wanted, ("C", "A")))?
        .cast_into::<PyUntypedArray>()?;
    let descr = arr.dtype();
    let len = arr.len();
    Ok(Some(match (descr.kind(), descr.itemsize()) {
        (b'U', 0) => Source::Ucs4 {
            chars: None,
            width: 0,
            len,
        },
        (b'U', w) => Source::Ucs4 {
            chars: Some(
                arr.call_method1(intern!(py, "view"), (dtype::<u32>(py),))?
                    .cast_into::<PyArray1<u32>>()?
                    .try_readonly()?,
            ),
            width: w / 4,
            len,
        },
        (b'i', 4) => Source::I32(arr.cast_into::<PyArray1<i32>>()?.try_readonly()?),
        (b'i', 8) => Source::I64(arr.cast_into::<PyArray1<i64>>()?.try_readonly()?),
        _ => {
            return Err(PyTypeError::new_err(format!(
                "unsupported NumPy dtype {}; expected str (U), object, int32 or int64",
                descr.str()?
            )))
        }
    }))
}

/// A pyarrow array as a column, through the Arrow C data interface. Dictionary-encoded and view columns,
/// and small ints, are cast by pyarrow to their plain equivalents first.
fn arrow_source<'py>(arr: &Bound<'py, PyAny>) -> PyResult<Source<'py>> {
    let py = arr.py();
    let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) = arr
        .call_method0(intern!(py, "__arrow_c_array__"))?
        .extract()?;
    // SAFETY: by the PyCapsule interface, a capsule named "arrow_schema" holds a valid ArrowSchema, alive
    // (and not moved) while the capsule is.
    let schema = unsafe {
        schema
            .pointer_checked(Some(c"arrow_schema"))?
            .cast::<FFI_ArrowSchema>()
            .as_ref()
    };
    let unsupported = || -> PyResult<PyErr> {
        Ok(PyTypeError::new_err(format!(
            "unsupported Arrow type {}; expected string, large_string, int32 or int64",
            arr.getattr("type")?.str()?
        )))
    };
    let Ok(data_type) = DataType::try_from(schema) else {
        return Err(unsupported()?);
    };
    let plain = match &data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Int32 | DataType::Int64 => None,
        DataType::Dictionary(..) => Some(arr.getattr("type")?.getattr("value_type")?),
        DataType::Utf8View => Some(py.import("pyarrow")?.call_method0("large_string")?),
        DataType::Int8
        | DataType::Int16
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32 => Some(py.import("pyarrow")?.call_method0("int64")?),
        _ => return Err(unsupported()?),
    };
    if let Some(plain) = plain {
        return arrow_source(&arr.call_method1("cast", (plain,))?);
    }
    // SAFETY: by the PyCapsule interface, a capsule named "arrow_array" holds a valid ArrowArray of the
    // schema's type; `from_raw` moves it out (the capsule is left a released one, which it does not free).
    let array = unsafe {
        FFI_ArrowArray::from_raw(
            array
                .pointer_checked(Some(c"arrow_array"))?
                .cast::<FFI_ArrowArray>()
                .as_ptr(),
        )
    };
    // the offsets or values must be aligned for their type to be read in place (arrow-array reads the
    // last offset as aligned); pyarrow's own buffers are, one made from foreign memory may not be
    let align = match data_type {
        DataType::Utf8 | DataType::Int32 => align_of::<i32>(),
        _ => align_of::<i64>(),
    };
    if !array.is_empty()
        && (array.num_buffers() < 2 || {
            let values = array.buffer(1);
            values.is_null() || values.align_offset(align) != 0
        })
    {
        return Err(illegal(
            py,
            "a key buffer is null or not aligned for its type",
        ));
    }
    // an empty slice is read as an empty array: arrow-array would take its data buffer as empty, but not
    // its offsets, and find them past it
    let data = if array.is_empty() {
        arrow_array::new_empty_array(&data_type).to_data()
    } else {
        // SAFETY: the array is of `data_type`, read from its schema.
        unsafe { from_ffi_and_data_type(array, data_type.clone()) }
            .and_then(|d| d.validate().map(|()| d))
            .map_err(|e| illegal(py, format!("malformed Arrow array: {e}")))?
    };
    Ok(match data_type {
        DataType::Utf8 => Source::Utf8(StringArray::from(data)),
        DataType::LargeUtf8 => Source::LargeUtf8(LargeStringArray::from(data)),
        DataType::Int32 => Source::ArrowI32(Int32Array::from(data)),
        _ => Source::ArrowI64(Int64Array::from(data)), // Int64, the one type left
    })
}
