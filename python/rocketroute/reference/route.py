"""The name server's route model (``TopicRouteData``, ``QueueData``, ``BrokerData``, ``PermName``) and its
conversion to the queues a consumer can read."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import IllegalArgumentError, IndexOutOfBoundsError, NullPointerError, NumberFormatError
from .java import INT_MAX, INT_MIN, check_int, check_name, java_string_compare, join_surrogate_pairs, utf8_name
from .message_queue import MessageQueue

__all__ = ["PermName", "QueueData", "BrokerData", "TopicRouteData", "MAX_QUEUES", "MASTER_ID"]

MASTER_ID = 0
MAX_QUEUES = 1 << 20
"""Most queues one route conversion may produce. Java would try to allocate any count (and run out of
memory on ``orderTopicConf = "b:2147483647"``); rocketroute raises :class:`IllegalArgumentError` instead."""


class PermName:
    """Broker / queue permission bits, as ``org.apache.rocketmq.common.constant.PermName``."""

    PERM_PRIORITY = 0x1 << 3
    PERM_READ = 0x1 << 2
    PERM_WRITE = 0x1 << 1
    PERM_INHERIT = 0x1 << 0

    @staticmethod
    def perm_to_string(perm: int) -> str:
        perm = check_int("perm", perm)
        return (
            ("R" if PermName.is_readable(perm) else "-")
            + ("W" if PermName.is_writeable(perm) else "-")
            + ("X" if PermName.is_inherited(perm) else "-")
        )

    @staticmethod
    def is_readable(perm: int) -> bool:
        return check_int("perm", perm) & PermName.PERM_READ == PermName.PERM_READ

    @staticmethod
    def is_writeable(perm: int) -> bool:
        return check_int("perm", perm) & PermName.PERM_WRITE == PermName.PERM_WRITE

    @staticmethod
    def is_inherited(perm: int) -> bool:
        return check_int("perm", perm) & PermName.PERM_INHERIT == PermName.PERM_INHERIT

    @staticmethod
    def is_priority(perm: int) -> bool:
        return check_int("perm", perm) & PermName.PERM_PRIORITY == PermName.PERM_PRIORITY

    @staticmethod
    def is_valid(perm: int) -> bool:
        return 0 <= check_int("perm", perm) < PermName.PERM_PRIORITY

    @staticmethod
    def is_accessible(perm: int) -> bool:
        return PermName.is_readable(perm) or PermName.is_writeable(perm)


class QueueData:
    """One broker's queues of a topic."""

    __slots__ = ("broker_name", "perm", "read_queue_nums", "topic_sys_flag", "write_queue_nums")

    def __init__(
        self,
        broker_name: str,
        read_queue_nums: int,
        write_queue_nums: int,
        perm: int = PermName.PERM_READ | PermName.PERM_WRITE,
        topic_sys_flag: int = 0,
    ) -> None:
        self.broker_name = check_name("broker_name", broker_name)
        self.read_queue_nums = check_int("read_queue_nums", read_queue_nums)
        self.write_queue_nums = check_int("write_queue_nums", write_queue_nums)
        self.perm = check_int("perm", perm)
        self.topic_sys_flag = check_int("topic_sys_flag", topic_sys_flag)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QueueData):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"QueueData(broker_name={self.broker_name!r}, read_queue_nums={self.read_queue_nums}, "
            f"write_queue_nums={self.write_queue_nums}, perm={self.perm}, topic_sys_flag={self.topic_sys_flag})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "brokerName": self.broker_name,
            "readQueueNums": self.read_queue_nums,
            "writeQueueNums": self.write_queue_nums,
            "perm": self.perm,
            "topicSysFlag": self.topic_sys_flag,
        }


class BrokerData:
    """A broker group: its cluster, name and addresses by broker id (0 is the master).
    ``broker_addrs`` may be ``None``; converting a route that needs it then raises :class:`NullPointerError`."""

    __slots__ = ("broker_addrs", "broker_name", "cluster")

    def __init__(
        self, cluster: str | None, broker_name: str, broker_addrs: Mapping[int, str | None] | None = None
    ) -> None:
        if cluster is not None and not isinstance(cluster, str):
            raise TypeError(f"cluster must be a str or None, not {type(cluster).__name__}")
        self.cluster = None if cluster is None else utf8_name("cluster", cluster)
        self.broker_name = check_name("broker_name", broker_name)
        if broker_addrs is None:
            self.broker_addrs: dict[int, str | None] | None = None
        else:
            addrs: dict[int, str | None] = {}
            for k, v in dict(broker_addrs).items():
                if v is not None and not isinstance(v, str):
                    raise TypeError(f"broker address must be a str or None, not {type(v).__name__}")
                if v is not None:
                    utf8_name("broker address", v)
                addrs[_broker_id(k)] = v
            self.broker_addrs = addrs

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BrokerData):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"BrokerData(cluster={self.cluster!r}, broker_name={self.broker_name!r}, "
            f"broker_addrs={self.broker_addrs!r})"
        )

    def to_dict(self) -> dict[str, Any]:
        addrs = None if self.broker_addrs is None else {str(k): v for k, v in self.broker_addrs.items()}
        return {"cluster": self.cluster, "brokerName": self.broker_name, "brokerAddrs": addrs}


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


