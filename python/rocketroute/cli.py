"""The ``rocketroute`` command: the pipeline's jobs on Spark (local by default).

rocketroute route --input messages.parquet --topic TopicTest --queues broker-a:8,broker-b:8 --out out/route
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
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
        # RFC 4180: a quote inside a quoted field is doubled (Spark's default escape is a backslash)
        reader = reader.option("header", "true").option("escape", '"')
    try:
        df = getattr(reader, fmt)(path)
    except Exception as e:  # Spark's AnalysisException carries the reason
        raise RocketRouteError(f"cannot read {path!r} as {fmt}: {spark_failure(e) or first_line(e)}") from None
    if fmt == "csv":
        _refuse_duplicate_csv_header(spark, path, df.columns)
    return df


def _refuse_duplicate_csv_header(spark: Any, path: str, columns: list[str]) -> None:
    """Spark reads a CSV header that names a column twice (``key,size,size``) as ``size1, size2`` (the name and
    its position), so ``--size size`` would find nothing and ``size1`` would be a guess. Refused, naming the
    column. Only a header that looks renamed so is read again (one line, a tiny job) to tell it from a real
    ``size1,size2``."""
    from collections import Counter

    bases = Counter(c[: -len(str(i))].lower() for i, c in enumerate(columns) if c.endswith(str(i)) and c != str(i))
    if not any(n > 1 for n in bases.values()):
        return
    first = spark.read.option("header", "false").option("escape", '"').csv(path).limit(1).collect()
    header = [h for h in (first[0] if first else []) if h]
    case_sensitive = str(spark.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
    counts = Counter(h if case_sensitive else h.lower() for h in header)
    for h in header:
        n = counts[h if case_sensitive else h.lower()]
        if n > 1:
            raise RocketRouteError(
                f"the CSV header of {path!r} names the column {h!r} {n} times; rename them so that every column "
                "has its own name"
            )


def first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0][:400]


def spark_failure(e: BaseException) -> str | None:
    """What went wrong in a failed Spark job, in a line or two (``None`` when ``e`` is not Spark's): the
    Spark error (``[ERROR_CLASS] ...``, e.g. a corrupted file) and the root cause under it."""
    try:
        from py4j.protocol import Py4JJavaError
        from pyspark.errors import PySparkException
    except ImportError:
        return None
    if isinstance(e, Py4JJavaError):
        chain: list[str] = []
        j = e.java_exception
        while j is not None and len(chain) < 16:
            chain.append(str(j.toString()).strip().splitlines()[0][:400])
            j = j.getCause()
        if not chain:
            return first_line(e)
        classed = [c for c in chain if re.search(r"\[[A-Z][A-Z_.]+\]", c)]  # Spark's [ERROR_CLASS] messages
        head = classed[-1] if classed else chain[0]
        root = chain[-1]
        return head if root == head else f"{head} (cause: {root})"
    if isinstance(e, PySparkException):
        return first_line(e)
    return None


def _nearest_existing(p: Path) -> Path:
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _check_writable_parent(label: str, final: Path) -> None:
    """The folder that will hold ``final`` (made if missing) must be a writable folder."""
    parent = _nearest_existing(final.parent)
    if not parent.is_dir():
        raise RocketRouteError(f"cannot write {label}: {str(parent)!r} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise RocketRouteError(f"cannot write {label}: the folder {str(parent)!r} is not writable")


def output_folder(out: str, sub: str | None = None) -> Path:
    """The folder a job's outputs replace as a whole: ``out`` (``out/sub`` for plan), symbolic links resolved."""
    return (Path(out) / sub if sub else Path(out)).resolve()


def check_out(out: str, *, overwrite: bool, inputs: tuple[str | None, ...] = (), sub: str | None = None) -> Path:
    """Checks, before Spark starts, that a job can write its outputs: ``--out`` is not a file, its parent is a
    writable folder, replacing it would delete neither an input nor the current folder, and a non-empty
    ``--out`` is replaced only with ``--overwrite``. Returns :func:`output_folder`."""
    label = f"--out {out!r}"
    if Path(out).exists() and not Path(out).is_dir():
        raise RocketRouteError(f"{label} is a file, not a folder")
    _check_writable_parent(label, Path(out).resolve())
    final = output_folder(out, sub)
    if sub:  # plan: its outputs are OUT/plan, the rest of OUT is not plan's
        label = repr(str(Path(out) / sub))
        if final.exists() and not final.is_dir():
            raise RocketRouteError(f"{label} is a file, not a folder")
    for held in (os.getcwd(), *(i for i in inputs if i)):
        h = Path(held).resolve()
        if h == final or final in h.parents:
            what = "the current folder" if held == os.getcwd() else f"the input {held!r}"
            raise RocketRouteError(f"{label} holds {what}, which replacing it would delete; choose another --out")
    try:
        non_empty = final.is_dir() and any(final.iterdir())
    except OSError as e:
        raise RocketRouteError(f"cannot read {label}: {e.strerror}") from None
    if non_empty and not overwrite:
        raise RocketRouteError(f"{label} already exists and is not empty; pass --overwrite to replace it")
    return final


@contextlib.contextmanager
def staged_output(final: Path) -> Iterator[Path]:
    """A temporary folder next to ``final`` for a job's whole output set, swapped into place when the block
    completes: a run replaces everything a previous one wrote (no stale ``compat/``), and a failed or interrupted
    run leaves the previous outputs as they were and no temporary folder behind."""
    final.parent.mkdir(parents=True, exist_ok=True)
    stage = final.parent / f".{final.name}.tmp-{uuid.uuid4().hex[:8]}"
    stage.mkdir()
    try:
        yield stage
        _swap_into_place(stage, final)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _swap_into_place(stage: Path, final: Path) -> None:
    old = final.parent / f".{final.name}.old-{uuid.uuid4().hex[:8]}"
    try:
        if final.exists():
            final.rename(old)
            try:
                stage.rename(final)
            except BaseException:
                old.rename(final)  # the previous outputs back
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            stage.rename(final)
    except OSError as e:
        raise RocketRouteError(f"cannot move the outputs into {str(final)!r}: {e.strerror}") from None


def _write_summary(out: Path, data: Any) -> None:
    """``out/summary/summary.json``."""
    (out / "summary").mkdir()
    (out / "summary" / "summary.json").write_text(json.dumps(data, indent=2) + "\n")


def _queue_spec_from_args(args: argparse.Namespace) -> Any:
    """The topic's publish queues from ``--route`` (a route JSON file), ``--namesrv`` (the live route) or
    ``--queues``."""
    from .spark import queue_spec

    if getattr(args, "namesrv", None):
        return queue_spec(args.topic, route_json=_live_route_json(args), compat=args.compat)
    if args.route:
        try:
            route_json = Path(args.route).read_text()
        except OSError as e:
            raise RocketRouteError(f"cannot read the route file {args.route!r}: {e.strerror}") from None
        return queue_spec(args.topic, route_json=route_json, compat=args.compat)
    return queue_spec(args.topic, queues=args.queues, compat=args.compat)


def _live_route_json(args: argparse.Namespace) -> str:
    """The topic's route from the name servers of ``--namesrv``, as JSON (fetched once, before Spark starts)."""
    cached = getattr(args, "_live_route", None)
    if cached is not None:
        return str(cached)
    from .client.namesrv import fetch_route
    from .remoting import RemotingError

    try:
        route = fetch_route(args.namesrv, args.topic, compat=args.compat)
    except (RemotingError, LookupError, ValueError) as e:
        raise RocketRouteError(f"cannot fetch the route of {args.topic!r} from {args.namesrv}: {e}") from None
    args._live_route = route.to_json()
    _stage(f"route of {args.topic} from {args.namesrv}: {len(route.queue_datas or ())} queue data(s)")
    return str(args._live_route)


def _stage(msg: str) -> None:
    print(f"[rocketroute] {msg}", file=sys.stderr, flush=True)


def _master(args: argparse.Namespace) -> str:
    return args.master or "local[*]"


@contextlib.contextmanager
def _session(args: argparse.Namespace) -> Iterator[Any]:
    """A SparkSession for one command, stopped afterwards."""
    from .spark import local_session

    spark = local_session(args.master, quiet=not getattr(args, "progress", False))
    try:
        yield spark
    finally:
        spark.stop()


def check_route(args: argparse.Namespace) -> Any:
    """What ``route`` can check before Spark starts (the input exists, the route parses, ``--out`` can be
    written): the queue spec."""
    if not os.path.exists(args.input):
        raise RocketRouteError(f"input {args.input!r} does not exist")
    check_out(args.out, overwrite=args.overwrite, inputs=(args.input, args.route))
    if getattr(args, "compare_profiles", None):
        from .spark.compat import parse_profiles

        if isinstance(args.compare_profiles, str):  # the command line's text (already parsed on a second check)
            args.compare_profiles = parse_profiles(args.compare_profiles)
        if args.key_type != "string":
            raise RocketRouteError("--compare-profiles compares string keys (message groups); use --key-type string")
    return _queue_spec_from_args(args)


def run_route(spark: Any, args: argparse.Namespace, spec: Any) -> dict[str, Any]:
    """The route job on ``spark`` (``spec`` from :func:`check_route`): writes ``args.out``, returns the summary."""
    from .spark import route

    t0 = time.perf_counter()
    df = read_input(spark, args.input, args.format)
    _stage(f"route: {args.input} onto {len(spec)} queues with the {args.selector} selector")
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
    if result.renamed:
        _stage("route: " + _renamed_note(result.renamed))
    key = result.renamed.get(args.key, args.key)
    if getattr(args, "compare_profiles", None) and key not in result.routed.columns:
        raise RocketRouteError(f"--compare-profiles needs the key column {args.key!r}, which the input lacks")
    _stage(f"route: writing {args.out}")
    with staged_output(output_folder(args.out)) as out:
        result.routed.write.parquet(str(out / "routed"))
        result.rejected.write.parquet(str(out / "rejected"))
        result.per_queue.coalesce(1).write.option("header", True).csv(str(out / "per_queue"))
        result.hot_keys.coalesce(1).write.option("header", True).csv(str(out / "hot_keys"))
        per_queue = [r.asDict() for r in result.per_queue.collect()]
        compat = None
        if getattr(args, "compare_profiles", None):
            from .spark.compat import compare_profiles

            _stage(f"route: comparing {len(args.compare_profiles)} client routing profiles on the keys")
            compat = compare_profiles(result.routed, key, len(spec), args.compare_profiles)
            # a few dozen rows, already on the driver: written as they are, no Spark job
            _write_csv(out / "compat" / "compat.csv", compat)
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
        if result.renamed:
            summary["renamed_columns"] = result.renamed
        if compat is not None:
            summary["compat"] = {"profiles": list(args.compare_profiles), "pairs": compat}
        _write_summary(out, summary)
    return summary


def _renamed_note(renamed: dict[str, str]) -> str:
    pairs = ", ".join(f"{a!r} as {b!r}" for a, b in renamed.items())
    return f"the input columns named like an output column are kept under another name: {pairs}"


def print_route(summary: dict[str, Any], out: str) -> None:
    skew = summary["skew"]
    print(
        f"input rows {summary['input_rows']} = routed {summary['routed_rows']} + rejected "
        f"{summary['rejected_rows']}; max/mean {skew['max_over_mean']:.3f}, cv {skew['cv']:.3f}, "
        f"gini {skew['gini']:.3f}"
    )
    print(f"{'queue':>24} {'messages':>10} {'share':>7}")
    for row in summary["per_queue"]:
        print(f"{row['broker'] + '/' + str(row['queue_id']):>24} {row['messages']:>10} {row['share']:>7.2%}")
    compat = summary.get("compat")
    if compat:
        names = compat["profiles"]
        share = {(r["a"], r["b"]): r["key_share"] for r in compat["pairs"]}
        width = max(len(n) for n in names)
        print(f"keys on the same queue, per pair of client routing profiles ({summary['queues']} queues):")
        print(" " * width + "  " + "  ".join(f"{n:>{width}}" for n in names))
        for a in names:
            cells = ("-" if share[(a, b)] is None else f"{share[(a, b)]:.2%}" for b in names)
            print(f"{a:>{width}}  " + "  ".join(f"{c:>{width}}" for c in cells))
    if summary.get("renamed_columns"):
        print(_renamed_note(summary["renamed_columns"]))
    extra = ", compat" if compat else ""
    print(f"outputs: {out}/routed, rejected, per_queue, hot_keys{extra}, summary/summary.json")


def cmd_route(args: argparse.Namespace) -> int:
    spec = check_route(args)
    _stage(f"{len(spec)} queues on {len({b for b, _ in spec.queues})} brokers; starting Spark ({_master(args)})")
    with _session(args) as spark:
        summary = run_route(spark, args, spec)
    print_route(summary, args.out)
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
    from .spark.columns import check_distinct

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


def _parse_resize(args: argparse.Namespace) -> tuple[int, int] | None:
    if not args.resize:
        return None
    try:
        old, new = (int(x) for x in args.resize.split(":", 1))
    except ValueError:
        raise RocketRouteError(f"--resize takes OLD:NEW queue counts, not {args.resize!r}") from None
    if not args.input:
        raise RocketRouteError("--resize needs --input (the messages, to read their keys)")
    return old, new


def _plan_strategies(args: argparse.Namespace, params: dict[str, Any]) -> list[str]:
    from .spark.plan import default_strategies

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
    from .spark import parse_consumers

    if getattr(args, "group", None):
        raise RocketRouteError("--group is for the live plan: give --namesrv too (or --load for the Spark plan)")
    if not args.load or not args.out:
        raise RocketRouteError(
            "the Spark plan needs --load and --out (or give --namesrv and --group for the live plan)"
        )

    counts = parse_consumers(args.consumers)
    params = _plan_params(args)
    options = PlanOptions(counts, params, _plan_strategies(args, params), _parse_resize(args))
    import rocketroute as rr

    from .spark.plan import strategy_for

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
    if args.input and not os.path.exists(args.input):
        raise RocketRouteError(f"input {args.input!r} does not exist")
    check_out(args.out, overwrite=args.overwrite, inputs=(args.load, args.input), sub="plan")
    return options


def run_plan(spark: Any, args: argparse.Namespace, options: PlanOptions) -> Any:
    """The plan job on ``spark`` (``options`` from :func:`check_plan`): writes ``args.out/plan`` and returns
    the :class:`PlanResult`."""
    from .spark import plan, resize_risk

    counts, params, strategies, resize = options.counts, options.params, options.strategies, options.resize
    _stage(f"plan: {len(strategies)} strategies x {len(counts)} consumer counts")
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
        _stage(f"plan: the ordering risk of {resize[0]} -> {resize[1]} queues over {args.input}")
        df = read_input(spark, args.input, None)
        if args.key not in df.columns:
            raise RocketRouteError(f"the key column {args.key!r} is not in {args.input!r}")
        result.resize = resize_risk(df, args.key, args.key_type, *resize)

    with staged_output(output_folder(args.out, "plan")) as d:
        _write_csv(d / "consumers.csv", result.consumers)
        _write_csv(d / "imbalance.csv", result.imbalance)
        _write_csv(d / "churn.csv", result.churn)
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
            f"resize {r['from_queues']} -> {r['to_queues']} queues: {r['keys_moved_share']:.1%} of keys "
            f"({r['messages_moved_share']:.1%} of messages) change queue"
        )
    print(f"outputs: {out}/plan/consumers.csv, imbalance.csv, churn.csv, summary.json")


