"""The wire format: frames, the JSON and ROCKETMQ headers, the incremental decoder and its errors."""

from __future__ import annotations

import json
import random
import struct
from typing import Any

import pytest

from rocketroute.protocol import (
    DEFAULT_MAX_FRAME_SIZE,
    FrameDecoder,
    FrameError,
    RemotingCommand,
    SerializeType,
    decode_frame,
    decode_header,
    encode_frame,
    encode_header,
)
from rocketroute.protocol.frame import READ_BUFFER_SIZE

JSON = SerializeType.JSON
ROCKETMQ = SerializeType.ROCKETMQ


def frame_of(header: bytes, body: bytes = b"", serialize_type: int = 0) -> bytes:
    """A frame written out from the documented layout."""
    return struct.pack(">ii", 4 + len(header) + len(body), (serialize_type << 24) | len(header)) + header + body


def rocketmq_header(code, language, version, opaque, flag, remark: bytes, ext: list[tuple[bytes, bytes]]) -> bytes:
    """A ROCKETMQ binary header written out from the documented layout."""
    ext_bytes = b"".join(struct.pack(">h", len(k)) + k + struct.pack(">i", len(v)) + v for k, v in ext)
    return (
        struct.pack(">hbhii", code, language, version, opaque, flag)
        + struct.pack(">i", len(remark))
        + remark
        + struct.pack(">i", len(ext_bytes))
        + ext_bytes
    )


def same(a: RemotingCommand, b: RemotingCommand) -> None:
    assert (a.code, a.opaque, a.flag, a.language, a.version, a.remark, a.ext_fields, a.body) == (
        b.code,
        b.opaque,
        b.flag,
        b.language,
        b.version,
        b.remark,
        b.ext_fields,
        b.body,
    )


# -- encoding ------------------------------------------------------------------------------------------------------


def test_json_frame_layout() -> None:
    cmd = RemotingCommand.request(310, {"a": "x", "b": 7, "c": True, "d": False}, b"body!")
    frame = encode_frame(cmd)
    length, mark = struct.unpack_from(">ii", frame)
    header_length = mark & 0xFFFFFF
    assert mark >> 24 == 0  # JSON
    assert length == len(frame) - 4 == 4 + header_length + 5
    assert frame[8 + header_length :] == b"body!"
    header = json.loads(frame[8 : 8 + header_length])
    assert header == {
        "code": 310,
        "language": "PYTHON",
        "version": 479,
        "opaque": cmd.opaque,
        "flag": 0,
        "extFields": {"a": "x", "b": "7", "c": "true", "d": "false"},
        "serializeTypeCurrentRPC": "JSON",
    }


def test_json_header_leaves_out_null_remark_and_empty_ext_fields() -> None:
    header = json.loads(encode_header(RemotingCommand(105, opaque=3)))
    assert "remark" not in header and "extFields" not in header
    assert header["serializeTypeCurrentRPC"] == "JSON"


def test_json_header_writes_unicode_as_utf8() -> None:
    header = encode_header(RemotingCommand(1, opaque=1, remark="ключ ✓ 𝄞"))
    assert "ключ ✓ 𝄞".encode() in header


def test_rocketmq_frame_layout_exact_bytes() -> None:
    cmd = RemotingCommand(
        code=310,
        opaque=-5,
        flag=2,
        language="PYTHON",
        version=479,
        remark="r",
        ext_fields={"k": "v", "ключ": "значение"},
        body=b"xyz",
        serialize_type=ROCKETMQ,
    )
    header = rocketmq_header(310, 3, 479, -5, 2, b"r", [(b"k", b"v"), ("ключ".encode(), "значение".encode())])
    assert encode_frame(cmd) == frame_of(header, b"xyz", serialize_type=1)


def test_frame_without_body_has_no_body_bytes() -> None:
    for body in (None, b""):
        cmd = RemotingCommand(34, opaque=9, body=body)
        header = encode_header(cmd)
        assert encode_frame(cmd) == frame_of(header)


