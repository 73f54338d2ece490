"""``bench-spark``: rows/s of routing one column of keys with the hash selector on Spark, five ways in one
run: the pure-Python reference in a Python UDF, the native Arrow worker, the JVM through ``reflect``,
rocketroute's Java UDF (:mod:`rocketroute.spark.jvm`), and Spark's built-in ``hash()`` (Murmur3: not Java's
answer, the ceiling of a JVM-only expression). Each method runs ``warmups`` times to warm up, then ``runs``
timed times, interleaved with the others'; the median decides its rows/s and the min and max show the spread."""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["HASH_METHOD", "UDF_METHOD", "bench_spark", "synthetic_keys", "udf_over_hash"]

UDF_METHOD = "JVM UDF (HashIndex on UTF-8 bytes)"
HASH_METHOD = "Spark hash() (Murmur3, not Java's)"


def synthetic_keys(spark: Any, rows: int, distinct: int = 100_000, partitions: int | None = None) -> Any:
    """``rows`` 16-character order keys (``order-0000012345``) drawn from ``distinct`` values."""
    from pyspark.sql import functions as F

    df = spark.range(0, rows, numPartitions=partitions or spark.sparkContext.defaultParallelism)
    return df.select(F.format_string("order-%010d", (F.col("id") * 7919) % distinct).alias("key"))


def _native_indices(batches: Iterator[Any], *, n: int) -> Iterator[Any]:
    import pyarrow as pa

    from rocketroute import batch

    for b in batches:
        idx = batch.hash_select_indices(b.column("key"), n)
        yield pa.RecordBatch.from_arrays([pa.array(idx, type=pa.int32())], names=["q"])


def _time(df: Any) -> float:
    from pyspark.sql import functions as F

    start = time.perf_counter()
    df.agg(F.sum(F.col("q").cast("long"))).collect()
    return time.perf_counter() - start


def _methods(spark: Any, num_queues: int) -> list[tuple[str, Callable[[Any], Any]]]:
    """Every method but the reference UDF: (name, keys DataFrame -> one int column ``q``). The JVM UDF is left
    out, with a note on stderr, where its jar does not load."""
    import sys

    from pyspark.sql import functions as F

    from .jvm import HASH_UDFS, register_udfs

    worker = functools.partial(_native_indices, n=num_queues)
    methods: list[tuple[str, Callable[[Any], Any]]] = [
        ("native Arrow worker", lambda d: d.mapInArrow(worker, "q int")),
        (
            "JVM reflect (Objects.hashCode)",
            lambda d: d.select(
                F.abs(F.expr("reflect('java.util.Objects', 'hashCode', key)").cast("int") % num_queues).alias("q")
            ),
        ),
    ]
    status = register_udfs(spark)
    if status:
        name = HASH_UDFS["utf8"][0]  # as route calls it: on the key's UTF-8 bytes
        udf = F.call_function(name, F.col("key").cast("binary"), F.lit(num_queues))
        methods.append((UDF_METHOD, lambda d: d.select(udf.alias("q"))))
    else:
        print(f"[rocketroute] bench-spark: no JVM UDF row: {status.why}", file=sys.stderr, flush=True)
    methods.append((HASH_METHOD, lambda d: d.select(F.pmod(F.hash("key"), F.lit(num_queues)).alias("q"))))
    return methods


def _measure(
    methods: Sequence[tuple[str, Callable[[Any], Any]]], data: Any, runs: int, warmups: int
) -> list[dict[str, Any]]:
    """Each method over ``data``: ``warmups`` untimed runs each, then ``runs`` rounds that time every method once
    in turn (interleaved, so a slow moment of the machine falls on all of them alike), then its checksum."""
    from pyspark.sql import functions as F

    n = data.count()
    for _, build in methods:
        for _ in range(warmups):
            _time(build(data))  # warm up: the JIT, the Python workers
    times: list[list[float]] = [[] for _ in methods]
    for _ in range(runs):
        for i, (_, build) in enumerate(methods):
            times[i].append(_time(build(data)))
    out = []
    for (name, build), ts in zip(methods, times, strict=True):
        median = statistics.median(ts)
        checksum = build(data).agg(F.sum(F.col("q").cast("long"))).collect()[0][0]
        out.append(
            {
                "method": name,
                "rows": n,
                "runs": runs,
                "seconds": median,
                "min_seconds": min(ts),
                "max_seconds": max(ts),
                "rows_per_s": n / median,
                "checksum": checksum,
            }
        )
    return out


def bench_spark(
    spark: Any,
    rows: int | Sequence[int],
    *,
    num_queues: int = 16,
    reference_rows: int | None = None,
    runs: int = 3,
    warmups: int = 3,
) -> list[dict[str, Any]]:
    """One row per method and size in ``rows``: rows, runs, the median and the min and max seconds of the timed
    runs, rows/s from the median, and a checksum (the sum of the indices) that lets a reader see that the exact
    methods agree (Spark's ``hash()`` differs by design). The slow reference UDF runs once, on
    ``reference_rows`` keys (default: the smallest size, at most 200k). Every method first runs ``warmups`` times
    untimed at each size: at 1M rows a run is a fraction of a second, and one is not enough for the JIT to
    compile a method's path (measured: the JVM UDF at 0.72-0.76x ``hash()`` after one warm-up, 0.87-0.91x after
    five)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType

    import rocketroute.reference as ref

    sizes = [rows] if isinstance(rows, int) else list(rows)
    if not sizes or runs < 1 or warmups < 0:
        raise ValueError("bench_spark needs one size or more, runs >= 1 and warmups >= 0")
    selector = ref.SelectMessageQueueByHash()
    ref_udf = F.udf(lambda k: selector.select_index(k, num_queues), IntegerType())
    methods = _methods(spark, num_queues)
    small = synthetic_keys(spark, reference_rows or min(min(sizes), 200_000)).cache()
    reference = [("reference Python UDF", lambda d: d.select(ref_udf("key").alias("q")))]
    out = _measure(reference, small, runs, min(warmups, 1))  # pure Python: nothing to compile
    small.unpersist()
    for size in sizes:
        keys = synthetic_keys(spark, size).cache()
        keys.count()
        out += _measure(methods, keys, runs, warmups)
        keys.unpersist()
    return out


def udf_over_hash(results: list[dict[str, Any]]) -> dict[int, float]:
    """Per size: the JVM UDF's rows/s over Spark ``hash()``'s in the same run (sizes without both are left out)."""
    by = {(r["method"], r["rows"]): r["rows_per_s"] for r in results}
    return {
        rows: by[(UDF_METHOD, rows)] / by[(HASH_METHOD, rows)]
        for (method, rows) in by
        if method == UDF_METHOD and (HASH_METHOD, rows) in by
    }
