"""The native batch encoders write the bytes of the Python one for every batch they take, and hand back (``None``)
the batches only the Python encoder writes or refuses: ``_native._encode_batch_body``
(``rocketroute_core::message_batch``) the body of checked messages (not past 8 properties, lone surrogates,
properties past 32767 bytes), and ``_native._usual_batch_body`` a batch of usual messages checked and written in
one call."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.client import message_encode
from rocketroute.client.message import Message, MessageError, check_topic
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


# -- a batch of usual messages in one call (_native._usual_batch_body) ---------------------------------------------


def _one_call(msgs: list[Message], compat: str) -> tuple[bytes, list[str]] | None:
    """What ``encode_batch`` gets from the one-call encoder for ``msgs``, with new ids."""
    from rocketroute.client.message_const import SYSTEM_PROPERTY_NAMES
    from rocketroute.client.message_id import default_counter

    return message_encode._native_usual_batch(  # type: ignore[no-any-return]
        msgs, Message, compat == "4.9", 4 * 1024 * 1024, message_encode._CHECKED_TOPICS,
        SYSTEM_PROPERTY_NAMES[compat], default_counter(),
    )  # fmt: skip


def _counter_of(msg_id: str) -> int:
    """The per-message counter a message id ends with (its last 4 hex digits)."""
    return int(msg_id[-4:], 16)


@settings(max_examples=300, deadline=None)
@given(_batch(), st.sampled_from(["5.3", "4.9"]))
def test_a_usual_batch_in_one_call_is_the_python_encoder_s_batch(msgs, compat):
    check_topic("BatchTopic")  # once, as a producer's first send does
    made = _one_call(msgs, compat)
    # the Python encoder with the same ids (given ids: the one-call encoder is not used)
    try:
        python = encode_batch(msgs, compat=compat, msg_ids=made[1] if made else None, batch_msg_id="B" * 32)
    except (MessageError, ValueError, TypeError):
        assert made is None, "the one-call encoder took a batch the Python encoder refuses"
        return
    if made is None:  # left to the Python encoder: a message past the 16-bin order, a separator, a blank name
        return
    body, ids = made
    assert body == python.body
    assert tuple(ids) == python.msg_ids
    assert [_counter_of(i) for i in ids] == [(_counter_of(ids[0]) + k) & 0xFFFF for k in range(len(ids))]


def test_encode_batch_takes_a_usual_batch_in_one_call_once_its_topic_was_checked(monkeypatch):
    calls: list[object] = []
    real = message_encode._native_usual_batch

    def spy(*args: object) -> object:
        made = real(*args)
        calls.append(made)
        return made

    monkeypatch.setattr(message_encode, "_native_usual_batch", spy)
    message_encode._CHECKED_TOPICS.discard("NewOneCallTopic")
    msgs = [Message("NewOneCallTopic", b"body %d" % i, tags="t", keys="k", properties={"a": "1"}) for i in range(32)]
    first = encode_batch(msgs)
    assert calls == [None], "a topic never checked: the Python encoder checks it"
    second = encode_batch(msgs)
    assert calls[1] is not None, "then the batch is written in one call"
    assert len(second.msg_ids) == 32 and second.msg_id is not None
    again = encode_batch(msgs, msg_ids=second.msg_ids, batch_msg_id=second.msg_id)  # the Python encoder
    assert len(calls) == 2, "given ids: not the one-call encoder"
    assert second == again
    assert first.properties != second.properties  # each batch has its own UNIQ_KEY in 5.3


@pytest.mark.parametrize(
    ("second", "error"),
    [
        (Message("OneCallTopic", b"b", delay_level=2), "TimeDelayLevel is not supported for batching"),
        (Message("OtherTopic", b"b"), "The topic of the messages in one batch should be the same"),
        (Message("OneCallTopic", b"b", wait_store_msg_ok=False), "The waitStoreMsgOK of the messages"),
        (Message("OneCallTopic", b""), "the message body length is zero"),
        (Message("OneCallTopic", b"b", tags="a\x01b"), ""),
        (Message("OneCallTopic", b"b", properties={"UNIQ_KEY": "x"}), "is used by system"),
    ],
)
def test_a_batch_the_one_call_encoder_declines_makes_no_id_and_fails_as_java(second, error):
    from rocketroute.client.message_id import create_uniq_ids

    encode_batch([Message("OneCallTopic", b"b")])
    encode_batch([Message("OtherTopic", b"b")])
    msgs = [Message("OneCallTopic", b"a"), second]
    assert _one_call(msgs, "5.3") is None
    before = create_uniq_ids(1)[0]
    with pytest.raises((MessageError, ValueError)) as e:
        encode_batch(msgs)
    assert error in str(e.value)
    after = create_uniq_ids(1)[0]
    assert _counter_of(after) == (_counter_of(before) + 1) & 0xFFFF, "no id was made for the declined batch"


def test_a_subclass_of_message_goes_to_the_python_encoder():
    class Tagged(Message):
        pass

    encode_batch([Message("OneCallTopic", b"b")])
    assert _one_call([Message("OneCallTopic", b"a"), Tagged("OneCallTopic", b"b")], "5.3") is None
    assert _one_call([Message("OneCallTopic", b"a"), Message("OneCallTopic", b"b")], "5.3") is not None