def _broker_id(k: object) -> int:
    if isinstance(k, bool):
        raise TypeError("broker id must be an int or a decimal string")
    if isinstance(k, int):
        v = k
    elif isinstance(k, str) and re.fullmatch(r"[+-]?[0-9]+", k):
        v = int(k)
    elif isinstance(k, str):
        raise IllegalArgumentError(f"broker id {k!r} is not a number")
    else:
        raise TypeError(f"broker id must be an int or a decimal string, not {type(k).__name__}")
    if not -(2**63) <= v < 2**63:
        raise IllegalArgumentError(f"broker id {k!r} is out of the Java long range")
    return v


def java_split(s: str, sep: str) -> list[str]:
    """``String.split(sep)`` for a one-character, non-regex ``sep``: trailing empty strings are dropped,
    and a string without ``sep`` splits to itself."""
    if sep not in s:
        return [s]
    parts = s.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _java_digit(ch: str) -> int:
    """``Character.digit(ch, 10)`` for one UTF-16 code unit: any Unicode decimal digit counts."""
    if "0" <= ch <= "9":
        return ord(ch) - 48
    if ord(ch) > 0xFFFF or 0xD800 <= ord(ch) <= 0xDFFF:
        return -1
    return unicodedata.decimal(ch, -1)


def java_parse_int(s: str) -> int:
    """``Integer.parseInt(s)``, with Java's ``NumberFormatException`` messages."""
    if s is None:
        raise NumberFormatError("Cannot parse null string: null")
    # astral characters are two UTF-16 units in Java, neither of them a digit
    units = s if s.isascii() else join_surrogate_pairs(s)
    err = NumberFormatError(f'For input string: "{s}"')
    if not units:
        raise err
    i, neg = 0, False
    if units[0] < "0":
        if units[0] == "-":
            neg = True
        elif units[0] != "+":
            raise err
        if len(units) == 1:
            raise err
        i = 1
    v = 0
    for ch in units[i:]:
        d = _java_digit(ch)
        if d < 0:
            raise err
        v = v * 10 + d
        if v > INT_MAX + (1 if neg else 0):
            raise err
    v = -v if neg else v
    assert INT_MIN <= v <= INT_MAX
    return v


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


