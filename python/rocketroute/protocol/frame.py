"""The remoting wire format: frames and the two header serializations (Java's ``RemotingCommand.encode``/``decode``,
``RemotingSerializable`` for JSON and ``RocketMQSerializable`` for the ROCKETMQ binary header).

A frame is::

    int32 length                  4 + header length + body length (big-endian, like every integer here)
    int32 type_and_header_length  high byte: serialize type (0 JSON, 1 ROCKETMQ); low 3 bytes: header length
    header                        the serialized header
    body                          the rest of the frame

The JSON header is an object with ``code``, ``language`` (a ``LanguageCode`` name), ``version``, ``opaque``,
``flag``, ``remark`` (absent or null when none), ``extFields`` (an object of strings) and
``serializeTypeCurrentRPC``. The ROCKETMQ header is ``code`` int16, ``language`` byte code, ``version`` int16,
``opaque`` int32, ``flag`` int32, ``remark`` (int32 length + UTF-8), ``extFields`` (int32 length + repeated
int16 key length, key, int32 value length, value).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator

from .._backend import native_twin
from ..reference.java import java_utf8
from .command import LANGUAGE_CODES, LANGUAGE_NAMES, RemotingCommand, SerializeType
from .errors import FrameError

__all__ = [
    "DEFAULT_MAX_FRAME_SIZE",
    "READ_BUFFER_SIZE",
    "FrameDecoder",
    "decode_frame",
    "decode_header",
    "encode_frame",
    "encode_header",
]

DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024
"""Java's default frame limit (``NettyDecoder.FRAME_MAX_LENGTH``, the ``com.rocketmq.remoting.frameMaxLength``
property, 16777216). As in Java's ``LengthFieldBasedFrameDecoder(FRAME_MAX_LENGTH, 0, 4, 0, 4)`` it bounds the whole
frame, the 4-byte length field included."""

_PREFIX = struct.Struct(">ii")
_INT = struct.Struct(">i")
_SHORT = struct.Struct(">h")
_RMQ_FIXED = struct.Struct(">hBhii")
_JSON_TYPE = SerializeType.JSON
_ROCKETMQ_TYPE = SerializeType.ROCKETMQ
_SERIALIZE_TYPES = {0: SerializeType.JSON, 1: SerializeType.ROCKETMQ}
_json_string = json.encoder.encode_basestring  # a str as a JSON string literal, non-ASCII kept (the C function)


def _not_a_string(value: object) -> object:
    raise TypeError(
        f"ext field values are str, not {type(value).__name__}: build requests with RemotingCommand.request"
    )


_json_encode_object = (
    json.encoder.c_make_encoder(  # C encoder of a flat dict of strings, built once
        None, _not_a_string, _json_string, None, ":", ",", False, False, True
    )
    if json.encoder.c_make_encoder is not None
    else None
)
_json_raw_decode = json.JSONDecoder().raw_decode


# -- encoding ------------------------------------------------------------------------------------------------------


def _ext_json(ext: dict[str, str]) -> str:
    if _json_encode_object is not None:
        return "".join(_json_encode_object(ext, 0))
    return json.dumps(ext, ensure_ascii=False, separators=(",", ":"), default=_not_a_string)


def _encode_json_header(cmd: RemotingCommand) -> bytes:
    # written out by hand (about twice as fast as json.dumps of the whole header): the same bytes
    text = (
        f'{{"code":{cmd.code:d},"language":{_json_string(cmd.language)},"version":{cmd.version:d},'
        f'"opaque":{cmd.opaque:d},"flag":{cmd.flag:d}'
    )
    if cmd.remark is not None:
        text += ',"remark":' + _json_string(cmd.remark)
    if cmd.ext_fields:
        text += ',"extFields":' + _ext_json(cmd.ext_fields)
    text += ',"serializeTypeCurrentRPC":"JSON"}'
    try:
        return text.encode()
    except UnicodeEncodeError:  # a lone surrogate (in a tag, a key, a property): Java's getBytes(UTF_8) writes "?"
        return java_utf8(text)


def _encode_rocketmq_header(cmd: RemotingCommand) -> bytes:
    language = LANGUAGE_CODES.get(cmd.language)
    if language is None:
        raise ValueError(f"language {cmd.language!r} has no LanguageCode byte")
    for name in ("code", "version"):
        value = getattr(cmd, name)
        if not -0x8000 <= value <= 0x7FFF:
            raise ValueError(f"{name} {value} does not fit the ROCKETMQ header's int16")
    out = bytearray(_RMQ_FIXED.pack(cmd.code, language, cmd.version, cmd.opaque, cmd.flag))
    remark = java_utf8(cmd.remark) if cmd.remark else b""
    out += _INT.pack(len(remark))
    out += remark
    ext = bytearray()
    for key, value in cmd.ext_fields.items():
        kb = java_utf8(key)
        vb = java_utf8(value)
        if len(kb) > 0x7FFF:
            raise ValueError(f"ext field name of {len(kb)} bytes does not fit the ROCKETMQ header's int16 length")
        ext += _SHORT.pack(len(kb))
        ext += kb
        ext += _INT.pack(len(vb))
        ext += vb
    out += _INT.pack(len(ext))
    out += ext
    return bytes(out)


def encode_header(cmd: RemotingCommand, serialize_type: SerializeType | None = None) -> bytes:
    """The serialized header of ``cmd`` (``serialize_type`` defaults to ``cmd.serialize_type``).

    JSON writes ``remark`` only when it is not ``None`` and ``extFields`` only when there are some (Java's fastjson
    leaves out null fields), and always ``"serializeTypeCurrentRPC": "JSON"``. ROCKETMQ writes an empty remark as
    length 0, as Java does (Java reads it back as null); ``code`` and ``version`` must fit an int16 (Java would
    truncate them) and ``language`` must be a ``LanguageCode`` name."""
    st = cmd.serialize_type if serialize_type is None else serialize_type
    if st == _JSON_TYPE:
        return _encode_json_header(cmd)
    if st == _ROCKETMQ_TYPE:
        return _encode_rocketmq_header(cmd)
    raise ValueError(f"unknown serialize type {st!r}")


_native_encode = native_twin("_encode_json_frame")


def encode_frame(cmd: RemotingCommand, serialize_type: SerializeType | None = None) -> bytes:
    """The whole frame of ``cmd``: length, serialize type and header length, header, body (Java's
    ``RemotingCommand.encode()``). An empty or ``None`` body adds no bytes. With the native backend a JSON header
    is written in Rust (the same bytes); what it does not take (an int past 64 bits, a ``bytearray`` body, ...)
    is written here."""
    st = cmd.serialize_type if serialize_type is None else serialize_type
    if st == _JSON_TYPE and _native_encode is not None:
        frame = _native_encode(
            cmd.code, cmd.language, cmd.version, cmd.opaque, cmd.flag, cmd.remark, cmd.ext_fields, cmd.body
        )
        if frame is not None:
            return frame  # type: ignore[no-any-return]
    return _encode_frame(cmd, st)


def _encode_frame(cmd: RemotingCommand, st: SerializeType) -> bytes:
    """:func:`encode_frame` in Python: the reference of the native encoder, and what it leaves to Python."""
    header = _encode_json_header(cmd) if st == _JSON_TYPE else encode_header(cmd, st)
    header_length = len(header)
    if header_length > 0xFFFFFF:
        raise ValueError(f"a header of {header_length} bytes does not fit the frame's 3-byte header length")
    body = cmd.body
    if body:
        return b"".join((_PREFIX.pack(4 + header_length + len(body), (st << 24) | header_length), header, body))
    return _PREFIX.pack(4 + header_length, (st << 24) | header_length) + header


# -- decoding ------------------------------------------------------------------------------------------------------


def _ext_text(key: object, value: object) -> str | None:
    if isinstance(value, str):
        return value
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    raise FrameError(f"JSON header: extFields[{key!r}] is a {type(value).__name__}, not a string")


def _decode_json_header(data: bytes | bytearray) -> RemotingCommand:
    try:
        text = data.decode()
        if text[:1] != "{":
            text = text.strip()
        header, end = _json_raw_decode(text)
        if end != len(text) and not text[end:].isspace():
            raise ValueError(f"extra data after the header at {end}")
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError too
        raise FrameError(f"undecodable JSON header: {e}") from None
    except RecursionError:  # json's C scanner recurses once per level of nesting
        raise FrameError("undecodable JSON header: nested too deeply") from None
    if type(header) is not dict:
        raise FrameError(f"the JSON header is a {type(header).__name__}, not an object")
    get = header.get
    code = get("code", 0)
    opaque = get("opaque", 0)
    flag = get("flag", 0)
    version = get("version", 0)
    if not (type(code) is int and type(opaque) is int and type(flag) is int and type(version) is int):
        raise FrameError("JSON header: code, opaque, flag and version must be integers")
    language = get("language")
    if language is None:
        language = "JAVA"
    elif type(language) is not str:
        if type(language) is int and 0 <= language < len(LANGUAGE_NAMES):
            language = LANGUAGE_NAMES[language]
        else:
            raise FrameError(f"JSON header: bad language {language!r}")
    remark = get("remark")
    if remark is not None and type(remark) is not str:
        raise FrameError("JSON header: remark is not a string")
    ext = get("extFields")
    if ext is None:
        ext = {}
    elif type(ext) is not dict:
        raise FrameError("JSON header: extFields is not an object")
    else:
        for value in ext.values():
            if type(value) is not str:
                ext = {k: t for k, v in ext.items() if (t := _ext_text(k, v)) is not None}
                break
    return RemotingCommand(code, opaque, flag, language, version, remark, ext, None, _JSON_TYPE)


def _decode_rocketmq_header(data: bytes | bytearray) -> RemotingCommand:
    end = len(data)
    try:
        code, language, version, opaque, flag = _RMQ_FIXED.unpack_from(data, 0)
        pos = _RMQ_FIXED.size
        (remark_length,) = _INT.unpack_from(data, pos)
        pos += 4
        if remark_length < 0 or remark_length > end - pos:
            raise FrameError(f"ROCKETMQ header: bad remark length {remark_length}")
        remark = bytes(data[pos : pos + remark_length]).decode() if remark_length else None
        pos += remark_length
        (ext_length,) = _INT.unpack_from(data, pos)
        pos += 4
        if ext_length < 0 or ext_length > end - pos:
            raise FrameError(f"ROCKETMQ header: bad extFields length {ext_length}")
        ext: dict[str, str] = {}
        ext_end = pos + ext_length
        while pos < ext_end:
            (key_length,) = _SHORT.unpack_from(data, pos)
            pos += 2
            if key_length < 0 or key_length > ext_end - pos:
                raise FrameError(f"ROCKETMQ header: bad ext field name length {key_length}")
            key = bytes(data[pos : pos + key_length]).decode()
            pos += key_length
            (value_length,) = _INT.unpack_from(data, pos)
            pos += 4
            if value_length < 0 or value_length > ext_end - pos:
                raise FrameError(f"ROCKETMQ header: bad ext field value length {value_length}")
            ext[key] = bytes(data[pos : pos + value_length]).decode()
            pos += value_length
    except struct.error:
        raise FrameError("ROCKETMQ header: truncated") from None
    except UnicodeDecodeError as e:
        raise FrameError(f"ROCKETMQ header: {e}") from None
    name = LANGUAGE_NAMES[language] if language < len(LANGUAGE_NAMES) else "OTHER"
    return RemotingCommand(code, opaque, flag, name, version, remark, ext, None, _ROCKETMQ_TYPE)


def decode_header(data: bytes | bytearray, serialize_type: SerializeType) -> RemotingCommand:
    """A command (without body) from its serialized header. Raises :class:`FrameError` when it does not decode.

    JSON: a missing or null field takes Java's default (``code``/``opaque``/``flag``/``version`` 0, ``language``
    ``"JAVA"``); non-string ``extFields`` values become strings (numbers in decimal, booleans lowercase, nulls
    left out). ROCKETMQ: a zero-length remark is ``None``; a zero-length ext field value is ``""`` (Java reads it
    as null); an unknown language byte is ``"OTHER"``. Any other failure to read the header (a JSON header nested
    too deeply for the interpreter's recursion limit included) is a :class:`FrameError` too."""
    try:
        if serialize_type == _JSON_TYPE:
            return _decode_header_of(data, 0, len(data), serialize_type)
        if serialize_type == _ROCKETMQ_TYPE:
            return _decode_rocketmq_header(data)
    except FrameError:
        raise
    except Exception as e:
        raise _unexpected(serialize_type, e) from e
    raise FrameError(f"unknown serialize type {serialize_type}")


def _unexpected(serialize_type: SerializeType, e: Exception) -> FrameError:
    """A header decoder's exception that is not a :class:`FrameError`, as one: whatever a peer sends, the callers
    (``buffer_updated`` among them) see only the documented error."""
    name = "JSON" if serialize_type == _JSON_TYPE else "ROCKETMQ"
    return FrameError(f"undecodable {name} header: {type(e).__name__}: {e}")


_native_read = native_twin("_read_json_header")
_native_frames = native_twin("_read_frames")


def _decode_header_of(buf: bytes | bytearray, start: int, end: int, serialize_type: SerializeType) -> RemotingCommand:
    """The command of the header in ``buf[start:end]``. With the native backend a JSON header of the usual shape is
    read in Rust (the same command); what it leaves (see ``rocketroute_core::json_header``) is read here."""
    try:
        if serialize_type is _JSON_TYPE:
            if _native_read is not None:
                fields = _native_read(buf, start, end)
                if fields is not None:
                    return RemotingCommand(*fields, None, _JSON_TYPE)
            return _decode_json_header(buf[start:end])
        return _decode_rocketmq_header(buf[start:end])
    except FrameError:
        raise
    except Exception as e:
        raise _unexpected(serialize_type, e) from e


def decode_frame(frame: bytes, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> RemotingCommand:
    """The command of one complete frame (length field included). Raises :class:`FrameError` when ``frame`` is
    not exactly one valid frame."""
    size = len(frame)
    if 8 <= size <= max_frame_size and type(frame) is bytes:
        # the common case, a well-formed frame, without the incremental decoder's bookkeeping
        length, mark = _PREFIX.unpack_from(frame)
        header_end = 8 + (mark & 0xFFFFFF)
        serialize_type = _SERIALIZE_TYPES.get((mark >> 24) & 0xFF)
        if length + 4 == size and header_end <= size and serialize_type is not None:
            cmd = _decode_header_of(frame, 8, header_end, serialize_type)
            if size > header_end:
                cmd.body = frame[header_end:]
            return cmd
    decoder = FrameDecoder(max_frame_size)
    commands = list(decoder.feed(frame))
    if len(commands) != 1 or decoder.buffered:
        raise FrameError(f"expected exactly one frame, got {len(commands)} and {decoder.buffered} bytes more")
    return commands[0]


READ_BUFFER_SIZE = 256 * 1024
"""How much :meth:`FrameDecoder.get_buffer` offers a read at least: a larger frame grows the buffer to hold it
whole while it comes in."""

_KEPT_BUFFER_SIZE = 4 * 1024 * 1024  # a buffer a large frame grew past this goes back to READ_BUFFER_SIZE once empty


class FrameDecoder:
    """Incremental frame decoder: bytes in as they arrive, each complete command out.

    Two ways to give it bytes: :meth:`feed` copies them in; :meth:`get_buffer` and :meth:`buffer_updated` (what an
    ``asyncio.BufferedProtocol`` calls) let a socket read straight into the decoder's buffer, with no bytes object
    made per read (``asyncio``'s plain protocols allocate a 256 KiB one for each read and shrink it).

    It raises :class:`FrameError` as soon as the bytes it has show the frame is bad, without waiting for the rest
    of it: a length field under 4 or a frame (length field included) over ``max_frame_size`` once the 4 length
    bytes are in; an unknown serialize type or a header length over the frame's length once the next 4 are in; an
    undecodable header (malformed, of the wrong types, or a JSON header nested too deeply) once the frame is
    complete. No other exception comes out of :meth:`feed` or :meth:`buffer_updated` for any bytes. After an error
    the decoder stays failed (every later call raises), as the stream can no longer be parsed: close the
    connection.
    """

    __slots__ = ("_buf", "_end", "_error", "_native", "_pos", "_view", "max_frame_size")

    def __init__(self, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> None:
        if max_frame_size < 8:
            raise ValueError("max_frame_size must be at least 8")
        self.max_frame_size = max_frame_size
        # the native reader of whole reads takes a plain int size (another is compared by the Python path)
        self._native = _native_frames if type(max_frame_size) is int and max_frame_size < 1 << 62 else None
        # the bytes received and not yet taken are _buf[_pos:_end]; _view is a view of _buf for the reads (while a
        # view of it exists a bytearray cannot change size, so it is replaced, never resized)
        self._buf = bytearray()
        self._view = memoryview(self._buf)
        self._pos = 0
        self._end = 0
        self._error: FrameError | None = None

    @property
    def buffered(self) -> int:
        """Bytes received that are not yet a complete frame."""
        return self._end - self._pos

    @property
    def expected(self) -> int | None:
        """The size of the incomplete frame being received (length field included), once its length is known."""
        if self.buffered < 4:
            return None
        return _INT.unpack_from(self._buf, self._pos)[0] + 4

    def feed(self, data: bytes | bytearray | memoryview) -> Iterator[RemotingCommand]:
        """Add ``data`` and yield every command it completes, in order. Consume the iterator before the next call
        (the bytes are added when iteration starts)."""
        self._check()
        if not isinstance(data, (bytes, bytearray)):
            data = memoryview(data).tobytes()  # any buffer (as bytearray += took); not an int
        size = len(data)
        self._reserve(size, 0)
        end = self._end
        self._view[end : end + size] = data
        self._end = end + size
        yield from self._frames()

    def get_buffer(self, sizehint: int = -1) -> memoryview:
        """Where the next bytes read go: a writable view of at least :data:`READ_BUFFER_SIZE` bytes (``sizehint``
        bytes where that is more), or the whole of an incomplete frame's rest where it is larger. Then call
        :meth:`buffer_updated` with how many bytes were written at its start, before the next call."""
        size = len(self._buf)
        if not self._end and READ_BUFFER_SIZE <= size <= _KEPT_BUFFER_SIZE and sizehint <= size and not self._error:
            return self._view  # the usual case, every frame taken: the whole buffer
        self._check()
        want = max(sizehint, READ_BUFFER_SIZE)
        expected = self.expected
        if expected is not None and expected <= self.max_frame_size:
            want = max(want, expected - self.buffered)
        self._reserve(want, READ_BUFFER_SIZE)
        return self._view[self._end :]

    def buffer_updated(self, nbytes: int) -> Iterator[RemotingCommand]:
        """``nbytes`` bytes were written at the start of the last :meth:`get_buffer`'s view: yield every command they
        complete, in order (consume the iterator before the next call)."""
        self._check()
        if not 0 <= nbytes <= len(self._buf) - self._end:
            raise ValueError(f"buffer_updated({nbytes}): the buffer handed out has {len(self._buf) - self._end} bytes")
        self._end += nbytes
        return self._frames()

    def _check(self) -> None:
        if self._error is not None:
            raise FrameError(f"the decoder failed earlier: {self._error}")

    def _reserve(self, size: int, at_least: int) -> None:
        """Room for ``size`` more bytes after the unread ones: the unread bytes moved to the front, or the buffer
        replaced by a larger one (``at_least`` bytes, or twice its size, where that is more than needed). An empty
        buffer a large frame grew goes back to ``at_least`` bytes."""
        pos, end = self._pos, self._end
        unread = end - pos
        if unread == 0:
            if len(self._buf) > _KEPT_BUFFER_SIZE and size <= READ_BUFFER_SIZE:
                self._replace(bytearray(max(at_least, size)), 0)
                return
            self._pos = self._end = pos = end = 0
        if len(self._buf) - end >= size:
            return
        need = unread + size
        buf = self._buf
        if len(buf) >= need:
            buf[:unread] = buf[pos:end]  # the same size: allowed while views of it exist
            self._pos, self._end = 0, unread
            return
        new = bytearray(max(need, at_least, 2 * len(buf)))
        new[:unread] = self._view[pos:end]
        self._replace(new, unread)

    def _replace(self, buf: bytearray, unread: int) -> None:
        self._buf = buf
        self._view = memoryview(buf)
        self._pos, self._end = 0, unread

    def _frames(self) -> Iterator[RemotingCommand]:
        while True:
            if self._native is not None and self._end - self._pos >= 8:
                # the usual frames of the read, found in one native call and made one at a time (each handed on
                # before the next is made); each one's bytes count as taken once it is given
                reader = self._native(self._buf, self._pos, self._end, self.max_frame_size, RemotingCommand, _JSON_TYPE)
                for cmd in reader:
                    self._pos = reader.end
                    yield cmd
                if self._pos == self._end:
                    self._pos = self._end = 0
                    return
            try:
                cmd = self._next()
            except FrameError as e:
                self._error = e
                raise
            if cmd is None:
                return
            yield cmd

    def _next(self) -> RemotingCommand | None:
        buf = self._buf
        pos = self._pos
        available = self._end - pos
        if available < 4:
            return None
        (length,) = _INT.unpack_from(buf, pos)
        if length < 4:
            raise FrameError(f"bad frame length field {length} (0x{length & 0xFFFFFFFF:08x}): less than 4")
        if length > self.max_frame_size - 4:
            raise FrameError(
                f"frame of {length + 4} bytes (length field 0x{length:08x}) is over the maximum frame size "
                f"{self.max_frame_size}"
            )
        if available < 8:
            return None
        (mark,) = _INT.unpack_from(buf, pos + 4)
        serialize_type = _SERIALIZE_TYPES.get((mark >> 24) & 0xFF)
        if serialize_type is None:
            raise FrameError(f"unknown serialize type {(mark >> 24) & 0xFF} in the frame's header-length field")
        header_length = mark & 0xFFFFFF
        if header_length > length - 4:
            raise FrameError(f"bad header length {header_length}: the frame has {length - 4} bytes for header and body")
        if available < 4 + length:
            return None
        body_start = pos + 8 + header_length
        end = pos + 4 + length
        cmd = _decode_header_of(buf, pos + 8, body_start, serialize_type)
        if end > body_start:
            cmd.body = self._view[body_start:end].tobytes()
        if end == self._end:
            self._pos = self._end = 0
        else:
            self._pos = end
        return cmd