def test_encode_frame_can_override_the_commands_serialize_type() -> None:
    cmd = RemotingCommand(30, opaque=1)
    assert struct.unpack_from(">i", encode_frame(cmd, ROCKETMQ), 4)[0] >> 24 == 1
    assert struct.unpack_from(">i", encode_frame(cmd), 4)[0] >> 24 == 0


def test_rocketmq_header_refuses_what_its_int16_fields_cannot_hold() -> None:
    with pytest.raises(ValueError, match="int16"):
        encode_frame(RemotingCommand(200050, opaque=1), ROCKETMQ)  # POP_MESSAGE: JSON only
    with pytest.raises(ValueError, match="LanguageCode"):
        encode_frame(RemotingCommand(10, opaque=1, language="COBOL"), ROCKETMQ)


def test_ext_field_values_that_are_not_strings_are_refused_by_the_encoder() -> None:
    with pytest.raises(TypeError, match=r"RemotingCommand\.request"):
        encode_frame(RemotingCommand(10, opaque=1, ext_fields={"x": object()}))  # type: ignore[dict-item]


# -- round trips ---------------------------------------------------------------------------------------------------

COMMANDS = [
    RemotingCommand(10, opaque=0),
    RemotingCommand(310, opaque=2**31 - 1, flag=3, remark="", ext_fields={}, body=b"\x00\x01\xff"),
    RemotingCommand(17, opaque=-(2**31), flag=1, remark="Topic route was not found", ext_fields={"a": "b"}),
    RemotingCommand(105, opaque=42, remark="ünïcödé ✓ 𝄞 中文", ext_fields={"topic": "t€st", "空": "值"}),
    RemotingCommand(320, opaque=7, language="JAVA", version=409, ext_fields={f"k{i}": str(i) for i in range(50)}),
    RemotingCommand(11, opaque=8, body=bytes(range(256)) * 300),
]


@pytest.mark.parametrize("serialize_type", [JSON, ROCKETMQ])
@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: f"code{c.code}")
def test_round_trip(cmd: RemotingCommand, serialize_type: SerializeType) -> None:
    decoded = decode_frame(encode_frame(cmd, serialize_type))
    assert decoded.serialize_type is serialize_type
    expected_remark = cmd.remark
    if serialize_type is ROCKETMQ and cmd.remark == "":
        expected_remark = None  # Java writes an empty remark as length 0 and reads it back as null
    assert decoded.remark == expected_remark
    assert decoded.body == (cmd.body or None)  # Java decodes an empty body as null
    decoded.remark, decoded.body = cmd.remark, cmd.body
    same(decoded, cmd)


def test_empty_ext_value_round_trips_as_empty_string() -> None:
    cmd = RemotingCommand(10, opaque=1, ext_fields={"empty": ""})
    for st in (JSON, ROCKETMQ):
        assert decode_frame(encode_frame(cmd, st)).ext_fields == {"empty": ""}


# -- decoding what others write ------------------------------------------------------------------------------------


def test_decodes_a_hand_built_rocketmq_frame() -> None:
    header = rocketmq_header(0, 12, 474, 99, 1, "ok ✓".encode(), [(b"queueId", b"3"), (b"queueOffset", b"17")])
    cmd = decode_frame(frame_of(header, b"payload", 1))
    same(
        cmd,
        RemotingCommand(0, 99, 1, "RUST", 474, "ok ✓", {"queueId": "3", "queueOffset": "17"}, b"payload"),
    )
    assert cmd.is_response and not cmd.is_oneway


def test_rocketmq_unknown_language_byte_is_other() -> None:
    header = rocketmq_header(0, 99, 0, 1, 1, b"", [])
    assert decode_frame(frame_of(header, serialize_type=1)).language == "OTHER"


def test_json_header_with_missing_fields_takes_javas_defaults() -> None:
    cmd = decode_frame(frame_of(b'{"code":17}'))
    same(cmd, RemotingCommand(17, 0, 0, "JAVA", 0, None, {}, None))