_LIVE_ONLY = {"json": None, "check": False}
_SPARK_ONLY = {"load": None, "out": None, "resize": None, "input": None, "consumers": "2..8", "rooms": None,
               "consumer_rooms": None, "cid_pattern": "consumer-{i}", "master": None, "overwrite": False}  # fmt: skip


def cmd_plan_live(args: argparse.Namespace) -> int:
    """``plan --namesrv --group``: every name server's route and every broker's member list, the plan of each
    strategy on the consensus view, and the members whose view differs (no Spark)."""
    from .client.group_plan import describe_group_plan, plan_group, snapshot_group
    from .remoting import RemotingError
    from .spark.plan import strategy_for

    if not args.group:
        raise RocketRouteError("the live plan (--namesrv) needs --group")
    given = [f"--{k.replace('_', '-')}" for k, default in _SPARK_ONLY.items() if getattr(args, k, default) != default]
    if given:
        raise RocketRouteError(f"{', '.join(given)}: only for the Spark plan (--load), not with --namesrv")
    if args.compat not in ("5.3", "4.9"):
        raise RocketRouteError(f"--compat is 5.3 or 4.9, not {args.compat!r}")
    if args.timeout_ms <= 0:
        raise RocketRouteError("--timeout-ms must be positive")
    names = [s.strip().upper() for s in (args.strategies or "AVG").split(",") if s.strip()]
    params = _plan_params(args)
    config = None
    if params["config"]:
        import rocketroute as rr

        config = [rr.MessageQueue(args.topic, b, q) for b, q in params["config"]]
    strategies = []
    for name in names:
        if name.startswith("MACHINE_ROOM_NEARBY"):
            raise RocketRouteError(
                "MACHINE_ROOM_NEARBY needs each consumer's room, which a live member list does not carry; "
                "plan it offline with --load, --rooms and --consumer-rooms"
            )
        strategies.append(
            (
                name,
                strategy_for(
                    name, vnodes=args.vnodes, load_factor=args.load_factor, idcs=params["idcs"], config=config
                ),
            )
        )
    _stage(f"asking {args.namesrv} for the route of {args.topic} and its brokers for the members of {args.group}")
    try:
        snapshot = snapshot_group(args.namesrv, args.group, args.topic, compat=args.compat, timeout_ms=args.timeout_ms)
        plans = [plan_group(snapshot, strategy, strategy_name=name) for name, strategy in strategies]
    except (RemotingError, ValueError) as e:
        raise RocketRouteError(str(e)) from None
    print(describe_group_plan(plans, snapshot))
    if args.json:
        doc = {"plans": [p.to_dict() for p in plans], "sources": _snapshot_sources(snapshot)}
        try:
            Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
        except OSError as e:
            raise RocketRouteError(f"cannot write --json {args.json!r}: {e.strerror}") from None
    if args.check and not all(p.consistent for p in plans):
        return 3
    return 0


