"""``rocketroute report``: one self-contained HTML page with the plots and tables of route, plan and replay
outputs (no Spark: the plots need matplotlib)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ...cli.args import int_arg
from ...errors import RocketRouteError
from .common import check_writable_parent, require


def cmd_report(args: argparse.Namespace) -> int:
    require("matplotlib")
    from ..report import write_report

    if not (args.route or args.plan or args.replay):
        raise RocketRouteError("give at least one of --route, --plan and --replay (the jobs' --out folders)")
    for what, path in (("route", args.route), ("plan", args.plan), ("replay", args.replay)):
        if path and not os.path.isdir(path):
            raise RocketRouteError(f"the {what} output {path!r} is not a folder")
    if os.path.isdir(args.out):
        raise RocketRouteError(f"--out {args.out!r} is a folder; give the HTML file to write, e.g. report.html")
    if args.consumers is not None and not args.plan:
        raise RocketRouteError("--consumers picks one of plan's consumer counts: it needs --plan")
    check_writable_parent(f"--out {args.out!r}", Path(args.out).resolve())
    path = write_report(
        args.out,
        route_dir=args.route,
        plan_dir=args.plan,
        replay_dir=args.replay,
        title=args.title,
        consumers=args.consumers,
    )
    print(f"report: {path.resolve()}")
    return 0


def add_parser(subparsers: Any) -> None:
    rep = subparsers.add_parser(
        "report",
        help="one self-contained HTML page with the plots and tables of route, plan and replay outputs",
        description="Reads the small aggregate outputs of the other jobs (no Spark needed) and writes one HTML "
        "file: a verdict in sentences (the strategy to pick, what fault tolerance changed, the resize's ordering "
        "risk, the client pairs that split keys), then the plots and tables: queue load, consumer load per "
        "strategy, imbalance, churn, replay timeline.",
    )
    rep.add_argument("--route", help="route's --out folder")
    rep.add_argument("--plan", help="plan's --out folder (the one holding plan/)")
    rep.add_argument("--replay", help="replay's --out folder")
    rep.add_argument(
        "--consumers",
        type=int_arg(1),
        help="the consumer count the verdict and the per-consumer plot are about: one of plan's --consumers "
        "(default: the largest)",
    )
    rep.add_argument("--title", default="rocketroute report", help="the page's title")
    rep.add_argument("--out", required=True, help="the HTML file to write, e.g. out/report.html")
    rep.set_defaults(func=cmd_report)
