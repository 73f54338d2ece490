"""``rocketroute demo``: realistic synthetic inputs for the whole pipeline.

A topic on four brokers, a day-like burst of orders whose keys follow a Zipf law (a few customers place most
orders), log-normal sizes, a dozen producers, and a few bad rows as real exports have them (null keys,
negative sizes). The broker trace has one broker that degrades (its latency climbs to over a second, then
recovers), one that fails for a while, and rows of a decommissioned broker that the route no longer has.
Everything is seeded and hashed from the row number: the same ``seed`` and ``rows`` give the same files
on any machine.
"""

from __future__ import annotations

import csv
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..examples.sample_route import SAMPLE_BROKERS, sample_route

__all__ = ["BROKERS", "DemoInputs", "ROOMS", "TOPIC", "write_demo_inputs"]

TOPIC = "TopicOrders"
BROKERS = SAMPLE_BROKERS
QUEUES_PER_BROKER = 4
ROOMS = {"broker-a": "az1", "broker-b": "az1", "broker-c": "az2", "broker-d": "az2"}
T0_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
SPAN_MS = 120_000
DEGRADING, FAILING, RETIRED = "broker-b", "broker-c", "broker-old"


@dataclass(frozen=True)
class DemoInputs:
    """Where the generated inputs are."""

    route: Path
    messages: Path
    trace: Path
    sends: Path


def route_json() -> str:
    """The topic's route as the name server returns it: four brokers of four writeable queues."""
    return json.dumps(sample_route(BROKERS, QUEUES_PER_BROKER), indent=2)


def trace_rows(seed: int) -> list[tuple[int, str, int, str]]:
    """One row per broker per second (``ts_ms, broker, latency_ms, ok``): healthy brokers answer in a few
    ms; ``broker-b`` climbs from 5 ms to 1.2 s between 30 s and 50 s, stays slow, recovers from 70 s to 80 s;
    ``broker-c`` fails from 60 s to 90 s; ``broker-old`` is no longer in the route."""
    rnd = random.Random(seed)
    rows = []
    for second in range(SPAN_MS // 1000):
        ts = T0_MS + second * 1000
        for broker in BROKERS:
            latency, ok = rnd.randint(2, 9), True
            if broker == DEGRADING:
                if 30 <= second < 50:
                    latency = 5 + (second - 30) * 60
                elif 50 <= second < 70:
                    latency = 1200 + rnd.randint(-150, 150)
                elif 70 <= second < 80:
                    latency = 1200 - (second - 70) * 115
            if broker == FAILING and 60 <= second < 90:
                latency, ok = 3000, False  # the send times out
            rows.append((ts, broker, latency, "true" if ok else "false"))
        if second % 40 == 0:
            rows.append((ts, RETIRED, 4, "true"))
    return rows


def _uniform(salt: int) -> Any:
    """A uniform double in [0, 1) from the row's ``id`` alone (a hash), so the data does not depend on how
    Spark partitions the range: the same seed gives the same rows on any machine."""
    from pyspark.sql import functions as F

    return F.xxhash64(F.col("id"), F.lit(salt)).bitwiseAND(F.lit((1 << 53) - 1)).cast("double") / F.lit(float(1 << 53))


def write_demo_inputs(spark: Any, out: str | Path, *, rows: int, sends: int, seed: int = 7) -> DemoInputs:
    """Writes ``out/route.json``, ``out/messages.parquet`` (``rows`` orders: ``key, size, ts_ms,
    producer``), ``out/trace.csv`` and ``out/sends.parquet`` (about ``sends`` of the orders' send events)."""
    from pyspark.sql import functions as F

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = DemoInputs(out / "route.json", out / "messages.parquet", out / "trace.csv", out / "sends.parquet")
    paths.route.write_text(route_json() + "\n")

    distinct = max(1000, rows // 20)
    s = 0.9  # Zipf exponent: at 1M rows the hottest key carries ~4% of the orders, the top 1% of keys ~44%
    u = _uniform(seed)
    # inverse CDF of a Zipf law on 1..distinct (continuous approximation)
    rank = F.floor(F.pow(F.lit(1.0) + u * (F.lit(float(distinct) ** (1 - s)) - 1), F.lit(1 / (1 - s)))).cast("long")
    key = F.concat(F.lit("order-"), F.lpad(rank.cast("string"), 7, "0"))
    # log-normal sizes (median ~730 bytes); Box-Muller turns two uniforms into a normal
    normal = F.sqrt(F.lit(-2.0) * F.log(F.lit(1.0) - _uniform(seed + 1))) * F.cos(
        F.lit(2 * math.pi) * _uniform(seed + 2)
    )
    size = (F.exp(F.lit(6.5) + F.lit(0.9) * normal) + 64).cast("long")
    orders = spark.range(rows).select(
        F.when(_uniform(seed + 3) < 0.0005, F.lit(None)).otherwise(key).alias("key"),
        F.when(_uniform(seed + 4) < 0.0003, -size).otherwise(size).alias("size"),
        (F.lit(T0_MS) + (F.col("id") * F.lit(SPAN_MS) / F.lit(rows)).cast("long")).alias("ts_ms"),
        F.concat(F.lit("producer-"), (F.col("id") % 12).cast("string")).alias("producer"),
        (_uniform(seed + 5) < min(1.0, sends / max(rows, 1))).alias("_replayed"),
    )
    orders.drop("_replayed").write.mode("overwrite").parquet(str(paths.messages))
    orders.where("_replayed").select("ts_ms", F.col("producer").alias("producer_id")).write.mode("overwrite").parquet(
        str(paths.sends)
    )

    with paths.trace.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["ts_ms", "broker", "latency_ms", "ok"])
        w.writerows(trace_rows(seed))

    return paths
