"""A topic's route (``TopicRouteData``) and its conversion to the queues a producer can send to and a consumer
can read, as Java's ``MQClientInstance.topicRouteData2TopicPublishInfo`` / ``topicRouteData2TopicSubscribeInfo``
do."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import IllegalArgumentError, NullPointerError
from .compat import parse_compat
from .java import (
    check_name,
    java_string_compare,
    java_string_hash,
    utf8_name,
    wrap_int,
)
from .message_queue import MessageQueue
from .route_json import (
    _EMPTY,
    _TOO_DEEP,
    MAX_JSON_NESTING,
    _check_filter_table,
    _check_mapping,
    _check_queue_budget,
    _get,
    _holds_lone_surrogate,
    _json_int,
    _loads,
    _nesting,
    _present,
    parse_order_topic_conf,
    quote_numeric_keys,
)
from .route_model import MASTER_ID, MAX_QUEUES, BrokerData, PermName, QueueData
from .static_topic import TopicQueueMappingInfo, message_queue_key, static_topic_endpoints

__all__ = [
    "TopicRouteData",
]


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
