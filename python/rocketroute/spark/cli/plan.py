"""``rocketroute plan``: per-consumer load, imbalance and rebalance churn of each allocation strategy, on Spark
from a per-queue load table (``--load``), or live from the name servers and brokers (``--namesrv --group``, no
Spark)."""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._plural import counted
from ...cli.args import ACCESS_OPTIONS, add_access_args, int_arg, log
from ...cli.plan_options import plan_params
from ...errors import RocketRouteError
from .common import (
    add_overwrite_arg,
    add_spark_args,
    check_out,
    output_folder,
    read_input,
    require,
    spark_session,
    spark_start,
    staged_output,
    write_csv,
)
from .inputs import FORMATS, check_columns, check_input


def _read_load(spark: Any, path: str, fmt: str | None) -> list[tuple[str, int, int, int]]:
    """``(broker, queue_id, messages, bytes)`` per queue from a per-queue table (``route``'s ``per_queue``
    output, or any CSV / Parquet / JSON with those columns; ``bytes`` optional)."""
    p = Path(path)
    if p.is_dir() and (p / "per_queue").is_dir():
        p = p / "per_queue"
    fmt = fmt or ("csv" if p.is_dir() and any(x.suffix == ".csv" for x in p.iterdir()) else None)
    df = read_input(spark, str(p), fmt)
    from ..columns import check_distinct

    check_distinct(df, f"the load table {path!r}")
    missing = {"broker", "queue_id", "messages"} - set(df.columns)
    if missing:
        raise RocketRouteError(f"the load table {path!r} lacks the columns {sorted(missing)}")
    cols = ["broker", "queue_id", "messages", "bytes" if "bytes" in df.columns else "messages"]
    rows = df.select(*cols).collect()  # one row per queue: an aggregate
    try:
        return [(str(b), int(q), int(m), int(by) if "bytes" in df.columns else 0) for b, q, m, by in rows]
    except (TypeError, ValueError) as e:
        raise RocketRouteError(f"the load table {path!r} has a non-integer queue_id / messages / bytes: {e}") from None


def _parse_resize(args: argparse.Namespace) -> tuple[int, int] | None:
    if not args.resize:
        return None
    try:
        old, new = (int(x) for x in args.resize.split(":", 1))
    except ValueError:
        raise RocketRouteError(f"--resize takes OLD:NEW queue counts, e.g. 8:16, not {args.resize!r}") from None
    if old < 1 or new < 1:
        raise RocketRouteError(f"--resize {args.resize}: a topic has at least 1 queue before and after")
    if not args.input:
        raise RocketRouteError("--resize needs --input (the messages, to read their keys)")
    return old, new


def _plan_strategies(args: argparse.Namespace, params: dict[str, Any]) -> list[str]:
    from ..jobs.plan import default_strategies

    if args.strategies:
        return [s.strip() for s in args.strategies.split(",") if s.strip()]
    return default_strategies(**params)


@dataclass(frozen=True)
class PlanOptions:
    """``plan``'s options, parsed and checked before Spark starts."""

    counts: list[int]
    params: dict[str, Any]
    strategies: list[str]
    resize: tuple[int, int] | None


def check_plan(args: argparse.Namespace) -> PlanOptions:
    """What ``plan`` can check before Spark starts: counts, strategies and their parameters, the resize, the
    load table's existence."""
    from ..jobs.plan import parse_consumers

    if getattr(args, "group", None):
        raise RocketRouteError("--group is for the live plan: give --namesrv too (or --load for the Spark plan)")
    if not args.load or not args.out:
        raise RocketRouteError(
            "the Spark plan needs --load and --out (or give --namesrv and --group for the live plan)"
        )

    counts = parse_consumers(args.consumers)
    params = plan_params(args)
    options = PlanOptions(counts, params, _plan_strategies(args, params), _parse_resize(args))
    import rocketroute as rr

    from ..jobs.plan import strategy_for

    config = [rr.MessageQueue(args.topic, b, q) for b, q in params["config"]] if params["config"] else None
    for name in options.strategies:  # an unknown name or a bad parameter fails before Spark starts
        strategy_for(
            name,
            vnodes=args.vnodes,
            load_factor=args.load_factor,
            rooms=params["rooms"],
            idcs=params["idcs"],
            config=config,
        )
    if not os.path.exists(args.load):
        raise RocketRouteError(f"load table {args.load!r} does not exist")
    if args.input:
        check_columns(args.input, check_input(args.input, None), [("key", args.key if options.resize else None)])
    check_out(args.out, overwrite=args.overwrite, inputs=(args.load, args.input), sub="plan")
    return options


