"""The ``rocketroute`` command: the pipeline's jobs on Spark (local by default).

rocketroute route --input messages.parquet --topic TopicTest --queues broker-a:8,broker-b:8 --out out/route
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from .errors import RocketRouteError

FORMATS = ("parquet", "csv", "json")


def _input_format(path: str, fmt: str | None) -> str:
    if fmt:
        return fmt
    name = path.rstrip("/").lower()
    for f in FORMATS:
        if name.endswith("." + f) or name.endswith(f".{f}.gz"):
            return f
    if name.endswith(".jsonl") or name.endswith(".ndjson"):
        return "json"
    raise RocketRouteError(f"cannot tell the format of {path!r}; pass --format {'/'.join(FORMATS)}")


def read_input(spark: Any, path: str, fmt: str | None) -> Any:
    """A DataFrame of the input, or a clear error (before any job) when it cannot be read."""
    if not os.path.exists(path):
        raise RocketRouteError(f"input {path!r} does not exist")
    fmt = _input_format(path, fmt)
    reader = spark.read
    if fmt == "csv":
        reader = reader.option("header", "true")
    try:
        return getattr(reader, fmt)(path)
    except Exception as e:  # Spark's AnalysisException carries the reason
        raise RocketRouteError(f"cannot read {path!r} as {fmt}: {str(e).splitlines()[0]}") from None


def _write_atomically(out: Path, name: str, write: Any) -> Path:
    """Write into a temporary sibling, then swap it into ``out/name``: a re-run replaces, never duplicates,
    and an interrupted run leaves no partial output under the final name."""
    out.mkdir(parents=True, exist_ok=True)
    final = out / name
    tmp = out / f".{name}.tmp-{uuid.uuid4().hex[:8]}"
    write(str(tmp))
    if final.exists():
        old = out / f".{name}.old-{uuid.uuid4().hex[:8]}"
        final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        tmp.rename(final)
    return final


def _queue_spec_from_args(args: argparse.Namespace) -> Any:
    """The topic's publish queues from ``--route`` (a route JSON file) or ``--queues``."""
    from .spark import queue_spec

    if args.route:
        try:
            route_json = Path(args.route).read_text()
        except OSError as e:
            raise RocketRouteError(f"cannot read the route file {args.route!r}: {e.strerror}") from None
        return queue_spec(args.topic, route_json=route_json, compat=args.compat)
    return queue_spec(args.topic, queues=args.queues, compat=args.compat)


def _write_summary(out: Path, data: Any) -> None:
    """``out/summary/summary.json``, swapped into place like every other output."""

    def write(p: str) -> None:
        Path(p).mkdir()
        Path(p, "summary.json").write_text(json.dumps(data, indent=2) + "\n")

    _write_atomically(out, "summary", write)


def _stage(msg: str) -> None:
    print(f"[rocketroute] {msg}", file=sys.stderr, flush=True)


def cmd_route(args: argparse.Namespace) -> int:
    from .spark import local_session, route

    if not os.path.exists(args.input):
        raise RocketRouteError(f"input {args.input!r} does not exist")
    spec = _queue_spec_from_args(args)
    brokers = len({b for b, _ in spec.queues})
    _stage(f"{len(spec)} queues on {brokers} brokers; starting Spark ({args.master or 'local[*]'})")
    t0 = time.perf_counter()
    spark = local_session(args.master, quiet=not args.progress)
    try:
        df = read_input(spark, args.input, args.format)
        _stage(f"routing {args.input} with the {args.selector} selector")
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
        out = Path(args.out)
        _stage(f"writing {out}")
        _write_atomically(out, "routed", lambda p: result.routed.write.parquet(p))
        _write_atomically(out, "rejected", lambda p: result.rejected.write.parquet(p))
        _write_atomically(out, "per_queue", lambda p: result.per_queue.coalesce(1).write.option("header", True).csv(p))
        _write_atomically(out, "hot_keys", lambda p: result.hot_keys.coalesce(1).write.option("header", True).csv(p))
        per_queue = [r.asDict() for r in result.per_queue.collect()]
        result.unpersist()
        summary = {
            "topic": spec.topic,
            "selector": args.selector,
            "queues": len(spec),
            "input_rows": result.input_rows,
            "routed_rows": result.routed_rows,
            "rejected_rows": result.rejected_rows,
            "skew": result.skew,
            "per_queue": per_queue,
            "seconds": round(time.perf_counter() - t0, 2),
        }
        _write_summary(out, summary)
    finally:
        spark.stop()
    print(
        f"input rows {result.input_rows} = routed {result.routed_rows} + rejected {result.rejected_rows}; "
        f"max/mean {result.skew['max_over_mean']:.3f}, cv {result.skew['cv']:.3f}, gini {result.skew['gini']:.3f}"
    )
    print(f"{'queue':>24} {'messages':>10} {'share':>7}")
    for row in per_queue:
        print(f"{row['broker'] + '/' + str(row['queue_id']):>24} {row['messages']:>10} {row['share']:>7.2%}")
    print(f"outputs: {out}/routed, rejected, per_queue, hot_keys, summary/summary.json")
    return 0


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


