"""The native pull decoder (``rocketroute_core::stored``, ``_native._decode_stored``) reads every body the Python
decoder reads into the same messages, and leaves to it (``None``) every body it does not: malformed, compressed
or not UTF-8, so the errors and the decompression stay the Python decoder's."""

from __future__ import annotations

import dataclasses
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.client import message_decode
from rocketroute.client.message_decode import MESSAGE_MAGIC_CODE_V2, MessageDecodeError, decode_messages

from ._stored import IPV6_LOOPBACK, LOCALHOST, stored

pytestmark = pytest.mark.skipif(
    rocketroute.BACKEND != "native", reason="the native decoder is the native backend's (CI requires it)"
)


def _python(data: bytes) -> list[object]:
    native, message_decode._native_decode = message_decode._native_decode, None
    try:
        return decode_messages(data, undecodable="mark")
    finally:
        message_decode._native_decode = native


def _native(data: bytes, pulled: tuple[str, str, str | None] | None = None) -> list[object] | None:
    from rocketroute import _native

    return _native._decode_stored(data, message_decode.MessageExt, pulled)


_text = st.text(st.characters(codec="utf-8", exclude_characters="\x01\x02"), max_size=12)
_ips = st.sampled_from(
    [LOCALHOST, bytes([10, 1, 2, 3]), IPV6_LOOPBACK, bytes(10) + b"\xff\xff" + bytes([192, 168, 1, 9])]
)


@st.composite
def _messages(draw: st.DrawFn) -> bytes:
    props = draw(st.dictionaries(_text, _text, max_size=4))
    return stored(
        draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=20)),
        draw(st.binary(max_size=64)),
        properties=props,
        flag=draw(st.integers(-(2**31), 2**31 - 1)),
        queue_id=draw(st.integers(0, 1023)),
        queue_offset=draw(st.integers(0, 2**63 - 1)),
        commit_log_offset=draw(st.integers(0, 2**63 - 1)),
        born_ip=draw(_ips),
        store_ip=draw(_ips),
        born_port=draw(st.integers(0, 65535)),
        store_port=draw(st.integers(0, 65535)),
        reconsume_times=draw(st.integers(0, 16)),
        magic=draw(st.sampled_from([message_decode.MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2])),
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(_messages(), max_size=4))
def test_the_native_decoder_reads_what_the_python_one_reads(parts):
    data = b"".join(parts)
    rows = _native(data)
    assert rows is not None
    expected = _python(data)
    assert all(type(m) is message_decode.MessageExt for m in rows)
    assert rows == expected  # every field, each message made without __init__
    assert [list(m.properties.items()) for m in rows] == [list(m.properties.items()) for m in expected]  # in order
    assert decode_messages(data) == expected  # and decode_messages takes the native path


@settings(max_examples=200, deadline=None)
@given(st.lists(_messages(), max_size=4), st.sampled_from(["0", "17"]), st.sampled_from(["5", "9000"]), st.data())
def test_a_pulls_extras_are_put_as_the_python_path_puts_them(parts, min_offset, max_offset, data):
    """``decode_pulled``: MIN_OFFSET and MAX_OFFSET put after the stored properties (replacing stored ones in
    place), and the broker's name, read in Rust the same as the Python decoder and loop give them."""
    body = b"".join(parts)
    broker = data.draw(st.sampled_from(["broker-a", None]))
    native = message_decode.decode_pulled(body, min_offset, max_offset, broker)
    native_decode, message_decode._native_decode = message_decode._native_decode, None
    try:
        expected = message_decode.decode_pulled(body, min_offset, max_offset, broker)
    finally:
        message_decode._native_decode = native_decode
    assert native == expected
    assert [list(m.properties.items()) for m in native] == [list(m.properties.items()) for m in expected]
    for m in native:
        assert m.properties["MIN_OFFSET"] == min_offset and m.properties["MAX_OFFSET"] == max_offset
        assert m.broker_name == broker


def test_a_pull_of_one_topic_and_hosts_shares_their_strs():
    """Messages of one body from one producer share the topic, born host and store host objects (memory and
    time: one str each per pull, not per message); a host that differs still gets its own text."""
    body = stored(born_port=1) + stored(born_port=1) + stored(born_port=2) + stored(born_port=1)
    msgs = _native(body)
    assert msgs is not None
    assert len({id(m.topic) for m in msgs}) == 1
    assert len({id(m.store_host) for m in msgs}) == 1
    assert [m.born_host.rsplit(":", 1)[1] for m in msgs] == ["1", "1", "2", "1"]
    assert msgs[0].born_host is msgs[1].born_host is msgs[3].born_host
    assert msgs == _python(body)


@settings(max_examples=300, deadline=None)
@given(_messages(), st.data())
def test_a_damaged_body_is_left_to_the_python_decoder_or_read_the_same(message, data):
    damaged = bytearray(message)
    for _ in range(data.draw(st.integers(1, 3))):
        damaged[data.draw(st.integers(0, len(damaged) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(damaged)))
    body = bytes(damaged[:cut])
    rows = _native(body)
    try:
        expected = _python(body)
    except MessageDecodeError:
        assert rows is None  # the Python decoder names the error
        with pytest.raises(MessageDecodeError):
            decode_messages(body)
        return
    if rows is not None:
        assert rows == expected


def test_compressed_bodies_and_text_that_is_not_utf8_are_the_python_decoders():
    compressed = stored(body=zlib.compress(b"x" * 100), sys_flag=0x1)
    assert _native(compressed) is None
    (msg,) = decode_messages(compressed)
    assert msg.body == b"x" * 100
    not_utf8 = stored(topic=b"T\xff")
    assert _native(not_utf8) is None
    assert decode_messages(not_utf8)[0].topic == "T\ufffd"
    assert [dataclasses.asdict(m) for m in decode_messages(stored() + stored())] == [
        dataclasses.asdict(m) for m in _python(stored() + stored())
    ]