def test_json_header_null_remark_ext_fields_and_language() -> None:
    cmd = decode_frame(frame_of(b'{"code":0,"opaque":4,"flag":1,"remark":null,"extFields":null,"language":"RUST"}'))
    assert cmd.remark is None and cmd.ext_fields == {} and cmd.language == "RUST"
    assert decode_frame(frame_of(b'{"code":0,"language":null}')).language == "JAVA"


def test_json_ext_field_values_become_strings() -> None:
    header = b'{"code":0,"opaque":1,"extFields":{"n":5,"b":true,"f":false,"x":null,"s":"t","d":1.5}}'
    assert decode_frame(frame_of(header)).ext_fields == {"n": "5", "b": "true", "f": "false", "s": "t", "d": "1.5"}


def test_json_header_surrounded_by_whitespace() -> None:
    assert decode_frame(frame_of(b' \n{"code":5} \r\n')).code == 5
    bad(frame_of(b'{"code":5} x'))


def test_json_language_given_as_its_byte_code() -> None:
    assert decode_frame(frame_of(b'{"code":0,"language":3}')).language == "PYTHON"


def test_flags() -> None:
    cmd = RemotingCommand(10, opaque=1)
    assert not cmd.is_response and not cmd.is_oneway
    cmd.mark_oneway()
    assert cmd.flag == 2 and cmd.is_oneway and not cmd.is_response
    cmd.mark_response()
    assert cmd.flag == 3 and cmd.is_response


# -- the incremental decoder ---------------------------------------------------------------------------------------


def test_decoder_fed_byte_by_byte() -> None:
    cmds = [c for c in COMMANDS[:5]]
    stream = b"".join(encode_frame(c, JSON if i % 2 else ROCKETMQ) for i, c in enumerate(cmds))
    decoder = FrameDecoder()
    out: list[RemotingCommand] = []
    for i in range(len(stream)):
        out.extend(decoder.feed(stream[i : i + 1]))
    assert len(out) == len(cmds)
    assert [c.opaque for c in out] == [c.opaque for c in cmds]
    assert [c.ext_fields for c in out] == [c.ext_fields for c in cmds]
    assert decoder.buffered == 0


def test_decoder_many_frames_in_one_chunk_and_a_partial_tail() -> None:
    frames = [encode_frame(RemotingCommand(10, opaque=i, body=b"x" * i)) for i in range(20)]
    stream = b"".join(frames)
    decoder = FrameDecoder()
    tail = 5
    out = list(decoder.feed(stream[:-tail]))
    assert [c.opaque for c in out] == list(range(19))
    assert decoder.buffered == len(frames[-1]) - tail
    assert decoder.expected == len(frames[-1])
    (last,) = decoder.feed(stream[-tail:])
    assert last.opaque == 19 and last.body == b"x" * 19


