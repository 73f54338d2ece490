"""The send's request header moved to :mod:`rocketroute.remoting.headers.send`; this old import path stays."""

from __future__ import annotations

from ..remoting.headers.send import (
    DEFAULT_TOPIC,
    DEFAULT_TOPIC_QUEUE_NUMS,
    V2_FIELD_NAMES,
    SendMessageRequestHeader,
    java_parse_long,
    send_header_v1,
    send_header_v2,
)

__all__ = [
    "DEFAULT_TOPIC",
    "DEFAULT_TOPIC_QUEUE_NUMS",
    "V2_FIELD_NAMES",
    "SendMessageRequestHeader",
    "java_parse_long",
    "send_header_v1",
    "send_header_v2",
]