def _snapshot_sources(snapshot: Any) -> dict[str, Any]:
    return {
        "name_servers": {
            **{a: {"queue_datas": len(r.queue_datas or ())} for a, r in snapshot.routes.items()},
            **{a: {"error": e} for a, e in snapshot.route_errors.items()},
        },
        "brokers": {
            **{b: {"addr": snapshot.broker_addrs.get(b), "members": list(m)} for b, m in snapshot.members.items()},
            **{b: {"addr": snapshot.broker_addrs.get(b), "error": e} for b, e in snapshot.member_errors.items()},
        },
    }


def cmd_plan(args: argparse.Namespace) -> int:
    if getattr(args, "namesrv", None):
        return cmd_plan_live(args)
    given = [f"--{k}" for k, default in _LIVE_ONLY.items() if getattr(args, k, default) != default]
    if given:
        raise RocketRouteError(f"{', '.join(given)}: only for the live plan (--namesrv and --group)")
    options = check_plan(args)
    _stage(
        f"planning {len(options.strategies)} strategies x {len(options.counts)} consumer counts; "
        f"starting Spark ({_master(args)})"
    )
    with _session(args) as spark:
        result = run_plan(spark, args, options)
    print_plan(result, args.out)
    return 0


def check_replay(args: argparse.Namespace) -> Any:
    """What ``replay`` can check before Spark starts (both inputs exist, the route parses): the queue spec."""
    for what, path in (("trace", args.trace), ("sends", args.sends)):
        if not os.path.exists(path):
            raise RocketRouteError(f"{what} {path!r} does not exist")
    check_out(args.out, overwrite=args.overwrite, inputs=(args.trace, args.sends, args.route))
    return _queue_spec_from_args(args)


