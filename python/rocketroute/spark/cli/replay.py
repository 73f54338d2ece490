"""``rocketroute replay``: what each producer's fault strategy would have done on a broker latency / error
trace."""

from __future__ import annotations

import argparse
from typing import Any

from ..._plural import counted
from ...cli.args import JAVA_INT_MAX, int_arg, log
from ...errors import RocketRouteError
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
    write_summary,
)
from .inputs import check_columns, check_input, input_has_no_rows


def check_replay(args: argparse.Namespace) -> Any:
    """What ``replay`` can check before Spark starts (both inputs exist with their columns, the sends have rows
    where that can be told without Spark, the route parses): the queue spec."""
    for what, path, columns in (
        ("trace", args.trace, ("ts_ms", "broker", "latency_ms", "ok")),
        ("sends", args.sends, ("ts_ms", "producer_id")),
    ):
        fmt = check_input(path, None, what)
        check_columns(path, fmt, [("required", c) for c in columns], what)
        if what == "sends" and input_has_no_rows(path, fmt):  # the words of cmd_replay's after-Spark check
            raise RocketRouteError(f"nothing replayed: no send rows in {path!r}")
    check_out(args.out, overwrite=args.overwrite, inputs=(args.trace, args.sends, args.route))
    return queue_spec_from_args(args)


def run_replay(spark: Any, args: argparse.Namespace, spec: Any) -> Any:
    """The replay job on ``spark`` (``spec`` from :func:`check_replay`): writes ``args.out`` and returns the
    :class:`ReplayResult`."""
    from ..jobs.replay import replay

    log(f"replay: {args.sends} against {args.trace} on {counted(len(spec), 'queue')}, fault tolerance on and off")
    trace = read_input(spark, args.trace, None)
    sends = read_input(spark, args.sends, None)
    result = replay(
        spark,
        trace,
        sends,
        spec.queues,
        topic=args.topic,
        compat=args.compat,
        retries=args.retries,
        start_index=args.start_index,
        seed=args.seed,
        window_ms=args.window_ms,
    )
    for which, renamed in result.renamed.items():
        log(f"replay: {which}: " + renamed_note(renamed))
    log(f"replay: writing {args.out}")
    with staged_output(output_folder(args.out)) as out:
        result.sends.write.parquet(str(out / "sends"))
        result.traffic.coalesce(1).write.option("header", True).csv(str(out / "traffic"))
        result.rejected_trace.write.parquet(str(out / "rejected" / "trace"))
        result.rejected_sends.write.parquet(str(out / "rejected" / "sends"))
        result.write_aggregates(out)  # what the report reads: summary/traffic.json, summary/broker_windows.json
        summary: dict[str, Any] = {"modes": result.summary, "rows": result.counts}
        if result.renamed:
            summary["renamed_columns"] = result.renamed
        write_summary(out, summary)
    result.unpersist()
    return result


def print_replay(result: Any, out: str) -> None:
    c = result.counts
    print(
        f"trace rows {c['trace_rows']:,} = used {c['trace_used']:,} + rejected {c['trace_rejected']:,}; "
        f"send rows {c['send_rows']:,} = replayed {c['sends_replayed']:,} + rejected {c['sends_rejected']:,}"
    )
    header = ("sends", "failures", "retries", "p50 ms", "p99 ms", "max ms", "degraded", "max delay")
    print(f"{'mode':<22} " + " ".join(f"{h:>9}" for h in header))
    for r in result.summary:
        cells = (r["sends"], r["failures"], r["retries"], r["p50_ms"], r["p99_ms"], r["max_ms"])
        print(
            f"{r['mode']:<22} "
            + " ".join(f"{c:>9,}" if isinstance(c, int) else f"{c:>9}" for c in cells)
            + f" {r['degraded_share']:>9.1%} {(r['max_delay_ms'] or 0) / 1000:>8.1f}s"
        )
    print(
        f"outputs: {out}/sends, traffic, rejected/trace, rejected/sends, summary/summary.json, "
        "summary/traffic.json, summary/broker_windows.json"
    )


def cmd_replay(args: argparse.Namespace) -> int:
    require("pyspark")
    spec = check_replay(args)
    log(f"replaying {args.sends} against {args.trace} on {counted(len(spec), 'queue')}; {spark_start(args)}")
    with spark_session(args) as spark:
        result = run_replay(spark, args, spec)
    print_replay(result, args.out)
    c = result.counts
    if not c["sends_replayed"]:
        what = "no send rows" if not c["send_rows"] else f"all {c['send_rows']:,} send rows were rejected"
        raise RocketRouteError(f"nothing replayed: {what}; see {args.out}/rejected/sends")
    return 0


def add_parser(subparsers: Any) -> None:
    rp = subparsers.add_parser(
        "replay",
        help="what each producer's fault strategy would have done on a broker latency / error trace",
        description="Replays every producer's sends (ts_ms, producer_id) in time order through its own "
        "MQFaultStrategy and retry loop, with fault tolerance on and off, against a broker trace "
        "(ts_ms, broker, latency_ms, ok): per-send outcomes, per-broker traffic share per time window, and "
        "a summary (latency percentiles, failures, retries, share of sends that hit a degraded broker).",
    )
    rp.add_argument("--trace", required=True, help="broker trace: ts_ms, broker, latency_ms, ok")
    rp.add_argument("--sends", required=True, help="send events: ts_ms, producer_id")
    rp.add_argument("--topic", required=True, help="the topic the producers send to")
    add_queue_args(rp)
    rp.add_argument("--retries", type=int_arg(0), default=2, help="retryTimesWhenSendFailed")
    rp.add_argument(
        "--start-index", type=int_arg(-JAVA_INT_MAX - 1), default=-1, help="every producer's first stored index"
    )
    rp.add_argument(
        "--seed", type=int_arg(-(2**63), 2**63 - 1), default=0, help="base seed of the producers' random draws"
    )
    rp.add_argument("--window-ms", type=int_arg(1), default=1000, help="traffic-share window, in ms")
    add_spark_args(rp)
    rp.add_argument("--out", required=True, help="output folder")
    add_overwrite_arg(rp)
    rp.set_defaults(func=cmd_replay)
