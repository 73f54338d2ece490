"""The consumer's wire pieces without a broker: subscriptions and heartbeats, pull requests and results, and the
local offset file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from rocketroute.client.api import BrokerAPI
from rocketroute.client.consumer.offset_store import (
    LocalFileOffsetStore,
    RemoteBrokerOffsetStore,
    dumps_offset_table,
    loads_offset_table,
)
from rocketroute.client.consumer.pull import (
    FLAG_COMMIT_OFFSET,
    FLAG_SUBSCRIPTION,
    FLAG_SUSPEND,
    PullStatus,
    pull_request,
    pull_result,
    pull_sys_flag,
)
from rocketroute.client.consumer.subscription import (
    ConsumerData,
    build_subscription,
    filter_by_tags,
    heartbeat_body,
    retry_topic,
)
from rocketroute.errors import IllegalArgumentError
from rocketroute.protocol import RemotingCommand, RemotingCommandError, RequestCode
from rocketroute.protocol.response_code import ResponseCode

from ._stored import stored_message


def java_hash(s: str) -> int:
    """``String.hashCode`` over UTF-16 code units, written out."""
    data = s.encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i : i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def test_sub_all_for_none_blank_and_star() -> None:
    for expr in (None, "", "  ", "*"):
        sd = build_subscription("T", expr, now_ms=5)
        assert (sd.sub_string, sd.tags_set, sd.code_set, sd.sub_version) == ("*", [], [], 5)


def test_tags_are_split_trimmed_deduplicated_and_hashed_as_java_strings() -> None:
    sd = build_subscription("T", " TagA ||TagB||  || TagA|| étiquette ", now_ms=1)
    assert sd.sub_string == " TagA ||TagB||  || TagA|| étiquette "
    assert sd.tags_set == ["TagA", "TagB", "étiquette"]
    assert sd.code_set == [java_hash(t) for t in sd.tags_set]
    assert sd.code_set[0] == 2_598_919  # "TagA".hashCode(): 84*31**3 + 97*31**2 + 103*31 + 65


def test_bad_subscriptions() -> None:
    with pytest.raises(IllegalArgumentError, match="names no tag"):
        build_subscription("T", "|| ||")
    with pytest.raises(IllegalArgumentError, match="topic"):
        build_subscription("", "*")
    with pytest.raises(IllegalArgumentError, match="a tag expression is a str"):
        build_subscription("T", 5)  # type: ignore[arg-type]


def test_heartbeat_body_names_the_fields_as_java_does() -> None:
    sd = build_subscription("T", "a||b", now_ms=7)
    body = json.loads(heartbeat_body("1.2.3.4@x", [ConsumerData("G", [sd], message_model="BROADCASTING")], ["P"]))
    assert body["clientID"] == "1.2.3.4@x" and body["producerDataSet"] == [{"groupName": "P"}]
    (c,) = body["consumerDataSet"]
    assert c["groupName"] == "G" and c["messageModel"] == "BROADCASTING" and c["consumeType"] == "CONSUME_PASSIVELY"
    assert c["consumeFromWhere"] == "CONSUME_FROM_LAST_OFFSET" and c["unitMode"] is False
    (s,) = c["subscriptionDataSet"]
    assert s == {
        "classFilterMode": False,
        "topic": "T",
        "subString": "a||b",
        "tagsSet": ["a", "b"],
        "codeSet": [97, 98],
        "subVersion": 7,
        "expressionType": "TAG",
    }
    assert retry_topic("G") == "%RETRY%G"


class _Msg:
    def __init__(self, tags: str | None) -> None:
        self.properties = {} if tags is None else {"TAGS": tags}


def test_client_side_tag_filter() -> None:
    msgs = [_Msg("a"), _Msg("b"), _Msg(None), _Msg("c")]
    assert filter_by_tags(msgs, build_subscription("T", "a || c")) == [msgs[0], msgs[3]]
    assert filter_by_tags(msgs, build_subscription("T", "*")) == msgs


def test_pull_sys_flag_bits() -> None:
    assert pull_sys_flag(False, False, False) == 0
    assert pull_sys_flag(True, True, True, True, True) == 0x1F
    assert pull_sys_flag(True, True, False) == FLAG_COMMIT_OFFSET | FLAG_SUSPEND == 3


def test_pull_request_header(backend: Any) -> None:
    mq = backend.MessageQueue("T", "broker-a", 3)
    sd = build_subscription("T", "a", now_ms=99)
    req = pull_request(
        "G", mq, 42, max_nums=16, sys_flag=FLAG_SUSPEND | FLAG_SUBSCRIPTION, commit_offset=7, subscription=sd
    )
    assert req.code == RequestCode.PULL_MESSAGE
    assert req.ext_fields == {
        "consumerGroup": "G",
        "topic": "T",
        "queueId": "3",
        "queueOffset": "42",
        "maxMsgNums": "16",
        "sysFlag": "6",
        "commitOffset": "7",
        "suspendTimeoutMillis": "15000",
        "subVersion": "99",
        "expressionType": "TAG",
        "subscription": "a",
        "bname": "broker-a",
    }
    old = pull_request("G", mq, 0, subscription=sd, compat="4.9")
    assert "bname" not in old.ext_fields and "subscription" not in old.ext_fields


def _response(code: int, body: bytes | None = None, **ext: Any) -> RemotingCommand:
    req = RemotingCommand.request(RequestCode.PULL_MESSAGE)
    return RemotingCommand.response_to(req, code, None, ext, body)


def test_pull_result_statuses(backend: Any) -> None:
    mq = backend.MessageQueue("T", "broker-a", 0)
    for code, status in (
        (ResponseCode.PULL_NOT_FOUND, PullStatus.NO_NEW_MSG),
        (ResponseCode.PULL_RETRY_IMMEDIATELY, PullStatus.NO_MATCHED_MSG),
        (ResponseCode.PULL_OFFSET_MOVED, PullStatus.OFFSET_ILLEGAL),
    ):
        r = pull_result(_response(code, nextBeginOffset=5, minOffset=1, maxOffset=9, suggestWhichBrokerId=1), mq, None)
        assert (r.status, r.next_begin_offset, r.min_offset, r.max_offset, r.messages) == (status, 5, 1, 9, [])
        assert r.suggest_which_broker_id == 1
    with pytest.raises(RemotingCommandError) as info:
        pull_result(_response(ResponseCode.SUBSCRIPTION_NOT_EXIST), mq, None)
    assert info.value.code == ResponseCode.SUBSCRIPTION_NOT_EXIST
    with pytest.raises(RemotingCommandError, match="nextBeginOffset is not a number"):
        pull_result(_response(ResponseCode.SUCCESS, nextBeginOffset="x"), mq, None)


def test_found_messages_are_filtered_and_marked(backend: Any) -> None:
    mq = backend.MessageQueue("T", "broker-a", 2)
    body = b"".join(
        stored_message(topic="T", queue_id=2, queue_offset=i, body=b"m%d" % i, properties={"TAGS": tag})
        for i, tag in enumerate(["a", "b", "a"])
    )
    r = pull_result(
        _response(ResponseCode.SUCCESS, body, nextBeginOffset=3, minOffset=0, maxOffset=3),
        mq,
        build_subscription("T", "a"),
    )
    assert r.status is PullStatus.FOUND and r.next_begin_offset == 3
    assert [m.body for m in r.messages] == [b"m0", b"m2"]
    assert all(m.broker_name == "broker-a" for m in r.messages)
    assert all((m.properties["MIN_OFFSET"], m.properties["MAX_OFFSET"]) == ("0", "3") for m in r.messages)


def test_offset_file_is_java_s_fastjson_form_and_reads_back(tmp_path: Path, backend: Any) -> None:
    mq1, mq2 = backend.MessageQueue("T", "b-a", 0), backend.MessageQueue("T", "b-b", 12)
    text = dumps_offset_table({mq1: 5, mq2: 70})
    assert text == (
        '{"offsetTable":{{"brokerName":"b-a","queueId":0,"topic":"T"}:5,'
        '{"brokerName":"b-b","queueId":12,"topic":"T"}:70}}'
    )
    assert loads_offset_table(text) == [("T", "b-a", 0, 5), ("T", "b-b", 12, 70)]
    assert loads_offset_table('{"offsetTable":{}}') == []
    with pytest.raises(ValueError):
        loads_offset_table('{"other":1}')

    path = tmp_path / "c" / "G" / "offsets.json"
    store = LocalFileOffsetStore(path, backend.MessageQueue)
    assert asyncio.run(store.read_from_store(mq1)) == -1
    store.update_offset(mq1, 5)
    store.update_offset(mq1, 3, increase_only=True)
    store.update_offset(mq2, 70)
    asyncio.run(store.persist_all([mq1, mq2]))
    store.update_offset(mq1, 9)
    asyncio.run(store.persist_all([mq1]))
    assert (path.with_name("offsets.json.bak")).exists()
    again = LocalFileOffsetStore(path, backend.MessageQueue)
    assert asyncio.run(again.read_from_store(mq1)) == 9
    assert asyncio.run(again.read_from_store(mq2)) == 70
    assert again.read_memory(mq2) == 70


def test_persist_all_writes_what_is_held_when_each_write_goes(backend: Any) -> None:
    """A queue given up while the periodic commit awaits an earlier write (its own commit done and the offset
    forgotten) is not written from the commit's snapshot, and a queue moved on meanwhile is written as it is now: a
    stale write would move the broker's offset back under the queue's next owner."""
    mq1, mq2, mq3 = (backend.MessageQueue("T", "b", i) for i in range(3))
    written: list[tuple[int, int]] = []

    class Remoting:
        async def invoke_oneway(self, addr: str, request: Any) -> None:
            fields = request.ext_fields
            written.append((int(fields["queueId"]), int(fields["commitOffset"])))
            if len(written) == 1:  # while the first write is awaited: mq2 given up, mq3 consumed further
                await asyncio.sleep(0)
                store.remove_offset(mq2)
                store.update_offset(mq3, 40)

    api = BrokerAPI(Remoting(), "5.3")  # type: ignore[arg-type]
    store = RemoteBrokerOffsetStore("G", api, lambda name: "127.0.0.1:1")
    for mq, offset in ((mq1, 10), (mq2, 20), (mq3, 30)):
        store.update_offset(mq, offset)
    asyncio.run(store.persist_all([mq1, mq2, mq3]))
    assert written == [(0, 10), (2, 40)]


def test_the_periodic_commit_keeps_the_offset_of_a_queue_being_given_up(backend: Any) -> None:
    """Java's ``persistConsumerOffset`` commits every queue of its process queue table, those being given up too:
    left out, their offsets were forgotten while the give-up waited for an orderly listener call, and the give-up's
    own commit then found none (the next owner consumed from the last periodic commit, again)."""
    from rocketroute.client import Consumer
    from rocketroute.client.consumer.offset_store import OffsetStore
    from rocketroute.client.consumer.process_queue import ProcessQueue

    kept, going = backend.MessageQueue("T", "b", 0), backend.MessageQueue("T", "b", 1)
    consumer = Consumer("127.0.0.1:1", "G", ["T"], listener=lambda msgs, context: None)
    store = OffsetStore()
    committed: list[list[Any]] = []

    async def persist_all(mqs: Any, *, oneway: bool = True) -> None:
        committed.append(list(mqs))

    store.persist_all = persist_all  # type: ignore[method-assign]
    consumer._offsets = store
    consumer._subscription.process_queues[kept] = ProcessQueue()
    consumer._subscription.process_queues[going] = ProcessQueue()
    consumer._subscription.process_queues[going].dropped = True  # its give-up under way
    asyncio.run(consumer._persist_all())
    assert committed == [[kept, going]]
