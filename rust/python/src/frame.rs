//! `_encode_json_frame`: the send path's frame encoding (`rocketroute_core::frame`) for
//! `rocketroute.protocol.frame.encode_frame`, and `_read_json_header`: the response path's header reading
//! (`rocketroute_core::json_header`) for `rocketroute.protocol.frame._decode_json_header`. Both are called first
//! when the native backend is in use, and say `None` for what they leave to the Python code.

use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyString, PyTuple};
use rocketroute_core::frame::{
    frame_prefix, json_frame_at, FrameSpan, JsonHeader, JsonHeaderWriter,
};
use rocketroute_core::json_header::{read_json_header, JsonHeaderFields};
use rocketroute_core::send_header::{send_request_header, SendHeaderV2};

fn int(v: &Bound<'_, PyAny>) -> Option<i64> {
    v.cast::<PyInt>().ok()?.extract().ok()
}

/// A `str`'s text; `None` for anything else, or a string with lone surrogates.
pub(crate) fn text<'a>(v: &'a Bound<'_, PyAny>) -> Option<&'a str> {
    v.cast::<PyString>().ok()?.to_str().ok()
}

/// The whole frame of a command with a JSON header, as `encode_frame` writes it; `None` when a field is of a
/// kind only the Python encoder handles (it then converts or raises as it always did): an int past 64 bits, a
/// string with lone surrogates, an ext field that is not a str to a str, a body that is not bytes, a frame too
/// large for its length words.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _encode_json_frame<'py>(
    py: Python<'py>,
    code: &Bound<'py, PyAny>,
    language: &Bound<'py, PyAny>,
    version: &Bound<'py, PyAny>,
    opaque: &Bound<'py, PyAny>,
    flag: &Bound<'py, PyAny>,
    remark: &Bound<'py, PyAny>,
    ext_fields: &Bound<'py, PyAny>,
    body: &Bound<'py, PyAny>,
) -> Option<Bound<'py, PyBytes>> {
    let remark = optional_text(remark)?;
    let header = JsonHeader {
        code: int(code)?,
        language: text(language)?,
        version: int(version)?,
        opaque: int(opaque)?,
        flag: int(flag)?,
        remark,
    };
    let ext = ext_fields.cast::<PyDict>().ok()?;
    let mut writer = JsonHeaderWriter::new(&header, 128 + 48 * ext.len());
    for (k, v) in ext.iter() {
        writer.ext(text(&k)?, text(&v)?);
    }
    frame_bytes(py, &writer.finish(), body)
}

/// The frame of a JSON `header` and `body` (`None` or `bytes`) as one `bytes`: length words, header, body. `None`
/// for another body, or a frame too large for its length words.
fn frame_bytes<'py>(
    py: Python<'py>,
    header: &[u8],
    body: &Bound<'py, PyAny>,
) -> Option<Bound<'py, PyBytes>> {
    let body = if body.is_none() {
        &[][..]
    } else {
        body.cast::<PyBytes>().ok()?.as_bytes()
    };
    let prefix = frame_prefix(header.len(), body.len())?;
    let total = 8 + header.len() + body.len();
    PyBytes::new_with(py, total, |buf| {
        buf[..8].copy_from_slice(&prefix);
        buf[8..8 + header.len()].copy_from_slice(header);
        buf[8 + header.len()..].copy_from_slice(body);
        Ok(())
    })
    .ok()
}

/// `(code, opaque, flag, language, version, remark, ext_fields)` of the JSON header in `buf[start:end]` (a
/// `bytes` or a `bytearray`), as `rocketroute.protocol.frame._decode_json_header` reads it; `None` where that
/// reader decides (`rocketroute_core::json_header`: an unusual header, or one that does not decode).
#[pyfunction]
pub fn _read_json_header<'py>(
    py: Python<'py>,
    buf: &Bound<'py, PyAny>,
    start: usize,
    end: usize,
) -> Option<Bound<'py, PyTuple>> {
    if let Ok(b) = buf.cast::<PyBytes>() {
        return header_tuple(py, b.as_bytes().get(start..end)?);
    }
    // a bytearray's header is copied first: building the answer's objects may run Python code that could change
    // the bytearray. Only the header: the decoder's buffer holds every frame of a read (64 KiB and more).
    let array = buf.cast::<PyByteArray>().ok()?;
    // SAFETY: the slice is copied at once, with the GIL held and no Python code run between the borrow and the
    // copy, so nothing can resize or change the bytearray meanwhile.
    let copy = unsafe { array.as_bytes() }.get(start..end)?.to_vec();
    header_tuple(py, &copy)
}

fn header_tuple<'py>(py: Python<'py>, data: &[u8]) -> Option<Bound<'py, PyTuple>> {
    let h = read_json_header(data)?;
    let (language, remark, ext) = header_objects(py, &h).ok()?;
    (h.code, h.opaque, h.flag, language, h.version, remark, ext)
        .into_pyobject(py)
        .ok()
}

