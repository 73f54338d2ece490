"""``rocketroute route``: a message dataset onto a topic's queues exactly as the Java client would route it."""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..._plural import counted
from ...cli.args import JAVA_INT_MAX, int_arg, log
from ...errors import RocketRouteError
from ..jobs.route import HASH_PATHS
from .common import (
    add_overwrite_arg,
    add_queue_args,
    add_spark_args,
    check_out,
    output_folder,
    queue_spec_from_args,
    read_input,
    renamed_note,
    require,
    spark_session,
    spark_start,
    staged_output,
    write_csv,
    write_summary,
)
from .inputs import FORMATS, check_columns, check_input, input_has_no_rows


def check_route(args: argparse.Namespace) -> Any:
    """What ``route`` can check before Spark starts (the input exists, has the columns the options name and
    rows where that can be told without Spark, the route parses, ``--out`` can be written): the queue spec."""
    fmt = check_input(args.input, args.format)
    key = args.key if args.selector == "hash" or getattr(args, "compare_profiles", None) else None
    wanted = [("key", key), ("size", args.size), ("producer", args.producer), ("timestamp", args.ts)]
    check_columns(args.input, fmt, wanted)
    if input_has_no_rows(args.input, fmt):  # a header-only CSV: the same words as refuse_nothing_routed's
        raise RocketRouteError(f"nothing to route: the input {args.input!r} has no rows")
    check_out(args.out, overwrite=args.overwrite, inputs=(args.input, args.route))
    if getattr(args, "compare_profiles", None):
        from ..compat import parse_profiles

        if isinstance(args.compare_profiles, str):  # the command line's text (already parsed on a second check)
            args.compare_profiles = parse_profiles(args.compare_profiles)
        if args.key_type != "string":
            raise RocketRouteError("--compare-profiles compares string keys (message groups); use --key-type string")
    return queue_spec_from_args(args)


def run_route(spark: Any, args: argparse.Namespace, spec: Any) -> dict[str, Any]:
    """The route job on ``spark`` (``spec`` from :func:`check_route`): writes ``args.out``, returns the summary."""
    from ..jobs.route import route

    t0 = time.perf_counter()
    df = read_input(spark, args.input, args.format)
    log(f"route: {args.input} onto {counted(len(spec), 'queue')} with the {args.selector} selector")
    result = route(
        spark,
        df,
        spec,
        selector=args.selector,
        key=args.key,
        key_type=args.key_type,
        size=args.size,
        producer=args.producer,
        ts=args.ts,
        compat=args.compat,
        start_index=args.start_index,
        seed=args.seed,
        hash_path=args.hash_path,
    )
    if result.hash_path:
        why = f" (the JVM UDFs are unavailable: {result.hash_fallback})" if result.hash_fallback else ""
        log(f"route: hash path {result.hash_path}{why}")
    if result.renamed:
        log("route: " + renamed_note(result.renamed))
    key = result.renamed.get(args.key, args.key)
    if getattr(args, "compare_profiles", None) and key not in result.routed.columns:
        raise RocketRouteError(f"--compare-profiles needs the key column {args.key!r}, which the input lacks")
    log(f"route: writing {args.out}")
    with staged_output(output_folder(args.out)) as out:
        result.routed.write.parquet(str(out / "routed"))
        result.rejected.write.parquet(str(out / "rejected"))
        result.per_queue.coalesce(1).write.option("header", True).csv(str(out / "per_queue"))
        result.hot_keys.coalesce(1).write.option("header", True).csv(str(out / "hot_keys"))
        result.write_aggregates(out)  # what the report reads: summary/hot_keys.json
        per_queue = [r.asDict() for r in result.per_queue.collect()]
        compat = None
        if getattr(args, "compare_profiles", None):
            from ..compat import compare_profiles

            log(f"route: comparing {len(args.compare_profiles)} client routing profiles on the keys")
            compat = compare_profiles(result.routed, key, len(spec), args.compare_profiles)
            # a few dozen rows, already on the driver: written as they are, no Spark job
            write_csv(out / "compat" / "compat.csv", compat)
        reasons = {}
        if result.rejected_rows:  # a few distinct reasons: why rows were set aside, for the summary and the CLI
            reasons = {r["reason"]: r["count"] for r in result.rejected.groupBy("reason").count().collect()}
        result.unpersist()
        summary = {
            "topic": spec.topic,
            "selector": args.selector,
            "hash_path": result.hash_path,
            "queues": len(spec),
            "input_rows": result.input_rows,
            "routed_rows": result.routed_rows,
            "rejected_rows": result.rejected_rows,
            "rejected_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
            "skew": result.skew,
            "per_queue": per_queue,
            "seconds": round(time.perf_counter() - t0, 2),
        }
        if result.renamed:
            summary["renamed_columns"] = result.renamed
        if compat is not None:
            summary["compat"] = {"profiles": list(args.compare_profiles), "pairs": compat}
        write_summary(out, summary)
    return summary


