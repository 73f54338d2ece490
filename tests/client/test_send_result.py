"""rocketroute.client.producer.send_result: MQClientAPIImpl.processSendResponse."""

from __future__ import annotations

import dataclasses

import pytest

import rocketroute
from rocketroute.client import SendResult, SendStatus, send_result_from_response
from rocketroute.errors import BrokerResponseError, NullPointerError, NumberFormatError

COMPATS = ["5.3", "4.9"]
FIELDS = {"msgId": "7F00000100002A9F0000000000000042", "queueId": "3", "queueOffset": "17"}
UID = "0A000001303900000001000000010002"


def result(code=0, fields=FIELDS, **kw):
    kw.setdefault("topic", "TopicTest")
    kw.setdefault("broker_name", "broker-a")
    kw.setdefault("msg_id", UID)
    return send_result_from_response(code, fields, **kw)


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (0, SendStatus.SEND_OK),
        (10, SendStatus.FLUSH_DISK_TIMEOUT),
        (12, SendStatus.FLUSH_SLAVE_TIMEOUT),
        (11, SendStatus.SLAVE_NOT_AVAILABLE),
    ],
)
@pytest.mark.parametrize("compat", COMPATS)
def test_stored_codes_map_to_statuses(code, status, compat):
    r = result(code, compat=compat)
    assert r.send_status is status
    assert r.msg_id == UID
    assert r.offset_msg_id == FIELDS["msgId"]
    assert r.queue == rocketroute.MessageQueue("TopicTest", "broker-a", 3)
    assert r.queue_offset == 17
    assert (r.transaction_id, r.region_id, r.trace_on, r.recall_handle) == (None, "DefaultRegion", True, None)


@pytest.mark.parametrize("code", [1, 2, 13, 14, 16, 17, 25, 215, -1])
def test_other_codes_raise_the_broker_error(code):
    with pytest.raises(BrokerResponseError) as info:
        result(code, remark="boom", broker_addr="127.0.0.1:10911")
    assert info.value.response_code == code
    assert str(info.value) == f"CODE: {code}  DESC: boom BROKER: 127.0.0.1:10911"


def test_a_null_remark_reads_null_as_java():
    with pytest.raises(BrokerResponseError, match=r"^CODE: 17  DESC: null$"):
        result(17)


# what Apache 5.5.0's broker answers a send to a topic it does not have, autoCreateTopicEnable=false
APPLY_FIRST = (
    "topic[Missing] not exist, apply first please!\n"
    "See https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details."
)


def test_a_remark_of_two_lines_is_one_line_in_the_message_and_kept_whole_in_remark():
    with pytest.raises(BrokerResponseError) as info:
        result(17, remark=APPLY_FIRST, broker_addr="127.0.0.1:10911")
    e = info.value
    assert str(e) == (
        "CODE: 17  DESC: topic[Missing] not exist, apply first please! "
        "See https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details. BROKER: 127.0.0.1:10911"
    )
    assert (e.code, e.response_code, e.remark, e.addr) == (17, 17, APPLY_FIRST, "127.0.0.1:10911")


def test_the_broker_error_pickles_with_its_remark():
    import pickle

    e = BrokerResponseError(17, APPLY_FIRST, addr="h:1")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is BrokerResponseError and str(back) == str(e)
    assert (back.response_code, back.remark, back.addr) == (17, APPLY_FIRST, "h:1")


def test_queue_comes_from_the_response():
    r = result(fields=dict(FIELDS, queueId="5"))
    assert (r.queue.topic, r.queue.broker_name, r.queue.queue_id) == ("TopicTest", "broker-a", 5)


def test_region_trace_transaction():
    r = result(fields=dict(FIELDS, MSG_REGION="r1", TRACE_ON="false", transactionId="tx"))
    assert (r.region_id, r.trace_on, r.transaction_id) == ("r1", False, "tx")
    assert result(fields=dict(FIELDS, MSG_REGION="", TRACE_ON="FALSE")).region_id == "DefaultRegion"
    assert result(fields=dict(FIELDS, TRACE_ON="FALSE")).trace_on is True  # only "false" turns it off


def test_recall_handle_only_in_5_3():
    fields = dict(FIELDS, recallHandle="h")
    assert result(fields=fields, compat="5.3").recall_handle == "h"
    assert result(fields=fields, compat="4.9").recall_handle is None


@pytest.mark.parametrize("compat", COMPATS)
def test_batch_msg_id_is_the_messages_ids_joined(compat):
    r = result(msg_id="BATCH", batch_msg_ids=["A1", "A2", "A3"], compat=compat)
    assert r.msg_id == "A1,A2,A3"


def test_an_inner_batch_keeps_the_batch_id_in_5_3_only():
    fields = dict(FIELDS, batchUniqId="X")
    assert result(fields=fields, msg_id="BATCH", batch_msg_ids=["A1"], compat="5.3").msg_id == "BATCH"
    assert result(fields=fields, msg_id=None, batch_msg_ids=["A1"], compat="4.9").msg_id == "A1"


def test_missing_offset_msg_id_is_none():
    r = result(fields={"queueId": "0", "queueOffset": "0"})
    assert r.offset_msg_id is None


@pytest.mark.parametrize("missing", ["queueId", "queueOffset"])
def test_missing_queue_fields_are_null_pointers_as_java(missing):
    with pytest.raises(NullPointerError):
        result(fields={k: v for k, v in FIELDS.items() if k != missing})
    with pytest.raises(NullPointerError):
        result(fields=None)


def test_bad_numbers_are_number_format_errors():
    with pytest.raises(NumberFormatError, match=r'^For input string: "x"$'):
        result(fields=dict(FIELDS, queueId="x"))
    with pytest.raises(NumberFormatError):
        result(fields=dict(FIELDS, queueOffset="1.5"))
    assert result(fields=dict(FIELDS, queueOffset=str(2**40))).queue_offset == 2**40


def test_send_result_is_frozen_and_prints_as_java():
    r = result()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.queue_offset = 1  # type: ignore[misc]
    assert str(r) == (
        f"SendResult [sendStatus=SEND_OK, msgId={UID}, offsetMsgId={FIELDS['msgId']}, "
        "messageQueue=MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=3], queueOffset=17, "
        "recallHandle=null]"
    )
    assert isinstance(r, SendResult) and SendStatus.SEND_OK == "SEND_OK"


def test_the_constructor_is_a_dataclass_one():
    """SendResult's own __init__ (faster than a frozen dataclass's) takes what the dataclass's would: positions or
    names, the same defaults; and equality, hashing, replace and the field list are the dataclass's."""
    mq = rocketroute.MessageQueue("T", "broker-a", 1)
    by_name = SendResult(send_status=SendStatus.SEND_OK, msg_id="m", offset_msg_id=None, queue=mq, queue_offset=5)
    by_position = SendResult(SendStatus.SEND_OK, "m", None, mq, 5, None, "DefaultRegion", True, None)
    assert by_name == by_position and hash(by_name) == hash(by_position)
    assert (by_name.transaction_id, by_name.region_id, by_name.trace_on, by_name.recall_handle) == (
        None, "DefaultRegion", True, None,
    )  # fmt: skip
    assert dataclasses.replace(by_name, queue_offset=6).queue_offset == 6 and by_name.queue_offset == 5
    assert [f.name for f in dataclasses.fields(SendResult)] == list(vars(by_name))
    with pytest.raises(TypeError):
        SendResult(SendStatus.SEND_OK, "m", None, mq)  # type: ignore[call-arg]