type HeaderObjects<'py> = (
    Bound<'py, PyString>,
    Option<Bound<'py, PyString>>,
    Bound<'py, PyDict>,
);

/// The `language` (`"JAVA"` when absent), `remark` and `ext_fields` of a header, as Python objects.
fn header_objects<'py>(py: Python<'py>, h: &JsonHeaderFields<'_>) -> PyResult<HeaderObjects<'py>> {
    let ext = PyDict::new(py);
    for (k, v) in &h.ext_fields {
        ext.set_item(PyString::new(py, k), PyString::new(py, v))?;
    }
    let language = match &h.language {
        Some(l) => PyString::new(py, l),
        None => pyo3::intern!(py, "JAVA").clone(),
    };
    let remark = h.remark.as_deref().map(|r| PyString::new(py, r));
    Ok((language, remark, ext))
}

/// The complete frames with a usual JSON header (`rocketroute_core::json_header`) at the start of `buf[pos:end]` (a
/// `bytearray` or `bytes`), as a `_FrameReader` that makes each one's command as it is asked for: `command(code,
/// opaque, flag, language, version, remark, ext_fields, body, serialize_type)` (`body` `None` when the frame has
/// none); its `end` is then the offset in `buf` where that frame ends. It stops at the first frame not yet whole,
/// and at the first the Python decoder reads itself (refused lengths, another serialize type, an unusual header,
/// see `rocketroute_core::frame::json_frame_at`).
///
/// One command at a time, not a list of a read's commands: a connection hands each response to its waiter (and the
/// native backend's waiter resumes its task) before the next is made, so a read of a thousand responses does not
/// first make a thousand objects, which would set off a collection of the youngest generation of Python's garbage
/// collector that walks every send in flight.
#[pyfunction]
pub fn _read_frames(
    buf: &Bound<'_, PyAny>,
    pos: usize,
    end: usize,
    max_frame_size: usize,
    command: Py<PyAny>,
    serialize_type: Py<PyAny>,
) -> PyResult<PyFrameReader> {
    // the whole frames are found, then copied, before any Python object is made (making one may run Python code
    // that could change a bytearray); only they are copied, not a large frame still coming in
    let scan = |data: &[u8]| -> (Vec<u8>, Vec<(usize, FrameSpan)>) {
        let data = data.get(pos..end).unwrap_or_default();
        let mut spans = Vec::new();
        let mut at = 0;
        while let Some(span) = json_frame_at(&data[at..], max_frame_size) {
            let size = span.body.end;
            spans.push((at, span));
            at += size;
        }
        (data[..at].to_vec(), spans)
    };
    let (copy, spans) = if let Ok(b) = buf.cast::<PyBytes>() {
        scan(b.as_bytes())
    } else {
        let array = buf.cast::<PyByteArray>()?;
        // SAFETY: the bytes are read and copied at once, and no Python code runs meanwhile. The decoder's bytearray
        // cannot be resized (the decoder holds a memoryview of it), and only its connection's thread (the loop's,
        // or the reader's) writes to it, never while this runs.
        scan(unsafe { array.as_bytes() })
    };
    Ok(PyFrameReader {
        copy,
        spans,
        base: pos,
        next: AtomicUsize::new(0),
        end: AtomicUsize::new(pos),
        command,
        serialize_type,
    })
}

/// The command of one whole `frame` (length field included) with a usual JSON header, made as `_FrameReader` makes
/// each: `command(code, opaque, flag, language, version, remark, ext_fields, body, serialize_type)`; `None` for
/// a frame the Python decoder reads (see `_read_frames`) or one that is not exactly one frame.
pub(crate) fn command_of<'py>(
    py: Python<'py>,
    frame: &[u8],
    max_frame_size: usize,
    command: &Bound<'py, PyAny>,
    serialize_type: &Bound<'py, PyAny>,
) -> Option<PyResult<Bound<'py, PyAny>>> {
    let span = json_frame_at(frame, max_frame_size)?;
    if span.body.end != frame.len() {
        return None;
    }
    let h = read_json_header(&frame[span.header.clone()])?;
    Some(make_command(
        py,
        &h,
        &frame[span.body],
        command,
        serialize_type,
    ))
}

fn make_command<'py>(
    py: Python<'py>,
    h: &JsonHeaderFields<'_>,
    body: &[u8],
    command: &Bound<'py, PyAny>,
    serialize_type: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let (language, remark, ext) = header_objects(py, h)?;
    let body = (!body.is_empty()).then(|| PyBytes::new(py, body));
    command.call1((
        h.code,
        h.opaque,
        h.flag,
        language,
        h.version,
        remark,
        ext,
        body,
        serialize_type,
    ))
}