def print_route(summary: dict[str, Any], out: str) -> None:
    skew = summary["skew"]
    print(
        f"input rows {summary['input_rows']:,} = routed {summary['routed_rows']:,} + rejected "
        f"{summary['rejected_rows']:,}; max/mean {skew['max_over_mean']:.3f}, cv {skew['cv']:.3f}, "
        f"gini {skew['gini']:.3f}"
    )
    print(f"{'queue':>24} {'messages':>12} {'share':>7}")
    for row in summary["per_queue"]:
        print(f"{row['broker'] + '/' + str(row['queue_id']):>24} {row['messages']:>12,} {row['share']:>7.2%}")
    compat = summary.get("compat")
    if compat:
        names = compat["profiles"]
        share = {(r["a"], r["b"]): r["key_share"] for r in compat["pairs"]}
        width = max(len(n) for n in names)
        print(f"keys on the same queue, per pair of client routing profiles ({counted(summary['queues'], 'queue')}):")
        print(" " * width + "  " + "  ".join(f"{n:>{width}}" for n in names))
        for a in names:
            cells = ("-" if share[(a, b)] is None else f"{share[(a, b)]:.2%}" for b in names)
            print(f"{a:>{width}}  " + "  ".join(f"{c:>{width}}" for c in cells))
    if summary.get("renamed_columns"):
        print(renamed_note(summary["renamed_columns"]))
    extra = ", compat" if compat else ""
    print(f"outputs: {out}/routed, rejected, per_queue, hot_keys{extra}, summary/summary.json, summary/hot_keys.json")


def cmd_route(args: argparse.Namespace) -> int:
    require("pyspark")
    spec = check_route(args)
    brokers = len({b for b, _ in spec.queues})
    log(f"{counted(len(spec), 'queue')} on {counted(brokers, 'broker')}; {spark_start(args)}")
    with spark_session(args) as spark:
        summary = run_route(spark, args, spec)
    refuse_nothing_routed(summary, args.input, args.out)  # before the table: all of its counts would be 0
    print_route(summary, args.out)
    return 0


def refuse_nothing_routed(summary: dict[str, Any], source: str, out: str) -> None:
    """A run that routed nothing is a mistake said in one line (exit 2), not a success: an input with no rows,
    or every row set aside (with the reasons, e.g. ``--size`` naming a text column)."""
    if summary["routed_rows"]:
        return
    if not summary["input_rows"]:
        raise RocketRouteError(f"nothing to route: the input {source!r} has no rows")
    reasons = "; ".join(f"{reason}: {n:,}" for reason, n in summary.get("rejected_reasons", {}).items())
    raise RocketRouteError(
        f"nothing routed: all {summary['input_rows']:,} rows were rejected ({reasons}); see {out}/rejected"
    )


def add_parser(subparsers: Any) -> None:
    r = subparsers.add_parser(
        "route",
        help="route a message dataset onto a topic's queues exactly as the Java client would",
        description="Every row with the broker and queue the Java client would pick, a per-queue table, "
        "skew metrics and the hottest keys of each queue; bad rows go to rejected/ with a reason.",
    )
    r.add_argument("--input", required=True, help="messages: a Parquet, CSV (with a header) or JSON file/folder")
    r.add_argument("--format", choices=FORMATS, help="the input format (default: from the file name)")
    r.add_argument("--topic", required=True, help="the topic the messages are sent to")
    add_queue_args(r)
    r.add_argument(
        "--selector",
        default="hash",
        choices=("hash", "round-robin", "random"),
        help="the MessageQueueSelector (hash: SelectMessageQueueByHash on the key)",
    )
    r.add_argument("--key", default="key", help="the key column (hash selector; default: key)")
    r.add_argument("--key-type", default="string", choices=("string", "int", "long"), help="the key's Java type")
    r.add_argument("--size", help="the message size column (bytes), optional")
    r.add_argument("--producer", help="the producer column (round-robin / random: one index per producer)")
    r.add_argument("--ts", help="the timestamp column that orders each producer's sends")
    r.add_argument(
        "--start-index",
        type=int_arg(-JAVA_INT_MAX - 1),
        default=-1,
        help="round-robin: every producer's first stored index",
    )
    r.add_argument(
        "--seed", type=int_arg(-(2**63), 2**63 - 1), default=0, help="random: the base seed of the producers' selectors"
    )
    r.add_argument(
        "--hash-path",
        default="jvm",
        choices=HASH_PATHS,
        help="hash: jvm (default) runs in the JVM alone, rocketroute's Java UDF where its jar is built, else "
        "Spark SQL's reflect; jvm-udf / jvm-reflect: that one only; arrow: the native Arrow worker. Same answer. "
        "An int key on any jvm path is plain Spark SQL (Integer.hashCode is the value), reported as jvm-sql",
    )
    r.add_argument(
        "--compare-profiles",
        metavar="LIST",
        help="also compare other clients' keyed routing on the keys: 'all' or a comma-separated list of "
        "java-hashcode, java5-grpc-siphash, proxy-jump, python5-sha256, go4-fnv32a, kafka-murmur2, cpp2-stdhash "
        "(writes OUT/compat)",
    )
    add_spark_args(r)
    r.add_argument("--out", required=True, help="output folder")
    add_overwrite_arg(r)
    r.set_defaults(func=cmd_route)
