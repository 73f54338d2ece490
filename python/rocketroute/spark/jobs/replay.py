"""``replay``: what each producer's fault strategy would have done on a broker latency / error trace.

Every producer replays its own sends in time order through its own ``MQFaultStrategy`` (5.3 or 4.9), with
fault tolerance on and off, by the producer's own retry loop (:func:`rocketroute.send_default`) and a
``ManualClock`` that the trace drives: an attempt to a broker takes the latency of that broker's latest
trace entry at that instant (or fails, for ``ok = false``), so results are deterministic. Producers are
independent: Spark partitions by producer and each partition replays in an Arrow worker. The trace (one row
per broker state change) is broadcast to the workers.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import IllegalArgumentError
from ..columns import check_distinct, fresh_name, rename_clashes

__all__ = ["BrokerTrace", "ReplayResult", "broker_windows", "replay"]

HEALTHY_LATENCY_MS = 5


class BrokerTrace:
    """Each broker's state as a step function of time: ``(latency_ms, ok)`` of its latest entry at or before
    ``t``; before its first entry (or for an unknown broker) a broker is healthy."""

    def __init__(self, rows: list[tuple[int, str, int, bool]]) -> None:
        self._times: dict[str, list[int]] = {}
        self._states: dict[str, list[tuple[int, bool]]] = {}
        for ts, broker, latency, ok in sorted(rows, key=lambda r: (r[1], r[0])):
            self._times.setdefault(broker, []).append(int(ts))
            self._states.setdefault(broker, []).append((int(latency), bool(ok)))

    def at(self, broker: str, t: int) -> tuple[int, bool]:
        times = self._times.get(broker)
        if not times:
            return HEALTHY_LATENCY_MS, True
        i = bisect.bisect_right(times, t) - 1
        return (HEALTHY_LATENCY_MS, True) if i < 0 else self._states[broker][i]

    def degraded(self, broker: str, t: int, threshold_ms: int) -> bool:
        latency, ok = self.at(broker, t)
        return not ok or latency >= threshold_ms


@dataclass
class ReplayResult:
    """Per-send outcomes (both modes), per-broker traffic share per time window, a summary per mode, the trace
    rows used (``(ts_ms, broker, latency_ms, ok)``, for the report's timeline), and the rows set aside: input
    columns + ``reason``. ``counts`` holds the conservation check: trace and send rows in, used and rejected.
    ``renamed``: input columns named ``reason``, and their name in the rejected rows (``input_reason``)."""

    sends: Any
    traffic: Any
    summary: list[dict[str, Any]]
    trace: list[tuple[int, str, int, bool]] = field(default_factory=list)
    rejected_trace: Any = None
    rejected_sends: Any = None
    counts: dict[str, int] = field(default_factory=dict)
    cached: list[Any] = field(default_factory=list, repr=False)
    renamed: dict[str, dict[str, str]] = field(default_factory=dict)
    window_ms: int = 1000

    def unpersist(self) -> None:
        """Free the cached intermediate results once the outputs are written."""
        for df in self.cached:
            df.unpersist()

    def write_aggregates(self, out: str | Path) -> list[Path]:
        """Write the small aggregates the report's timeline reads into the job's output folder ``out``:
        ``summary/traffic.json`` (the traffic table, collected on the driver: brokers x windows x 2 modes rows)
        and ``summary/broker_windows.json`` (:func:`broker_windows` of the trace rows used, over the traffic's
        windows; over the trace's own span when nothing was replayed). Returns the paths written."""
        from ..aggregates import BROKER_WINDOWS, TRAFFIC, write_records

        traffic = [r.asDict() for r in self.traffic.select(*TRAFFIC.names).collect()]
        starts = [r["window_ms"] for r in traffic] or [t - t % self.window_ms for t, _, _, _ in self.trace]
        states = broker_windows(self.trace, self.window_ms, min(starts), max(starts)) if starts else []
        return [write_records(Path(out), TRAFFIC, traffic), write_records(Path(out), BROKER_WINDOWS, states)]


def broker_windows(
    trace: list[tuple[int, str, int, bool]], window_ms: int, first: int, last: int
) -> list[dict[str, Any]]:
    """Each traced broker's state in every window ``[w, w + window_ms)`` for ``w`` from ``first`` to ``last``
    (window starts) by ``window_ms``, from the trace rows ``(ts_ms, broker, latency_ms, ok)``: the entry in
    effect when the window opens and those within it give ``max_latency_ms`` (their highest latency) and
    ``failed`` (one of them says ``ok = false``). A window before a broker's first row has no record for that
    broker. Records in window, then broker order."""
    if window_ms < 1:
        raise IllegalArgumentError(f"window_ms must be positive, not {window_ms}")
    times: dict[str, list[int]] = {}
    states: dict[str, list[tuple[int, bool]]] = {}
    for ts, broker, latency, ok in sorted(trace, key=lambda r: (r[1], r[0])):
        times.setdefault(broker, []).append(int(ts))
        states.setdefault(broker, []).append((int(latency), bool(ok)))
    out = []
    for w in range(first, last + 1, window_ms):
        for broker in sorted(times):
            ts = times[broker]
            lo = max(bisect.bisect_right(ts, w) - 1, 0)  # the entry in effect at w (or the first one)
            hi = bisect.bisect_left(ts, w + window_ms)  # entries before the window closes
            if hi == 0:
                continue  # the broker's first row comes later
            seen = states[broker][lo:hi]
            out.append(
                {
                    "window_ms": w,
                    "broker": broker,
                    "max_latency_ms": max(latency for latency, _ in seen),
                    "failed": not all(ok for _, ok in seen),
                }
            )
    return out


def _replay_batches(
    batches: Iterator[Any],
    *,
    queues: tuple[tuple[str, int], ...],
    topic: str,
    trace_rows: list[tuple[int, str, int, bool]],
    compat: str,
    retries: int,
    start_index: int,
    seed: int,
    degraded_ms: int,
) -> Iterator[Any]:
    """Arrow worker over one partition holding whole producers in time order."""
    import pyarrow as pa

    import rocketroute as rr
    from rocketroute.errors import BrokerUnreachableError

    trace = BrokerTrace(trace_rows)
    producers: dict[tuple[Any, bool], Any] = {}
    for b in batches:
        cols: dict[str, list[Any]] = {k: [] for k in ("mode", "broker", "queue_id", "attempts", "ok", "latency_ms")}
        cols["degraded_hit"] = []
        ts_col, prod_col = b.column("ts_ms").to_pylist(), b.column("producer_id").to_pylist()
        out_ts, out_prod, out_sent = [], [], []
        for ts, producer in zip(ts_col, prod_col, strict=True):
            for on in (True, False):
                state = producers.get((producer, on))
                if state is None:
                    clock = rr.ManualClock(int(ts))
                    strategy = rr.MQFaultStrategy(compat, send_latency_fault_enable=on, clock=clock)
                    tp = rr.TopicPublishInfo(
                        [rr.MessageQueue(topic, br, q) for br, q in queues],
                        compat=compat,
                        # seeded, so a 5.3 retry's reset_index draws the same value on every run
                        send_which_queue=rr.SendWhichQueue(
                            compat, start=start_index, random=rr.JavaRandom(seed + rr.java_string_hash(str(producer)))
                        ),
                    )
                    state = producers[(producer, on)] = (clock, strategy, tp)
                clock, strategy, tp = state
                clock.set(max(int(ts), clock.now_ms()))  # a producer sends one message after another
                begin = clock.now_ms()
                hit = [False]

                def send(mq: Any, clock: Any = clock, hit: list[bool] = hit) -> str:
                    latency, ok = trace.at(mq.broker_name, clock.now_ms())
                    hit[0] = hit[0] or trace.degraded(mq.broker_name, clock.now_ms(), degraded_ms)
                    clock.advance(latency)
                    if not ok:
                        raise BrokerUnreachableError(f"{mq.broker_name} failed")
                    return "SEND_OK"

                attempts: list[Any] = []
                try:
                    rr.send_default(
                        tp,
                        strategy,
                        send,
                        retry_times_when_send_failed=retries,
                        clock=clock,
                        attempts=attempts,
                        timeout_ms=2**62,
                    )
                    ok = True
                except BrokerUnreachableError:
                    ok = False
                last = attempts[-1].queue
                out_ts.append(ts)
                out_sent.append(begin)
                out_prod.append(producer)
                cols["mode"].append("fault tolerance on" if on else "fault tolerance off")
                cols["broker"].append(last.broker_name)
                cols["queue_id"].append(last.queue_id)
                cols["attempts"].append(len(attempts))
                cols["ok"].append(ok)
                cols["latency_ms"].append(clock.now_ms() - begin)
                cols["degraded_hit"].append(hit[0])
        yield pa.RecordBatch.from_pydict(
            {
                "ts_ms": pa.array(out_ts, pa.int64()),
                "sent_ms": pa.array(out_sent, pa.int64()),
                "producer_id": pa.array(out_prod, pa.string()),
                "mode": pa.array(cols["mode"], pa.string()),
                "broker": pa.array(cols["broker"], pa.string()),
                "queue_id": pa.array(cols["queue_id"], pa.int32()),
                "attempts": pa.array(cols["attempts"], pa.int32()),
                "ok": pa.array(cols["ok"], pa.bool_()),
                "latency_ms": pa.array(cols["latency_ms"], pa.int64()),
                "degraded_hit": pa.array(cols["degraded_hit"], pa.bool_()),
            }
        )


SENDS_SCHEMA = (
    "ts_ms long, sent_ms long, producer_id string, mode string, broker string, queue_id int, attempts int, ok boolean, "
    "latency_ms long, degraded_hit boolean"
)


def replay(
    spark: Any,
    trace: Any,
    sends: Any,
    queues: tuple[tuple[str, int], ...],
    *,
    topic: str = "TopicTest",
    compat: str = "5.3",
    retries: int = 2,
    start_index: int = -1,
    seed: int = 0,
    window_ms: int = 1000,
    degraded_ms: int = 550,
) -> ReplayResult:
    """Replay ``sends`` (``ts_ms, producer_id``) against ``trace`` (``ts_ms, broker, latency_ms, ok``) on
    ``queues``, with fault tolerance on and off; an attempt counts as hitting a degraded broker when the
    broker failed or its latency was at least ``degraded_ms`` at that instant. Each producer's index starts
    at ``start_index``; its random draws (5.3 ``reset_index`` on a retry) come from
    ``JavaRandom(seed + String.hashCode(producer))``."""
    from pyspark.sql import functions as F

    for name, df, cols in (
        ("trace", trace, ("ts_ms", "broker", "latency_ms", "ok")),
        ("sends", sends, ("ts_ms", "producer_id")),
    ):
        check_distinct(df, f"the {name}")
        missing = set(cols) - set(df.columns)
        if missing:
            raise IllegalArgumentError(f"the {name} lacks the columns {sorted(missing)}")
    if not queues:
        raise IllegalArgumentError("no queues to send to")
    if retries < 0:
        raise IllegalArgumentError(f"retries must be at least 0, not {retries}")
    if window_ms < 1:
        raise IllegalArgumentError(f"window_ms must be at least 1, not {window_ms}")
    input_trace, input_sends = trace, sends
    # the rejected rows are the input's columns + reason: an input "reason" is kept as input_reason; the
    # working column gets a name that no input column has
    trace, trace_renamed = rename_clashes(trace, ("reason",))
    sends, sends_renamed = rename_clashes(sends, ("reason",))
    t_reject = fresh_name([*trace.columns, "reason"], "_reject")
    s_reject = fresh_name([*sends.columns, "reason"], "_reject")
    checked_trace = trace.withColumn(t_reject, _trace_reason(trace, {b for b, _ in queues})).persist()
    checked_sends = sends.withColumn(s_reject, _sends_reason()).persist()
    trace_rows = [
        (int(r["ts_ms"]), str(r["broker"]), int(r["latency_ms"]), bool(r["ok"]))
        for r in checked_trace.where(F.col(t_reject).isNull())
        .select(
            F.col("ts_ms").try_cast("long").alias("ts_ms"),
            F.col("broker").cast("string").alias("broker"),
            F.col("latency_ms").try_cast("long").alias("latency_ms"),
            _parse_ok(F.col("ok")).alias("ok"),
        )
        .collect()
    ]  # one row per broker state change: small, and every worker needs all of it
    rejected_trace = checked_trace.where(F.col(t_reject).isNotNull()).withColumnRenamed(t_reject, "reason")
    rejected_sends = checked_sends.where(F.col(s_reject).isNotNull()).withColumnRenamed(s_reject, "reason")
    worker = functools.partial(
        _replay_batches,
        queues=tuple(queues),
        topic=topic,
        trace_rows=trace_rows,
        compat=compat,
        retries=retries,
        start_index=start_index,
        seed=seed,
        degraded_ms=degraded_ms,
    )
    ordered = (
        checked_sends.where(F.col(s_reject).isNull())
        .select(F.col("ts_ms").try_cast("long").alias("ts_ms"), F.col("producer_id").cast("string"))
        .repartition("producer_id")
        .sortWithinPartitions("producer_id", "ts_ms")
    )
    out = ordered.mapInArrow(worker, SENDS_SCHEMA).persist()
    # traffic by the instant the send really started: a producer stuck on a slow broker sends later
    window = (F.col("sent_ms") - F.col("sent_ms") % window_ms).alias("window_ms")
    per_broker = out.groupBy("mode", window, "broker").agg(F.count(F.lit(1)).alias("sends"))
    from pyspark.sql.window import Window

    traffic = per_broker.withColumn(
        "share", F.col("sends") / F.sum("sends").over(Window.partitionBy("mode", "window_ms"))
    ).orderBy("mode", "window_ms", "broker")
    summary = [
        r.asDict()
        for r in out.groupBy("mode")
        .agg(
            F.count(F.lit(1)).alias("sends"),
            F.sum((~F.col("ok")).cast("int")).alias("failures"),
            F.sum(F.col("attempts") - 1).alias("retries"),
            F.percentile_approx("latency_ms", 0.5).alias("p50_ms"),
            F.percentile_approx("latency_ms", 0.99).alias("p99_ms"),
            F.max("latency_ms").alias("max_ms"),
            F.avg(F.col("degraded_hit").cast("double")).alias("degraded_share"),
            F.max(F.col("sent_ms") - F.col("ts_ms")).alias("max_delay_ms"),
        )
        .orderBy("mode")
        .collect()
    ]
    counts = _conservation(input_trace, input_sends, len(trace_rows), rejected_trace, rejected_sends, summary)
    renamed = {k: v for k, v in (("trace", trace_renamed), ("sends", sends_renamed)) if v}
    return ReplayResult(
        out, traffic, summary, sorted(trace_rows), rejected_trace, rejected_sends, counts,
        cached=[checked_trace, checked_sends, out], renamed=renamed, window_ms=window_ms,
    )  # fmt: skip


def _conservation(
    trace: Any, sends: Any, trace_used: int, rejected_trace: Any, rejected_sends: Any, summary: list[dict[str, Any]]
) -> dict[str, int]:
    """Input rows = used rows + rejected rows, for the trace and for the sends (in each mode), or an error."""
    counts = {
        "trace_rows": trace.count(),  # counted from the inputs themselves, so a lost row cannot go unnoticed
        "trace_used": trace_used,
        "trace_rejected": rejected_trace.count(),
        "send_rows": sends.count(),
        "sends_rejected": rejected_sends.count(),
    }
    replayed = {s["mode"]: int(s["sends"]) for s in summary}
    counts["sends_replayed"] = replayed.get("fault tolerance on", 0)
    if counts["trace_rows"] != counts["trace_used"] + counts["trace_rejected"]:
        raise RuntimeError(f"row conservation failed for the trace: {counts}")
    for mode, n in replayed.items():
        if counts["send_rows"] != n + counts["sends_rejected"]:
            raise RuntimeError(f"row conservation failed for the sends ({mode}): {counts}")
    if not replayed and counts["send_rows"] != counts["sends_rejected"]:
        raise RuntimeError(f"row conservation failed for the sends: {counts}")
    return counts


_TRUE = ("true", "1", "yes", "t", "y")
_FALSE = ("false", "0", "no", "f", "n")


def _parse_ok(col: Any) -> Any:
    """``ok`` as a boolean from a boolean, a number or text (``true/false``, ``1/0``, ``yes/no``); else null."""
    from pyspark.sql import functions as F

    text = F.lower(F.trim(col.cast("string")))
    return F.when(text.isin(*_TRUE), F.lit(True)).when(text.isin(*_FALSE), F.lit(False))


def _integer_reason(name: str, negative: str) -> Any:
    """Why the column ``name`` is not a usable non-negative integer (or null when it is)."""
    from pyspark.sql import functions as F

    raw, parsed = F.col(name), F.col(name).try_cast("long")
    # "1.5" casts to 1 as a long: an integer column must also equal its decimal value
    exact = parsed.cast("decimal(38,9)") == raw.try_cast("decimal(38,9)")
    return (
        F.when(raw.isNull(), F.lit(f"null {name}"))
        .when(parsed.isNull() | ~F.coalesce(exact, F.lit(False)), F.lit(f"{name} is not an integer"))
        .when(parsed < 0, F.lit(negative))
    )


def _trace_reason(trace: Any, brokers: set[str]) -> Any:
    """The first reason a trace row cannot be used: bad ``ts_ms`` / ``latency_ms`` / ``ok``, a null broker, or
    a broker that is not in the route (its row would steer nothing, and most likely is a typo)."""
    from pyspark.sql import functions as F

    broker = F.col("broker").cast("string")
    return F.coalesce(  # the first reason that applies
        _integer_reason("ts_ms", "negative ts_ms"),
        F.when(broker.isNull() | (F.trim(broker) == ""), F.lit("null broker")).when(
            ~broker.isin(*sorted(brokers)), F.lit("unknown broker")
        ),
        _integer_reason("latency_ms", "negative latency"),
        F.when(F.col("ok").isNull(), F.lit("null ok")).when(
            _parse_ok(F.col("ok")).isNull(), F.lit("ok is not a boolean")
        ),
    )


def _sends_reason() -> Any:
    """The first reason a send event cannot be replayed: a bad ``ts_ms`` or a null producer."""
    from pyspark.sql import functions as F

    return F.coalesce(
        _integer_reason("ts_ms", "negative ts_ms"),
        F.when(F.col("producer_id").isNull(), F.lit("null producer_id")),
    )
