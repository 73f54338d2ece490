"""The GET_CONSUMER_RUNNING_INFO body as fastjson writes Java's ``ConsumerRunningInfo`` (the admin tools decode it
with fastjson; tests/cluster/test_admin_view.py checks that against the real tools): fields in name order, the
``mqTable`` keyed by ``MessageQueue`` objects in ``compareTo`` order, settings as camelCase string properties."""

from __future__ import annotations

import re
import threading

import rocketroute as rr
from rocketroute.client.process_queue import ProcessQueue
from rocketroute.client.running_info import encode_running_info, python_stacks, settings_properties


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
