"""``BrokerAPI`` (``client/api.py``, Java's ``MQClientAPIImpl``) on its own: each request against a fake broker
over real TCP, its header as the broker reads it, and its answer turned into the outcome, error answers
included."""

from __future__ import annotations

import time
from typing import Any

import pytest

from rocketroute.client.api import BrokerAPI, send_back_request
from rocketroute.client.message_decode import decode_messages
from rocketroute.net import RemotingClient
from rocketroute.protocol.errors import RemotingCommandError

from ._fake_cluster import (
    CONSUMER_SEND_MSG_BACK,
    GET_MAX_OFFSET,
    LOCK_BATCH_MQ,
    SYSTEM_ERROR,
    UNLOCK_BATCH_MQ,
    FakeBroker,
)
from ._stored import stored

CLIENT = "127.0.0.1@api-test"


def test_a_member_heartbeats_is_listed_and_leaves(broker: FakeBroker, client: RemotingClient) -> None:
    api = BrokerAPI(client.async_client, "5.3")
    body = b'{"clientID":"%s","producerDataSet":[],"consumerDataSet":[{"groupName":"G"}]}' % CLIENT.encode()
    client.run(api.heartbeat(broker.addr, body, 3000))
    assert client.run(api.consumer_ids(broker.addr, "G", 3000)) == [CLIENT]
    assert client.run(api.consumer_ids(broker.addr, "OTHER", 3000)) == []
    client.run(api.unregister_client(broker.addr, CLIENT, producer_group=None, consumer_group="G", timeout_ms=3000))
    assert client.run(api.consumer_ids(broker.addr, "G", 3000)) == []


def test_offsets_are_read_committed_and_searched(broker: FakeBroker, client: RemotingClient, backend: Any) -> None:
    api = BrokerAPI(client.async_client, "5.3")
    mq = backend.MessageQueue("T", "broker-a", 1)
    assert client.run(api.query_consumer_offset(broker.addr, "G", mq, 3000)) is None  # QUERY_NOT_FOUND
    client.run(api.update_consumer_offset(broker.addr, "G", mq, 7, oneway=False, timeout_ms=3000))
    assert client.run(api.query_consumer_offset(broker.addr, "G", mq, 3000)) == 7
    client.run(api.update_consumer_offset(broker.addr, "G", mq, 9, oneway=True, timeout_ms=3000))
    deadline = time.monotonic() + 5
    while broker.offsets.get(("G", "T", 1)) != 9 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert broker.offsets[("G", "T", 1)] == 9  # the oneway commit, unanswered, arrived
    for _ in range(3):
        broker.append("T", 1, b"x")
    assert client.run(api.max_offset(broker.addr, mq, 3000)) == 3
    assert client.run(api.search_offset(broker.addr, mq, 0, 3000)) == 3
    assert client.run(api.min_offset(broker.addr, mq, 3000)) == 0
    broker.min_offsets[("T", 1)] = 2
    assert client.run(api.min_offset(broker.addr, mq, 3000)) == 2
    fields = broker.requests(GET_MAX_OFFSET)[-1]["extFields"]
    assert (fields["topic"], fields["queueId"], fields["bname"]) == ("T", "1", "broker-a")  # 5.3 names the broker


def test_an_answer_without_an_offset_is_a_clear_error(broker: FakeBroker, client: RemotingClient, backend: Any) -> None:
    api = BrokerAPI(client.async_client, "5.3")
    broker.script[GET_MAX_OFFSET] = lambda request: (0, {}, b"")
    with pytest.raises(RemotingCommandError, match="GET_MAX_OFFSET answered no offset"):
        client.run(api.max_offset(broker.addr, backend.MessageQueue("T", "broker-a", 0), 3000))


def test_queues_are_locked_and_unlocked(broker: FakeBroker, client: RemotingClient, backend: Any) -> None:
    api = BrokerAPI(client.async_client, "5.3")
    mqs = [backend.MessageQueue("T", "broker-a", i) for i in (0, 2)]
    locked = client.run(api.lock_batch(broker.addr, "G", CLIENT, mqs, 1000))
    assert sorted(locked) == [("T", "broker-a", 0), ("T", "broker-a", 2)]
    client.run(api.unlock_batch(broker.addr, "G", CLIENT, mqs, 1000))
    assert len(broker.requests(LOCK_BATCH_MQ)) == len(broker.requests(UNLOCK_BATCH_MQ)) == 1
    broker.script[LOCK_BATCH_MQ] = lambda request: (SYSTEM_ERROR, {"_remark": "lock refused"}, b"")
    with pytest.raises(RemotingCommandError, match="lock refused"):
        client.run(api.lock_batch(broker.addr, "G", CLIENT, mqs, 1000))


def test_a_message_is_sent_back_with_its_origin(broker: FakeBroker, client: RemotingClient) -> None:
    api = BrokerAPI(client.async_client, "5.3")
    (msg,) = decode_messages(stored("T", b"body", commit_log_offset=1234))
    msg.broker_name = "broker-a"
    request = send_back_request(msg, group="G", delay_level=3, origin_topic="T", max_reconsume_times=16, compat="5.3")
    client.run(api.send_back(broker.addr, request, 3000))
    fields = broker.requests(CONSUMER_SEND_MSG_BACK)[-1]["extFields"]
    assert (fields["offset"], fields["group"], fields["delayLevel"], fields["originTopic"]) == ("1234", "G", "3", "T")
    assert (fields["maxReconsumeTimes"], fields["originMsgId"]) == ("16", msg.msg_id)
    assert fields["bname"] == "broker-a"
