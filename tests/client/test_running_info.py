"""The GET_CONSUMER_RUNNING_INFO body as fastjson writes Java's ``ConsumerRunningInfo`` (the admin tools decode it
with fastjson; tests/cluster/test_admin_view.py checks that against the real tools): fields in name order, the
``mqTable`` keyed by ``MessageQueue`` objects in ``compareTo`` order, settings as camelCase string properties."""

from __future__ import annotations

import re
import threading

import rocketroute as rr
from rocketroute.client.consumer.process_queue import ProcessQueue
from rocketroute.client.consumer.running_info import encode_running_info, python_stacks, settings_properties


def test_settings_become_java_property_names_and_strings():
    props = settings_properties({"pull_batch_size": 32, "post_subscription_when_pull": False, "unit_name": None})
    assert props == {"pullBatchSize": "32", "postSubscriptionWhenPull": "false"}


def test_the_queue_table_is_keyed_by_queue_objects_in_java_order():
    pq = ProcessQueue(now_ms=lambda: 1000)
    queues = [
        (rr.MessageQueue("T", "broker-b", 0), pq.info(7)),
        (rr.MessageQueue("T", "broker-a", 10), pq.info(3)),
        (rr.MessageQueue("T", "broker-a", 2), pq.info(5)),
    ]
    body = encode_running_info({"PROP_CONSUME_TYPE": "CONSUME_PASSIVELY"}, [], queues, None).decode()
    assert body.startswith('{"mqTable":{{"brokerName":"broker-a","queueId":2,"topic":"T"}:{')
    keys = re.findall(r'\{"brokerName":"([^"]+)","queueId":(\d+),"topic":"T"\}:', body)
    assert keys == [("broker-a", "2"), ("broker-a", "10"), ("broker-b", "0")]  # MessageQueue.compareTo
    assert '"commitOffset":5,' in body and '"droped":false' in body and '"cachedMsgCount":0' in body
    assert '"jstack"' not in body  # only when asked
    assert body.endswith(
        '"properties":{"PROP_CONSUME_TYPE":"CONSUME_PASSIVELY"},"statusTable":{},'
        '"subscriptionSet":[],"userConsumerInfo":{}}'
    )


def test_the_stack_dump_names_every_thread():
    stacks = python_stacks()
    assert f'"{threading.current_thread().name}" daemon=' in stacks
    assert "test_the_stack_dump_names_every_thread" in stacks


def _direct(listener, *, orderly: bool = False, group: str = "G", broken: bool = False):
    """CONSUME_MESSAGE_DIRECTLY through the consumer's processor, on a loop of its own (no broker): the answer.
    The consumer is not started: its direct consumption is built here as a start builds it, on a pool of one."""
    import asyncio

    from rocketroute.client import Consumer
    from rocketroute.client.consumer.consume_directly import DirectConsumer
    from rocketroute.client.workers import ConsumePool
    from rocketroute.protocol import RemotingCommand, RequestCode

    from ._stored import stored

    consumer = Consumer("127.0.0.1:1", "G", ["T"], listener=listener, orderly=orderly)
    pool = ConsumePool(1, "test-direct")
    consumer._direct = direct = DirectConsumer(
        consumer.group,
        consumer.settings,
        consumer.compat,
        consumer.namespace,
        listener,
        orderly=orderly,
        on_loop=False,
        executor=pool,
        feed=None,
        message_queue=rr.MessageQueue,
    )
    if broken:  # a fault past the listener (the listener's own exceptions are answered CR_THROW_EXCEPTION)

        def fault(msg, broker):
            raise LookupError("broke")

        direct.consume = fault  # type: ignore[method-assign]
    ext = {"consumerGroup": group, "clientId": consumer.client_id, "msgId": "X", "brokerName": "broker-a"}
    cmd = RemotingCommand.request(RequestCode.CONSUME_MESSAGE_DIRECTLY, ext, stored("T", b"again", queue_id=3))

    async def ask():
        answer = consumer._on_consume_directly(cmd, "127.0.0.1:10911")
        return await asyncio.wait_for(answer, 10) if not isinstance(answer, RemotingCommand) else answer

    try:
        return asyncio.run(ask())
    finally:
        pool.shutdown(1.0)