def run_replay(spark: Any, args: argparse.Namespace, spec: Any) -> Any:
    """The replay job on ``spark`` (``spec`` from :func:`check_replay`): writes ``args.out`` and returns the
    :class:`ReplayResult`."""
    from .spark import replay

    _stage(f"replay: {args.sends} against {args.trace} on {len(spec)} queues, fault tolerance on and off")
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
        _stage(f"replay: {which}: " + _renamed_note(renamed))
    _stage(f"replay: writing {args.out}")
    with staged_output(output_folder(args.out)) as out:
        result.sends.write.parquet(str(out / "sends"))
        result.traffic.coalesce(1).write.option("header", True).csv(str(out / "traffic"))
        result.rejected_trace.write.parquet(str(out / "rejected" / "trace"))
        result.rejected_sends.write.parquet(str(out / "rejected" / "sends"))
        _write_csv(out / "trace" / "trace.csv", _trace_dicts(result.trace))
        summary: dict[str, Any] = {"modes": result.summary, "rows": result.counts}
        if result.renamed:
            summary["renamed_columns"] = result.renamed
        _write_summary(out, summary)
    result.unpersist()
    return result


def print_replay(result: Any, out: str) -> None:
    c = result.counts
    print(
        f"trace rows {c['trace_rows']} = used {c['trace_used']} + rejected {c['trace_rejected']}; "
        f"send rows {c['send_rows']} = replayed {c['sends_replayed']} + rejected {c['sends_rejected']}"
    )
    header = ("sends", "failures", "retries", "p50 ms", "p99 ms", "max ms", "degraded", "max delay")
    print(f"{'mode':<22} " + " ".join(f"{h:>9}" for h in header))
    for r in result.summary:
        cells = (r["sends"], r["failures"], r["retries"], r["p50_ms"], r["p99_ms"], r["max_ms"])
        print(
            f"{r['mode']:<22} "
            + " ".join(f"{c:>9}" for c in cells)
            + f" {r['degraded_share']:>9.1%} {(r['max_delay_ms'] or 0) / 1000:>8.1f}s"
        )
    print(f"outputs: {out}/sends, traffic, trace, rejected/trace, rejected/sends, summary/summary.json")


