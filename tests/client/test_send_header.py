"""rocketroute.protocol.headers.send: SendMessageRequestHeader(V2) as a producer sends it."""

from __future__ import annotations

import pytest

from rocketroute.errors import IllegalArgumentError, NullPointerError, NumberFormatError
from rocketroute.protocol.headers.send import SendMessageRequestHeader, send_header_v1, send_header_v2

COMPATS = ["5.3", "4.9"]
PROPS = "TAGS\x01TagA\x02WAIT\x01true\x02"

# recorded from Java (4.9.8 and 5.3.3 alike): sendKernelImpl's header for this send, through
# createSendMessageRequestHeaderV2 and RemotingCommand.makeCustomHeaderToNet
JAVA_V2 = {
    "a": "please_rename_unique_group_name",
    "b": "TopicTest",
    "c": "TBW102",
    "d": "4",
    "e": "3",
    "f": "0",
    "g": "1700000000000",
    "h": "0",
    "i": PROPS,
    "j": "0",
    "k": "false",
    "m": "false",
    "n": "broker-a",
}
JAVA_V1 = {
    "producerGroup": "please_rename_unique_group_name",
    "topic": "TopicTest",
    "defaultTopic": "TBW102",
    "defaultTopicQueueNums": "4",
    "queueId": "3",
    "sysFlag": "0",
    "bornTimestamp": "1700000000000",
    "flag": "0",
    "properties": PROPS,
    "reconsumeTimes": "0",
    "unitMode": "false",
    "batch": "false",
    "bname": "broker-a",
}

ARGS = dict(
    producer_group="please_rename_unique_group_name",
    topic="TopicTest",
    queue_id=3,
    born_timestamp=1_700_000_000_000,
    properties=PROPS,
    broker_name="broker-a",
)


@pytest.mark.parametrize("compat", COMPATS)
def test_v2_fields_are_javas(compat):
    assert send_header_v2(**ARGS, compat=compat) == JAVA_V2
    assert SendMessageRequestHeader(**ARGS).to_v2_ext_fields(compat) == JAVA_V2


@pytest.mark.parametrize("compat", COMPATS)
def test_v1_fields_are_javas(compat):
    assert send_header_v1(**ARGS, compat=compat) == JAVA_V1
    assert SendMessageRequestHeader(**ARGS).to_v1_ext_fields(compat) == JAVA_V1


def test_v2_short_names_map_the_v1_fields_one_to_one():
    h = SendMessageRequestHeader(**ARGS, max_reconsume_times=16, unit_mode=True, batch=True, sys_flag=0x301, flag=-5)
    v1, v2 = h.to_v1_ext_fields(), h.to_v2_ext_fields()
    pairs = {
        "a": "producerGroup",
        "b": "topic",
        "c": "defaultTopic",
        "d": "defaultTopicQueueNums",
        "e": "queueId",
        "f": "sysFlag",
        "g": "bornTimestamp",
        "h": "flag",
        "i": "properties",
        "j": "reconsumeTimes",
        "k": "unitMode",
        "l": "maxReconsumeTimes",
        "m": "batch",
        "n": "bname",
    }
    assert {k: v1[pairs[k]] for k in v2} == v2
    assert sorted(v2) == list("abcdefghijklmn")
    assert (v2["f"], v2["h"], v2["k"], v2["l"], v2["m"]) == ("769", "-5", "true", "16", "true")


def test_null_fields_are_left_out():
    v2 = send_header_v2(producer_group="g", topic="t", queue_id=0, born_timestamp=1)
    assert sorted(v2) == list("abcdefghjkm")  # no properties (i), maxReconsumeTimes (l), brokerName (n)


def test_the_function_and_the_dataclass_agree():
    kw = dict(ARGS, sys_flag=0x301, flag=9, reconsume_times=2, unit_mode=True, batch=True, max_reconsume_times=3)
    assert send_header_v2(**kw) == SendMessageRequestHeader(**kw).to_v2_ext_fields()


def test_decode_round_trip():
    h = SendMessageRequestHeader(**ARGS, max_reconsume_times=16, batch=True)
    assert SendMessageRequestHeader.from_v2_ext_fields(h.to_v2_ext_fields()) == h


def test_decode_reads_as_the_broker_does():
    fields = dict(JAVA_V2, k="TRUE", m="yes", e="+3")
    h = SendMessageRequestHeader.from_v2_ext_fields(fields)
    assert (h.unit_mode, h.batch, h.queue_id) == (True, False, 3)  # Boolean.parseBoolean, Integer.parseInt
    with pytest.raises(NumberFormatError, match=r'^For input string: "x"$'):
        SendMessageRequestHeader.from_v2_ext_fields(dict(JAVA_V2, g="x"))
    with pytest.raises(NullPointerError):
        SendMessageRequestHeader.from_v2_ext_fields({k: v for k, v in JAVA_V2.items() if k != "a"})


def test_header_checks_types_and_ranges():
    with pytest.raises(NullPointerError):
        SendMessageRequestHeader(**dict(ARGS, topic=None))
    with pytest.raises(TypeError):
        SendMessageRequestHeader(**dict(ARGS, queue_id="3"))
    with pytest.raises(IllegalArgumentError):
        SendMessageRequestHeader(**dict(ARGS, queue_id=2**31))
    with pytest.raises(TypeError):
        send_header_v2(**dict(ARGS, queue_id=True))
    with pytest.raises(IllegalArgumentError):
        send_header_v2(**ARGS, compat="3.0")
