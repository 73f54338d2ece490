"""The typed request headers (``rocketroute.protocol.headers``): each request's ext fields on the wire, per compat.
A 5.x header about one queue carries the broker's name as ``bname``; a 4.9 one never does; a ``None`` field is left
out, as Java leaves out a null field."""

from __future__ import annotations

import json

import pytest

import rocketroute as rr
from rocketroute.protocol import MQ_VERSIONS, RequestCode, ext_fields_to_strings
from rocketroute.protocol.headers import (
    ConsumerSendMsgBackRequestHeader,
    GetConsumerListByGroupRequestHeader,
    GetMaxOffsetRequestHeader,
    GetMinOffsetRequestHeader,
    GetRouteInfoRequestHeader,
    HeartbeatRequest,
    LockBatchMqRequest,
    PullMessageRequestHeader,
    QueryConsumerOffsetRequestHeader,
    SearchOffsetRequestHeader,
    UnlockBatchMqRequest,
    UnregisterClientRequestHeader,
    UpdateConsumerOffsetRequestHeader,
)
from rocketroute.protocol.headers.consumer import FLAG_LITE_PULL_MESSAGE

COMPATS = ("5.3", "4.9")


def _pull(**over):
    fields = dict(
        consumer_group="g",
        topic="T",
        queue_id=3,
        queue_offset=120,
        max_msg_nums=32,
        sys_flag=7,
        commit_offset=100,
        suspend_timeout_millis=15000,
        sub_version=99,
        expression_type="TAG",
        broker_name="broker-a",
    )
    return PullMessageRequestHeader(**{**fields, **over})


@pytest.mark.parametrize("compat", COMPATS)
def test_a_pull_request_sends_javas_fields_and_the_broker_name_only_on_5_3(compat):
    header = _pull(subscription="a || b", max_msg_bytes=1 << 20)
    want = {
        "consumerGroup": "g",
        "topic": "T",
        "queueId": 3,
        "queueOffset": 120,
        "maxMsgNums": 32,
        "sysFlag": 7,
        "commitOffset": 100,
        "suspendTimeoutMillis": 15000,
        "subscription": "a || b",
        "subVersion": 99,
        "expressionType": "TAG",
    }
    if compat == "5.3":
        want |= {"maxMsgBytes": 1 << 20, "bname": "broker-a"}  # 4.9's header has neither field
    assert header.to_ext_fields(compat) == want
    request = header.request(compat)
    assert request.code == RequestCode.PULL_MESSAGE
    assert request.version == MQ_VERSIONS[compat]
    assert request.ext_fields == {k: str(v) for k, v in want.items()}
    assert request.body is None


@pytest.mark.parametrize(("compat", "code"), [("5.3", 361), ("4.9", 11)])
def test_a_lite_pull_is_lite_pull_message_on_5_3_and_pull_message_on_4_9(compat, code):
    lite = _pull(sys_flag=0x2 | 0x4 | FLAG_LITE_PULL_MESSAGE).request(compat)
    assert (lite.code, RequestCode.LITE_PULL_MESSAGE) == (code, 361)  # MQClientAPIImpl.pullMessage (5.3.3; 4.9.8)
    assert lite.ext_fields["sysFlag"] == "22"


def test_a_pull_without_a_subscription_or_a_byte_limit_leaves_the_fields_out():
    ext = _pull().to_ext_fields("5.3")
    assert "subscription" not in ext and "maxMsgBytes" not in ext


@pytest.mark.parametrize("compat", COMPATS)
@pytest.mark.parametrize(
    ("header", "code", "fields"),
    [
        (
            QueryConsumerOffsetRequestHeader(consumer_group="g", topic="T", queue_id=1, broker_name="b"),
            RequestCode.QUERY_CONSUMER_OFFSET,
            {"consumerGroup": "g", "topic": "T", "queueId": 1},
        ),
        (
            UpdateConsumerOffsetRequestHeader(
                consumer_group="g", topic="T", queue_id=1, commit_offset=42, broker_name="b"
            ),
            RequestCode.UPDATE_CONSUMER_OFFSET,
            {"consumerGroup": "g", "topic": "T", "queueId": 1, "commitOffset": 42},
        ),
        (
            GetMaxOffsetRequestHeader(topic="T", queue_id=2, broker_name="b"),
            RequestCode.GET_MAX_OFFSET,
            {"topic": "T", "queueId": 2},
        ),
        (
            GetMinOffsetRequestHeader(topic="T", queue_id=3, broker_name="b"),
            RequestCode.GET_MIN_OFFSET,
            {"topic": "T", "queueId": 3},
        ),
        (
            SearchOffsetRequestHeader(topic="T", queue_id=2, timestamp=1_700_000_000_000, broker_name="b"),
            RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
            {"topic": "T", "queueId": 2, "timestamp": 1_700_000_000_000},
        ),
        (
            ConsumerSendMsgBackRequestHeader(
                offset=9,
                group="g",
                delay_level=3,
                origin_msg_id="ID",
                origin_topic="T",
                max_reconsume_times=16,
                broker_name="b",
            ),
            RequestCode.CONSUMER_SEND_MSG_BACK,
            {
                "offset": 9,
                "group": "g",
                "delayLevel": 3,
                "originMsgId": "ID",
                "originTopic": "T",
                "unitMode": False,
                "maxReconsumeTimes": 16,
            },
        ),
    ],
)
def test_queue_headers_carry_bname_on_5_3_only(compat, header, code, fields):
    want = {**fields, "bname": "b"} if compat == "5.3" else fields
    assert header.to_ext_fields(compat) == want
    request = header.request(compat)
    assert request.code == code and request.version == MQ_VERSIONS[compat]
    assert request.ext_fields == ext_fields_to_strings(want)  # as Java writes them: bool as true/false


