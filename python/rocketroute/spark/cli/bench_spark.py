"""``rocketroute bench-spark``: rows/s of the hash route on Spark (reference UDF, native Arrow worker, JVM, Spark
``hash()``)."""

from __future__ import annotations

import argparse
from typing import Any

from .common import int_arg, log, require


def cmd_bench_spark(args: argparse.Namespace) -> int:
    require("pyspark")
    from ..bench import bench_spark
    from ..session import local_session

    log(f"benchmarking the hash route of {args.rows:,} keys on {args.queues} queues; starting Spark")
    spark = local_session(args.master, quiet=True)
    try:
        rows = bench_spark(spark, args.rows, num_queues=args.queues, reference_rows=args.reference_rows)
    finally:
        spark.stop()
    print(f"{'method':<36} {'rows':>12} {'seconds':>9} {'rows/s':>14} {'checksum':>14}")
    for r in rows:
        print(f"{r['method']:<36} {r['rows']:>12,} {r['seconds']:>9.3f} {r['rows_per_s']:>14,.0f} {r['checksum']:>14}")
    return 0


def add_parser(subparsers: Any) -> None:
    b = subparsers.add_parser(
        "bench-spark",
        help="rows/s of the hash route on Spark: reference UDF, native Arrow worker, JVM, Spark hash()",
    )
    b.add_argument("--rows", type=int_arg(1, 2**63 - 1), default=10_000_000, help="keys to route")
    b.add_argument(
        "--reference-rows", type=int_arg(1, 2**63 - 1), default=200_000, help="keys for the slow reference UDF"
    )
    b.add_argument("--queues", type=int_arg(1), default=16, help="the topic's queue count")
    b.add_argument("--master", default=None, help="Spark master (default: local[*])")
    b.set_defaults(func=cmd_bench_spark)