def _read_load(spark: Any, path: str, fmt: str | None) -> list[tuple[str, int, int, int]]:
    """``(broker, queue_id, messages, bytes)`` per queue from a per-queue table (``route``'s ``per_queue``
    output, or any CSV / Parquet / JSON with those columns; ``bytes`` optional)."""
    p = Path(path)
    if p.is_dir() and (p / "per_queue").is_dir():
        p = p / "per_queue"
    fmt = fmt or ("csv" if p.is_dir() and any(x.suffix == ".csv" for x in p.iterdir()) else None)
    df = read_input(spark, str(p), fmt)
    missing = {"broker", "queue_id", "messages"} - set(df.columns)
    if missing:
        raise RocketRouteError(f"the load table {path!r} lacks the columns {sorted(missing)}")
    cols = ["broker", "queue_id", "messages", "bytes" if "bytes" in df.columns else "messages"]
    rows = df.select(*cols).collect()  # one row per queue: an aggregate
    try:
        return [(str(b), int(q), int(m), int(by) if "bytes" in df.columns else 0) for b, q, m, by in rows]
    except (TypeError, ValueError) as e:
        raise RocketRouteError(f"the load table {path!r} has a non-integer queue_id / messages / bytes: {e}") from None


def _plan_params(args: argparse.Namespace) -> dict[str, Any]:
    """The room / idc / config parameters of the strategies that need them."""
    from .spark.plan import Rooms, parse_rooms

    rooms = None
    if args.rooms:
        consumer_rooms = tuple(r.strip() for r in (args.consumer_rooms or "").split(",") if r.strip())
        rooms = Rooms(parse_rooms(args.rooms), consumer_rooms)
    elif args.consumer_rooms:
        raise RocketRouteError("--consumer-rooms needs --rooms (each broker's room)")
    idcs = [x.strip() for x in args.idcs.split(",") if x.strip()] if args.idcs else None
    config = None
    if args.config_queues:
        config = []
        for part in (p.strip() for p in args.config_queues.split(",") if p.strip()):
            broker, _, qid = part.rpartition(":")
            try:
                config.append((broker, int(qid)))
            except ValueError:
                raise RocketRouteError(f"--config-queues takes broker:queue_id,..., not {part!r}") from None
            if not broker:
                raise RocketRouteError(f"--config-queues takes broker:queue_id,..., not {part!r}")
    return {"rooms": rooms, "idcs": idcs, "config": config}


