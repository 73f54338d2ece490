"""``GET_CONSUMER_RUNNING_INFO``: what a consumer answers when an admin tool asks a broker about one member of its
group (``mqadmin consumerStatus``, ``consumerProgress -s``, the dashboard). The broker forwards the request to the
member over the member's own connection and hands the answer back; the tool decodes Java's
``ConsumerRunningInfo`` from it with fastjson.

The body is that class's JSON as fastjson writes it: fields in name order, and ``mqTable`` a map whose keys are
``MessageQueue`` objects written as JSON objects (``{{"brokerName":..,"queueId":..,"topic":..}:{..}}``), which is
not standard JSON but what fastjson reads and writes. rocketroute fills what it keeps: the consumer's settings and
the ``PROP_*`` properties, the subscriptions, one ``ProcessQueueInfo`` per owned queue, and the Python threads'
stacks when ``jstackEnable`` is set. ``statusTable`` (Java's per-topic pull / consume RT and TPS) is left empty:
rocketroute keeps its counters in ``Consumer.stats`` instead."""

from __future__ import annotations

import json
import sys
import threading
import traceback
from collections.abc import Iterable, Mapping
from typing import Any

from ...protocol.message_queue_json import message_queue_json

__all__ = ["CLIENT_VERSION_DESC", "encode_running_info", "python_stacks", "settings_properties"]

CLIENT_VERSION_DESC = {"5.3": "V5_3_3", "4.9": "V4_9_8"}
"""``PROP_CLIENT_VERSION``: ``MQVersion.getVersionDesc`` of the version the profile's requests carry."""


def settings_properties(settings: Mapping[str, Any]) -> dict[str, str]:
    """The settings as Java's ``MixAll.object2Properties`` lists a consumer's fields: camelCase names, string
    values (``True`` as ``true``, ``None`` left out)."""
    out: dict[str, str] = {}
    for name, value in settings.items():
        if value is None or callable(value):
            continue
        head, *rest = name.split("_")
        key = head + "".join(part[:1].upper() + part[1:] for part in rest)
        out[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def python_stacks() -> str:
    """Every Python thread's stack, the answer to ``jstackEnable`` (Java sends its ``jstack``)."""
    frames = sys._current_frames()
    parts = []
    for thread in threading.enumerate():
        frame = frames.get(thread.ident) if thread.ident is not None else None
        head = f'"{thread.name}" daemon={str(thread.daemon).lower()} ident={thread.ident}\n'
        stack = "".join(traceback.format_stack(frame)) if frame is not None else "  (no frame)\n"
        parts.append(head + stack)
    return "\n".join(parts)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def encode_running_info(
    properties: Mapping[str, str],
    subscriptions: Iterable[Mapping[str, Any]],
    queues: Iterable[tuple[Any, Mapping[str, Any]]],
    jstack: str | None,
) -> bytes:
    """``ConsumerRunningInfo.encode()``: ``queues`` are ``(MessageQueue, ProcessQueueInfo fields)`` pairs, written
    in ``MessageQueue`` order (a ``TreeMap``); the subscriptions in (topic, expression) order (a ``TreeSet``)."""
    ordered = sorted(queues, key=lambda p: p[0])
    table = ",".join(f"{message_queue_json(mq)}:{_compact(dict(info))}" for mq, info in ordered)
    subs = sorted(subscriptions, key=lambda s: (s["topic"], s["subString"]))
    fields = [
        *([f'"jstack":{json.dumps(jstack)}'] if jstack is not None else []),
        f'"mqTable":{{{table}}}',
        f'"properties":{_compact(dict(properties))}',
        '"statusTable":{}',
        f'"subscriptionSet":{_compact(subs)}',
        '"userConsumerInfo":{}',
    ]
    return ("{" + ",".join(fields) + "}").encode()
