"""A route as the name server writes it: Java's fastjson text read as Java reads it (numeric map keys unquoted,
the nesting bounded, ``orderTopicConf`` parsed), with the checks that turn bad input into Java's exceptions."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import IllegalArgumentError, IndexOutOfBoundsError
from .java import (
    java_parse_int,
    java_split,
    utf8_name,
)
from .route_model import MAX_QUEUES
from .static_topic import TopicQueueMappingInfo


def _holds_lone_surrogate(doc: object) -> bool:
    """Whether a string of a decoded JSON document (keys included) holds a lone surrogate."""
    stack = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not v.isascii():
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif isinstance(v, Mapping):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return False


def parse_order_topic_conf(conf: str) -> list[tuple[str, int]]:
    """``orderTopicConf`` (``"broker-a:4;broker-b:4"``) as ``[(broker, nums), ...]``, parsed exactly as
    the Java client does (so malformed text fails the same way: NumberFormatError, IndexOutOfBoundsError)."""
    out = []
    for broker in java_split(conf, ";"):
        item = java_split(broker, ":")
        if len(item) < 2:
            raise IndexOutOfBoundsError(f"Index 1 out of bounds for length {len(item)}")
        out.append((item[0], java_parse_int(item[1])))
    return out


def _check_queue_budget(total: int) -> None:
    if total > MAX_QUEUES:
        raise IllegalArgumentError(f"route has more than {MAX_QUEUES} queues ({total})")


MAX_JSON_NESTING = 127
"""Arrays and objects nested deeper than this make a route JSON invalid (the native parser's limit)."""


_TOO_DEEP = f"route is not valid JSON: nested more than {MAX_JSON_NESTING} deep"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_no_constant)


def _nesting(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (an object with a scalar inside is 1), without
    recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, Mapping):
            children: Iterable[Any] = v.values()
        elif isinstance(v, (list, tuple)):
            children = v
        else:
            continue
        deepest = max(deepest, depth)
        if depth <= MAX_JSON_NESTING:
            stack.extend((c, depth + 1) for c in children)
    return deepest


def _json_int(v: Any) -> Any:
    """A JSON int field: null reads as 0, as fastjson does for an ``int`` field."""
    return 0 if v is None else v


def quote_numeric_keys(text: str) -> str:
    """fastjson's object keys that are bare integers (``{0:"a", -1:"b"}``), quoted so the text is JSON.
    The name server writes ``brokerAddrs`` that way."""
    out: list[str] = []
    start = i = 0
    n = len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
            i += 1
            continue
        if c == '"':
            in_string = True
        elif c in "{,":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            key_start = j
            if j < n and text[j] == "-":
                j += 1
            digits = j
            while j < n and "0" <= text[j] <= "9":
                j += 1
            key_end = j
            while j < n and text[j] in " \t\r\n":
                j += 1
            if key_end > digits and j < n and text[j] == ":":
                out.append(text[start:key_start])
                out.append(f'"{text[key_start:key_end]}"')
                start = i = key_end
                continue
        i += 1
    out.append(text[start:])
    return "".join(out)


def _get(d: Mapping[str, Any], camel: str, snake: str, default: Any = None) -> Any:
    if camel in d:
        return d[camel]
    return d.get(snake, default)


_EMPTY: Any = object()
"""Default of ``filter_server_table``: leaving it out means an empty table (5.3.3's constructor); ``None`` is
Java null."""


def _check_filter_table(table: object) -> dict[str, tuple[str, ...] | None] | None:
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise TypeError(f"filter_server_table must be a mapping or None, not {type(table).__name__}")
    out: dict[str, tuple[str, ...] | None] = {}
    for k, v in table.items():
        if not isinstance(k, str):
            raise TypeError(f"filter_server_table keys must be str, not {type(k).__name__}")
        key = utf8_name("filter_server_table key", str.__str__(k))
        if v is None:
            out[key] = None
            continue
        if isinstance(v, (str, bytes, bytearray)) or not isinstance(v, Iterable):
            raise TypeError(f"filter_server_table values must be lists of str or None, not {type(v).__name__}")
        servers = []
        for s in v:
            if not isinstance(s, str):
                raise TypeError(f"filter server addresses must be str, not {type(s).__name__}")
            servers.append(utf8_name("filter server address", str.__str__(s)))
        out[key] = tuple(servers)
    return out


def _check_mapping(mapping: object) -> dict[str, TopicQueueMappingInfo] | None:
    if mapping is None:
        return None
    if not isinstance(mapping, Mapping):
        raise TypeError(f"topic_queue_mapping_by_broker must be a mapping or None, not {type(mapping).__name__}")
    out: dict[str, TopicQueueMappingInfo] = {}
    for k, v in mapping.items():
        if not isinstance(k, str):
            raise TypeError(f"topic_queue_mapping_by_broker keys must be str, not {type(k).__name__}")
        if not isinstance(v, TopicQueueMappingInfo):
            raise TypeError(
                f"topic_queue_mapping_by_broker values must be TopicQueueMappingInfo, not {type(v).__name__}"
            )
        out[utf8_name("topic_queue_mapping_by_broker key", str.__str__(k))] = v
    return out


def _present(d: Mapping[str, Any], *names: str) -> tuple[bool, Any]:
    """The first of ``names`` that ``d`` holds: ``(True, value)``, else ``(False, None)``."""
    for name in names:
        if name in d:
            return True, d[name]
    return False, None
