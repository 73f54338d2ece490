"""The name server's route model (``TopicRouteData``, ``QueueData``, ``BrokerData``, ``PermName``) and its
conversion to the queues a consumer can read."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import IllegalArgumentError, IndexOutOfBoundsError, NullPointerError, NumberFormatError
from .compat import parse_compat
from .java import (
    INT_MAX,
    INT_MIN,
    check_int,
    check_name,
    check_opt_name,
    java_long_hash,
    java_string_compare,
    java_string_hash,
    join_surrogate_pairs,
    utf8_name,
    wrap_int,
)
from .message_queue import MessageQueue
from .static_topic import TopicQueueMappingInfo, message_queue_key, static_topic_endpoints

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
    """One broker's queues of a topic (``org.apache.rocketmq.remoting.protocol.route.QueueData``). Immutable.
    ``broker_name`` may be ``None`` (Java null): such a queue data matches no broker, and sorting it among
    others raises :class:`NullPointerError`, as ``compareTo`` would."""

    __slots__ = ("_broker_name", "_perm", "_read_queue_nums", "_topic_sys_flag", "_write_queue_nums")

    def __init__(
        self,
        broker_name: str | None,
        read_queue_nums: int,
        write_queue_nums: int,
        perm: int = PermName.PERM_READ | PermName.PERM_WRITE,
        topic_sys_flag: int = 0,
    ) -> None:
        self._broker_name = check_opt_name("broker_name", broker_name)
        self._read_queue_nums = check_int("read_queue_nums", read_queue_nums)
        self._write_queue_nums = check_int("write_queue_nums", write_queue_nums)
        self._perm = check_int("perm", perm)
        self._topic_sys_flag = check_int("topic_sys_flag", topic_sys_flag)

    @property
    def broker_name(self) -> str | None:
        return self._broker_name

    @property
    def read_queue_nums(self) -> int:
        return self._read_queue_nums

    @property
    def write_queue_nums(self) -> int:
        return self._write_queue_nums

    @property
    def perm(self) -> int:
        return self._perm

    @property
    def topic_sys_flag(self) -> int:
        return self._topic_sys_flag

    def __eq__(self, other: object) -> bool:
        """``QueueData.equals``: all five fields (two ``None`` broker names are equal)."""
        if not isinstance(other, QueueData):
            return NotImplemented
        return (
            self._broker_name == other._broker_name
            and self._perm == other._perm
            and self._read_queue_nums == other._read_queue_nums
            and self._write_queue_nums == other._write_queue_nums
            and self._topic_sys_flag == other._topic_sys_flag
        )

    __hash__ = None  # type: ignore[assignment]

    def java_hash_code(self) -> int:
        """``QueueData.hashCode()`` (int32): brokerName (0 when null), perm, readQueueNums, writeQueueNums,
        topicSysFlag folded with 31 from 1."""
        r = 31 + (0 if self._broker_name is None else java_string_hash(self._broker_name))
        r = 31 * r + self._perm
        r = 31 * r + self._read_queue_nums
        r = 31 * r + self._write_queue_nums
        r = 31 * r + self._topic_sys_flag
        return wrap_int(r)

    def compare_to(self, other: QueueData) -> int:
        """``QueueData.compareTo``: ``brokerName.compareTo(other.brokerName)`` (UTF-16 order);
        :class:`NullPointerError` when either name is ``None``."""
        if not isinstance(other, QueueData):
            raise TypeError(f"cannot compare QueueData with {type(other).__name__}")
        if self._broker_name is None or other._broker_name is None:
            raise NullPointerError("cannot compare a QueueData whose broker_name is None")
        return java_string_compare(self._broker_name, other._broker_name)

    def __repr__(self) -> str:
        return (
            f"QueueData(broker_name={self._broker_name!r}, read_queue_nums={self._read_queue_nums}, "
            f"write_queue_nums={self._write_queue_nums}, perm={self._perm}, topic_sys_flag={self._topic_sys_flag})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "brokerName": self._broker_name,
            "readQueueNums": self._read_queue_nums,
            "writeQueueNums": self._write_queue_nums,
            "perm": self._perm,
            "topicSysFlag": self._topic_sys_flag,
        }


class BrokerData:
    """A broker group (``org.apache.rocketmq.remoting.protocol.route.BrokerData``): its cluster, name,
    addresses by broker id (0 is the master) and, in 5.x, ``zone_name`` and ``enable_acting_master``.
    Immutable; ``broker_addrs`` hands out a fresh dict. ``broker_addrs`` may be ``None``; converting a route
    that needs it then raises :class:`NullPointerError`."""

    __slots__ = ("_broker_addrs", "_broker_name", "_cluster", "_enable_acting_master", "_zone_name")

    def __init__(
        self,
        cluster: str | None,
        broker_name: str,
        broker_addrs: Mapping[int | str, str | None] | None = None,
        *,
        zone_name: str | None = None,
        enable_acting_master: bool = False,
    ) -> None:
        if cluster is not None and not isinstance(cluster, str):
            raise TypeError(f"cluster must be a str or None, not {type(cluster).__name__}")
        self._cluster = None if cluster is None else utf8_name("cluster", str.__str__(cluster))
        self._broker_name = check_name("broker_name", broker_name)
        if broker_addrs is None:
            self._broker_addrs: dict[int, str | None] | None = None
        else:
            addrs: dict[int, str | None] = {}
            for k, v in dict(broker_addrs).items():
                if v is not None and not isinstance(v, str):
                    raise TypeError(f"broker address must be a str or None, not {type(v).__name__}")
                if v is not None:
                    v = utf8_name("broker address", str.__str__(v))
                addrs[_broker_id(k)] = v
            self._broker_addrs = addrs
        self._zone_name = check_opt_name("zone_name", zone_name)
        if not isinstance(enable_acting_master, bool):
            raise TypeError(f"enable_acting_master must be a bool, not {type(enable_acting_master).__name__}")
        self._enable_acting_master = bool(enable_acting_master)

    @property
    def cluster(self) -> str | None:
        return self._cluster

    @property
    def broker_name(self) -> str:
        return self._broker_name

    @property
    def broker_addrs(self) -> dict[int, str | None] | None:
        """A fresh copy, or ``None`` (Java null)."""
        return None if self._broker_addrs is None else dict(self._broker_addrs)

    @property
    def zone_name(self) -> str | None:
        return self._zone_name

    @property
    def enable_acting_master(self) -> bool:
        return self._enable_acting_master

    def __eq__(self, other: object) -> bool:
        """``BrokerData.equals``: ``brokerAddrs`` (as maps: insertion order does not count, a ``None`` address
        is not a missing one, ``None`` is not ``{}``) and ``brokerName``. ``cluster``, ``zone_name`` and
        ``enable_acting_master`` are not compared."""
        if not isinstance(other, BrokerData):
            return NotImplemented
        return self._broker_addrs == other._broker_addrs and self._broker_name == other._broker_name

    __hash__ = None  # type: ignore[assignment]

    def java_hash_code(self) -> int:
        """``BrokerData.hashCode()`` (int32): ``31 * (31 + brokerAddrs.hashCode()) + brokerName.hashCode()``,
        the ``HashMap`` hash being the sum of ``Long.hashCode(id) ^ addr.hashCode()`` (0 when null)."""
        addrs = 0 if self._broker_addrs is None else _addrs_hash(self._broker_addrs)
        return wrap_int(31 * (31 + addrs) + java_string_hash(self._broker_name))

    def compare_to(self, other: BrokerData) -> int:
        """``BrokerData.compareTo``: ``brokerName.compareTo(other.brokerName)`` (UTF-16 order)."""
        if not isinstance(other, BrokerData):
            raise TypeError(f"cannot compare BrokerData with {type(other).__name__}")
        return java_string_compare(self._broker_name, other._broker_name)

    def __repr__(self) -> str:
        return (
            f"BrokerData(cluster={self._cluster!r}, broker_name={self._broker_name!r}, "
            f"broker_addrs={self._broker_addrs!r}, zone_name={self._zone_name!r}, "
            f"enable_acting_master={self._enable_acting_master})"
        )

    def to_dict(self) -> dict[str, Any]:
        addrs = None if self._broker_addrs is None else {str(k): v for k, v in self._broker_addrs.items()}
        return {
            "cluster": self._cluster,
            "brokerName": self._broker_name,
            "brokerAddrs": addrs,
            "zoneName": self._zone_name,
            "enableActingMaster": self._enable_acting_master,
        }


def _addrs_hash(addrs: Mapping[int, str | None]) -> int:
    return wrap_int(sum(java_long_hash(k) ^ (java_string_hash(v) if v else 0) for k, v in addrs.items()))


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
    if len(s) < 10 and s.isascii() and s.isdigit():  # the usual case: at most 9 ASCII digits always fit
        return int(s)
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


def _list_hash(items: Iterable[Any] | None, element_hash: Any) -> int:
    """``List.hashCode()``: ``31 * h + e.hashCode()`` from 1; 0 for a null list."""
    if items is None:
        return 0
    h = 1
    for e in items:
        h = (31 * h + element_hash(e)) & 0xFFFFFFFF
    return wrap_int(h)


def _sort_queue_datas(qds: tuple[QueueData, ...]) -> tuple[QueueData, ...]:
    """``Collections.sort(queueDatas)``: stable, by ``QueueData.compareTo`` (broker name, UTF-16 order). Two
    or more elements holding a ``None`` name raise :class:`NullPointerError`: every element of a list of two or
    more gets compared, and ``compareTo`` dereferences both names."""
    if len(qds) < 2:
        return qds
    if any(q._broker_name is None for q in qds):
        raise NullPointerError("cannot sort queue datas when one has no broker_name")
    return tuple(_stable_sort(qds, lambda a, b: java_string_compare(a._broker_name, b._broker_name)))


def _sort_broker_datas(bds: tuple[BrokerData, ...]) -> tuple[BrokerData, ...]:
    """``Collections.sort(brokerDatas)``: stable, by ``BrokerData.compareTo`` (broker name, UTF-16 order)."""
    if len(bds) < 2:
        return bds
    return tuple(_stable_sort(bds, lambda a, b: java_string_compare(a._broker_name, b._broker_name)))


def _present(d: Mapping[str, Any], *names: str) -> tuple[bool, Any]:
    """The first of ``names`` that ``d`` holds: ``(True, value)``, else ``(False, None)``."""
    for name in names:
        if name in d:
            return True, d[name]
    return False, None


class TopicRouteData:
    """A topic's route as the name server returns it (``org.apache.rocketmq.remoting.protocol.route
    .TopicRouteData``, 5.3.3 with 4.9.8's behaviour under ``compat="4.9"``). Immutable: every dict or list it
    hands out is a fresh copy.

    ``queue_datas`` and ``broker_datas`` default to empty and ``filter_server_table`` to ``{}`` (5.3.3's
    constructor); passing ``None`` keeps Java null, which the converters dereference as Java does
    (:class:`NullPointerError`). ``topic_queue_mapping_by_broker`` (5.x static topics) defaults to ``None``."""

    __slots__ = ("_broker_datas", "_filter_server_table", "_mapping", "_order_topic_conf", "_queue_datas")

    def __init__(
        self,
        queue_datas: Iterable[QueueData] | None = (),
        broker_datas: Iterable[BrokerData] | None = (),
        order_topic_conf: str | None = None,
        *,
        filter_server_table: Mapping[str, Sequence[str] | None] | None = _EMPTY,
        topic_queue_mapping_by_broker: Mapping[str, TopicQueueMappingInfo] | None = None,
    ) -> None:
        if order_topic_conf is not None and not isinstance(order_topic_conf, str):
            raise TypeError(f"order_topic_conf must be a str or None, not {type(order_topic_conf).__name__}")
        if order_topic_conf is not None:
            order_topic_conf = utf8_name("order_topic_conf", str.__str__(order_topic_conf))
        qds = None if queue_datas is None else tuple(queue_datas)
        bds = None if broker_datas is None else tuple(broker_datas)
        for q in qds or ():
            if not isinstance(q, QueueData):
                raise TypeError(f"queue_datas must hold QueueData, not {type(q).__name__}")
        for b in bds or ():
            if not isinstance(b, BrokerData):
                raise TypeError(f"broker_datas must hold BrokerData, not {type(b).__name__}")
        self._queue_datas = qds
        self._broker_datas = bds
        self._order_topic_conf = order_topic_conf
        self._filter_server_table = {} if filter_server_table is _EMPTY else _check_filter_table(filter_server_table)
        self._mapping = _check_mapping(topic_queue_mapping_by_broker)

    @classmethod
    def _make(
        cls,
        qds: tuple[QueueData, ...] | None,
        bds: tuple[BrokerData, ...] | None,
        conf: str | None,
        table: dict[str, tuple[str, ...] | None] | None,
        mapping: dict[str, TopicQueueMappingInfo] | None,
    ) -> TopicRouteData:
        """A route from fields already checked. Routes never change their containers after construction, so
        two routes may share them."""
        r = object.__new__(cls)
        r._queue_datas = qds
        r._broker_datas = bds
        r._order_topic_conf = conf
        r._filter_server_table = table
        r._mapping = mapping
        return r

    # --- fields ------------------------------------------------------------------------------------------

    @property
    def queue_datas(self) -> tuple[QueueData, ...] | None:
        return self._queue_datas

    @property
    def broker_datas(self) -> tuple[BrokerData, ...] | None:
        return self._broker_datas

    @property
    def order_topic_conf(self) -> str | None:
        return self._order_topic_conf

    @property
    def filter_server_table(self) -> dict[str, list[str] | None] | None:
        """``{broker address: [filter server address, ...] or None}`` (a fresh copy), or ``None``."""
        table = self._filter_server_table
        if table is None:
            return None
        return {k: None if v is None else list(v) for k, v in table.items()}

    @property
    def topic_queue_mapping_by_broker(self) -> dict[str, TopicQueueMappingInfo] | None:
        """``{broker name: TopicQueueMappingInfo}`` (a fresh dict, in the order given), or ``None``."""
        return None if self._mapping is None else dict(self._mapping)

    # --- JSON --------------------------------------------------------------------------------------------

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> TopicRouteData:
        """Build from the name server's JSON (fastjson's bean names: ``orderTopicConf``, ``queueDatas``,
        ``brokerDatas``, ``filterServerTable``, ``topicQueueMappingByBroker``), given as text or as an already
        decoded dict. snake_case keys are accepted too, and ``topicQueueMappingInfo`` (the name RocketMQ-Rust's
        name server writes). fastjson's bare integer map keys (``{0:"10.0.0.1:10911"}``) are read.

        As fastjson fills a new ``TopicRouteData()``: an absent ``queueDatas`` / ``brokerDatas`` /
        ``filterServerTable`` stays empty, an explicit null is Java null; an absent or null mapping is
        ``None``. A wrongly typed field is :class:`IllegalArgumentError`."""
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
        present, qds_raw = _present(data, "queueDatas", "queue_datas")
        if not present:
            qds_raw = []
        present, bds_raw = _present(data, "brokerDatas", "broker_datas")
        if not present:
            bds_raw = []
        if (qds_raw is not None and not isinstance(qds_raw, (list, tuple))) or (
            bds_raw is not None and not isinstance(bds_raw, (list, tuple))
        ):
            raise IllegalArgumentError("queueDatas and brokerDatas must be lists")
        present, table = _present(data, "filterServerTable", "filter_server_table")
        if not present:
            table = {}
        if table is not None and not isinstance(table, Mapping):
            raise IllegalArgumentError("filterServerTable must be an object")
        _, mapping_raw = _present(
            data, "topicQueueMappingByBroker", "topic_queue_mapping_by_broker", "topicQueueMappingInfo"
        )
        if mapping_raw is not None and not isinstance(mapping_raw, Mapping):
            raise IllegalArgumentError("topicQueueMappingByBroker must be an object")
        try:
            qds = None
            if qds_raw is not None:
                qds = []
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
            bds = None
            if bds_raw is not None:
                bds = []
                for b in bds_raw:
                    if not isinstance(b, Mapping):
                        raise IllegalArgumentError("each brokerDatas entry must be an object")
                    addrs = _get(b, "brokerAddrs", "broker_addrs")
                    if addrs is not None and not isinstance(addrs, Mapping):
                        raise IllegalArgumentError("brokerAddrs must be an object")
                    acting = _get(b, "enableActingMaster", "enable_acting_master")
                    bds.append(
                        BrokerData(
                            b.get("cluster"),
                            _get(b, "brokerName", "broker_name"),
                            addrs,
                            zone_name=_get(b, "zoneName", "zone_name"),
                            enable_acting_master=False if acting is None else acting,
                        )
                    )
            mapping = None
            if mapping_raw is not None:
                mapping = {k: TopicQueueMappingInfo._from_json(v) for k, v in mapping_raw.items()}
            return cls(
                qds,
                bds,
                _get(data, "orderTopicConf", "order_topic_conf"),
                filter_server_table=table,
                topic_queue_mapping_by_broker=mapping,
            )
        except NullPointerError:
            raise
        except TypeError as e:
            # a wrongly typed field of the JSON is bad input, not a programming error
            raise IllegalArgumentError(str(e)) from None

    def to_dict(self) -> dict[str, Any]:
        """The name server's camelCase JSON object (``from_json`` reads it back to an equal route)."""
        qds, bds = self._queue_datas, self._broker_datas
        mapping = self._mapping
        return {
            "orderTopicConf": self._order_topic_conf,
            "queueDatas": None if qds is None else [q.to_dict() for q in qds],
            "brokerDatas": None if bds is None else [b.to_dict() for b in bds],
            "filterServerTable": self.filter_server_table,
            "topicQueueMappingByBroker": None if mapping is None else {k: v.to_dict() for k, v in mapping.items()},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    # --- Java value semantics ------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        """``TopicRouteData.equals``: brokerDatas (in order, ``BrokerData.equals``), orderTopicConf,
        queueDatas (in order), filterServerTable and topicQueueMappingByBroker (as maps). A null field equals
        only null (``None`` is not ``()`` / ``{}``)."""
        if not isinstance(other, TopicRouteData):
            return NotImplemented
        return (
            self._broker_datas == other._broker_datas
            and self._order_topic_conf == other._order_topic_conf
            and self._queue_datas == other._queue_datas
            and self._filter_server_table == other._filter_server_table
            and self._mapping == other._mapping
        )

    __hash__ = None  # type: ignore[assignment]

    def java_hash_code(self, compat: str = "5.3") -> int:
        """``TopicRouteData.hashCode()`` (int32): brokerDatas, orderTopicConf, queueDatas, filterServerTable
        and, on 5.3 only (4.9.8 has no such field), topicQueueMappingByBroker, folded with 31 from 1; a null
        field counts 0, a map hashes as the sum of ``key.hashCode() ^ value.hashCode()``."""
        compat = parse_compat(compat)
        r = 31 + _list_hash(self._broker_datas, BrokerData.java_hash_code)
        conf = self._order_topic_conf
        r = 31 * r + (0 if conf is None else java_string_hash(conf))
        r = 31 * r + _list_hash(self._queue_datas, QueueData.java_hash_code)
        table = self._filter_server_table
        t = 0
        for k, v in (table or {}).items():
            t += java_string_hash(k) ^ _list_hash(v, java_string_hash)
        r = 31 * r + (0 if table is None else t)
        if compat == "5.3":
            mapping = self._mapping
            m = 0
            for k, info in (mapping or {}).items():
                m += java_string_hash(k) ^ info.java_hash_code()
            r = 31 * r + (0 if mapping is None else m)
        return wrap_int(r)

    def __repr__(self) -> str:
        qds = None if self._queue_datas is None else list(self._queue_datas)
        bds = None if self._broker_datas is None else list(self._broker_datas)
        return (
            f"TopicRouteData(queue_datas={qds!r}, broker_datas={bds!r}, order_topic_conf={self._order_topic_conf!r}, "
            f"filter_server_table={self.filter_server_table!r}, topic_queue_mapping_by_broker={self._mapping!r})"
        )

    # --- copies ------------------------------------------------------------------------------------------

    def copy(self) -> TopicRouteData:
        """5.3.3's copy constructor ``new TopicRouteData(route)``: null queueDatas, brokerDatas and
        filterServerTable become empty; the mapping is copied (null stays null)."""
        table = self._filter_server_table
        mapping = self._mapping
        return TopicRouteData._make(
            self._queue_datas or (),
            self._broker_datas or (),
            self._order_topic_conf,
            {} if table is None else dict(table),
            None if mapping is None else dict(mapping),
        )

    def clone_topic_route_data(self, compat: str = "5.3") -> TopicRouteData:
        """``cloneTopicRouteData()``. 5.3.3 copies queueDatas, brokerDatas and filterServerTable without a
        null check (:class:`NullPointerError` on a null one) and keeps the mapping; 4.9.8 null-checks them
        (a null one becomes empty), as :meth:`copy` does."""
        if parse_compat(compat) == "4.9":
            return self.copy()
        self._require_containers()
        return self.copy()

    def deep_clone_topic_route_data(self) -> TopicRouteData:
        """5.3.3 ``deepCloneTopicRouteData()``: an equal route. :class:`NullPointerError` where Java copies a
        null: queueDatas, brokerDatas or filterServerTable, a null filter server list
        (``new ArrayList<>(null)``), or a mapping info's null ``currIdMap`` (``new ConcurrentHashMap<>(null)``).
        (Routes are immutable values here, so a deep copy and a shallow one cannot be told apart.)"""
        self._require_containers()
        table = self._filter_server_table
        assert table is not None
        if any(v is None for v in table.values()):
            raise NullPointerError("a filterServerTable value is None")
        if self._mapping is not None and any(i._curr_id_map is None for i in self._mapping.values()):
            raise NullPointerError("a mapping info's curr_id_map is None")
        return self.copy()

    def _require_containers(self) -> None:
        if self._queue_datas is None:
            raise NullPointerError("queue_datas is None")
        if self._broker_datas is None:
            raise NullPointerError("broker_datas is None")
        if self._filter_server_table is None:
            raise NullPointerError("filter_server_table is None")

    def topic_route_data_changed(self, old: TopicRouteData | None) -> bool:
        """5.3.3 ``now.topicRouteDataChanged(old)``: ``True`` when ``old`` is ``None``; else copies of both
        (:meth:`copy`) with their queueDatas and brokerDatas sorted (``Collections.sort``: by broker name,
        stable; a ``None`` queue data name among two or more is :class:`NullPointerError`) are compared with
        ``equals``: a pure reordering is no change."""
        if old is None:
            return True
        if not isinstance(old, TopicRouteData):
            raise TypeError(f"old must be a TopicRouteData or None, not {type(old).__name__}")
        a, b = old.copy(), self.copy()
        for r in (a, b):
            r._queue_datas = _sort_queue_datas(r._queue_datas or ())
            r._broker_datas = _sort_broker_datas(r._broker_datas or ())
        return not a == b

    # --- conversions -------------------------------------------------------------------------------------

    def is_order_topic(self) -> bool:
        """Whether ``orderTopicConf`` decides the publish queues (a non-empty string)."""
        return bool(self._order_topic_conf)

    def sorted_queue_datas(self) -> tuple[QueueData, ...]:
        """``queueDatas`` in the order ``Collections.sort`` leaves them (by broker name, stable): the
        order the Java client sorts the route into when it builds the publish queues of a normal topic.
        :class:`NullPointerError` when queueDatas is null, or when two or more hold a ``None`` name."""
        if self._queue_datas is None:
            raise NullPointerError("queue_datas is None")
        return _sort_queue_datas(self._queue_datas)

    def _uses_mapping(self, compat: str) -> bool:
        return compat == "5.3" and bool(self._mapping)

    def _static_queues(self, topic: str) -> list[tuple[str, int, str]]:
        """The static topic's logic queues ``(mock broker name, queue id, endpoint)`` in Java's
        ``ConcurrentHashMap`` order."""
        return static_topic_endpoints(topic, self._mapping, MAX_QUEUES)

    def _static_queues_sorted(self, topic: str) -> list[tuple[MessageQueue, str]]:
        """:meth:`_static_queues` as ``(MessageQueue, endpoint)``, sorted by ``MessageQueue.compareTo``."""
        entries = sorted(self._static_queues(topic), key=lambda e: message_queue_key(e[0], e[1]))
        return [(MessageQueue(topic, name, qid), endpoint) for name, qid, endpoint in entries]

    def endpoints_for_static_topic(self, topic: str) -> dict[MessageQueue, str]:
        """5.3.3 ``ClientMetadata.topicRouteData2EndpointsForStaticTopic(topic, route)``: each logic queue of
        the static topic (broker name ``mock_broker_name(scope)``) with the broker hosting it, or
        ``"__syslo__none__"``; ordered by ``MessageQueue`` (Java returns a ``ConcurrentHashMap``). Empty when
        the mapping is ``None`` or empty. See :func:`~rocketroute.reference.static_topic.static_topic_endpoints`
        for the rules."""
        topic = check_name("topic", topic)
        return dict(self._static_queues_sorted(topic))

    def subscribe_queues(self, topic: str, compat: str = "5.3") -> list[MessageQueue]:
        """The queues a consumer can read (``topicRouteData2TopicSubscribeInfo``), sorted by
        ``MessageQueue.compareTo``. On 5.3 a non-empty mapping gives the static topic's logic queues (the
        keys of :meth:`endpoints_for_static_topic`). Else ``readQueueNums`` queues of every readable queue
        data, without duplicates (:class:`NullPointerError` when queueDatas is null)."""
        topic = check_name("topic", topic)
        compat = parse_compat(compat)
        if self._uses_mapping(compat):
            return [mq for mq, _ in self._static_queues_sorted(topic)]
        qds = self._queue_datas
        if qds is None:
            raise NullPointerError("queue_datas is None")
        _check_queue_budget(sum(max(q._read_queue_nums, 0) for q in qds if PermName.is_readable(q._perm)))
        seen: set[MessageQueue] = set()
        for qd in qds:
            if PermName.is_readable(qd._perm):
                for i in range(qd._read_queue_nums):
                    seen.add(MessageQueue(topic, qd._broker_name, i))
        return sorted(seen)

    def publish_queues(self, topic: str, compat: str = "5.3") -> tuple[list[MessageQueue], bool]:
        """The publish queues and whether the topic is ordered (``topicRouteData2TopicPublishInfo``)."""
        mqs, order_topic, _ = self._publish(topic, compat)
        return mqs, order_topic

    def _publish(self, topic: str, compat: str) -> tuple[list[MessageQueue], bool, TopicRouteData]:
        """``topicRouteData2TopicPublishInfo``'s queues, orderTopic flag and the route it keeps:

        * a non-empty ``orderTopicConf``: its queues, in its order (the route as given);
        * 5.3 only, ``orderTopicConf`` null and a non-empty mapping (a static topic): the logic queues of
          :meth:`endpoints_for_static_topic` in the ``ConcurrentHashMap``'s order, stably sorted by queue id
          (``MixAll.compareInteger``) (the route as given);
        * else ``writeQueueNums`` queues of each writeable queue data whose broker (the first BrokerData of
          that name) has a master, queue datas sorted by broker name (the route keeps them sorted). Java's
          NullPointerExceptions are kept: null queueDatas, null brokerDatas met by a writeable queue data,
          null brokerAddrs, the sort of two or more queue datas one of which has no name."""
        topic = check_name("topic", topic)
        compat = parse_compat(compat)
        conf = self._order_topic_conf
        mqs: list[MessageQueue] = []
        if conf:
            entries = parse_order_topic_conf(conf)
            _check_queue_budget(sum(max(n, 0) for _, n in entries))
            for broker, nums in entries:
                mqs.extend(MessageQueue(topic, broker, i) for i in range(nums))
            return mqs, True, self
        if conf is None and self._uses_mapping(compat):
            # List.sort with MixAll.compareInteger on the queue ids: stable
            entries = sorted(self._static_queues(topic), key=lambda e: e[1])
            return [MessageQueue(topic, name, qid) for name, qid, _ in entries], False, self
        qds = self.sorted_queue_datas()
        first_broker_data: dict[str, BrokerData] | None = None  # Java takes the first of each name
        plan = []
        for qd in qds:
            if not PermName.is_writeable(qd._perm):
                continue
            if first_broker_data is None:
                if self._broker_datas is None:
                    raise NullPointerError("broker_datas is None")
                first_broker_data = {}
                for b in self._broker_datas:
                    first_broker_data.setdefault(b._broker_name, b)
            bd = None if qd._broker_name is None else first_broker_data.get(qd._broker_name)
            if bd is None:
                continue
            if bd._broker_addrs is None:
                raise NullPointerError(f"brokerAddrs of broker {bd._broker_name!r} is None")
            if MASTER_ID not in bd._broker_addrs:
                continue
            plan.append(qd)
        _check_queue_budget(sum(max(q._write_queue_nums, 0) for q in plan))
        for qd in plan:
            mqs.extend(MessageQueue(topic, qd._broker_name, i) for i in range(qd._write_queue_nums))
        kept = TopicRouteData._make(qds, self._broker_datas, conf, self._filter_server_table, self._mapping)
        return mqs, False, kept


def _stable_sort(items: Iterable[Any], cmp: Any) -> list[Any]:
    import functools

    return sorted(items, key=functools.cmp_to_key(cmp))