def cmd_plan(args: argparse.Namespace) -> int:
    from .spark import local_session, parse_consumers, plan, resize_risk
    from .spark.plan import default_strategies

    counts = parse_consumers(args.consumers)
    params = _plan_params(args)
    if args.strategies:
        strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    else:
        strategies = default_strategies(**params)
    resize = None
    if args.resize:
        try:
            old, new = (int(x) for x in args.resize.split(":", 1))
        except ValueError:
            raise RocketRouteError(f"--resize takes OLD:NEW queue counts, not {args.resize!r}") from None
        if not args.input:
            raise RocketRouteError("--resize needs --input (the messages, to read their keys)")
        resize = (old, new)
    if not os.path.exists(args.load):
        raise RocketRouteError(f"load table {args.load!r} does not exist")
    _stage(f"planning {len(strategies)} strategies x {len(counts)} consumer counts; starting Spark")
    spark = local_session(args.master, quiet=not args.progress)
    try:
        load = _read_load(spark, args.load, args.format)
        result = plan(load, args.topic, counts, strategies, cid_pattern=args.cid_pattern, vnodes=args.vnodes, **params)
        if resize:
            df = read_input(spark, args.input, None)
            if args.key not in df.columns:
                raise RocketRouteError(f"the key column {args.key!r} is not in {args.input!r}")
            result.resize = resize_risk(df, args.key, args.key_type, *resize)
    finally:
        spark.stop()
    out = Path(args.out)

    def write(p: str) -> None:
        d = Path(p)
        _write_csv(d / "consumers.csv", result.consumers)
        _write_csv(d / "imbalance.csv", result.imbalance)
        _write_csv(d / "churn.csv", result.churn)
        summary = {"topic": args.topic, "queues": len(load), "consumer_counts": counts, "strategies": strategies}
        summary["resize"] = result.resize
        (d / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    _write_atomically(out, "plan", write)
    print(f"{'strategy':<18} {'consumers':>9} {'max/mean':>9} {'cv':>6} {'join moves':>11} {'leave moves':>12}")
    churn = {(c["strategy"], c["consumers"], c["event"]): c for c in result.churn}
    for row in result.imbalance:
        key = (row["strategy"], row["consumers"])
        join, leave = churn.get((*key, "join")), churn.get((*key, "leave"))
        print(
            f"{row['strategy']:<18} {row['consumers']:>9} {row['max_over_mean']:>9.3f} {row['cv']:>6.3f} "
            f"{join['queues_moved_share'] if join else 0:>11.1%} {leave['queues_moved_share'] if leave else 0:>12.1%}"
        )
    if result.resize:
        r = result.resize
        print(
            f"resize {r['from_queues']} -> {r['to_queues']} queues: {r['keys_moved_share']:.1%} of keys "
            f"({r['messages_moved_share']:.1%} of messages) change queue"
        )
    print(f"outputs: {out}/plan/consumers.csv, imbalance.csv, churn.csv, summary.json")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from .spark import local_session, replay

    for what, path in (("trace", args.trace), ("sends", args.sends)):
        if not os.path.exists(path):
            raise RocketRouteError(f"{what} {path!r} does not exist")
    spec = _queue_spec_from_args(args)
    _stage(f"replaying {args.sends} against {args.trace} on {len(spec)} queues; starting Spark")
    spark = local_session(args.master, quiet=not args.progress)
    try:
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
        out = Path(args.out)
        _write_atomically(out, "sends", lambda p: result.sends.write.parquet(p))
        _write_atomically(out, "traffic", lambda p: result.traffic.coalesce(1).write.option("header", True).csv(p))
        _write_atomically(out, "rejected", lambda p: _write_rejected_replay(p, result))
        _write_atomically(out, "trace", lambda p: _write_csv(Path(p, "trace.csv"), _trace_dicts(result.trace)))
        _write_summary(out, {"modes": result.summary, "rows": result.counts})
        result.unpersist()
    finally:
        spark.stop()
    c = result.counts
    print(
        f"trace rows {c['trace_rows']} = used {c['trace_used']} + rejected {c['trace_rejected']}; "
        f"send rows {c['send_rows']} = replayed {c['sends_replayed']} + rejected {c['sends_rejected']}"
    )
    header = ("sends", "failures", "retries", "p50 ms", "p99 ms", "max ms", "degraded")
    print(f"{'mode':<22} " + " ".join(f"{h:>9}" for h in header))
    for r in result.summary:
        cells = (r["sends"], r["failures"], r["retries"], r["p50_ms"], r["p99_ms"], r["max_ms"])
        print(f"{r['mode']:<22} " + " ".join(f"{c:>9}" for c in cells) + f" {r['degraded_share']:>9.1%}")
    print(f"outputs: {out}/sends, traffic, trace, rejected/trace, rejected/sends, summary/summary.json")
    return 0


def _trace_dicts(rows: list[tuple[int, str, int, bool]]) -> list[dict[str, Any]]:
    return [{"ts_ms": t, "broker": b, "latency_ms": lat, "ok": str(ok).lower()} for t, b, lat, ok in rows]


def _write_rejected_replay(path: str, result: Any) -> None:
    """``rejected/trace`` and ``rejected/sends``: the input rows replay could not use, with the reason."""
    result.rejected_trace.write.parquet(str(Path(path, "trace")))
    result.rejected_sends.write.parquet(str(Path(path, "sends")))


def cmd_bench_spark(args: argparse.Namespace) -> int:
    from .spark import local_session
    from .spark.bench import bench_spark

    _stage(f"benchmarking the hash route of {args.rows:,} keys on {args.queues} queues; starting Spark")
    spark = local_session(args.master, quiet=True)
    try:
        rows = bench_spark(spark, args.rows, num_queues=args.queues, reference_rows=args.reference_rows)
    finally:
        spark.stop()
    print(f"{'method':<36} {'rows':>12} {'seconds':>9} {'rows/s':>14} {'checksum':>14}")
    for r in rows:
        print(f"{r['method']:<36} {r['rows']:>12,} {r['seconds']:>9.3f} {r['rows_per_s']:>14,.0f} {r['checksum']:>14}")
    return 0


def _add_queue_args(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--route", help="the topic's route: the name server's TopicRouteData JSON file")
    where.add_argument("--queues", help='the publish queues in order, e.g. "broker-a:8,broker-b:8"')
    p.add_argument("--compat", default="5.3", help="RocketMQ profile: 5.3 (default) or 4.9")


def _add_spark_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--master", default=None, help="Spark master (default: local[*])")
    p.add_argument("--progress", action="store_true", help="show Spark's console progress")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rocketroute", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser(
        "route",
        help="route a message dataset onto a topic's queues exactly as the Java client would",
        description="Every row with the broker and queue the Java client would pick, a per-queue table, "
        "skew metrics and the hottest keys of each queue; bad rows go to rejected/ with a reason.",
    )
    r.add_argument("--input", required=True, help="messages: a Parquet, CSV (with a header) or JSON file/folder")
    r.add_argument("--format", choices=FORMATS, help="the input format (default: from the file name)")
    r.add_argument("--topic", required=True)
    _add_queue_args(r)
    r.add_argument("--selector", default="hash", choices=("hash", "round-robin", "random"))
    r.add_argument("--key", default="key", help="the key column (hash selector; default: key)")
    r.add_argument("--key-type", default="string", choices=("string", "int", "long"), help="the key's Java type")
    r.add_argument("--size", help="the message size column (bytes), optional")
    r.add_argument("--producer", help="the producer column (round-robin / random: one index per producer)")
    r.add_argument("--ts", help="the timestamp column that orders each producer's sends")
    r.add_argument("--start-index", type=int, default=-1, help="round-robin: every producer's first stored index")
    r.add_argument("--seed", type=int, default=0, help="random: the base seed of the producers' selectors")
    r.add_argument(
        "--hash-path",
        default="jvm",
        choices=("jvm", "arrow"),
        help="hash: Spark SQL alone (default, measured faster on Spark) or the native Arrow worker; same answer",
    )
    _add_spark_args(r)
    r.add_argument("--out", required=True, help="output folder")
    r.set_defaults(func=cmd_route)

    pl = sub.add_parser(
        "plan",
        help="per-consumer load, imbalance and rebalance churn of each allocation strategy",
        description="For every strategy and consumer count: each consumer's queues and load, the imbalance, and "
        "the queues and load that move when a consumer joins or leaves; with --resize, the share of keys "
        "whose queue changes when the topic's queue count changes.",
    )
    pl.add_argument(
        "--load",
        required=True,
        help="per-queue load: route's --out folder, or a table with broker, queue_id, messages[, bytes]",
    )
    pl.add_argument("--format", choices=FORMATS, help="the load table's format (default: from the name)")
    pl.add_argument("--topic", required=True)
    pl.add_argument("--consumers", default="2..8", help='consumer counts: "2..32" or "2,4,8" (default 2..8)')
    pl.add_argument(
        "--strategies",
        help="comma-separated, of AVG, AVG_BY_CIRCLE, CONSISTENT_HASH, MACHINE_ROOM_NEARBY[-INNER], MACHINE_ROOM, "
        "CONFIG (default: every one whose parameters are given)",
    )
    pl.add_argument("--vnodes", type=int, default=10, help="CONSISTENT_HASH virtual nodes (default 10)")
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
    pl.add_argument("--key-type", default="string", choices=("string", "int", "long"))
    _add_spark_args(pl)
    pl.add_argument("--out", required=True, help="output folder (writes OUT/plan/)")
    pl.set_defaults(func=cmd_plan)

    rp = sub.add_parser(
        "replay",
        help="what each producer's fault strategy would have done on a broker latency / error trace",
        description="Replays every producer's sends (ts_ms, producer_id) in time order through its own "
        "MQFaultStrategy and retry loop, with fault tolerance on and off, against a broker trace "
        "(ts_ms, broker, latency_ms, ok): per-send outcomes, per-broker traffic share per time window, and "
        "a summary (latency percentiles, failures, retries, share of sends that hit a degraded broker).",
    )
    rp.add_argument("--trace", required=True, help="broker trace: ts_ms, broker, latency_ms, ok")
    rp.add_argument("--sends", required=True, help="send events: ts_ms, producer_id")
    rp.add_argument("--topic", required=True)
    _add_queue_args(rp)
    rp.add_argument("--retries", type=int, default=2, help="retryTimesWhenSendFailed (default 2)")
    rp.add_argument("--start-index", type=int, default=-1, help="every producer's first stored index")
    rp.add_argument("--seed", type=int, default=0, help="base seed of the producers' random draws")
    rp.add_argument("--window-ms", type=int, default=1000, help="traffic-share window (default 1000 ms)")
    _add_spark_args(rp)
    rp.add_argument("--out", required=True, help="output folder")
    rp.set_defaults(func=cmd_replay)

    b = sub.add_parser(
        "bench-spark",
        help="rows/s of the hash route on Spark: reference UDF, native Arrow worker, JVM, Spark hash()",
    )
    b.add_argument("--rows", type=int, default=10_000_000, help="keys to route (default 10M)")
    b.add_argument("--reference-rows", type=int, default=200_000, help="keys for the slow reference UDF")
    b.add_argument("--queues", type=int, default=16)
    b.add_argument("--master", default=None, help="Spark master (default: local[*])")
    b.set_defaults(func=cmd_bench_spark)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except RocketRouteError as e:
        print(f"rocketroute {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