def bad(data: bytes, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> FrameError:
    decoder = FrameDecoder(max_frame_size)
    with pytest.raises(FrameError) as info:
        list(decoder.feed(data))
    # the decoder stays failed: the stream cannot be resynchronised
    with pytest.raises(FrameError, match="failed earlier"):
        list(decoder.feed(encode_frame(RemotingCommand(1, opaque=1))))
    return info.value


@pytest.mark.parametrize("length", [0, 3, -1])
def test_length_under_4(length: int) -> None:
    assert "less than 4" in str(bad(struct.pack(">i", length)))


@pytest.mark.parametrize(
    ("length", "message"),
    [(0x7FFFFFFF, "over the maximum frame size"), (0x80000000, "less than 4"), (0xFFFFFFFF, "less than 4")],
)
def test_two_gib_length_fails_on_its_four_bytes(length: int, message: str) -> None:
    error = bad(struct.pack(">I", length))  # nothing after the length field: no waiting for 2 GiB
    assert message in str(error)
    assert f"{length:08x}" in str(error)


def test_max_frame_size_counts_the_whole_frame_as_java() -> None:
    limit = 1024
    frame = frame_of(b'{"code":0}', b"x" * (limit - 8 - 10))
    assert len(frame) == limit
    (cmd,) = FrameDecoder(limit).feed(frame)
    assert len(cmd.body) == limit - 18
    error = bad(frame_of(b'{"code":0}', b"x" * (limit - 8 - 10 + 1)), limit)
    assert f"frame of {limit + 1} bytes" in str(error)


def test_header_length_larger_than_the_frame_fails_on_eight_bytes() -> None:
    error = bad(struct.pack(">ii", 20, 17))  # 16 bytes for header and body, header says 17
    assert "bad header length 17" in str(error)


def test_unknown_serialize_type() -> None:
    assert "unknown serialize type 2" in str(bad(frame_of(b"{}", serialize_type=2)))


@pytest.mark.parametrize(
    "header",
    [
        b"{not json",
        b"[1, 2]",
        b'"text"',
        b'{"code":"17"}',
        b'{"code":1,"remark":5}',
        b'{"extFields":[1]}',
        b'{"extFields":{"a":{"b":1}}}',
        b'{"language":[],"code":1}',
        b"\xff\xfe\x00garbage",
    ],
)
def test_undecodable_json_header(header: bytes) -> None:
    bad(frame_of(header))


@pytest.mark.parametrize(
    "header",
    [
        b"\x00\x01",  # truncated fixed part
        rocketmq_header(0, 0, 0, 0, 0, b"", [])[:-2],  # truncated ext length
        struct.pack(">hbhii", 0, 0, 0, 0, 0) + struct.pack(">i", 1000) + b"x",  # remark longer than the header
        struct.pack(">hbhii", 0, 0, 0, 0, 0) + struct.pack(">i", -1),  # negative remark length
        struct.pack(">hbhii", 0, 0, 0, 0, 0) + struct.pack(">ii", 0, 50),  # ext longer than the header
        rocketmq_header(0, 0, 0, 0, 0, b"\xff\xff", []),  # remark not UTF-8
        struct.pack(">hbhii", 0, 0, 0, 0, 0) + struct.pack(">ii", 0, 7) + struct.pack(">h", 9) + b"abcde",
    ],
)
def test_undecodable_rocketmq_header(header: bytes) -> None:
    bad(frame_of(header, serialize_type=1))


def test_decode_header_directly() -> None:
    cmd = RemotingCommand(30, opaque=5, ext_fields={"topic": "t", "queueId": "3"})
    for st in (JSON, ROCKETMQ):
        decoded = decode_header(encode_header(cmd, st), st)
        assert decoded.ext_fields == cmd.ext_fields and decoded.opaque == 5 and decoded.body is None
    with pytest.raises(FrameError):
        decode_header(b"{}", 7)  # type: ignore[arg-type]


def test_decode_frame_wants_exactly_one_frame() -> None:
    frame = encode_frame(RemotingCommand(1, opaque=1))
    with pytest.raises(FrameError):
        decode_frame(frame + frame)
    with pytest.raises(FrameError):
        decode_frame(frame[:-1])


DEEP = 100_000


@pytest.mark.parametrize(
    "header",
    [
        b"[" * DEEP + b"]" * DEEP,
        b'{"a":' * DEEP + b"1" + b"}" * DEEP,
        b'{"code":1,"extFields":{"k":' + b"[" * DEEP + b"]" * DEEP + b"}}",
        b'{"code":1,"remark":' + b"[" * DEEP,  # unterminated as well
    ],
    ids=["arrays", "objects", "in-ext-fields", "unterminated"],
)
def test_json_header_nested_100000_deep_is_a_frame_error(header: bytes) -> None:
    """Issue 27 item 12: json's C decoder recurses once per level and raised RecursionError out of decode_frame
    and FrameDecoder.feed (in the client, asyncio's 'Fatal error: protocol.data_received()')."""
    frame = frame_of(header, b"body")
    with pytest.raises(FrameError, match="JSON header: nested too deeply"):
        decode_frame(frame)
    assert "nested too deeply" in str(bad(frame))
    decoder = FrameDecoder()  # and arriving in pieces
    with pytest.raises(FrameError, match="nested too deeply"):
        for i in range(0, len(frame), 65536):
            list(decoder.feed(frame[i : i + 65536]))
    with pytest.raises(FrameError, match="nested too deeply"):
        decode_header(header, JSON)


def test_json_header_nested_a_little_still_decodes_its_ext_field_values() -> None:
    cmd = decode_frame(frame_of(b'{"code":3,"extFields":{"n":12,"f":1.5,"t":true,"z":null,"s":"x"}}'))
    assert (cmd.code, cmd.ext_fields) == (3, {"n": "12", "f": "1.5", "t": "true", "s": "x"})


@pytest.mark.parametrize(
    "header",
    [
        b'{"code":1,"extFields":{"k":' + b"1" * 5000 + b"}}",  # past Python's int-to-string digit limit
        b'{"code":1' + b"0" * 5000 + b"}",
        b'{"code":1,"extFields":{"k":[1]}}',
        b'{"code":1,"extFields":{"k":{}}}',
        b'{"code":true}',
        b'{"language":-1}',
        b'{"language":99}',
        b'{"extFields":"text"}',
    ],
)
def test_json_headers_of_odd_values_fail_only_with_frame_error(header: bytes) -> None:
    bad(frame_of(header))
    with pytest.raises(FrameError):
        decode_header(header, JSON)


def test_mutated_frames_fail_only_with_frame_error() -> None:
    """Bytes changed at random in a JSON and a ROCKETMQ frame: a command or a FrameError, from decode_frame and
    from a decoder fed in pieces, never another exception."""
    cmd = RemotingCommand(10, opaque=5, remark="a remark", ext_fields={"a": "b", "topic": "Tést"}, body=b"body")
    frames = [encode_frame(cmd, JSON), encode_frame(cmd, ROCKETMQ)]
    rng = random.Random(27)
    for _ in range(3000):
        data = bytearray(rng.choice(frames))
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(8, len(data))] = rng.randrange(256)
        try:
            decode_frame(bytes(data))
        except FrameError:
            pass
        decoder = FrameDecoder()
        try:
            for i in range(0, len(data), 7):
                list(decoder.feed(data[i : i + 7]))
        except FrameError:
            pass


