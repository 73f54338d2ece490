"""The name server's route model below a topic's route: ``PermName``, ``QueueData`` and ``BrokerData``, as
Java's classes of those names compare, hash and read them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import IllegalArgumentError, NullPointerError
from .java import (
    check_int,
    check_name,
    check_opt_name,
    java_long_hash,
    java_string_compare,
    java_string_hash,
    utf8_name,
    wrap_int,
)

__all__ = [
    "PermName",
    "QueueData",
    "BrokerData",
    "MAX_QUEUES",
    "MASTER_ID",
]


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
