"""The native properties string (``rocketroute_core::message_batch::properties_string``,
``_native._properties_string``) is the Python one (``rocketroute.client.message_properties._join_properties``) for every
message it takes, and hands back (``None``) the ones only Python writes: more than 8 properties, lone surrogates."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.client import message, message_const, message_encode, message_id, message_properties
from rocketroute.client.message import Message, MessageError
from rocketroute.client.message_encode import encode_for_send

pytestmark = pytest.mark.skipif(
    rocketroute.BACKEND != "native", reason="the native encoder is the native backend's (CI requires it)"
)

_texts = st.text(max_size=12)  # every code point, lone surrogates included
_items = st.lists(st.tuples(_texts, _texts), max_size=11, unique_by=lambda kv: kv[0])


def _python(items: list[tuple[str, str]], compat: str) -> str:
    saved, message_properties._native_properties = message_properties._native_properties, None
    try:
        return message_properties._join_properties(items, compat)
    finally:
        message_properties._native_properties = saved


def test_the_send_path_uses_the_native_properties_string() -> None:
    assert message_properties._native_properties is not None


@settings(max_examples=500, deadline=None)
@given(items=_items, compat=st.sampled_from(["5.3", "4.9"]))
def test_the_native_properties_string_is_the_python_one(items: list[tuple[str, str]], compat: str) -> None:
    from rocketroute import _native

    native = _native._properties_string(items, compat == "4.9")
    surrogate = any(0xD800 <= ord(c) <= 0xDFFF for kv in items for s in kv for c in s)
    if len(items) > 8 or surrogate:
        assert native is None
    else:
        assert native == _python(items, compat)
    assert message_properties._join_properties(items, compat) == _python(items, compat)


def test_a_message_encodes_the_same_either_way() -> None:
    msg = Message("T", b"body", tags="TagA", keys=["k1", "k2"], properties={"a": "1", "zz": "2", "é": "😀"})
    native = encode_for_send(msg, msg_id="7F0000010000A1550000000000000001")
    saved, message_properties._native_properties = message_properties._native_properties, None
    try:
        python = encode_for_send(msg, msg_id="7F0000010000A1550000000000000001")
    finally:
        message_properties._native_properties = saved
    assert native == python
    assert native.properties.endswith("\x02") and "UNIQ_KEY\x017F0000010000A1550000000000000001" in native.properties


# --- the usual message of a send, checked and written in Rust (_native._send_properties) ------------------------

_ID = "7F0000010000A1550000000000000001"


def _python_encode(msg: Message, **kw: object) -> object:
    saved, message_encode._native_send_properties = message_encode._native_send_properties, None
    try:
        return encode_for_send(msg, **kw)  # type: ignore[arg-type]
    finally:
        message_encode._native_send_properties = saved


def _outcome(encode: object, msg: Message, **kw: object) -> object:
    try:
        return encode(msg, **kw)  # type: ignore[operator]
    except Exception as e:  # the same exception, the same words
        return (type(e), str(e))


def _native_takes(msg: Message, compat: str, msg_id: str | None = _ID, **kw: object) -> bool:
    from rocketroute import _native

    return (
        _native._send_properties(
            msg,
            compat == "4.9",
            kw.get("compress_over", 4096),
            kw.get("max_message_size", 4 * 1024 * 1024),
            message._CHECKED_TOPICS,
            message_const.SYSTEM_PROPERTY_NAMES[compat],
            message_id.default_counter(),
            msg_id,
        )
        is not None
    )


def test_the_send_path_uses_the_native_encoder_for_the_usual_message() -> None:
    assert message_encode._native_send_properties is not None
    msg = Message("UsualTopic", b"body", tags="TagA", keys="k1 k2", properties={"a": "1"})
    message.check_topic("UsualTopic")  # a first send checks the topic in Python and keeps it
    assert _native_takes(msg, "5.3")
    assert encode_for_send(msg, msg_id=_ID) == _python_encode(msg, msg_id=_ID)


_names = st.sampled_from(["a", "zz", "é", "KEYS", "TAGS", "UNIQ_KEY", "DELAY", "\t", " x", "x\x01", "p1", "p2"])
_values = st.sampled_from(["1", "v", "😀", "", " ", "a\x02b", "\x00", "long value " * 5])


def _message(delay: dict[str, int], **kw: object) -> Message:
    return Message(**kw, **delay)  # type: ignore[arg-type]


_messages = st.builds(
    _message,
    topic=st.sampled_from(["UsualTopic", "Other_Topic", "bad topic", "TBW102", "", "%RETRY%g"]),
    body=st.sampled_from([b"x", b"y" * 55, b"", b"z" * 70]),
    tags=st.sampled_from([None, "", "TagA", "a||b", "t\x01"]),
    keys=st.sampled_from([None, "", "k1", "k1 k2", "k\x02"]),
    properties=st.dictionaries(_names, _values, max_size=7),
    flag=st.sampled_from([0, 7]),
    wait_store_msg_ok=st.booleans(),
    delay=st.sampled_from([{}, {}, {}, {"delay_level": 3}, {"delay_sec": 10}]),
)


@settings(max_examples=400, deadline=None)
@given(
    msg=_messages,
    compat=st.sampled_from(["5.3", "4.9"]),
    max_message_size=st.sampled_from([4 * 1024 * 1024, 50, 50.0]),  # a float: compared by the Python encoder
    compress_over=st.sampled_from([4096, 60, 60.5]),
)
def test_a_send_encodes_the_same_with_the_native_encoder_or_without(
    msg: Message, compat: str, max_message_size: float, compress_over: float
) -> None:
    for topic in ("UsualTopic", "Other_Topic"):
        message.check_topic(topic)
    kw = {"msg_id": _ID, "compat": compat, "max_message_size": max_message_size, "compress_over": compress_over}
    assert _outcome(encode_for_send, msg, **kw) == _outcome(_python_encode, msg, **kw)


def test_a_message_the_native_encoder_declines_uses_no_id_of_its_own() -> None:
    """Java makes the id after the checks: a message refused, or one the Python encoder writes, takes one id."""
    from rocketroute.client.message_id import create_uniq_id

    message.check_topic("UsualTopic")
    counter = message_id.default_counter()
    usual = Message("UsualTopic", b"x")
    declined = Message("UsualTopic", b"x", properties={f"p{i}": "v" for i in range(7)})  # 9 with the system's
    assert _native_takes(usual, "5.3", None) and not _native_takes(declined, "5.3", None)
    before = counter.counter
    first = encode_for_send(declined).msg_id  # written by the Python encoder, one id
    assert counter.counter == (before + 1) & 0xFFFF
    second = encode_for_send(usual).msg_id  # the native encoder's id, from the same counter
    assert int(second[-4:], 16) == (int(first[-4:], 16) + 1) & 0xFFFF
    assert second[:-12] == first[:-12] == create_uniq_id()[:-12]
    after = counter.counter
    with pytest.raises(MessageError):
        encode_for_send(Message("UsualTopic", b""))  # refused: no id made
    assert counter.counter == after