def _outcome(decode: Any, data: bytes) -> tuple[Any, ...]:
    try:
        c = decode(data)
    except FrameError as e:
        return ("FrameError", str(e))
    return (c.code, c.opaque, c.flag, c.language, c.version, c.remark, c.ext_fields, c.body, c.serialize_type)


def _incremental(data: bytes) -> RemotingCommand:
    decoder = FrameDecoder()
    commands = list(decoder.feed(data))
    if len(commands) != 1 or decoder.buffered:
        raise FrameError(f"expected exactly one frame, got {len(commands)} and {decoder.buffered} bytes more")
    return commands[0]


def test_decode_frame_agrees_with_the_incremental_decoder_on_any_bytes() -> None:
    """decode_frame's one-frame fast path: for frames changed at random anywhere (the length words included), the
    same command or the same FrameError as the incremental decoder."""
    cmd = RemotingCommand(10, opaque=5, remark="a remark", ext_fields={"a": "b", "topic": "Tést"}, body=b"body")
    bare = RemotingCommand(11, opaque=6)
    frames = [encode_frame(c, st) for c in (cmd, bare) for st in (JSON, ROCKETMQ)]
    rng = random.Random(30)
    for _ in range(3000):
        data = bytearray(rng.choice(frames))
        for _ in range(rng.randint(0, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data)
        assert _outcome(decode_frame, data) == _outcome(_incremental, data), data


# -- reading straight into the decoder's buffer (asyncio.BufferedProtocol) ---------------------------------------


def _read_in_chunks(decoder: FrameDecoder, stream: bytes, chunks: list[int]) -> list[RemotingCommand]:
    """What a transport does: ask for a buffer, write at most a chunk's worth into it, say how much."""
    out: list[RemotingCommand] = []
    at = 0
    for chunk in chunks:
        if at == len(stream):
            break
        view = decoder.get_buffer(-1)
        expected, buffered = decoder.expected, decoder.buffered
        assert len(view) >= READ_BUFFER_SIZE
        if expected is not None:  # the whole rest of a frame fits, however large
            assert len(view) >= expected - buffered
        n = min(len(view), chunk, len(stream) - at)
        view[:n] = stream[at : at + n]
        del view
        out.extend(decoder.buffer_updated(n))
        at += n
    assert at == len(stream)
    return out


def test_reads_into_the_buffer_in_any_chunks_give_what_feed_gives() -> None:
    rng = random.Random(7)
    cmds = [
        RemotingCommand(10 + i, opaque=i, remark="r" * (i % 3), ext_fields={"k": str(i)}, body=b"b" * size)
        for i, size in enumerate([0, 1, 100, READ_BUFFER_SIZE - 20, READ_BUFFER_SIZE + 5, 3 * READ_BUFFER_SIZE, 7])
    ]
    stream = b"".join(encode_frame(c, JSON if i % 2 else ROCKETMQ) for i, c in enumerate(cmds))
    expected = list(FrameDecoder().feed(stream))
    for _ in range(20):
        chunks = [rng.choice([1, 3, 8, 100, 4096, READ_BUFFER_SIZE, 10 * READ_BUFFER_SIZE]) for _ in range(4000)]
        decoder = FrameDecoder()
        got = _read_in_chunks(decoder, stream, chunks)
        assert [(c.code, c.opaque, c.remark, c.ext_fields, c.body) for c in got] == [
            (c.code, c.opaque, c.remark, c.ext_fields, c.body) for c in expected
        ]
        assert decoder.buffered == 0 and decoder.expected is None


def test_a_frame_larger_than_the_buffer_is_read_whole_then_the_buffer_shrinks_back() -> None:
    big = RemotingCommand(11, opaque=1, body=bytes(range(256)) * (5 * 4096))  # 5 MiB
    small = RemotingCommand(12, opaque=2, body=b"x")
    stream = encode_frame(big) + encode_frame(small)
    decoder = FrameDecoder(64 * 1024 * 1024)
    view = decoder.get_buffer(-1)
    view[:8] = stream[:8]
    del view
    assert list(decoder.buffer_updated(8)) == []
    view = decoder.get_buffer(-1)
    rest = len(encode_frame(big)) - 8
    assert len(view) >= rest  # one read can take the whole rest
    view[:rest] = stream[8 : 8 + rest]
    del view
    (got,) = decoder.buffer_updated(rest)
    assert got.body == big.body
    view = decoder.get_buffer(-1)
    assert len(view) == READ_BUFFER_SIZE  # the 5 MiB are given back once the frame is taken
    tail = stream[8 + rest :]
    view[: len(tail)] = tail
    del view
    (last,) = decoder.buffer_updated(len(tail))
    assert (last.opaque, last.body) == (2, b"x")


def test_a_bad_frame_read_into_the_buffer_fails_the_decoder_for_good() -> None:
    decoder = FrameDecoder(1024)
    view = decoder.get_buffer(-1)
    view[:4] = struct.pack(">i", 5000)
    del view
    with pytest.raises(FrameError, match="over the maximum frame size 1024"):
        list(decoder.buffer_updated(4))
    with pytest.raises(FrameError, match="failed earlier"):
        decoder.get_buffer(-1)
    with pytest.raises(FrameError, match="failed earlier"):
        decoder.buffer_updated(0)


def test_buffer_updated_refuses_more_bytes_than_the_buffer_handed_out() -> None:
    decoder = FrameDecoder()
    size = len(decoder.get_buffer(-1))
    with pytest.raises(ValueError, match="buffer_updated"):
        decoder.buffer_updated(size + 1)
    with pytest.raises(ValueError, match="buffer_updated"):
        decoder.buffer_updated(-1)


def test_feed_takes_any_buffer_and_refuses_what_is_not_one() -> None:
    frame = encode_frame(RemotingCommand(10, opaque=3, body=b"body"))
    (cmd,) = FrameDecoder().feed(memoryview(bytearray(frame)))
    assert (cmd.opaque, cmd.body) == (3, b"body")
    with pytest.raises(TypeError):
        list(FrameDecoder().feed(5))  # type: ignore[arg-type]
