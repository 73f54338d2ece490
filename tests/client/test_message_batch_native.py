"""The native batch body encoder (``rocketroute_core::message_batch``, ``_native._encode_batch_body``) writes the
bytes of the Python one for every batch it takes, and hands back (``None``) the batches only the Python encoder
writes or refuses: more than 8 properties, lone surrogates, properties past 32767 bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.client import message_encode
from rocketroute.client.message import Message, MessageError
from rocketroute.client.message_encode import encode_batch

pytestmark = pytest.mark.skipif(
    rocketroute.BACKEND != "native", reason="the native encoder is the native backend's (CI requires it)"
)

_names = st.text(st.characters(codec="utf-8", exclude_characters="\x01\x02"), min_size=1, max_size=10).filter(
    lambda s: s.strip() and s.upper() not in {"TAGS", "KEYS", "WAIT", "DELAY"}
)
_values = st.text(st.characters(codec="utf-8", exclude_characters="\x01\x02"), min_size=1, max_size=10).filter(
    str.strip
)


@st.composite
def _batch(draw: st.DrawFn) -> list[Message]:
    n = draw(st.integers(1, 5))
    return [
        Message(
            "BatchTopic",
            draw(st.binary(min_size=1, max_size=40)),
            tags=draw(st.none() | _values),
            keys=draw(st.none() | _values),
            properties=draw(st.dictionaries(_names, _values, max_size=7)),
            flag=draw(st.integers(-(2**31), 2**31 - 1)),
        )
        for _ in range(n)
    ]


def _both(msgs: list[Message], compat: str) -> tuple[object, object]:
    ids = [f"ID{i:030d}" for i in range(len(msgs))]

    def run() -> object:
        try:
            return encode_batch(msgs, compat=compat, msg_ids=ids, batch_msg_id="B" * 32)
        except (MessageError, ValueError, TypeError) as e:
            return (type(e), str(e))

    native = run()
    saved, message_encode._native_batch_body = message_encode._native_batch_body, None
    try:
        return native, run()
    finally:
        message_encode._native_batch_body = saved


def test_encode_batch_uses_the_native_encoder() -> None:
    assert message_encode._native_batch_body is not None


@settings(max_examples=300, deadline=None)
@given(_batch(), st.sampled_from(["5.3", "4.9"]))
def test_the_native_body_is_the_python_body(msgs, compat):
    native, python = _both(msgs, compat)
    assert native == python


def test_what_the_native_encoder_leaves_to_the_python_one():
    from rocketroute import _native

    many = [(0, b"b", [(f"p{i}", "v") for i in range(9)])]
    assert _native._encode_batch_body(many, False) is None  # past 8 properties: the resize-following order
    assert _native._encode_batch_body([(0, b"b", [("a", "\ud800")])], False) is None
    assert _native._encode_batch_body([(0, b"b", [("a", "x" * 40_000)])], False) is None
    assert _native._encode_batch_body([(0, bytearray(b"b"), [])], False) is None
    big = [Message("T", b"b", properties={f"p{i}": "v" for i in range(12)})]
    native, python = _both(big, "5.3")
    assert native == python and isinstance(native, message_encode.EncodedBatch)
    long_props = [Message("T", b"b", properties={"p": "x" * 40_000})]
    native, python = _both(long_props, "5.3")
    assert native == python and native[0] is MessageError  # type: ignore[index]