def cmd_replay(args: argparse.Namespace) -> int:
    spec = check_replay(args)
    _stage(f"replaying {args.sends} against {args.trace} on {len(spec)} queues; starting Spark ({_master(args)})")
    with _session(args) as spark:
        result = run_replay(spark, args, spec)
    print_replay(result, args.out)
    return 0


def _trace_dicts(rows: list[tuple[int, str, int, bool]]) -> list[dict[str, Any]]:
    return [{"ts_ms": t, "broker": b, "latency_ms": lat, "ok": str(ok).lower()} for t, b, lat, ok in rows]


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


def cmd_report(args: argparse.Namespace) -> int:
    from .spark.report import write_report

    if not (args.route or args.plan or args.replay):
        raise RocketRouteError("give at least one of --route, --plan and --replay (the jobs' --out folders)")
    for what, path in (("route", args.route), ("plan", args.plan), ("replay", args.replay)):
        if path and not os.path.isdir(path):
            raise RocketRouteError(f"the {what} output {path!r} is not a folder")
    if os.path.isdir(args.out):
        raise RocketRouteError(f"--out {args.out!r} is a folder; give the HTML file to write, e.g. report.html")
    _check_writable_parent(f"--out {args.out!r}", Path(args.out).resolve())
    path = write_report(args.out, route_dir=args.route, plan_dir=args.plan, replay_dir=args.replay, title=args.title)
    print(f"report: {path.resolve()}")
    return 0


