"""The rocketroute command line: the Spark pipeline, the live plan of a consumer group, the producer benchmark.

rocketroute route --input messages.parquet --topic TopicTest --queues broker-a:8,broker-b:8 --out out/route

One module per command, each with its ``cmd_*`` function and an ``add_parser``. The commands that need no Spark
live here: ``bench-producer`` (:mod:`.bench_producer`; the benchmark itself is :mod:`.bench_producer_run`) and the
live plan, ``plan --namesrv`` (:mod:`.plan_live`). The Spark pipeline's commands are
:mod:`rocketroute.spark.cli`'s (``route``, ``plan``, ``replay``, ``report``, ``demo``, ``bench-spark``). What every
command parses with is :mod:`.args`. Importing this package imports neither pyspark nor matplotlib, nor any
command: a command that needs one of them says so in one line (``pip install 'rocketroute[spark]'``) when it is
missing. The entry point is :func:`main` (``rocketroute = "rocketroute.cli:main"``; also ``python -m
rocketroute.cli``).
"""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
import warnings
from types import ModuleType
from typing import Any

from ..errors import RocketRouteError
from .args import Parser

DESCRIPTION = __doc__.splitlines()[0] if __doc__ else "The rocketroute command line"
"""The parser's description: the first line of this docstring, which is plain text for that reason (``--help``
prints it as it is; so is every command's help and description)."""

__all__ = ["COMMANDS", "DESCRIPTION", "INTERRUPTED", "build_parser", "commands", "main"]


def commands() -> tuple[ModuleType, ...]:
    """The command modules, in the order ``--help`` lists them (imported when first asked for: the pipeline's
    modules import this package's :mod:`.args`)."""
    from ..spark.cli import bench_spark, demo, plan, replay, report, route
    from . import bench_producer

    return (route, plan, replay, report, demo, bench_spark, bench_producer)


def __getattr__(name: str) -> Any:
    if name == "COMMANDS":  # the command modules (see commands())
        return commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="rocketroute", description=DESCRIPTION)
    import rocketroute

    p.add_argument(
        "--version", action="version", version=f"rocketroute {rocketroute.__version__} ({rocketroute.BACKEND} backend)"
    )
    sub = p.add_subparsers(dest="command", required=True)
    for command in commands():
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
        from ..spark.cli.common import spark_failure  # imports no pyspark: it looks for pyspark's errors

        reason = spark_failure(e)
        if reason is None:
            raise  # a bug: keep the traceback
        if getattr(args, "verbose", False):
            traceback.print_exception(e, file=sys.stderr)  # the Java trace is in the message of py4j's error
        print(f"rocketroute {args.command}: error: the Spark job failed: {reason}", file=sys.stderr)
        return 1