/// The commands of a read's whole frames, made one at a time (`_read_frames`). Meant for one consumer: the
/// decoder of a connection. It holds the class and the serialize type it was given and bytes, so it is not tracked
/// by the garbage collector (a class and an enum member hold no reference back to it).
#[pyclass(frozen, name = "_FrameReader", module = "rocketroute._native")]
pub struct PyFrameReader {
    copy: Vec<u8>,
    spans: Vec<(usize, FrameSpan)>,
    base: usize,
    next: AtomicUsize,
    end: AtomicUsize,
    command: Py<PyAny>,
    serialize_type: Py<PyAny>,
}

#[pymethods]
impl PyFrameReader {
    /// Where the frame of the last command given ends, in the buffer read (`pos` before the first).
    #[getter]
    fn end(&self) -> usize {
        self.end.load(Ordering::Relaxed)
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let index = self.next.load(Ordering::Relaxed);
        let Some((at, span)) = self.spans.get(index) else {
            return Ok(None);
        };
        let Some(h) = read_json_header(&self.copy[at + span.header.start..at + span.header.end])
        else {
            self.next.store(self.spans.len(), Ordering::Relaxed); // the Python decoder reads it, and the rest
            return Ok(None);
        };
        let body = &self.copy[at + span.body.start..at + span.body.end];
        let cmd = make_command(
            py,
            &h,
            body,
            self.command.bind(py),
            self.serialize_type.bind(py),
        )?;
        self.next.store(index + 1, Ordering::Relaxed);
        self.end
            .store(self.base + at + span.body.end, Ordering::Relaxed);
        Ok(Some(cmd))
    }
}

/// [`text`] of a `str` or `None`.
pub(crate) fn optional_text<'a>(v: &'a Bound<'_, PyAny>) -> Option<Option<&'a str>> {
    if v.is_none() {
        Some(None)
    } else {
        text(v).map(Some)
    }
}

/// An `int` that is not a `bool` (`send_header_v2` refuses a `bool` for a number).
pub(crate) fn exact_int(v: &Bound<'_, PyAny>) -> Option<i64> {
    v.cast_exact::<PyInt>().ok()?.extract().ok()
}

/// A `bool`, and nothing else (not an int, not another object's truth).
pub(crate) fn boolean(v: &Bound<'_, PyAny>) -> Option<bool> {
    Some(v.cast_exact::<PyBool>().ok()?.is_true())
}

/// The whole frame of a send request, as `encode_frame` writes the command whose ext fields are
/// `send_header_v2`'s (`rocketroute_core::send_header`), for `rocketroute.protocol.headers.send.send_request`;
/// `None` for what only the Python encoder writes (an int past 64 bits, a non-str string, a
/// lone surrogate, a body that is not bytes, a frame too large for its length words).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _send_request_frame<'py>(
    py: Python<'py>,
    code: &Bound<'py, PyAny>,
    opaque: &Bound<'py, PyAny>,
    flag: &Bound<'py, PyAny>,
    language: &Bound<'py, PyAny>,
    version: &Bound<'py, PyAny>,
    producer_group: &Bound<'py, PyAny>,
    topic: &Bound<'py, PyAny>,
    default_topic: &Bound<'py, PyAny>,
    default_topic_queue_nums: &Bound<'py, PyAny>,
    queue_id: &Bound<'py, PyAny>,
    sys_flag: &Bound<'py, PyAny>,
    born_timestamp: &Bound<'py, PyAny>,
    msg_flag: &Bound<'py, PyAny>,
    properties: &Bound<'py, PyAny>,
    unit_mode: &Bound<'py, PyAny>,
    batch: &Bound<'py, PyAny>,
    broker_name: &Bound<'py, PyAny>,
    body: &Bound<'py, PyAny>,
) -> Option<Bound<'py, PyBytes>> {
    let command = JsonHeader {
        code: int(code)?,
        language: text(language)?,
        version: int(version)?,
        opaque: int(opaque)?,
        flag: int(flag)?,
        remark: None,
    };
    let header = SendHeaderV2 {
        producer_group: text(producer_group)?,
        topic: text(topic)?,
        default_topic: text(default_topic)?,
        default_topic_queue_nums: exact_int(default_topic_queue_nums)?,
        queue_id: exact_int(queue_id)?,
        sys_flag: exact_int(sys_flag)?,
        born_timestamp: exact_int(born_timestamp)?,
        flag: exact_int(msg_flag)?,
        properties: optional_text(properties)?,
        reconsume_times: 0,
        unit_mode: boolean(unit_mode)?,
        max_reconsume_times: None,
        batch: boolean(batch)?,
        broker_name: optional_text(broker_name)?,
    };
    frame_bytes(py, &send_request_header(&command, &header), body)
}