def run_plan(spark: Any, args: argparse.Namespace, options: PlanOptions) -> Any:
    """The plan job on ``spark`` (``options`` from :func:`check_plan`): writes ``args.out/plan`` and returns
    the :class:`PlanResult`."""
    from ..jobs.plan import plan, resize_risk

    counts, params, strategies, resize = options.counts, options.params, options.strategies, options.resize
    log(f"plan: {counted(len(strategies), 'strategy', 'strategies')} x {counted(len(counts), 'consumer count')}")
    load = _read_load(spark, args.load, args.format)
    result = plan(
        load,
        args.topic,
        counts,
        strategies,
        cid_pattern=args.cid_pattern,
        vnodes=args.vnodes,
        load_factor=args.load_factor,
        **params,
    )
    if resize:
        log(f"plan: the ordering risk of {resize[0]} -> {counted(resize[1], 'queue')} over {args.input}")
        df = read_input(spark, args.input, None)
        if args.key not in df.columns:
            raise RocketRouteError(f"the key column {args.key!r} is not in {args.input!r}")
        result.resize = resize_risk(df, args.key, args.key_type, *resize)

    with staged_output(output_folder(args.out, "plan")) as d:
        write_csv(d / "consumers.csv", result.consumers)
        write_csv(d / "imbalance.csv", result.imbalance)
        write_csv(d / "churn.csv", result.churn)
        result.write_aggregates(d)  # what the report reads: consumers.json, imbalance.json, churn.json
        summary = {"topic": args.topic, "queues": len(load), "consumer_counts": counts, "strategies": strategies}
        summary["resize"] = result.resize
        (d / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return result


def print_plan(result: Any, out: str, counts: list[int] | None = None) -> None:
    """The imbalance and churn table (``counts``: only those consumer counts)."""
    print(f"{'strategy':<24} {'consumers':>9} {'max/mean':>9} {'cv':>6} {'join moves':>11} {'leave moves':>12}")
    churn = {(c["strategy"], c["consumers"], c["event"]): c for c in result.churn}
    for row in result.imbalance:
        if counts is not None and row["consumers"] not in counts:
            continue
        key = (row["strategy"], row["consumers"])
        join, leave = churn.get((*key, "join")), churn.get((*key, "leave"))
        print(
            f"{row['strategy']:<24} {row['consumers']:>9} {row['max_over_mean']:>9.3f} {row['cv']:>6.3f} "
            f"{join['queues_moved_share'] if join else 0:>11.1%} {leave['queues_moved_share'] if leave else 0:>12.1%}"
        )
    if result.resize:
        r = result.resize
        print(
            f"resize {r['from_queues']} -> {counted(r['to_queues'], 'queue')}: {r['keys_moved_share']:.1%} of keys "
            f"({r['messages_moved_share']:.1%} of messages) change queue"
        )
    print(f"outputs: {out}/plan/consumers.csv, imbalance.csv, churn.csv (and .json), summary.json")


_LIVE_ONLY = {"json": None, "check": False, **ACCESS_OPTIONS}


def cmd_plan(args: argparse.Namespace) -> int:
    if getattr(args, "namesrv", None):
        from ...cli.plan_live import cmd_plan_live

        return cmd_plan_live(args)  # no Spark: works without the spark extra
    require("pyspark")
    given = [f"--{k.replace('_', '-')}" for k, default in _LIVE_ONLY.items() if getattr(args, k, default) != default]
    if given:
        raise RocketRouteError(f"{', '.join(given)}: only for the live plan (--namesrv and --group)")
    options = check_plan(args)
    strategies = counted(len(options.strategies), "strategy", "strategies")
    log(f"planning {strategies} x {counted(len(options.counts), 'consumer count')}; {spark_start(args)}")
    with spark_session(args) as spark:
        result = run_plan(spark, args, options)
    print_plan(result, args.out)
    return 0


def add_parser(subparsers: Any) -> None:
    pl = subparsers.add_parser(
        "plan",
        help="per-consumer load, imbalance and rebalance churn of each allocation strategy",
        description="For every strategy and consumer count: each consumer's queues and load, the imbalance, and "
        "the queues and load that move when a consumer joins or leaves; with --resize, the share of keys "
        "whose queue changes when the topic's queue count changes.",
    )
    pl.add_argument(
        "--load",
        help="per-queue load: route's --out folder, or a table with broker, queue_id, messages[, bytes] "
        "(the Spark plan; or give --namesrv and --group for the live plan)",
    )
    pl.add_argument("--format", choices=FORMATS, help="the load table's format (default: from the name)")
    pl.add_argument("--topic", required=True, help="the topic the group consumes")
    pl.add_argument("--consumers", default="2..8", help='consumer counts: "2..32" or "2,4,8"')
    pl.add_argument(
        "--strategies",
        help="comma-separated, of AVG, AVG_BY_CIRCLE, CONSISTENT_HASH, MACHINE_ROOM_NEARBY[-INNER], MACHINE_ROOM, "
        "CONFIG, STICKY, CONSISTENT_HASH_BOUNDED (default: every one whose parameters are given)",
    )
    pl.add_argument("--vnodes", type=int_arg(1), default=10, help="CONSISTENT_HASH[_BOUNDED] virtual nodes")
    pl.add_argument(
        "--load-factor",
        type=float,
        default=1.25,
        help="CONSISTENT_HASH_BOUNDED: no consumer above ceil(load_factor * queues / consumers)",
    )
    pl.add_argument(
        "--cid-pattern", default="consumer-{i}", help="consumer ids; {i} is the number, {room} the room (--rooms)"
    )
    pl.add_argument("--rooms", help="MACHINE_ROOM_NEARBY: each broker's room, e.g. broker-a=az1,broker-b=az2")
    pl.add_argument(
        "--consumer-rooms", help="MACHINE_ROOM_NEARBY: rooms the consumers are spread over (default: the brokers')"
    )
    pl.add_argument("--idcs", help="MACHINE_ROOM: the consumers' rooms, for brokers named room@broker")
    pl.add_argument("--config-queues", help="CONFIG: the queues every consumer takes, e.g. broker-a:0,broker-a:1")
    pl.add_argument("--resize", help="OLD:NEW queue counts, e.g. 8:16 (needs --input)")
    pl.add_argument("--input", help="the messages, for --resize")
    pl.add_argument("--key", default="key", help="the key column, for --resize")
    pl.add_argument("--key-type", default="string", choices=("string", "int", "long"), help="the key's Java type")
    live = pl.add_argument_group(
        "live plan",
        "--namesrv and --group: plan the group from its live route and member lists (no Spark), and flag the members "
        "whose view differs because the name servers or the brokers disagree",
    )
    live.add_argument("--namesrv", help='the name servers, "host:port" or "host:port;host:port" (each one is asked)')
    add_access_args(pl)
    live.add_argument("--group", help="the consumer group (its members are asked of every broker of the topic)")
    live.add_argument("--compat", default="5.3", help="RocketMQ profile: 5.3 or 4.9")
    live.add_argument("--timeout-ms", type=int_arg(1), default=3000, help="per request, in ms")
    live.add_argument("--json", help="also write the plan to this JSON file")
    live.add_argument("--check", action="store_true", help="exit with status 3 when the views differ")
    add_spark_args(pl)
    pl.add_argument("--out", help="output folder (writes OUT/plan/); the Spark plan needs it")
    add_overwrite_arg(pl, "OUT/plan")
    pl.set_defaults(func=cmd_plan)
