"""The native reader of the usual send response (``rocketroute_core::send_result``, ``_native._SendResultMaker``,
given by ``send_result.result_maker``) makes the ``SendResult`` that ``send_result_from_response`` makes, and hands
back (``None``) every response only the Python reader reads: error codes, missing or unusual numbers, fields that
are not str."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.client import SendResult, SendStatus, send_result_from_response
from rocketroute.client.producer.send_result import result_maker

pytestmark = pytest.mark.skipif(
    rocketroute.BACKEND != "native", reason="the native reader is the native backend's (CI requires it)"
)

UID = "0A000001303900000001000000010002"
USUAL = {"msgId": "7F00000100002A9F0000000000000042", "queueId": "3", "queueOffset": "17"}

_numbers = st.one_of(
    st.integers(0, 10**9 - 1).map(str),
    st.integers(0, 10**18 - 1).map(str),
    st.sampled_from(["", "-1", "+2", "007", "2147483647", "2147483648", "9" * 19, " 1", "1a", "\u0663", "0x10"]),
    st.integers(),  # not a str: the peer wrote a JSON number
)
_texts = st.one_of(
    st.none(),
    st.text(max_size=8),
    st.sampled_from(["", "false", "true", "False", "\ud800", "r\udfff"]),
    st.integers(0, 3),
)  # lone surrogates: a str Rust cannot read as text
_fields = st.fixed_dictionaries(
    {},
    optional={
        "queueId": _numbers,
        "queueOffset": _numbers,
        "msgId": _texts,
        "transactionId": _texts,
        "recallHandle": _texts,
        "MSG_REGION": _texts,
        "TRACE_ON": _texts,
        "batchUniqId": _texts,
    },
).map(lambda d: {k: v for k, v in d.items() if v is not None})


def _python(code, fields, mq, msg_id, topic, compat):
    return send_result_from_response(
        code, fields, topic=topic, broker_name=mq.broker_name, msg_id=msg_id, compat=compat,
        message_queue=rocketroute.MessageQueue,
    )  # fmt: skip


def _plain(text: str) -> bool:
    """A str without lone surrogates (what the native reader reads as text)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _same(a: SendResult, b: SendResult) -> None:
    assert a == b
    for f in dataclasses.fields(SendResult):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert type(x) is type(y), f.name
    assert str(a) == str(b)


@settings(max_examples=600, deadline=None)
@given(
    code=st.sampled_from([0, 10, 11, 12, 1, 2, 13, 16, 17, 25, 215, -1, 2**70]),
    fields=_fields,
    msg_id=st.sampled_from([UID, None, ""]),
    topic=st.sampled_from(["TopicTest", "ns%TopicTest", "Other"]),
    compat=st.sampled_from(["5.3", "4.9"]),
)
def test_the_native_result_is_the_python_one(code, fields, msg_id, topic, compat) -> None:
    make = result_maker(compat, rocketroute.MessageQueue)
    assert make is not None
    mq = rocketroute.MessageQueue("TopicTest", "broker-a", 5)
    native = make(code, fields, mq, msg_id, topic)
    try:
        expected = _python(code, fields, mq, msg_id, topic, compat)
    except Exception:
        assert native is None  # Python raises its error: the native reader never answers for it
        return
    usual = (
        code in (0, 10, 11, 12)
        and all(type(v) is str for v in fields.values())
        and fields["queueId"].isascii() and fields["queueId"].isdigit() and len(fields["queueId"]) <= 9
        and fields["queueOffset"].isascii() and fields["queueOffset"].isdigit() and len(fields["queueOffset"]) <= 18
        and all(_plain(fields.get(name, "")) for name in ("MSG_REGION", "TRACE_ON"))
    )  # fmt: skip
    if usual:
        assert native is not None  # the usual response is read natively
    if native is not None:
        _same(native, expected)


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_every_stored_status_and_field(compat: str) -> None:
    make = result_maker(compat, rocketroute.MessageQueue)
    mq = rocketroute.MessageQueue("TopicTest", "broker-a", 0)
    fields = dict(USUAL, transactionId="tx", recallHandle="rh", MSG_REGION="r1", TRACE_ON="false")
    for code, status in [(0, SendStatus.SEND_OK), (10, SendStatus.FLUSH_DISK_TIMEOUT),
                         (12, SendStatus.FLUSH_SLAVE_TIMEOUT), (11, SendStatus.SLAVE_NOT_AVAILABLE)]:  # fmt: skip
        r = make(code, fields, mq, UID, "TopicTest")
        assert r.send_status is status
        assert (r.msg_id, r.offset_msg_id, r.queue, r.queue_offset) == (
            UID, USUAL["msgId"], rocketroute.MessageQueue("TopicTest", "broker-a", 3), 17,
        )  # fmt: skip
        assert (r.transaction_id, r.region_id, r.trace_on) == ("tx", "r1", False)
        assert r.recall_handle == ("rh" if compat == "5.3" else None)
        _same(r, _python(code, fields, mq, UID, "TopicTest", compat))


def test_refused_for_another_queue_class_or_the_reference_backend() -> None:
    from rocketroute import reference

    assert result_maker("5.3", reference.MessageQueue) is None
    make = result_maker("5.3", rocketroute.MessageQueue)
    assert make(0, USUAL, reference.MessageQueue("TopicTest", "broker-a", 0), UID, "TopicTest") is None
    assert make(0, None, rocketroute.MessageQueue("TopicTest", "broker-a", 0), UID, "TopicTest") is None
    assert make(True, USUAL, rocketroute.MessageQueue("TopicTest", "broker-a", 0), UID, "TopicTest") is None


def test_a_producer_reads_its_responses_natively() -> None:
    producer = rocketroute.Producer("127.0.0.1:9876", "g")
    assert producer._wire._make_result is not None
    assert rocketroute.Producer("127.0.0.1:9876", "g", backend=rocketroute.reference)._wire._make_result is None