def _demo_commands(inputs: Any, out: Path, consumers: str) -> dict[str, list[str]]:
    """The demo's jobs as the command lines a user would type (``--overwrite``: a re-run replaces them)."""
    from .spark.demo import BROKERS, QUEUES_PER_BROKER, ROOMS, TOPIC

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


def cmd_demo(args: argparse.Namespace) -> int:
    from .spark.demo import write_demo_inputs
    from .spark.report import write_report

    if args.rows < 1 or args.sends < 1:
        raise RocketRouteError("--rows and --sends must be positive")
    final = check_out(args.out, overwrite=args.overwrite)
    out = Path(args.out)
    t0 = time.perf_counter()
    _stage(f"demo: {args.rows:,} orders, about {min(args.sends, args.rows):,} replayed sends; starting Spark")
    parser = build_parser()
    # everything (inputs, every job's outputs, the report) goes into one folder next to --out, swapped in at the
    # end; the command lines shown name --out itself
    with staged_output(final) as stage, _session(args) as spark:
        _stage(f"demo: generating the inputs in {out / 'data'}")
        inputs = write_demo_inputs(spark, stage / "data", rows=args.rows, sends=args.sends, seed=args.seed)
        commands = _demo_commands(inputs, stage, args.consumers)
        for argv in commands.values():
            _stage("demo: rocketroute " + " ".join(a.replace(str(stage), str(out)) for a in argv))
        route_args, plan_args, replay_args = (parser.parse_args(commands[c]) for c in ("route", "plan", "replay"))
        route_summary = run_route(spark, route_args, check_route(route_args))
        plan_result = run_plan(spark, plan_args, check_plan(plan_args))
        replay_result = run_replay(spark, replay_args, check_replay(replay_args))
        _stage("demo: rendering the report")
        write_report(
            stage / "report.html",
            route_dir=stage / "route",
            plan_dir=stage,
            replay_dir=stage / "replay",
            title=f"rocketroute demo: {args.rows:,} orders on {route_summary['queues']} queues",
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
    print(f"\ndemo finished in {time.perf_counter() - t0:.0f} s")
    print(f"report: {report.resolve()}")
    return 0


def _add_queue_args(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--route", help="the topic's route: the name server's TopicRouteData JSON file")
    where.add_argument("--queues", help='the publish queues in order, e.g. "broker-a:8,broker-b:8"')
    where.add_argument(
        "--namesrv", help='the live route from these name servers ("host:port" or "host:port;host:port")'
    )
    p.add_argument("--compat", default="5.3", help="RocketMQ profile: 5.3 (default) or 4.9")


def _add_spark_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--master", default=None, help="Spark master (default: local[*])")
    p.add_argument("--progress", action="store_true", help="show Spark's console progress")


def _add_overwrite_arg(p: argparse.ArgumentParser, what: str = "OUT") -> None:
    p.add_argument(
        "--overwrite",
        action="store_true",
        help=f"replace a non-empty {what} (all of it) with this run's outputs; without it such a folder is an error",
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rocketroute", description=__doc__.splitlines()[0])
    import rocketroute

    p.add_argument(
        "--version", action="version", version=f"rocketroute {rocketroute.__version__} ({rocketroute.BACKEND} backend)"
    )
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
    r.add_argument(
        "--compare-profiles",
        metavar="LIST",
        help="also compare other clients' keyed routing on the keys: 'all' or a comma-separated list of "
        "java-hashcode, java5-grpc-siphash, proxy-jump, python5-sha256, go4-fnv32a, kafka-murmur2 (writes OUT/compat)",
    )
    _add_spark_args(r)
    r.add_argument("--out", required=True, help="output folder")
    _add_overwrite_arg(r)
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
        help="per-queue load: route's --out folder, or a table with broker, queue_id, messages[, bytes] "
        "(the Spark plan; or give --namesrv and --group for the live plan)",
    )
    pl.add_argument("--format", choices=FORMATS, help="the load table's format (default: from the name)")
    pl.add_argument("--topic", required=True)
    pl.add_argument("--consumers", default="2..8", help='consumer counts: "2..32" or "2,4,8" (default 2..8)')
    pl.add_argument(
        "--strategies",
        help="comma-separated, of AVG, AVG_BY_CIRCLE, CONSISTENT_HASH, MACHINE_ROOM_NEARBY[-INNER], MACHINE_ROOM, "
        "CONFIG, STICKY, CONSISTENT_HASH_BOUNDED (default: every one whose parameters are given)",
    )
    pl.add_argument("--vnodes", type=int, default=10, help="CONSISTENT_HASH[_BOUNDED] virtual nodes (default 10)")
    pl.add_argument(
        "--load-factor",
        type=float,
        default=1.25,
        help="CONSISTENT_HASH_BOUNDED: no consumer above ceil(load_factor * queues / consumers) (default 1.25)",
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
    pl.add_argument("--key-type", default="string", choices=("string", "int", "long"))
    live = pl.add_argument_group(
        "live plan",
        "--namesrv and --group: plan the group from its live route and member lists (no Spark), and flag the members "
        "whose view differs because the name servers or the brokers disagree",
    )
    live.add_argument("--namesrv", help='the name servers, "host:port" or "host:port;host:port" (each one is asked)')
    live.add_argument("--group", help="the consumer group (its members are asked of every broker of the topic)")
    live.add_argument("--compat", default="5.3", help="RocketMQ profile: 5.3 (default) or 4.9")
    live.add_argument("--timeout-ms", type=int, default=3000, help="per request (default 3000)")
    live.add_argument("--json", help="also write the plan to this JSON file")
    live.add_argument("--check", action="store_true", help="exit with status 3 when the views differ")
    _add_spark_args(pl)
    pl.add_argument("--out", help="output folder (writes OUT/plan/); the Spark plan needs it")
    _add_overwrite_arg(pl, "OUT/plan")
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
    _add_overwrite_arg(rp)
    rp.set_defaults(func=cmd_replay)

    rep = sub.add_parser(
        "report",
        help="one self-contained HTML page with the plots and tables of route, plan and replay outputs",
        description="Reads the small aggregate outputs of the other jobs (no Spark needed) and writes one HTML "
        "file with the plots embedded: queue load, consumer load per strategy, churn, replay timeline.",
    )
    rep.add_argument("--route", help="route's --out folder")
    rep.add_argument("--plan", help="plan's --out folder (the one holding plan/)")
    rep.add_argument("--replay", help="replay's --out folder")
    rep.add_argument("--title", default="rocketroute report")
    rep.add_argument("--out", required=True, help="the HTML file to write, e.g. out/report.html")
    rep.set_defaults(func=cmd_report)

    d = sub.add_parser(
        "demo",
        help="synthetic orders and a broker trace through route, plan, replay and report on local Spark",
        description="Generates Zipf-skewed order keys, sizes, timestamps and a broker trace (one broker degrades, "
        "one fails), runs route, plan, replay and report on them, prints a summary and the report's path.",
    )
    d.add_argument("--rows", type=int, default=1_000_000, help="orders to generate and route (default 1M)")
    d.add_argument("--sends", type=int, default=200_000, help="about this many of them are replayed (default 200k)")
    d.add_argument("--consumers", default="2..12", help="plan's consumer counts (default 2..12)")
    d.add_argument("--seed", type=int, default=7)
    d.add_argument("--out", default="out/demo", help="output folder (default out/demo)")
    _add_overwrite_arg(d)
    _add_spark_args(d)
    d.set_defaults(func=cmd_demo)

    b = sub.add_parser(
        "bench-spark",
        help="rows/s of the hash route on Spark: reference UDF, native Arrow worker, JVM, Spark hash()",
    )
    b.add_argument("--rows", type=int, default=10_000_000, help="keys to route (default 10M)")
    b.add_argument("--reference-rows", type=int, default=200_000, help="keys for the slow reference UDF")
    b.add_argument("--queues", type=int, default=16)
    b.add_argument("--master", default=None, help="Spark master (default: local[*])")
    b.set_defaults(func=cmd_bench_spark)

    bp = sub.add_parser(
        "bench-producer",
        help="send to a real cluster as RocketMQ's benchmark producer does: TPS, RT percentiles, failures",
        description="Sends messages of --size bytes to --topic through rocketroute.Producer from --threads threads "
        "(sync), one event loop (async) or in batches, printing a progress line every --interval seconds and a "
        "summary at the end.",
    )
    bp.add_argument("--namesrv", required=True, help='name servers, "host:port" or "host:port;host:port"')
    bp.add_argument("--topic", required=True)
    bp.add_argument("--mode", choices=("sync", "async", "batch", "oneway"), default="sync")
    bp.add_argument("--size", type=int, default=1024, help="message body bytes (default 1024)")
    bp.add_argument("--threads", type=int, default=4, help="sending threads, sync/batch/oneway (default 4)")
    bp.add_argument("--in-flight", type=int, default=256, help="async: sends in flight (default 256)")
    bp.add_argument("--batch-size", type=int, default=32, help="batch: messages per batch (default 32)")
    bp.add_argument("--keys", action="store_true", help="keyed messages sent with SelectMessageQueueByHash")
    bp.add_argument("--duration", type=float, default=10.0, help="seconds to send (default 10)")
    bp.add_argument("--messages", type=int, default=None, help="stop after this many messages")
    bp.add_argument("--interval", type=float, default=5.0, help="seconds between progress lines (default 5)")
    bp.add_argument("--compat", default="5.3", help="RocketMQ profile: 5.3 (default) or 4.9")
    bp.add_argument("--fault-tolerance", action="store_true", help="send_latency_fault_enable")
    bp.add_argument("--json", help="also write the summary to this JSON file")
    bp.set_defaults(func=cmd_bench_producer)
    return p


def cmd_bench_producer(args: argparse.Namespace) -> int:
    from .bench_producer import BenchConfig, run_bench

    cfg = BenchConfig.from_args(args)
    summary = run_bench(cfg, out=sys.stdout)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 0 if summary["failed"] == 0 else 1


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except RocketRouteError as e:
        print(f"rocketroute {args.command}: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:
        reason = spark_failure(e)
        if reason is None:
            raise  # a bug: keep the traceback
        print(f"rocketroute {args.command}: error: the Spark job failed: {reason}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
