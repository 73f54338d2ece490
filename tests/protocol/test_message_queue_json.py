"""One ``MessageQueue`` JSON for the protocol's bodies, as fastjson writes it (properties in name order, compact),
read back from any key order: the running info's ``mqTable`` keys, ``offsets.json`` and the lock answers use it."""

from __future__ import annotations

import json

import pytest

import rocketroute as rr
from rocketroute.protocol.message_queue_json import message_queue_fields, message_queue_json


def test_a_queue_is_written_as_fastjson_writes_it():
    mq = rr.MessageQueue("TopicTest", "broker-a", 3)
    assert message_queue_json(mq) == '{"brokerName":"broker-a","queueId":3,"topic":"TopicTest"}'
    odd = rr.MessageQueue('T"\\键', "b\x01", 0)  # quoted and escaped as JSON (ASCII, as fastjson's reader takes)
    assert json.loads(message_queue_json(odd)) == {"brokerName": "b\x01", "queueId": 0, "topic": 'T"\\键'}


def test_a_queue_is_read_back_from_any_key_order():
    assert message_queue_fields({"topic": "T", "brokerName": "b", "queueId": 5}) == ("T", "b", 5)
    assert message_queue_fields(json.loads(message_queue_json(rr.MessageQueue("T", "b", 7)))) == ("T", "b", 7)
    with pytest.raises(KeyError):
        message_queue_fields({"topic": "T", "queueId": 1})
    with pytest.raises(ValueError):
        message_queue_fields({"topic": "T", "brokerName": "b", "queueId": "x"})
