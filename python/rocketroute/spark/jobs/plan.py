"""``plan``: what each allocation strategy does to a consumer group: per-consumer load, imbalance, the churn
of every consumer joining or leaving, and (with the keys) the ordering risk of a queue-count change.

The per-queue load is small (one row per queue), so the strategies run on the driver with
:func:`rocketroute.allocate_all`, on lists sorted as ``RebalanceImpl`` sorts them; only the key-level
resize analysis runs on Spark.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import IllegalArgumentError
from ...reference.java import java_string_key

__all__ = [
    "STRATEGIES",
    "PlanResult",
    "Rooms",
    "consumer_ids",
    "default_strategies",
    "parse_consumers",
    "parse_rooms",
    "plan",
    "reads_consumer_room",
    "resize_risk",
    "strategy_for",
]

STRATEGIES = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "STICKY", "CONSISTENT_HASH_BOUNDED")
"""The strategies that apply to any group (the three Java ones and rocketroute's two that move less);
:func:`default_strategies` adds the room and config ones when their parameters are given."""

ALL_STRATEGIES = (
    "AVG",
    "AVG_BY_CIRCLE",
    "CONSISTENT_HASH",
    "MACHINE_ROOM_NEARBY",
    "MACHINE_ROOM",
    "CONFIG",
    "STICKY",
    "CONSISTENT_HASH_BOUNDED",
)


def parse_consumers(text: str) -> list[int]:
    """``"2..32"`` (every count in the range), ``"2,4,8"`` or ``"6"``; each count at least 1."""
    text = text.strip()
    form = f"--consumers takes 'A..B' or a comma-separated list of counts, not {text!r}"
    try:
        bounds = [int(x) for x in text.split("..", 1)] if ".." in text else None
        counts = [int(x) for x in text.split(",") if x.strip()] if bounds is None else []
    except ValueError:
        raise IllegalArgumentError(form) from None
    if bounds is not None:
        lo, hi = bounds
        if lo > hi:
            raise IllegalArgumentError(f"--consumers {text} is a reversed range; write {hi}..{lo}")
        counts = list(range(lo, hi + 1))
    if not counts:
        raise IllegalArgumentError(form)
    if min(counts) < 1:
        raise IllegalArgumentError(f"--consumers {text}: a group has at least 1 consumer, not {min(counts)}")
    return sorted(set(counts))


def parse_rooms(text: str) -> dict[str, str]:
    """``"broker-a=az1,broker-b=az2"``: each broker's machine room."""
    rooms: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        broker, sep, room = part.partition("=")
        if not sep or not broker.strip() or not room.strip() or "@" in room:
            raise IllegalArgumentError(f"--rooms takes broker=room pairs (a room without '@'), not {part!r}")
        rooms[broker.strip()] = room.strip()
    if not rooms:
        raise IllegalArgumentError("--rooms is empty")
    return rooms


@dataclass(frozen=True)
class Rooms:
    """Machine rooms for ``MACHINE_ROOM_NEARBY``: each broker's room, and the rooms consumers are spread over
    (consumer ``i`` is in ``consumer_rooms[i % len]``; its id is prefixed ``room@``, the part
    ``consumer_deploy_in`` reads back)."""

    brokers: dict[str, str]
    consumer_rooms: tuple[str, ...] = ()

    def consumer_room(self, i: int) -> str:
        rooms = self.consumer_rooms or tuple(sorted(set(self.brokers.values())))
        return rooms[i % len(rooms)]


def consumer_ids(n: int, pattern: str, rooms: Rooms | None = None, start: int = 0, *, prefix: bool = True) -> list[str]:
    """Consumer ids ``start .. start + n - 1`` from ``pattern`` (``{i}`` is the consumer's number, ``{room}``
    its room); with rooms, ``prefix`` and no ``{room}`` in the pattern, each id is prefixed ``room@`` (the part
    ``MACHINE_ROOM_NEARBY`` reads back)."""
    out = []
    for i in range(start, start + n):
        room = rooms.consumer_room(i) if rooms else ""
        cid = pattern.format(i=i, room=room)
        out.append(f"{room}@{cid}" if rooms and prefix and "{room}" not in pattern else cid)
    return out


def reads_consumer_room(name: str) -> bool:
    """Whether the strategy ``name`` reads each consumer's room from its id (``MACHINE_ROOM_NEARBY`` and its
    ``-<inner>`` forms): only its group gets the ``room@`` ids of :func:`consumer_ids`."""
    return name.strip().upper().startswith("MACHINE_ROOM_NEARBY")


def default_strategies(
    rooms: Rooms | None = None, idcs: Sequence[str] | None = None, config: Sequence[tuple[str, int]] | None = None
) -> list[str]:
    """All six strategies that apply: the three that need nothing, plus ``MACHINE_ROOM_NEARBY`` with rooms,
    ``MACHINE_ROOM`` with consumer idcs and ``CONFIG`` with a queue list."""
    out = list(STRATEGIES)
    if rooms:
        out.append("MACHINE_ROOM_NEARBY")
    if idcs:
        out.append("MACHINE_ROOM")
    if config:
        out.append("CONFIG")
    return out


def strategy_for(
    name: str,
    *,
    vnodes: int = 10,
    rooms: Rooms | None = None,
    idcs: Sequence[str] | None = None,
    config: Sequence[Any] | None = None,
    load_factor: float = 1.25,
) -> Any:
    """A native strategy by its Java name (``MACHINE_ROOM_NEARBY`` or ``MACHINE_ROOM_NEARBY-<inner>``, inner
    ``AVG`` by default; ``config``: the ``MessageQueue`` list of ``CONFIG``), or ``STICKY`` /
    ``CONSISTENT_HASH_BOUNDED`` (``load_factor``, ``vnodes``)."""
    import rocketroute as rr

    key = name.strip().upper()
    if key == "STICKY":
        return rr.AllocateMessageQueueSticky()
    if key == "CONSISTENT_HASH_BOUNDED":
        return rr.AllocateMessageQueueConsistentHashBounded(load_factor, vnodes)
    if key == "AVG":
        return rr.AllocateMessageQueueAveragely()
    if key == "AVG_BY_CIRCLE":
        return rr.AllocateMessageQueueAveragelyByCircle()
    if key == "CONSISTENT_HASH":
        return rr.AllocateMessageQueueConsistentHash(vnodes)
    if key == "MACHINE_ROOM":
        if not idcs:
            raise IllegalArgumentError("MACHINE_ROOM needs --idcs (the consumers' rooms; brokers named room@broker)")
        return rr.AllocateMessageQueueByMachineRoom(list(idcs))
    if key == "CONFIG":
        if not config:
            raise IllegalArgumentError("CONFIG needs --config-queues (broker:queue_id,...)")
        return rr.AllocateMessageQueueByConfig(list(config))
    if key == "MACHINE_ROOM_NEARBY" or key.startswith("MACHINE_ROOM_NEARBY-"):
        if not rooms:
            raise IllegalArgumentError("MACHINE_ROOM_NEARBY needs --rooms (broker=room,...)")
        inner = key.partition("-")[2] or "AVG"
        if inner.startswith("MACHINE_ROOM_NEARBY"):
            raise IllegalArgumentError("MACHINE_ROOM_NEARBY cannot wrap itself")
        broker_rooms = dict(rooms.brokers)
        return rr.AllocateMachineRoomNearby(
            strategy_for(inner, vnodes=vnodes, rooms=rooms, idcs=idcs, config=config, load_factor=load_factor),
            broker_deploy_in=lambda mq: broker_rooms.get(mq.broker_name),
            consumer_deploy_in=lambda cid: cid.split("@", 1)[0] if "@" in cid else None,
        )
    raise IllegalArgumentError(f"unknown strategy {name!r}; expected one of {ALL_STRATEGIES}")


def _imbalance(loads: Sequence[float]) -> dict[str, float]:
    n = len(loads)
    total = sum(loads)
    if n == 0 or total == 0:
        return {"max_over_mean": 0.0, "cv": 0.0, "idle_consumers": float(sum(1 for x in loads if x == 0))}
    mean = total / n
    cv = math.sqrt(sum((x - mean) ** 2 for x in loads) / n) / mean
    return {"max_over_mean": max(loads) / mean, "cv": cv, "idle_consumers": float(sum(1 for x in loads if x == 0))}


@dataclass
class PlanResult:
    """Rows (lists of dicts) of the three tables, plus the resize risk when asked for."""

    consumers: list[dict[str, Any]] = field(default_factory=list)
    imbalance: list[dict[str, Any]] = field(default_factory=list)
    churn: list[dict[str, Any]] = field(default_factory=list)
    resize: dict[str, Any] | None = None

    def write_aggregates(self, folder: str | Path) -> list[Path]:
        """Write the three tables as the records the report reads into the job's output folder ``folder``
        (``OUT/plan``): ``consumers.json``, ``imbalance.json`` and ``churn.json`` (the schemas
        :data:`~rocketroute.spark.aggregates.CONSUMERS`, ``IMBALANCE`` and ``CHURN``). Returns the paths
        written."""
        from ..aggregates import CHURN, CONSUMERS, IMBALANCE, write_records

        return [
            write_records(Path(folder), schema, rows)
            for schema, rows in ((CONSUMERS, self.consumers), (IMBALANCE, self.imbalance), (CHURN, self.churn))
        ]


def plan(
    load: Sequence[tuple[str, int, int, int]],
    topic: str,
    counts: Sequence[int],
    strategies: Sequence[str] = STRATEGIES,
    *,
    cid_pattern: str = "consumer-{i}",
    vnodes: int = 10,
    rooms: Rooms | None = None,
    idcs: Sequence[str] | None = None,
    config: Sequence[tuple[str, int]] | None = None,
    consumer_group: str = "plan",
    load_factor: float = 1.25,
) -> PlanResult:
    """``load``: ``(broker, queue_id, messages, bytes)`` per queue. For every strategy and consumer count, each
    consumer's queues and load (``allocate_all``), the imbalance, and the churn of a consumer joining (the
    next id) and leaving (the first id). ``rooms``, ``idcs`` and ``config`` are the parameters of
    ``MACHINE_ROOM_NEARBY``, ``MACHINE_ROOM`` and ``CONFIG`` (see :func:`default_strategies`), ``load_factor``
    that of ``CONSISTENT_HASH_BOUNDED``. ``STICKY`` rebalances from the assignment before the join or leave, as
    a group running it would."""
    import rocketroute as rr

    if not load:
        raise IllegalArgumentError("the per-queue load is empty")
    mqs = sorted(rr.MessageQueue(topic, b, int(q)) for b, q, _, _ in load)  # RebalanceImpl sorts mqAll
    weight = {rr.MessageQueue(topic, b, int(q)): (int(m), int(by)) for b, q, m, by in load}
    config_mqs = [rr.MessageQueue(topic, b, int(q)) for b, q in config] if config else None
    for mq in config_mqs or ():
        if mq not in weight:
            raise IllegalArgumentError(f"the CONFIG queue {mq.broker_name}:{mq.queue_id} is not in the load table")
    out = PlanResult()
    for name in strategies:
        strategy = strategy_for(name, vnodes=vnodes, rooms=rooms, idcs=idcs, config=config_mqs, load_factor=load_factor)

        def assign(
            cids: list[str], strategy: Any = strategy, previous: dict[str, list[Any]] | None = None
        ) -> dict[str, list[Any]]:
            if previous is not None and hasattr(strategy, "with_previous"):
                strategy = strategy.with_previous(previous)  # a sticky group moves on from where it was
            ordered = sorted(cids, key=java_string_key)  # String.compareTo
            return {c: list(v or []) for c, v in rr.allocate_all(strategy, mqs, ordered, consumer_group).items()}

        # only the strategy that reads the room gets room@ ids: the others see the --cid-pattern ids as a group
        # running them would have, and the report labels each strategy's consumers with its own ids
        prefix = reads_consumer_room(name)
        for n in counts:
            cids = consumer_ids(n, cid_pattern, rooms, prefix=prefix)
            before = assign(cids)
            loads = []
            for cid in cids:
                queues = before.get(cid, [])
                msgs = sum(weight[mq][0] for mq in queues)
                loads.append(msgs)
                out.consumers.append(
                    {
                        "strategy": strategy.name,
                        "consumers": n,
                        "consumer": cid,
                        "queues": len(queues),
                        "messages": msgs,
                        "bytes": sum(weight[mq][1] for mq in queues),
                    }
                )
            out.imbalance.append({"strategy": strategy.name, "consumers": n, **_imbalance(loads)})
            per_queue_load = {mq: weight[mq][0] for mq in mqs}
            total = sum(per_queue_load.values()) or 1
            for event, after_ids in (
                ("join", [*cids, *consumer_ids(1, cid_pattern, rooms, start=n, prefix=prefix)]),
                ("leave", cids[1:]),
            ):
                if not after_ids:
                    continue
                c = rr.churn(before, assign(after_ids, previous=before), per_queue_load)
                out.churn.append(
                    {
                        "strategy": strategy.name,
                        "consumers": n,
                        "event": event,
                        "consumers_after": len(after_ids),
                        "queues_moved": c.queues_moved,
                        "queues_moved_share": c.moved_share,
                        "load_moved": c.load_moved,
                        "load_moved_share": (c.load_moved or 0.0) / total,
                    }
                )
    return out


def resize_risk(df: Any, key: str, key_type: str, old: int, new: int) -> dict[str, Any]:
    """The share of messages (and of distinct keys) whose hash queue changes when the topic goes from ``old``
    to ``new`` queues: ``|h % old| != |h % new|``. Those keys lose their per-key order while old messages drain.
    Keys ``route`` would reject (null, or for ``string`` not valid UTF-8) are left out."""
    from pyspark.sql import functions as F

    from ..columns import check_distinct

    if old < 1 or new < 1:
        raise IllegalArgumentError(f"queue counts must be positive, not {old}:{new}")
    check_distinct(df)
    k = F.col(key)
    if key_type == "string":
        k = F.when(F.is_valid_utf8(k), k)  # as route: such a key is rejected, not hashed
    if key_type == "string":
        h = F.call_function("reflect", F.lit("java.util.Objects"), F.lit("hashCode"), k).cast("int")
    elif key_type == "long":
        h = F.expr(f"reflect('java.lang.Long', 'hashCode', try_cast(`{key}` as bigint))").cast("int")
    else:
        h = k.try_cast("int")
    # reflect() is non-deterministic to Spark, so it is computed in a projection, not inside the aggregate
    moved = (F.abs(h % F.lit(old)) != F.abs(h % F.lit(new))).cast("int")
    per_key = (
        df.select(k.alias("_k"), moved.alias("_moved"))
        .where(F.col("_k").isNotNull() & F.col("_moved").isNotNull())
        .groupBy("_k")
        .agg(F.count(F.lit(1)).alias("n"), F.max("_moved").alias("m"))
    )
    row = per_key.agg(
        F.sum("n").alias("messages"),
        F.sum(F.col("n") * F.col("m")).alias("messages_moved"),
        F.count(F.lit(1)).alias("keys"),
        F.sum("m").alias("keys_moved"),
    ).collect()[0]
    messages, keys = int(row["messages"] or 0), int(row["keys"] or 0)
    return {
        "from_queues": old,
        "to_queues": new,
        "messages": messages,
        "messages_moved": int(row["messages_moved"] or 0),
        "messages_moved_share": (int(row["messages_moved"] or 0) / messages) if messages else 0.0,
        "keys": keys,
        "keys_moved": int(row["keys_moved"] or 0),
        "keys_moved_share": (int(row["keys_moved"] or 0) / keys) if keys else 0.0,
    }
