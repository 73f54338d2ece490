"""``bench-spark``: rows/s of routing one column of keys with the hash selector on Spark, four ways in one
run: the pure-Python reference in a Python UDF, the native Arrow worker, the JVM alone (``reflect``), and
Spark's built-in ``hash()`` (Murmur3: not Java's answer, the ceiling of a JVM-only expression)."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["bench_spark", "synthetic_keys"]


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


def bench_spark(
    spark: Any, rows: int, *, num_queues: int = 16, reference_rows: int | None = None
) -> list[dict[str, Any]]:
    """One row per method: rows, seconds, rows/s; the checksum column lets a reader see that the three exact
    methods agree (Spark's ``hash()`` differs by design)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType

    import rocketroute.reference as ref

    keys = synthetic_keys(spark, rows).cache()
    keys.count()
    small = synthetic_keys(spark, reference_rows or min(rows, 200_000)).cache()
    small.count()
    selector = ref.SelectMessageQueueByHash()
    ref_udf = F.udf(lambda k: selector.select_index(k, num_queues), IntegerType())
    worker = functools.partial(_native_indices, n=num_queues)
    methods = [
        ("reference Python UDF", small, lambda d: d.select(ref_udf("key").alias("q"))),
        ("native Arrow worker", keys, lambda d: d.mapInArrow(worker, "q int")),
        (
            "JVM reflect (Objects.hashCode)",
            keys,
            lambda d: d.select(
                F.abs(F.expr("reflect('java.util.Objects', 'hashCode', key)").cast("int") % num_queues).alias("q")
            ),
        ),
        (
            "Spark hash() (Murmur3, not Java's)",
            keys,
            lambda d: d.select(F.pmod(F.hash("key"), F.lit(num_queues)).alias("q")),
        ),
    ]
    out = []
    for name, data, build in methods:
        n = data.count()
        _time(build(data))  # warm up: JIT, Python workers
        secs = min(_time(build(data)) for _ in range(2))
        checksum = build(data).agg(F.sum(F.col("q").cast("long"))).collect()[0][0]
        out.append({"method": name, "rows": n, "seconds": round(secs, 3), "rows_per_s": n / secs, "checksum": checksum})
    keys.unpersist()
    small.unpersist()
    return out
