"""``rocketroute bench-spark``: rows/s of the hash route on Spark (reference UDF, native Arrow worker, JVM reflect,
rocketroute's JVM UDF, Spark ``hash()``), each method timed several times at each size."""

from __future__ import annotations

import argparse
from typing import Any

from ..._plural import counted
from ...cli.args import int_arg, log
from .common import require, spark_session, spark_start


def rows_list(text: str) -> list[int]:
    """``--rows``: one size or a comma-separated list (``1000000,10000000``), each at least 1."""
    parse = int_arg(1, 2**63 - 1)
    sizes = [parse(part.strip()) for part in text.split(",") if part.strip()]
    if not sizes:
        raise argparse.ArgumentTypeError(f"must be a row count or a comma-separated list of them, not {text!r}")
    return list(dict.fromkeys(sizes))


rows_list.__name__ = "row counts"  # argparse names the type in its messages


def format_table(rows: list[dict[str, Any]]) -> list[str]:
    """The printed table: one line per method and size, then the JVM UDF over Spark ``hash()`` per size."""
    from ..bench import udf_over_hash

    head = f"{'method':<36} {'rows':>12} {'runs':>4} {'median s':>9} {'min-max s':>15} {'rows/s':>14} {'checksum':>14}"
    lines = [head]
    for r in rows:
        spread = f"{r['min_seconds']:.3f}-{r['max_seconds']:.3f}"
        lines.append(
            f"{r['method']:<36} {r['rows']:>12,} {r['runs']:>4} {r['seconds']:>9.3f} {spread:>15} "
            f"{r['rows_per_s']:>14,.0f} {r['checksum']:>14}"
        )
    for size, ratio in udf_over_hash(rows).items():
        lines.append(f"JVM UDF / Spark hash() at {size:,} rows: {ratio:.2f} (rows/s of the medians)")
    return lines


def cmd_bench_spark(args: argparse.Namespace) -> int:
    require("pyspark")
    from ..bench import bench_spark

    sizes = ", ".join(f"{n:,}" for n in args.rows)
    log(
        f"benchmarking the hash route of {sizes} keys on {counted(args.queues, 'queue')}, {args.warmups} warm-up "
        f"and {counted(args.runs, 'timed run')} each; {spark_start(args)}"
    )
    with spark_session(args) as spark:
        rows = bench_spark(
            spark,
            args.rows,
            num_queues=args.queues,
            reference_rows=args.reference_rows,
            runs=args.runs,
            warmups=args.warmups,
        )
    for line in format_table(rows):
        print(line)
    return 0


def add_parser(subparsers: Any) -> None:
    b = subparsers.add_parser(
        "bench-spark",
        help="rows/s of the hash route on Spark: reference UDF, native Arrow worker, JVM reflect, JVM UDF, "
        "Spark hash()",
    )
    b.add_argument(
        "--rows",
        type=rows_list,
        default=[1_000_000, 10_000_000],
        help="keys to route: one count or a comma-separated list (default: 1000000,10000000)",
    )
    b.add_argument(
        "--reference-rows", type=int_arg(1, 2**63 - 1), default=200_000, help="keys for the slow reference UDF"
    )
    b.add_argument("--runs", type=int_arg(1), default=3, help="timed runs of each method (default 3)")
    b.add_argument(
        "--warmups", type=int_arg(0), default=3, help="untimed runs of each method first, for the JIT (default 3)"
    )
    b.add_argument("--queues", type=int_arg(1), default=16, help="the topic's queue count")
    b.add_argument("--master", default=None, help="Spark master (default: local[*])")
    b.set_defaults(func=cmd_bench_spark)
