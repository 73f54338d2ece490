"""``rocketroute bench-producer``: send to a real cluster as RocketMQ's benchmark producer does (no Spark: works
without the spark extra). The command line; the benchmark itself is :mod:`.bench_producer_run`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import RocketRouteError
from .args import add_access_args, check_json_out, int_arg, positive_float_arg

__all__ = ["add_parser", "cmd_bench_producer"]


def _namesrv_arg(text: str) -> str:
    """``--namesrv``: the producer's own rule for name server addresses, checked before anything starts."""
    from .bench_producer_run import check_namesrv

    try:
        check_namesrv(text)
    except RocketRouteError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _topic_arg(text: str) -> str:
    """``--topic``: the producer's topic check (Java's ``Validators.checkTopic``)."""
    from .bench_producer_run import check_topic_name

    try:
        check_topic_name(text)
    except RocketRouteError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def cmd_bench_producer(args: argparse.Namespace) -> int:
    from .bench_producer_run import BenchConfig, BenchInterrupted, run_bench

    cfg = BenchConfig.from_args(args)
    if args.json:
        check_json_out("--json", args.json)
    try:
        summary = run_bench(cfg, out=sys.stdout)
    except BenchInterrupted as stopped:  # Ctrl-C: the summary so far is printed; --json gets it too
        _write_json(args.json, stopped.summary)
        raise
    _write_json(args.json, summary)
    return 0 if summary["failed"] == 0 else 1


def _write_json(path: str | None, summary: dict[str, Any]) -> None:
    if not path:
        return
    try:
        Path(path).write_text(json.dumps(summary, indent=2) + "\n")
    except OSError as e:
        raise RocketRouteError(f"cannot write --json {path!r}: {e.strerror}") from None


def add_parser(subparsers: Any) -> None:
    bp = subparsers.add_parser(
        "bench-producer",
        help="send to a real cluster as RocketMQ's benchmark producer does: TPS, RT percentiles, failures",
        description="Sends messages of --size bytes to --topic through rocketroute.Producer from --threads threads "
        "(sync), one event loop (async) or in batches, printing a progress line every --interval seconds and a "
        "summary at the end (on Ctrl-C too: of what was sent until then). A line counts the messages acknowledged "
        "since the one before over that time; the last one runs until the sends under way at the end of "
        "--duration are answered. Exit status: 0, 1 when a send failed, 2 for a mistake in the options (checked "
        "before anything is sent), an unreachable cluster or a run whose first sends all failed, 130 on Ctrl-C.",
    )
    bp.add_argument(
        "--namesrv", required=True, type=_namesrv_arg, help='name servers, "host:port" or "host:port;host:port"'
    )
    bp.add_argument("--topic", required=True, type=_topic_arg, help="the topic to send to")
    bp.add_argument(
        "--mode", choices=("sync", "async", "batch", "oneway"), default="sync", help="how each message is sent"
    )
    bp.add_argument(
        "--size", type=int_arg(1), default=1024, help="message body bytes, at most the producer's max_message_size"
    )
    bp.add_argument("--threads", type=int_arg(1), default=4, help="sending threads, sync/batch/oneway")
    bp.add_argument("--in-flight", type=int_arg(1), default=256, help="async: sends in flight")
    bp.add_argument("--batch-size", type=int_arg(1), default=32, help="batch: messages per batch")
    bp.add_argument("--keys", action="store_true", help="keyed messages sent with SelectMessageQueueByHash")
    bp.add_argument("--duration", type=positive_float_arg, default=10.0, help="seconds to send")
    bp.add_argument("--messages", type=int_arg(1, 2**63 - 1), default=None, help="stop after this many messages")
    bp.add_argument("--interval", type=positive_float_arg, default=5.0, help="seconds between progress lines")
    bp.add_argument("--compat", default="5.3", choices=("5.3", "4.9"), help="RocketMQ profile")
    bp.add_argument("--fault-tolerance", action="store_true", help="send_latency_fault_enable")
    bp.add_argument(
        "--json",
        help="also write the summary and every line's window to this JSON file (its folder must exist; on Ctrl-C too)",
    )
    add_access_args(bp)
    bp.set_defaults(func=cmd_bench_producer)
