"""Static topics (RIP-21 logic queues, RocketMQ 5.x): ``TopicQueueMappingInfo``, the mock broker names of
logic queues, and ``ClientMetadata.topicRouteData2EndpointsForStaticTopic``, with the Java collection
orders its result depends on (``HashMap`` and ``ConcurrentHashMap`` iteration, ``List.sort`` on a small list
with an overflowing comparator) reproduced exactly."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..errors import IllegalArgumentError, NullPointerError
from .java import (
    INT_MAX,
    INT_MIN,
    check_int,
    check_long,
    check_opt_name,
    check_str,
    java_long_hash,
    java_string_hash,
    java_string_key,
    wrap_int,
)

__all__ = [
    "LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST",
    "LOGICAL_QUEUE_MOCK_BROKER_PREFIX",
    "METADATA_SCOPE_GLOBAL",
    "TopicQueueMappingInfo",
    "mock_broker_name",
]

T = TypeVar("T")

LOGICAL_QUEUE_MOCK_BROKER_PREFIX = "__syslo__"
"""``MixAll.LOGICAL_QUEUE_MOCK_BROKER_PREFIX``: the broker name of a logic queue starts with it."""
LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST = "__syslo__none__"
"""``MixAll.LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST``: the endpoint of a logic queue no broker hosts."""
METADATA_SCOPE_GLOBAL = "__global__"
"""``MixAll.METADATA_SCOPE_GLOBAL``: the scope a new ``TopicQueueMappingInfo`` starts with."""


def mock_broker_name(scope: str) -> str:
    """``TopicQueueMappingUtils.getMockBrokerName(scope)``: the prefix plus ``scope[2:]`` for
    ``"__global__"`` (``"__syslo__global__"``), else the prefix plus the scope. ``None`` is
    :class:`NullPointerError` (the method's ``assert`` is off in a default JVM); a non-``str`` is ``TypeError``."""
    scope = check_str("scope", scope)
    if scope == METADATA_SCOPE_GLOBAL:
        return LOGICAL_QUEUE_MOCK_BROKER_PREFIX + scope[2:]
    return LOGICAL_QUEUE_MOCK_BROKER_PREFIX + scope


# --- TopicQueueMappingInfo ----------------------------------------------------------------------------------

_EMPTY: Any = object()
"""Default of ``curr_id_map``: leaving it out means Java's field initialiser (an empty map); ``None`` is null."""

_DECIMAL = re.compile(r"[+-]?[0-9]+")


def _int_key(name: str, k: object) -> int:
    """A Java ``Integer`` map key: an ``int`` or its decimal string (JSON object keys are strings)."""
    if isinstance(k, str):
        if not _DECIMAL.fullmatch(k):
            raise IllegalArgumentError(f"{name} key {k!r} is not a number")
        v = int(k)
        if not INT_MIN <= v <= INT_MAX:
            raise IllegalArgumentError(f"{name} key {k!r} is out of the Java int range")
        return v
    if k is None:
        raise TypeError(f"{name} keys must be ints or decimal strings, not None")
    return check_int(f"{name} key", k)


def _id_map(name: str, value: object) -> dict[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping of int to int or None, not {type(value).__name__}")
    out: dict[int, int] = {}
    for k, v in value.items():
        out[_int_key(name, k)] = check_int(f"{name} value", v)
    return out


class TopicQueueMappingInfo:
    """``org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingInfo`` (5.x): which logic queue
    ids (``curr_id_map``: global id -> physical queue id) one broker hosts for a static topic, under which
    ``scope`` and ``epoch``. Immutable; ``curr_id_map`` hands out a fresh dict.

    The constructor takes Java's ``(topic, totalQueues, bname, epoch)``; ``scope`` defaults to
    ``"__global__"`` and ``curr_id_map`` to an empty map, as Java's field initialisers do (``None`` is Java
    null)."""

    __slots__ = ("_bname", "_curr_id_map", "_dirty", "_epoch", "_scope", "_topic", "_total_queues")

    def __init__(
        self,
        topic: str | None,
        total_queues: int,
        bname: str | None,
        epoch: int,
        *,
        scope: str | None = METADATA_SCOPE_GLOBAL,
        dirty: bool = False,
        curr_id_map: Mapping[int | str, int] | None = _EMPTY,
    ) -> None:
        self._topic = check_opt_name("topic", topic)
        self._total_queues = check_int("total_queues", total_queues)
        self._bname = check_opt_name("bname", bname)
        self._epoch = check_long("epoch", epoch)
        self._scope = check_opt_name("scope", scope)
        if not isinstance(dirty, bool):
            raise TypeError(f"dirty must be a bool, not {type(dirty).__name__}")
        self._dirty = bool(dirty)
        self._curr_id_map = {} if curr_id_map is _EMPTY else _id_map("curr_id_map", curr_id_map)

    @property
    def topic(self) -> str | None:
        return self._topic

    @property
    def scope(self) -> str | None:
        return self._scope

    @property
    def total_queues(self) -> int:
        return self._total_queues

    @property
    def bname(self) -> str | None:
        return self._bname

    @property
    def epoch(self) -> int:
        return self._epoch

    @property
    def dirty(self) -> bool:
        return self._dirty

    @property
    def curr_id_map(self) -> dict[int, int] | None:
        """A fresh copy (insertion order), or ``None`` (Java null)."""
        return None if self._curr_id_map is None else dict(self._curr_id_map)

    def __eq__(self, other: object) -> bool:
        """``TopicQueueMappingInfo.equals``: every field; ``curr_id_map`` as a map (order does not count)."""
        if not isinstance(other, TopicQueueMappingInfo):
            return NotImplemented
        return (
            self._total_queues == other._total_queues
            and self._epoch == other._epoch
            and self._dirty == other._dirty
            and self._topic == other._topic
            and self._scope == other._scope
            and self._bname == other._bname
            and self._curr_id_map == other._curr_id_map
        )

    __hash__ = None  # type: ignore[assignment]

    def java_hash_code(self) -> int:
        """``TopicQueueMappingInfo.hashCode()`` (int32): the fields folded with 31, ``Long.hashCode(epoch)``,
        and the ``ConcurrentHashMap`` hash of ``currIdMap`` (the sum of ``key ^ value``)."""
        h = 0 if self._topic is None else java_string_hash(self._topic)
        h = 31 * h + (0 if self._scope is None else java_string_hash(self._scope))
        h = 31 * h + self._total_queues
        h = 31 * h + (0 if self._bname is None else java_string_hash(self._bname))
        h = 31 * h + java_long_hash(self._epoch)
        h = 31 * h + (1 if self._dirty else 0)
        ids = 0 if self._curr_id_map is None else sum(k ^ v for k, v in self._curr_id_map.items())
        return wrap_int(31 * h + ids)

    def __repr__(self) -> str:
        return (
            f"TopicQueueMappingInfo(topic={self._topic!r}, total_queues={self._total_queues}, "
            f"bname={self._bname!r}, epoch={self._epoch}, scope={self._scope!r}, dirty={self._dirty}, "
            f"curr_id_map={self._curr_id_map!r})"
        )

    def to_dict(self) -> dict[str, Any]:
        """The name server's camelCase JSON object (fastjson's bean names); ``currIdMap`` keys as strings."""
        ids = None if self._curr_id_map is None else {str(k): v for k, v in self._curr_id_map.items()}
        return {
            "topic": self._topic,
            "scope": self._scope,
            "totalQueues": self._total_queues,
            "bname": self._bname,
            "epoch": self._epoch,
            "dirty": self._dirty,
            "currIdMap": ids,
        }

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> TopicQueueMappingInfo:
        """One mapping info of a route's JSON, camelCase or snake_case keys: what fastjson sets on a new
        ``TopicQueueMappingInfo()``. An absent ``scope`` or ``currIdMap`` keeps the field initialiser
        (``"__global__"``, an empty map), an explicit null sets null; a null ``int`` / ``long`` /
        ``boolean`` reads as 0 / false."""
        if not isinstance(d, Mapping):
            raise IllegalArgumentError("each topicQueueMappingByBroker value must be an object")

        def get(camel: str, snake: str, default: Any) -> Any:
            if camel in d:
                return d[camel]
            return d.get(snake, default)

        total = get("totalQueues", "total_queues", None)
        epoch = d.get("epoch")
        dirty = d.get("dirty")
        ids = get("currIdMap", "curr_id_map", _EMPTY)
        if ids is not _EMPTY and ids is not None and not isinstance(ids, Mapping):
            raise IllegalArgumentError("currIdMap must be an object")
        return cls(
            d.get("topic"),
            0 if total is None else total,
            d.get("bname"),
            0 if epoch is None else epoch,
            scope=d.get("scope", METADATA_SCOPE_GLOBAL),
            dirty=False if dirty is None else dirty,
            curr_id_map=ids,
        )


# --- Java collection orders ------------------------------------------------------------------------------

_TREEIFY_THRESHOLD = 8  # a list bin that reaches 8 + 1 nodes is treeified (or the table resized)
_MIN_TREEIFY_CAPACITY = 64
_UNTREEIFY_THRESHOLD = 6


def hash_map_order(keys: Sequence[str], what: str = "map") -> list[str]:
    """The iteration order of a ``java.util.HashMap<String, V>`` (``new HashMap<>()``) after ``put`` of the
    distinct ``keys`` in this order.

    ``HashMap.putVal`` appends a new key at the tail of its bin (index ``spread(h) & (cap - 1)`` with
    ``spread(h) = h ^ (h >>> 16)`` of ``String.hashCode``), and ``HashMap.resize`` (capacity 16, doubled when
    the size passes 3/4 of it) splits each bin in order, so the order is the keys stably sorted by their bin
    at the final capacity. A list bin that reaches 9 keys while the table is smaller than 64 makes
    ``treeifyBin`` resize the table instead: emulated. At 64 and more such a bin becomes a red-black tree bin
    (``HashMap.TreeNode``), whose iteration order Java derives from the tree shape: not reproduced, it
    raises :class:`IllegalArgumentError` (it takes 9 names that collide in the low 6+ bits of their
    hash)."""
    cap = 16
    threshold = 12
    spreads: list[int] = []
    counts = [0] * cap
    for k in keys:
        h = java_string_hash(k) & 0xFFFFFFFF
        s = h ^ (h >> 16)
        spreads.append(s)
        i = s & (cap - 1)
        counts[i] += 1
        resize = 0
        if counts[i] > _TREEIFY_THRESHOLD:  # the bin held 8 or more before this put
            if cap >= _MIN_TREEIFY_CAPACITY:
                raise IllegalArgumentError(
                    f"{what}: {counts[i]} keys in one bin of a {cap}-bin java.util.HashMap; Java's tree-bin "
                    "iteration order is not reproduced"
                )
            resize += 1
        if len(spreads) > threshold * (1 << resize):
            resize += 1
        if resize:
            cap <<= resize
            threshold <<= resize
            counts = [0] * cap
            for s2 in spreads:
                counts[s2 & (cap - 1)] += 1
    mask = cap - 1
    order = sorted(range(len(spreads)), key=lambda j: spreads[j] & mask)
    return [keys[j] for j in order]


def _table_size_for(c: int) -> int:
    """``ConcurrentHashMap.tableSizeFor``: the smallest power of two >= ``c`` (at least 1)."""
    n = 1
    while n < c:
        n <<= 1
    return n


class ConcurrentHashMapOrder:
    """The iteration order of a ``java.util.concurrent.ConcurrentHashMap`` (``new ConcurrentHashMap<>()``)
    filled by one thread with :meth:`put`, reproducing ``putVal``, ``treeifyBin``, ``tryPresize``,
    ``addCount`` and ``transfer``:

    * the table (16 bins, ``sizeCtl`` 12) doubles when the size reaches ``sizeCtl`` (then 3/4 of the new size);
    * a new key goes to the tail of a list bin, or to the front of a tree bin (``TreeBin.first``);
    * a list bin that held 8 or more nodes before the put (or whose replaced key was 8th or later) is
      treeified: below 64 bins ``tryPresize(n << 1)`` grows the table instead, doubling it while
      ``tableSizeFor(3n + 1)`` exceeds ``sizeCtl`` (16 bins become 128);
    * ``transfer`` splits a list bin as Java does: the last run of nodes that go the same way moves whole,
      the nodes before it are prepended one by one (so their order reverses); a tree bin splits in order,
      a half of 6 nodes or fewer becoming a list;
    * iteration walks the bins in index order, each in node order.

    A key is any hashable token standing for the Java key, given with the Java key's ``hashCode()``
    (:meth:`put`); two tokens are the same key when they are equal (Java's ``equals``)."""

    __slots__ = ("_bins", "_index", "_n", "_size", "_size_ctl", "_tokens", "_trees", "_values")

    def __init__(self) -> None:
        self._n = 16
        self._size_ctl = 12
        self._size = 0
        # a node is one int: its key's number (position in _tokens) above bit 31, its spread hash below
        self._bins: list[list[int] | None] = [None] * 16
        self._trees: set[int] = set()
        self._index: dict[Any, int] = {}
        self._tokens: list[Any] = []
        self._values: list[Any] = []

    def put(self, token: Any, java_hash: int, value: Any) -> None:
        """``ConcurrentHashMap.put(key, value)`` for the key ``token`` whose ``hashCode()`` is ``java_hash``.
        A null value is :class:`NullPointerError`, as in Java."""
        self.put_all(((token, java_hash, value),))

    def put_all(self, entries: Iterable[tuple[Any, int, Any]]) -> None:
        """:meth:`put` of each ``(token, java_hash, value)`` in turn (one loop: the conversions put up to
        ``MAX_QUEUES`` keys)."""
        index, tokens, values = self._index, self._tokens, self._values
        bins, trees, mask = self._bins, self._trees, self._n - 1
        size, size_ctl = self._size, self._size_ctl
        for token, java_hash, value in entries:
            if value is None:
                raise NullPointerError("ConcurrentHashMap does not take a null value")
            h = java_hash & 0xFFFFFFFF
            h = (h ^ (h >> 16)) & 0x7FFFFFFF
            i = h & mask
            b = bins[i]
            number = index.get(token)
            if number is not None:
                values[number] = value
                # putVal counts the nodes it walked up to the match; 8 or more treeifies even on a replace
                if b is not None and i not in trees and b.index(number << 31 | h) + 1 >= _TREEIFY_THRESHOLD:
                    self._treeify_bin(i)
                    bins, trees, mask, size_ctl = self._bins, self._trees, self._n - 1, self._size_ctl
                continue
            number = len(tokens)
            index[token] = number
            tokens.append(token)
            values.append(value)
            node = number << 31 | h
            if b is None:
                bins[i] = [node]
            elif i in trees:
                b.insert(0, node)  # TreeBin.putTreeVal: the new node becomes `first`
            else:
                b.append(node)
                if len(b) > _TREEIFY_THRESHOLD:  # 8 or more nodes were walked
                    self._treeify_bin(i)
                    bins, trees, mask, size_ctl = self._bins, self._trees, self._n - 1, self._size_ctl
            size += 1
            if size >= size_ctl:
                self._size = size
                while self._size >= self._size_ctl:
                    self._transfer()
                bins, trees, mask, size_ctl = self._bins, self._trees, self._n - 1, self._size_ctl
        self._size = size

    def _treeify_bin(self, i: int) -> None:
        n = self._n
        if n < _MIN_TREEIFY_CAPACITY:
            size = n << 1
            c = _table_size_for(size + (size >> 1) + 1)
            while c > self._size_ctl:
                self._transfer()
        elif self._bins[i] is not None:
            self._trees.add(i)  # a TreeBin keeps the list's order as its `first` chain

    def _transfer(self) -> None:
        n = self._n
        bins: list[list[int] | None] = [None] * (2 * n)
        old_trees = self._trees
        trees: set[int] = set()
        for i, b in enumerate(self._bins):
            if b is None:
                continue
            if len(b) == 1:
                bins[i + (b[0] & n)] = b
                continue
            if i in old_trees:
                lo = [e for e in b if not e & n]
                hi = [e for e in b if e & n]
                for j, half in ((i, lo), (i + n, hi)):
                    if half:
                        bins[j] = half
                        if len(half) > _UNTREEIFY_THRESHOLD:
                            trees.add(j)
                continue
            run_bit = b[0] & n
            last_run = 0
            for j in range(1, len(b)):
                bit = b[j] & n
                if bit != run_bit:
                    run_bit = bit
                    last_run = j
            prefix = b[last_run - 1 :: -1] if last_run else []  # prepended one by one: reversed
            lo = [e for e in prefix if not e & n]
            hi = [e for e in prefix if e & n]
            if run_bit:
                hi.extend(b[last_run:])
            else:
                lo.extend(b[last_run:])
            bins[i] = lo or None
            bins[i + n] = hi or None
        self._n = 2 * n
        self._bins = bins
        self._trees = trees
        self._size_ctl = (n << 1) - (n >> 1)

    def items(self) -> list[tuple[Any, Any]]:
        """The ``(token, value)`` entries in iteration order."""
        tokens, values = self._tokens, self._values
        return [(tokens[e >> 31], values[e >> 31]) for b in self._bins if b for e in b]


def small_list_sort(items: list[T], cmp: Callable[[T, T], int]) -> list[T]:
    """``List.sort(c)`` (``java.util.TimSort``) of fewer than 32 elements, step for step, so that a
    comparator that is not a consistent order (an overflowing subtraction) gives Java's exact result:
    ``countRunAndMakeAscending`` (the leading run, reversed when strictly descending), then ``binarySort``
    of the rest (binary search for the insertion point, equal elements go after)."""
    a = list(items)
    n = len(a)
    if n >= 32:
        raise ValueError("small_list_sort reproduces Java's sort of fewer than 32 elements only")
    if n < 2:
        return a
    run_hi = 1
    if cmp(a[1], a[0]) < 0:
        run_hi = 2
        while run_hi < n and cmp(a[run_hi], a[run_hi - 1]) < 0:
            run_hi += 1
        a[:run_hi] = a[run_hi - 1 :: -1]
    else:
        run_hi = 2
        while run_hi < n and cmp(a[run_hi], a[run_hi - 1]) >= 0:
            run_hi += 1
    for start in range(run_hi, n):
        pivot = a[start]
        left, right = 0, start
        while left < right:
            mid = (left + right) >> 1
            if cmp(pivot, a[mid]) < 0:
                right = mid
            else:
                left = mid + 1
        a[left + 1 : start + 1] = a[left:start]
        a[left] = pivot
    return a


def _epoch_desc(o1: TopicQueueMappingInfo, o2: TopicQueueMappingInfo) -> int:
    """5.3.3's comparator ``(o1, o2) -> (int) (o2.getEpoch() - o1.getEpoch())``: a long subtraction cast to
    int, so epochs 2^31 or more apart can compare the wrong way round, or equal."""
    return wrap_int(o2._epoch - o1._epoch)


def _sort_scope(scope: str, infos: list[TopicQueueMappingInfo]) -> list[TopicQueueMappingInfo]:
    """The mapping infos of one scope in the order ``mappingInfos.sort(...)`` leaves them."""
    if len(infos) < 32:
        return small_list_sort(infos, _epoch_desc)
    epochs = [i._epoch for i in infos]
    if max(epochs) - min(epochs) > INT_MAX:
        raise IllegalArgumentError(
            f"static topic scope {scope!r}: {len(infos)} mapping infos with epochs more than 2^31-1 apart; "
            "Java's TimSort order is not reproduced for 32 or more"
        )
    # the comparator is a consistent order here, and TimSort is stable: any stable sort gives Java's order
    return sorted(infos, key=lambda i: -i._epoch)


def static_topic_endpoints(
    topic: str, mapping: Mapping[str, TopicQueueMappingInfo] | None, max_queues: int
) -> list[tuple[str, int, str]]:
    """5.3.3 ``ClientMetadata.topicRouteData2EndpointsForStaticTopic(topic, route)``: every logic queue of
    the route's ``topicQueueMappingByBroker`` as ``(mock broker name, queue id, endpoint broker name)``, in
    the iteration order of the ``ConcurrentHashMap<MessageQueue, String>`` Java returns (the queues' topic is
    ``topic``).

    * ``mappingInfosByScope``: the infos grouped by scope (``None`` scopes skipped), walking the route's
      mapping in its ``HashMap`` order; the scopes and each scope's infos in ``HashMap`` order too.
    * Per scope: the infos sorted by ``(int) (epoch2 - epoch1)`` (:func:`small_list_sort`); a global id
      goes to the info with the highest epoch, the later one in that order on a tie; ``maxTotalNums`` is the
      largest ``totalQueues`` of the infos with ``epoch >= -1`` (Java compares with a variable fixed at -1).
      Ids ``0 .. maxTotalNums - 1`` map to the hosting info's ``bname`` (a null ``bname`` is a
      :class:`NullPointerError`, ``ConcurrentHashMap.put``'s) or to ``"__syslo__none__"``; other ids are
      dropped. Two scopes with the same mock broker name (``"__global__"`` and ``"global__"``) share queues:
      the later scope's endpoint replaces the earlier one's, in place.
    * A ``None`` ``currIdMap`` is a :class:`NullPointerError`. More than ``max_queues`` logic queues is an
      :class:`IllegalArgumentError`, as in the other conversions."""
    topic = check_str("topic", topic)
    if not mapping:
        return []
    route_keys = hash_map_order(list(mapping), "topicQueueMappingByBroker")
    by_scope: dict[str, list[str]] = {}
    for key in route_keys:
        info = mapping[key]
        if info._scope is not None:
            by_scope.setdefault(info._scope, []).append(key)
    total = 0
    for scope, keys in by_scope.items():
        infos = [mapping[k] for k in keys]
        if any(i._curr_id_map is None for i in infos):
            raise NullPointerError(f"a mapping info of scope {scope!r} has no currIdMap")
        total += max([0, *(i._total_queues for i in infos if i._epoch >= -1)])
    if total > max_queues:
        raise IllegalArgumentError(f"route has more than {max_queues} queues ({total})")

    topic_hash = java_string_hash(topic)
    mocks: dict[str, int] = {}  # mock broker name -> its number in the tokens
    out = ConcurrentHashMapOrder()
    for scope in hash_map_order(list(by_scope), "mappingInfosByScope"):
        sub_keys = hash_map_order(by_scope[scope], f"mapping infos of scope {scope!r}")
        ordered = _sort_scope(scope, [mapping[k] for k in sub_keys])
        max_total = 0
        owner: dict[int, TopicQueueMappingInfo] = {}
        for info in ordered:
            if info._epoch >= -1 and info._total_queues > max_total:
                max_total = info._total_queues
            for global_id in info._curr_id_map:  # type: ignore[union-attr]
                old = owner.get(global_id)
                if old is None or old._epoch <= info._epoch:
                    owner[global_id] = info
        mock = mock_broker_name(scope)
        number = mocks.setdefault(mock, len(mocks)) << 32
        # MessageQueue(topic, mock, i).hashCode() = 31 * (31 * (31 + hash(mock)) + i) + hash(topic)
        base = 961 * (31 + java_string_hash(mock)) + topic_hash
        out.put_all(
            (number | i, base + 31 * i, LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST if hosted is None else hosted._bname)
            for i, hosted in ((i, owner.get(i)) for i in range(max_total))
        )
    names = list(mocks)
    return [(names[token >> 32], token & 0xFFFFFFFF, value) for token, value in out.items()]


def message_queue_key(broker_name: str, queue_id: int) -> tuple[bytes, int]:
    """A sort key giving ``MessageQueue.compareTo``'s order for queues of one topic with queue ids from 0 to
    2^31 - 1 (their ``queueId`` subtraction cannot overflow): the broker name's UTF-16 code units (as
    big-endian bytes, compared unit by unit, a prefix first), then the id."""
    return java_string_key(broker_name), queue_id
