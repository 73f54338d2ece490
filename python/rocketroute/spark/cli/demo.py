"""``rocketroute demo``: synthetic orders and a broker trace through route, plan, replay and report on local
Spark."""

from __future__ import annotations

import argparse
import textwrap
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from ..._plural import counted
from ...cli.args import Parser, int_arg, log
from . import plan, replay, route
from .common import add_overwrite_arg, add_spark_args, check_out, require, spark_session, spark_start, staged_output
from .plan import check_plan, print_plan, run_plan
from .replay import check_replay, print_replay, run_replay
from .route import check_route, run_route


def _demo_commands(inputs: Any, out: Path, consumers: str) -> dict[str, list[str]]:
    """The demo's jobs as the command lines a user would type (``--overwrite``: a re-run replaces them)."""
    from ..demo import BROKERS, QUEUES_PER_BROKER, ROOMS, TOPIC

    rooms = ",".join(f"{b}={r}" for b, r in ROOMS.items())
    queues = QUEUES_PER_BROKER * len(BROKERS)
    return {
        "route": ["route", "--input", str(inputs.messages), "--topic", TOPIC, "--route", str(inputs.route),
                  "--key", "key", "--size", "size", "--compare-profiles", "all", "--out", str(out / "route"),
                  "--overwrite"],
        "plan": ["plan", "--load", str(out / "route"), "--topic", TOPIC, "--consumers", consumers,
                 "--rooms", rooms, "--resize", f"{queues}:{queues + 8}", "--input", str(inputs.messages),
                 "--key", "key", "--out", str(out), "--overwrite"],
        "replay": ["replay", "--trace", str(inputs.trace), "--sends", str(inputs.sends), "--topic", TOPIC,
                   "--route", str(inputs.route), "--out", str(out / "replay"), "--overwrite"],
    }  # fmt: skip


def _steps_parser(*steps: ModuleType) -> argparse.ArgumentParser:
    """A parser of the demo's steps, each added by its own command module as the command line adds it: the
    demo parses its steps' command lines as ``rocketroute`` would, without importing :mod:`rocketroute.cli`
    (which imports this module)."""
    parser = Parser(prog="rocketroute")
    sub = parser.add_subparsers(dest="command", required=True)
    for step in steps:
        step.add_parser(sub)
    return parser


def cmd_demo(args: argparse.Namespace) -> int:
    require("pyspark", "matplotlib")  # the jobs, then the report
    from ..demo import write_demo_inputs
    from ..jobs.plan import parse_consumers
    from ..report import write_report
    from ..report.load import load_plan, load_replay, load_route
    from ..report.verdict import verdict

    parse_consumers(args.consumers)  # plan's counts, checked before Spark starts
    final = check_out(args.out, overwrite=args.overwrite)
    out = Path(args.out)
    t0 = time.perf_counter()
    sends = counted(min(args.sends, args.rows), "replayed send")
    log(f"demo: {counted(args.rows, 'order')}, about {sends}; {spark_start(args)}")
    parser = _steps_parser(route, plan, replay)
    # everything (inputs, every job's outputs, the report) goes into one folder next to --out, swapped in at the
    # end; the command lines shown name --out itself
    with staged_output(final) as stage, spark_session(args) as spark:
        log(
            f"demo: writing into {stage}, a temporary folder next to {out}, which replaces {out} once every step "
            f"has finished (the jobs' lines below name the temporary folder, the command lines name {out})"
        )
        log(f"demo: generating the inputs in {stage / 'data'}")
        inputs = write_demo_inputs(spark, stage / "data", rows=args.rows, sends=args.sends, seed=args.seed)
        commands = _demo_commands(inputs, stage, args.consumers)
        for argv in commands.values():
            log("demo: rocketroute " + " ".join(a.replace(str(stage), str(out)) for a in argv))
        route_args, plan_args, replay_args = (parser.parse_args(commands[c]) for c in ("route", "plan", "replay"))
        route_summary = run_route(spark, route_args, check_route(route_args))
        plan_result = run_plan(spark, plan_args, check_plan(plan_args))
        replay_result = run_replay(spark, replay_args, check_replay(replay_args))
        log("demo: rendering the report")
        verdicts = verdict(load_route(stage / "route"), load_plan(stage), load_replay(stage / "replay"))
        write_report(
            stage / "report.html",
            route_dir=stage / "route",
            plan_dir=stage,
            replay_dir=stage / "replay",
            title=f"rocketroute demo: {counted(args.rows, 'order')} on {counted(route_summary['queues'], 'queue')}",
        )
    report = out / "report.html"
    print("\n== route (hash selector on the order key)")
    skew = route_summary["skew"]
    print(
        f"input rows {route_summary['input_rows']:,} = routed {route_summary['routed_rows']:,} + rejected "
        f"{route_summary['rejected_rows']:,}; queue load max/mean {skew['max_over_mean']:.3f}, "
        f"cv {skew['cv']:.3f}, gini {skew['gini']:.3f}"
    )
    compat = route_summary.get("compat")
    if compat:
        share = {(r["a"], r["b"]): r["key_share"] for r in compat["pairs"]}
        others = [p for p in compat["profiles"] if p != "java-hashcode"]
        print("\n== other clients on the same keys (share of keys on the queue Java remoting picks)")
        for p in others:
            s = share.get(("java-hashcode", p))
            text = "no key in common" if s is None else f"{s:.1%} of keys on the same queue"
            print(f"a Java remoting producer and a {p} one: {text}")
    print("\n== plan (4 and 8 consumers)")
    print_plan(plan_result, str(out), counts=[4, 8])
    print("\n== replay (broker-b degrades, broker-c fails)")
    print_replay(replay_result, str(out / "replay"))
    print("\n== verdict (the report's first section)")
    for v in verdicts:
        print(textwrap.fill(f"{v.topic}: {' '.join(v.sentences)}", 110, break_on_hyphens=False))
    print(f"\ndemo finished in {time.perf_counter() - t0:.0f} s")
    print(f"report: {report.resolve()}")
    return 0


def add_parser(subparsers: Any) -> None:
    d = subparsers.add_parser(
        "demo",
        help="synthetic orders and a broker trace through route, plan, replay and report on local Spark",
        description="Generates Zipf-skewed order keys, sizes, timestamps and a broker trace (one broker degrades, "
        "one fails), runs route, plan, replay and report on them, prints a summary and the report's path.",
    )
    d.add_argument("--rows", type=int_arg(1, 2**63 - 1), default=1_000_000, help="orders to generate and route")
    d.add_argument("--sends", type=int_arg(1, 2**63 - 1), default=200_000, help="about this many of them are replayed")
    d.add_argument("--consumers", default="2..12", help="plan's consumer counts")
    d.add_argument("--seed", type=int_arg(-(2**63), 2**63 - 1), default=7, help="the generator's seed")
    d.add_argument("--out", default="out/demo", help="output folder")
    add_overwrite_arg(d)
    add_spark_args(d)
    d.set_defaults(func=cmd_demo)