def test_consume_message_directly_answers_what_the_listener_said():
    import json

    from rocketroute.client import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus
    from rocketroute.protocol.response_code import ResponseCode

    got = []

    def listener(msgs, context):
        got.append((msgs[0].body, msgs[0].broker_name, context.message_queue))
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    answer = _direct(listener)
    assert answer.code == ResponseCode.SUCCESS
    result = json.loads(answer.body)
    assert {k: v for k, v in result.items() if k != "spentTimeMills"} == {
        "autoCommit": True,
        "consumeResult": "CR_SUCCESS",
        "order": False,
        "remark": None,
    }
    assert got == [(b"again", "broker-a", rr.MessageQueue("T", "broker-a", 3))]

    def later(msgs, context):
        return ConsumeConcurrentlyStatus.RECONSUME_LATER

    def nothing(msgs, context):
        return None

    def broken(msgs, context):
        raise RuntimeError("no")

    def suspend(msgs, context):
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT

    assert json.loads(_direct(later).body)["consumeResult"] == "CR_LATER"
    assert json.loads(_direct(nothing).body)["consumeResult"] == "CR_RETURN_NULL"
    thrown = json.loads(_direct(broken).body)
    assert (thrown["consumeResult"], thrown["remark"]) == ("CR_THROW_EXCEPTION", "RuntimeError: no")
    ordered = json.loads(_direct(suspend, orderly=True).body)
    assert (ordered["consumeResult"], ordered["order"]) == ("CR_LATER", True)
    other = _direct(listener, group="OTHER")
    assert (
        other.code == ResponseCode.SYSTEM_ERROR
        and other.remark == "The Consumer Group <OTHER> not exist in this consumer"
    )


def test_running_info_of_a_consumer_with_a_strategy_of_its_own():
    """A strategy object of the user's (``allocate`` only, no ``name``) is named by its class; the answer is no
    SYSTEM_ERROR, and it lists the owned queues' offsets from the offset store."""
    import json

    from rocketroute.client import Consumer
    from rocketroute.client.consumer.offset_store import OffsetStore
    from rocketroute.client.consumer.process_queue import ProcessQueue
    from rocketroute.protocol import RemotingCommand, RequestCode
    from rocketroute.protocol.response_code import ResponseCode

    class Mine:
        def allocate(self, group, cid, mq_all, cid_all):
            return list(mq_all)

    consumer = Consumer("127.0.0.1:1", "G", ["T"], Mine(), listener=lambda msgs, ctx: None)
    consumer._offsets = OffsetStore()
    mq = rr.MessageQueue("T", "broker-a", 1)
    consumer._offsets.update_offset(mq, 42)
    consumer._subscription.process_queues[mq] = ProcessQueue(now_ms=lambda: 5)
    cmd = RemotingCommand.request(
        RequestCode.GET_CONSUMER_RUNNING_INFO, {"consumerGroup": "G", "jstackEnable": "false"}
    )
    answer = consumer._on_running_info(cmd, "127.0.0.1:10911")
    assert answer.code == ResponseCode.SUCCESS
    body = answer.body.decode()
    assert '{"brokerName":"broker-a","queueId":1,"topic":"T"}:{' in body and '"commitOffset":42' in body
    properties = json.loads(body[body.index('"properties":') + 13 : body.index(',"statusTable"')])
    assert properties["allocateMessageQueueStrategy"] == "Mine" and properties["consumerGroup"] == "G"
    assert '"jstack"' not in body


def test_a_fault_past_the_listener_fails_the_answer_instead_of_leaving_it_waiting():
    """The awaitable fails (the remoting layer answers SYSTEM_ERROR with it), within the test's 10 s bound."""
    import pytest

    with pytest.raises(LookupError, match="broke"):
        _direct(lambda msgs, ctx: None, broken=True)