def test_an_unknown_broker_name_or_message_id_is_left_out():
    header = ConsumerSendMsgBackRequestHeader(
        offset=9, group="g", delay_level=0, origin_msg_id=None, origin_topic="T", max_reconsume_times=-1
    )
    ext = header.to_ext_fields("5.3")
    assert "bname" not in ext and "originMsgId" not in ext
    assert header.request("5.3").ext_fields["unitMode"] == "false"  # Java's boolean text


@pytest.mark.parametrize("compat", COMPATS)
def test_client_and_name_server_headers(compat):
    unregister = UnregisterClientRequestHeader(client_id="ip@i", consumer_group="g").request(compat)
    assert (unregister.code, unregister.ext_fields) == (
        RequestCode.UNREGISTER_CLIENT,
        {"clientID": "ip@i", "consumerGroup": "g"},
    )
    members = GetConsumerListByGroupRequestHeader(consumer_group="g").request(compat)
    assert (members.code, members.ext_fields) == (RequestCode.GET_CONSUMER_LIST_BY_GROUP, {"consumerGroup": "g"})
    route = GetRouteInfoRequestHeader(topic="T").request(compat)
    assert (route.code, route.ext_fields, route.version) == (
        RequestCode.GET_ROUTEINFO_BY_TOPIC,
        {"topic": "T"},
        MQ_VERSIONS[compat],
    )


@pytest.mark.parametrize("cls", [LockBatchMqRequest, UnlockBatchMqRequest])
def test_lock_requests_carry_the_queues_in_the_body(cls):
    mqs = [rr.MessageQueue("T", "broker-a", 0), rr.MessageQueue("T", "broker-a", 5)]
    request = cls.of("g", "ip@i", mqs).request("5.3")
    assert request.code == (RequestCode.LOCK_BATCH_MQ if cls is LockBatchMqRequest else RequestCode.UNLOCK_BATCH_MQ)
    assert request.ext_fields == {}  # no header: the body says it all
    # fastjson's form: properties in name order, compact, each queue as message_queue_json writes one
    assert request.body == (
        b'{"clientId":"ip@i","consumerGroup":"g","mqSet":[{"brokerName":"broker-a","queueId":0,"topic":"T"},'
        b'{"brokerName":"broker-a","queueId":5,"topic":"T"}],"onlyThisBroker":false}'
    )
    assert json.loads(request.body) == {
        "consumerGroup": "g",
        "clientId": "ip@i",
        "onlyThisBroker": False,
        "mqSet": [
            {"topic": "T", "brokerName": "broker-a", "queueId": 0},
            {"topic": "T", "brokerName": "broker-a", "queueId": 5},
        ],
    }


def test_a_heartbeat_is_its_body():
    request = HeartbeatRequest(heartbeat_data=b'{"clientID":"ip@i"}').request("4.9")
    assert (request.code, request.ext_fields, request.body) == (RequestCode.HEART_BEAT, {}, b'{"clientID":"ip@i"}')
    assert request.version == MQ_VERSIONS["4.9"]


def test_headers_are_frozen_and_refuse_an_unknown_compat():
    header = GetMaxOffsetRequestHeader(topic="T", queue_id=0)
    with pytest.raises(AttributeError):
        header.topic = "U"  # type: ignore[misc]
    with pytest.raises(ValueError, match="compat"):
        header.to_ext_fields("5.5")  # the clients pass a normalized profile; an alias here is a bug
    with pytest.raises(TypeError):
        GetMaxOffsetRequestHeader("T", 0)  # type: ignore[misc]  # keywords only: no field order to get wrong
