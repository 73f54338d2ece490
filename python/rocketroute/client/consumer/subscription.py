"""What a consumer tells the brokers: its subscriptions and its heartbeat.

- ``FilterAPI.buildSubscriptionData``: a tag expression (``"*"`` or ``"TagA || TagB"``) becomes a
  :class:`SubscriptionData` with the tag set and the tags' ``String.hashCode`` codes (the broker filters on the
  codes stored in the consume queue; the client filters again on the tags themselves, see
  :func:`filter_by_tags`).
- ``HeartbeatData``: the client id, its producer groups and consumer groups with their subscriptions, as the
  JSON body of HEART_BEAT (34). Field names are Java's (fastjson's bean names).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import IllegalArgumentError
from ...reference.java import java_string_hash

__all__ = [
    "SUB_ALL",
    "ConsumerData",
    "SubscriptionData",
    "build_subscription",
    "filter_by_tags",
    "heartbeat_body",
    "retry_topic",
]

SUB_ALL = "*"
RETRY_GROUP_TOPIC_PREFIX = "%RETRY%"


def retry_topic(group: str) -> str:
    """``MixAll.getRetryTopic``: the topic a clustering group's messages to consume again go to."""
    return RETRY_GROUP_TOPIC_PREFIX + group


@dataclass
class SubscriptionData:
    """Java's ``SubscriptionData`` for a TAG expression: ``sub_string`` as given (``"*"`` for all), the trimmed
    tags and their ``String.hashCode`` codes, and ``sub_version`` (the time it was built, in ms)."""

    topic: str
    sub_string: str = SUB_ALL
    tags_set: list[str] = field(default_factory=list)
    code_set: list[int] = field(default_factory=list)
    sub_version: int = 0
    expression_type: str = "TAG"

    def to_json(self) -> dict[str, Any]:
        return {
            "classFilterMode": False,
            "topic": self.topic,
            "subString": self.sub_string,
            "tagsSet": list(self.tags_set),
            "codeSet": list(self.code_set),
            "subVersion": self.sub_version,
            "expressionType": self.expression_type,
        }


def build_subscription(topic: str, sub_string: str | None = SUB_ALL, *, now_ms: int | None = None) -> SubscriptionData:
    """``FilterAPI.buildSubscriptionData``: ``None``, blank or ``"*"`` subscribes to every tag; otherwise the
    expression is split on ``||`` and each non-blank part, trimmed, is a tag (kept once, in order). Only TAG
    expressions are supported (SQL92 filtering needs the broker's filter support, which the servers the tests
    run lack); anything else raises :class:`IllegalArgumentError`."""
    if not isinstance(topic, str) or not topic:
        raise IllegalArgumentError(f"a subscription needs a topic, not {topic!r}")
    version = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    if sub_string is not None and not isinstance(sub_string, str):
        raise IllegalArgumentError(f"a tag expression is a str, not {type(sub_string).__name__}")
    if sub_string is None or not sub_string.strip() or sub_string == SUB_ALL:
        return SubscriptionData(topic, SUB_ALL, sub_version=version)
    tags: dict[str, None] = {}
    for part in sub_string.split("||"):
        tag = part.strip()
        if tag:
            tags[tag] = None
    if not tags:
        raise IllegalArgumentError(f"subString split error: {sub_string!r} names no tag")
    return SubscriptionData(topic, sub_string, list(tags), [java_string_hash(t) for t in tags], sub_version=version)


def filter_by_tags(messages: Iterable[Any], sub: SubscriptionData) -> list[Any]:
    """``PullAPIWrapper.processPullResult``'s client-side filter: with tags subscribed, only the messages whose
    ``TAGS`` property is one of them (the broker filtered on hash codes, which may collide)."""
    msgs = list(messages)
    if not sub.tags_set:
        return msgs
    wanted = set(sub.tags_set)
    return [m for m in msgs if m.properties.get("TAGS") in wanted]


@dataclass
class ConsumerData:
    """One consumer group of a heartbeat: ``consume_type`` ``CONSUME_PASSIVELY`` (push) or ``CONSUME_ACTIVELY``
    (pull), ``message_model`` ``CLUSTERING`` or ``BROADCASTING``."""

    group: str
    subscriptions: Sequence[SubscriptionData]
    message_model: str = "CLUSTERING"
    consume_from_where: str = "CONSUME_FROM_LAST_OFFSET"
    consume_type: str = "CONSUME_PASSIVELY"
    unit_mode: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "groupName": self.group,
            "consumeType": self.consume_type,
            "messageModel": self.message_model,
            "consumeFromWhere": self.consume_from_where,
            "subscriptionDataSet": [s.to_json() for s in self.subscriptions],
            "unitMode": self.unit_mode,
        }


def heartbeat_body(
    client_id: str, consumers: Iterable[ConsumerData] = (), producer_groups: Iterable[str] = ()
) -> bytes:
    """The HEART_BEAT body: ``HeartbeatData`` as JSON."""
    data: Mapping[str, Any] = {
        "clientID": client_id,
        "producerDataSet": [{"groupName": g} for g in producer_groups],
        "consumerDataSet": [c.to_json() for c in consumers],
    }
    return json.dumps(data, separators=(",", ":")).encode()
