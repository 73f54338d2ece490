"""The ``rocketroute`` command: the pipeline's jobs on Spark (local by default).

rocketroute route --input messages.parquet --topic TopicTest --queues broker-a:8,broker-b:8 --out out/route

One module per command (:mod:`.route`, :mod:`.plan`, :mod:`.replay`, :mod:`.report`, :mod:`.demo`,
:mod:`.bench_spark`, :mod:`.bench_producer`), each with its ``cmd_*`` function and an ``add_parser``; what they
share is in :mod:`.common`. Importing this package imports neither pyspark nor matplotlib: a command that needs
one says so in one line (``pip install 'rocketroute[spark]'``) when it is missing, and ``bench-producer`` and
``plan --namesrv`` need neither.
"""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
import warnings

from ...errors import RocketRouteError
from . import bench_producer, bench_spark, demo, plan, replay, report, route
from .common import Parser, spark_failure

DESCRIPTION = "The ``rocketroute`` command: the pipeline's jobs on Spark (local by default)."
"""The parser's description (the first line of this docstring)."""

COMMANDS = (route, plan, replay, report, demo, bench_spark, bench_producer)
"""The command modules, in the order ``--help`` lists them."""

__all__ = ["COMMANDS", "DESCRIPTION", "INTERRUPTED", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="rocketroute", description=DESCRIPTION)
    import rocketroute

    p.add_argument(
        "--version", action="version", version=f"rocketroute {rocketroute.__version__} ({rocketroute.BACKEND} backend)"
    )
    sub = p.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return p


INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT, as a shell reports a command that SIGINT ended)."""


def main(argv: list[str] | None = None) -> int:
    """Run one command: its status, 2 for a mistake said in one line, 130 after Ctrl-C (one line:
    ``rocketroute CMD: interrupted``; each command stops its work within a few seconds)."""
    command = None
    try:
        args = build_parser().parse_args(argv)
        command = args.command
        return _run(args)
    except KeyboardInterrupt:
        # the run is over: what the work cut short logs or warns as the interpreter exits (a pending task
        # destroyed, a coroutine never awaited) is noise after the one line
        logging.disable(logging.CRITICAL)
        warnings.simplefilter("ignore")
        print(f"rocketroute{' ' + command if command else ''}: interrupted", file=sys.stderr, flush=True)
        return INTERRUPTED


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except RocketRouteError as e:
        print(f"rocketroute {args.command}: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:
        reason = spark_failure(e)
        if reason is None:
            raise  # a bug: keep the traceback
        if getattr(args, "verbose", False):
            traceback.print_exception(e, file=sys.stderr)  # the Java trace is in the message of py4j's error
        print(f"rocketroute {args.command}: error: the Spark job failed: {reason}", file=sys.stderr)
        return 1
