"""The native JSON header reader (``rocketroute._native._read_json_header``, Rust) reads the command the Python
reader (``rocketroute.protocol.frame._decode_json_header``) reads, for every header it takes, and hands every other
one back (``None``), so what Python decides, errors included, stays Python's."""

from __future__ import annotations

import gc
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.protocol import RemotingCommand, SerializeType
from rocketroute.protocol import frame as frame_module
from rocketroute.protocol.frame import FrameDecoder, FrameError, _decode_json_header, decode_frame, decode_header

pytestmark = pytest.mark.skipif(rocketroute.BACKEND != "native", reason="the native reader is the native backend's")

ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
texts = st.text(max_size=30)  # lone surrogates included: Python's reader takes them, the native one hands them back
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)


def _native(data: bytes | bytearray, start: int = 0, end: int | None = None) -> RemotingCommand | None:
    from rocketroute import _native

    fields = _native._read_json_header(data, start, len(data) if end is None else end)
    return None if fields is None else RemotingCommand(*fields, None, SerializeType.JSON)


def _python(data: bytes) -> RemotingCommand | type[BaseException]:
    try:
        return _decode_json_header(data)
    except FrameError as e:
        return type(e)


def test_the_frame_decoders_use_the_native_reader() -> None:
    assert frame_module._native_read is not None


@st.composite
def headers(draw: st.DrawFn) -> bytes:
    """A header as a broker or a client may write it: the usual members in any order, some absent or null, other
    members with any JSON value, ext fields mostly strings, written with or without ASCII escapes and spaces."""
    members: dict[str, object] = {}
    for name, value in (
        ("code", ints),
        ("opaque", ints),
        ("flag", ints),
        ("version", ints),
        ("language", st.none() | texts | st.integers(0, 20)),
        ("remark", st.none() | texts),
        ("extFields", st.none() | st.dictionaries(texts, texts | json_values, max_size=6)),
        ("serializeTypeCurrentRPC", st.just("JSON")),
        ("other", json_values),
    ):
        if draw(st.booleans()):
            members[name] = draw(value)
    names = draw(st.permutations(list(members)))
    text = json.dumps(
        {n: members[n] for n in names},
        ensure_ascii=draw(st.booleans()),
        separators=draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", " :\t")])),
    )
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=600, deadline=None)
@given(data=headers())
def test_what_the_native_reader_reads_is_what_python_reads(data: bytes) -> None:
    native = _native(data)
    expected = _python(data)
    if native is not None:
        assert native == expected
        assert type(native.language) is str and type(native.ext_fields) is dict


@settings(max_examples=300, deadline=None)
@given(data=headers(), cut=st.integers(0, 400), junk=st.binary(max_size=4))
def test_a_damaged_header_is_read_as_python_reads_it_or_handed_back(data: bytes, cut: int, junk: bytes) -> None:
    damaged = data[:cut] + junk + data[cut + len(junk) :]
    native = _native(damaged)
    if native is not None:
        assert native == _python(damaged)


def test_a_broker_response_is_read_natively() -> None:
    data = (
        b'{"code":0,"extFields":{"msgId":"7F0000010000A1550000000000000001","queueId":"2","queueOffset":"1",'
        b'"MSG_REGION":"DefaultRegion","TRACE_ON":"true"},"flag":1,"language":"JAVA","opaque":4,'
        b'"serializeTypeCurrentRPC":"JSON","version":479}'
    )
    native = _native(data)
    assert native is not None and native == _python(data)
    assert native.ext_fields["queueOffset"] == "1" and native.language == "JAVA" and native.remark is None


@pytest.mark.parametrize(
    "data",
    [
        b' {"code":1}',  # leading whitespace
        b'{"code":1.0}',  # a float: Python raises
        b'{"code":2e3}',
        b'{"code":true}',  # a bool: Python raises
        b'{"code":null}',
        b'{"code":9223372036854775808}',  # past 64 bits: Python keeps the int
        b'{"language":3}',  # a language code: Python names it
        b'{"extFields":{"a":1,"b":true,"c":null}}',  # Python converts or drops these
        b'{"remark":"\\ud800"}',  # a lone surrogate: Python keeps it
        b'{"remark":"\x01"}',  # a raw control character: Python raises
        b'{"x":NaN}',  # Python's json takes NaN
        b'{"code":1} extra',
        b'{"code":1}\xc2\xa0',  # trailing non-JSON whitespace (U+00A0): Python takes it
        b'{"remark":"\xff"}',  # not UTF-8
        b"[]",
        b"",
    ],
)
def test_what_the_native_reader_leaves_goes_to_python(data: bytes) -> None:
    assert _native(data) is None
    expected = _python(data)
    if isinstance(expected, type):
        with pytest.raises(expected):
            decode_header(data, SerializeType.JSON)
    else:
        assert decode_header(data, SerializeType.JSON) == expected


def test_a_slice_of_a_bytearray_is_read_in_place() -> None:
    header = b'{"code":5,"opaque":9,"extFields":{"k":"v"}}'
    buf = bytearray(b"xxxx" + header + b"yy")
    assert _native(buf, 4, 4 + len(header)) == _python(header)
    assert _native(buf, 4, 4 + len(header) - 1) is None  # cut short
    assert _native(buf, 4, 10_000) is None  # past the end: handed back, no read past the buffer