class TopicRouteData:
    """A topic's route as the name server returns it."""

    __slots__ = ("broker_datas", "order_topic_conf", "queue_datas")

    def __init__(
        self,
        queue_datas: Iterable[QueueData] | None = None,
        broker_datas: Iterable[BrokerData] | None = None,
        order_topic_conf: str | None = None,
    ) -> None:
        if order_topic_conf is not None and not isinstance(order_topic_conf, str):
            raise TypeError(f"order_topic_conf must be a str or None, not {type(order_topic_conf).__name__}")
        if order_topic_conf is not None:
            utf8_name("order_topic_conf", order_topic_conf)
        self.queue_datas: tuple[QueueData, ...] = tuple(queue_datas or ())
        self.broker_datas: tuple[BrokerData, ...] = tuple(broker_datas or ())
        for q in self.queue_datas:
            if not isinstance(q, QueueData):
                raise TypeError(f"queue_datas must hold QueueData, not {type(q).__name__}")
        for b in self.broker_datas:
            if not isinstance(b, BrokerData):
                raise TypeError(f"broker_datas must hold BrokerData, not {type(b).__name__}")
        self.order_topic_conf = order_topic_conf

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> TopicRouteData:
        """Build from the name server's JSON (camelCase keys: ``orderTopicConf``, ``queueDatas``,
        ``brokerDatas``), given as text or as an already decoded dict. snake_case keys are accepted too."""
        if isinstance(data, (str, bytes, bytearray)):
            text = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else data
            utf8_name("route JSON", text)
            try:
                data = _loads(text)
            except RecursionError:
                raise IllegalArgumentError(_TOO_DEEP) from None
            except ValueError as strict:
                try:
                    data = _loads(quote_numeric_keys(text))
                except (ValueError, RecursionError):
                    raise IllegalArgumentError(f"route is not valid JSON: {strict}") from None
        if not isinstance(data, Mapping):
            raise IllegalArgumentError("route JSON must be an object")
        if _nesting(data) > MAX_JSON_NESTING:
            raise IllegalArgumentError(_TOO_DEEP)
        if _holds_lone_surrogate(data):
            raise IllegalArgumentError("route JSON contains a lone surrogate, which UTF-8 cannot carry")
        qds_raw = _get(data, "queueDatas", "queue_datas") or []
        bds_raw = _get(data, "brokerDatas", "broker_datas") or []
        if not isinstance(qds_raw, (list, tuple)) or not isinstance(bds_raw, (list, tuple)):
            raise IllegalArgumentError("queueDatas and brokerDatas must be lists")
        qds = []
        bds = []
        try:
            for q in qds_raw:
                if not isinstance(q, Mapping):
                    raise IllegalArgumentError("each queueDatas entry must be an object")
                qds.append(
                    QueueData(
                        _get(q, "brokerName", "broker_name"),
                        _json_int(_get(q, "readQueueNums", "read_queue_nums")),
                        _json_int(_get(q, "writeQueueNums", "write_queue_nums")),
                        _json_int(_get(q, "perm", "perm")),
                        _json_int(_get(q, "topicSysFlag", "topic_sys_flag")),
                    )
                )
            for b in bds_raw:
                if not isinstance(b, Mapping):
                    raise IllegalArgumentError("each brokerDatas entry must be an object")
                addrs = _get(b, "brokerAddrs", "broker_addrs")
                if addrs is not None and not isinstance(addrs, Mapping):
                    raise IllegalArgumentError("brokerAddrs must be an object")
                bds.append(BrokerData(b.get("cluster"), _get(b, "brokerName", "broker_name"), addrs))
            return cls(qds, bds, _get(data, "orderTopicConf", "order_topic_conf"))
        except NullPointerError:
            raise
        except TypeError as e:
            # a wrongly typed field of the JSON is bad input, not a programming error
            raise IllegalArgumentError(str(e)) from None

    def to_dict(self) -> dict[str, Any]:
        """The name server's camelCase JSON object."""
        return {
            "orderTopicConf": self.order_topic_conf,
            "queueDatas": [q.to_dict() for q in self.queue_datas],
            "brokerDatas": [b.to_dict() for b in self.broker_datas],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TopicRouteData):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"TopicRouteData(queue_datas={list(self.queue_datas)!r}, broker_datas={list(self.broker_datas)!r}, "
            f"order_topic_conf={self.order_topic_conf!r})"
        )

    def is_order_topic(self) -> bool:
        """Whether ``orderTopicConf`` decides the publish queues (a non-empty string)."""
        return bool(self.order_topic_conf)

    def sorted_queue_datas(self) -> tuple[QueueData, ...]:
        """``queueDatas`` in the order ``Collections.sort`` leaves them (by broker name, stable): the
        order the Java client sorts the route into when it builds the publish queues of a normal topic."""
        return tuple(_stable_sort(self.queue_datas, lambda a, b: java_string_compare(a.broker_name, b.broker_name)))

    def subscribe_queues(self, topic: str) -> list[MessageQueue]:
        """The queues a consumer can read (``topicRouteData2TopicSubscribeInfo``): ``readQueueNums`` queues
        of every readable queue data, without duplicates, sorted by ``MessageQueue.compareTo``."""
        topic = check_name("topic", topic)
        _check_queue_budget(sum(max(q.read_queue_nums, 0) for q in self.queue_datas if PermName.is_readable(q.perm)))
        seen: set[MessageQueue] = set()
        for qd in self.queue_datas:
            if PermName.is_readable(qd.perm):
                for i in range(qd.read_queue_nums):
                    seen.add(MessageQueue(topic, qd.broker_name, i))
        return sorted(seen)

    def publish_queues(self, topic: str) -> tuple[list[MessageQueue], bool]:
        """The publish queues and whether the topic is ordered (``topicRouteData2TopicPublishInfo``)."""
        topic = check_name("topic", topic)
        mqs: list[MessageQueue] = []
        if self.order_topic_conf:
            entries = parse_order_topic_conf(self.order_topic_conf)
            _check_queue_budget(sum(max(n, 0) for _, n in entries))
            for broker, nums in entries:
                mqs.extend(MessageQueue(topic, broker, i) for i in range(nums))
            return mqs, True
        qds = self.sorted_queue_datas()
        first_broker_data: dict[str, BrokerData] = {}  # Java takes the first of each name
        for b in self.broker_datas:
            first_broker_data.setdefault(b.broker_name, b)
        plan = []
        for qd in qds:
            if not PermName.is_writeable(qd.perm):
                continue
            bd = first_broker_data.get(qd.broker_name)
            if bd is None:
                continue
            if bd.broker_addrs is None:
                raise NullPointerError(f"brokerAddrs of broker {bd.broker_name!r} is None")
            if MASTER_ID not in bd.broker_addrs:
                continue
            plan.append(qd)
        _check_queue_budget(sum(max(q.write_queue_nums, 0) for q in plan))
        for qd in plan:
            mqs.extend(MessageQueue(topic, qd.broker_name, i) for i in range(qd.write_queue_nums))
        return mqs, False


def _stable_sort(items: Iterable[Any], cmp: Any) -> list[Any]:
    import functools

    return sorted(items, key=functools.cmp_to_key(cmp))
