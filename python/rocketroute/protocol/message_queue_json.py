"""A ``MessageQueue`` in the protocol's JSON, as Java's fastjson writes and reads it: an object of its three
properties in name order (``{"brokerName":..,"queueId":..,"topic":..}``), compact. Fastjson also writes such
objects as the keys of a map (a consumer's running info, a broadcasting consumer's ``offsets.json``), which is not
standard JSON: :func:`message_queue_json` gives the text for either place, :func:`message_queue_fields` reads one
back."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["message_queue_fields", "message_queue_json"]


def message_queue_json(mq: Any) -> str:
    """``mq`` (anything with ``broker_name``, ``queue_id`` and ``topic``) as fastjson writes a ``MessageQueue``."""
    return f'{{"brokerName":{json.dumps(mq.broker_name)},"queueId":{int(mq.queue_id)},"topic":{json.dumps(mq.topic)}}}'


def message_queue_fields(obj: Mapping[str, Any]) -> tuple[str, str, int]:
    """``(topic, broker_name, queue_id)`` of a ``MessageQueue`` read from JSON (its keys in any order); a missing
    key raises ``KeyError``, a queue id that is not a number ``ValueError``."""
    return obj["topic"], obj["brokerName"], int(obj["queueId"])