def test_frames_read_through_both_decoders() -> None:
    cmd = RemotingCommand(0, 77, 1, "JAVA", 479, "ok", {"queueId": "3", "é": "😀"}, b"body")
    frame = frame_module.encode_frame(cmd)
    assert decode_frame(frame) == cmd
    decoder = FrameDecoder()
    assert list(decoder.feed(frame[:10])) == []
    assert list(decoder.feed(frame[10:] + frame)) == [cmd, cmd]


# -- whole reads: the usual frames of a read in one native call (``_read_frames``), the rest frame by frame -----


def _frame(header: bytes, body: bytes, serialize: int = 0) -> bytes:
    import struct

    return struct.pack(">ii", 4 + len(header) + len(body), serialize << 24 | len(header)) + header + body


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    """Frames as peers write them: mostly usual JSON headers, some unusual ones, ROCKETMQ headers, bodies or none,
    and sometimes a bad one (length under 4, over the maximum, header past the frame) that fails the stream."""
    out = b""
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["usual", "usual", "usual", "header", "rocketmq", "bad"]))
        body = draw(st.binary(max_size=40))
        if kind == "usual":
            fields = draw(st.dictionaries(texts, texts, max_size=3))
            header = {"code": draw(ints), "opaque": draw(st.integers()), "flag": 1, "extFields": fields}
            out += _frame(json.dumps(header).encode(), body)
        elif kind == "header":
            out += _frame(draw(headers()), body)
        elif kind == "rocketmq":
            out += _frame(
                frame_module._encode_rocketmq_header(RemotingCommand(draw(st.integers(0, 400)), opaque=7)), body, 1
            )
        else:
            out += draw(
                st.sampled_from(
                    [
                        b"\x00\x00\x00\x02\x00\x00\x00\x00",
                        b"\x7f\x00\x00\x00\x00\x00\x00\x00",
                        b"\x00\x00\x00\x08\x00\x00\x00\x10xxxx",
                        b"\x00\x00\x00\x08\x05\x00\x00\x00xxxx",
                    ]
                )
            )
    return out


def _decode_stream(data: bytes, cuts: list[int], native: bool) -> list[object]:
    saved = frame_module._native_frames
    if not native:
        frame_module._native_frames = None
    try:
        decoder, out = FrameDecoder(max_frame_size=4096), []
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]  # noqa: B905
        for piece in pieces:
            try:
                view = decoder.get_buffer(len(piece))
                view[: len(piece)] = piece
                out.extend(decoder.buffer_updated(len(piece)))
            except FrameError as e:
                out.append(("error", str(e)))
                break
        out.append(("buffered", decoder.buffered))
        return out
    finally:
        frame_module._native_frames = saved


@settings(max_examples=400, deadline=None)
@given(data=streams(), cuts=st.lists(st.integers(0, 2000), max_size=5).map(sorted))
def test_a_stream_decodes_the_same_with_the_native_reads(data: bytes, cuts: list[int]) -> None:
    cuts = [c for c in cuts if c <= len(data)]
    assert _decode_stream(data, cuts, native=True) == _decode_stream(data, cuts, native=False)


def test_the_decoder_reads_whole_reads_natively() -> None:
    assert frame_module._native_frames is not None
    from rocketroute import _native

    header = b'{"code":0,"opaque":4,"flag":1,"extFields":{"queueId":"2"}}'
    data = bytearray(_frame(header, b"") + _frame(header, b"body") + _frame(header, b"")[:-3])
    reader = _native._read_frames(data, 0, len(data), 1 << 20, RemotingCommand, SerializeType.JSON)
    assert reader.end == 0
    commands, ends = [], []
    for cmd in reader:  # each command made as it is asked for, and where its frame ends
        commands.append(cmd)
        ends.append(reader.end)
    assert commands == [_python(header), RemotingCommand(0, 4, 1, "JAVA", 0, None, {"queueId": "2"}, b"body")]
    assert ends == [8 + len(header), 2 * (8 + len(header)) + 4]  # the incomplete third is left
    assert next(reader, None) is None and reader.end == ends[-1]
    assert not gc.is_tracked(reader)  # bytes, a class and an enum member: nothing for the collector to walk


def test_a_command_taken_is_taken_even_if_the_reader_stops_early() -> None:
    header = b'{"code":0,"opaque":4,"flag":1}'
    decoder = FrameDecoder()
    data = _frame(header, b"") * 3
    view = decoder.get_buffer(len(data))
    view[: len(data)] = data
    frames = decoder.buffer_updated(len(data))
    assert next(frames).opaque == 4
    frames.close()  # the caller stopped after one: the other two stay for the next read
    assert decoder.buffered == 2 * (8 + len(header))
    assert [c.opaque for c in decoder.buffer_updated(0)] == [4, 4]
    assert decoder.buffered == 0


def test_a_decoder_with_a_size_the_native_reader_does_not_take_reads_in_python() -> None:
    header = b'{"code":0,"opaque":4,"flag":1}'
    for size in (4096.0, 1 << 70):
        decoder = FrameDecoder(max_frame_size=size)
        assert decoder._native is None
        assert [c.opaque for c in decoder.feed(_frame(header, b"") * 2)] == [4, 4]
    assert FrameDecoder(max_frame_size=4096)._native is not None
