"""What the commands share: reading an input, the output folders, the queue spec, the Spark session, the
messages on stderr, the Spark failures in a line, the missing extra, and the options several commands take.

Imports neither pyspark nor matplotlib: each is imported where a command uses it.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import logging
import os
import re
import shutil
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..._plural import counted
from ...cli.args import add_access_args, credentials_from_args, given_access_options, log, tls_from_args
from ...errors import RocketRouteError
from .inputs import input_format

SPARK_EXTRA = "pip install 'rocketroute[spark]'"
"""What brings pyspark, pyarrow, numpy and matplotlib (named when one of them is missing)."""


def require(*modules: str) -> None:
    """Refuses a command that needs a module of the ``spark`` extra which is not installed, before anything else
    and in one line (``rocketroute CMD: error: this command needs pyspark: pip install 'rocketroute[spark]'``).
    Only looks the module up: nothing is imported."""
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a finder that refuses it; a module without a spec
            found = False
        if not found:
            raise RocketRouteError(f"this command needs {name}: {SPARK_EXTRA}")


def read_input(spark: Any, path: str, fmt: str | None) -> Any:
    """A DataFrame of the input, or a clear error (before any job) when it cannot be read."""
    if not os.path.exists(path):
        raise RocketRouteError(f"input {path!r} does not exist")
    fmt = input_format(path, fmt)
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


def check_writable_parent(label: str, final: Path) -> None:
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
    check_writable_parent(label, Path(out).resolve())
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


def write_summary(out: Path, data: Any) -> None:
    """``out/summary/summary.json`` (beside the job's other summary files)."""
    (out / "summary").mkdir(exist_ok=True)
    (out / "summary" / "summary.json").write_text(json.dumps(data, indent=2) + "\n")


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """A few rows already on the driver, as a CSV file with a header (no Spark job)."""
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


def renamed_note(renamed: dict[str, str]) -> str:
    pairs = ", ".join(f"{a!r} as {b!r}" for a, b in renamed.items())
    return f"the input columns named like an output column are kept under another name: {pairs}"


def queue_spec_from_args(args: argparse.Namespace) -> Any:
    """The topic's publish queues from ``--route`` (a route JSON file), ``--namesrv`` (the live route) or
    ``--queues``."""
    from ..jobs.route import queue_spec

    given = given_access_options(args)
    if given and not getattr(args, "namesrv", None):
        raise RocketRouteError(f"{', '.join(given)}: only with --namesrv (the one source that asks the cluster)")
    if getattr(args, "namesrv", None):
        return queue_spec(args.topic, route_json=live_route_json(args), compat=args.compat)
    if args.route:
        try:
            route_json = Path(args.route).read_text()
        except OSError as e:
            raise RocketRouteError(f"cannot read the route file {args.route!r}: {e.strerror}") from None
        return queue_spec(args.topic, route_json=route_json, compat=args.compat)
    return queue_spec(args.topic, queues=args.queues, compat=args.compat)


def live_route_json(args: argparse.Namespace) -> str:
    """The topic's route from the name servers of ``--namesrv``, as JSON (fetched once, before Spark starts)."""
    cached = getattr(args, "_live_route", None)
    if cached is not None:
        return str(cached)
    from ...client.namesrv import fetch_route
    from ...protocol import RemotingError

    try:
        route = fetch_route(
            args.namesrv,
            args.topic,
            compat=args.compat,
            credentials=credentials_from_args(args),
            tls=tls_from_args(args),
        )
    except (RemotingError, LookupError, ValueError) as e:
        raise RocketRouteError(f"cannot fetch the route of {args.topic!r} from {args.namesrv}: {e}") from None
    args._live_route = route.to_json()
    datas = counted(len(route.queue_datas or ()), "queue data", "queue datas")
    log(f"route of {args.topic} from {args.namesrv}: {datas}")
    return str(args._live_route)


def running_session() -> Any | None:
    """The Spark session already running in this process (a notebook's, a pyspark shell's, or that of an
    application calling :func:`rocketroute.cli.main`), else None. Imports nothing: without pyspark imported there
    is none."""
    if "pyspark" not in sys.modules:
        return None
    from pyspark import SparkContext

    if SparkContext._active_spark_context is None:
        return None
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()


def spark_start(args: argparse.Namespace) -> str:
    """What the command's progress line says of its Spark session: the one it starts, or the running one it uses."""
    running = running_session()
    if running is None:
        return f"starting Spark ({args.master or 'local[*]'})"
    return f"on this process's running Spark session ({running.sparkContext.master})"


def _join(running: Any, args: argparse.Namespace) -> None:
    """Check that ``args`` fit the running session the command is to use: its master and its console progress
    were fixed when it started. ``--verbose`` shows Spark's log (WARN and above) from here on."""
    master = running.sparkContext.master
    if args.master is not None and args.master != master:
        raise RocketRouteError(
            f"--master {args.master}: this process runs a Spark session on {master} already, which the command "
            "uses; leave --master out"
        )
    progress = running.sparkContext.getConf().get("spark.ui.showConsoleProgress", "false") == "true"
    if getattr(args, "progress", False) and not progress:
        raise RocketRouteError(
            "--progress: this process's running Spark session started without console progress "
            "(spark.ui.showConsoleProgress), and the command uses it"
        )
    if getattr(args, "verbose", False):
        running.sparkContext.setLogLevel("WARN")


SPARK_STOP_BOUND_S = 3.0
"""After Ctrl-C, how long Spark's JVM is given to stop (its shutdown hooks remove its temporary folders) before it
is killed."""


@contextlib.contextmanager
def spark_session(args: argparse.Namespace) -> Iterator[Any]:
    """A SparkSession for one command, stopped afterwards; or, in a process that runs one already (a notebook, a
    pyspark shell, an application calling :func:`rocketroute.cli.main`), that one, used as it is and left running
    (``--master`` naming another master is refused, and so is ``--progress`` where it started without).

    Ctrl-C stops the command within :data:`SPARK_STOP_BOUND_S` seconds and a little more, without Spark's noise:
    while the session starts and while it runs, SIGINT stops this process's Spark JVM (``SIGTERM``, then
    ``SIGKILL`` after the bound) and then raises ``KeyboardInterrupt``; so a job cut short writes nothing more
    into a staged output that is being removed, and a JVM still starting is not left behind. (pyspark's own
    handler cancels the jobs through the connection the interrupted call is using, and logs tracebacks.)"""
    from ..session import local_session

    running = running_session()
    if running is not None:
        _join(running, args)
        yield running
        return
    previous = signal.getsignal(signal.SIGINT)
    ours = previous is signal.default_int_handler and threading.current_thread() is threading.main_thread()
    if ours:
        signal.signal(signal.SIGINT, _interrupt_spark)
    stopped = False
    try:
        verbose = getattr(args, "verbose", False)
        spark = _start_aside(
            lambda: local_session(args.master, quiet=not verbose, progress=getattr(args, "progress", False))
        )
        try:
            yield spark
        except KeyboardInterrupt:
            stopped = _JVM_STOPPED.is_set()  # by _interrupt_spark: no stop() through a JVM that is gone
            raise
        finally:
            if not stopped:
                spark.stop()
    finally:
        if ours:
            signal.signal(signal.SIGINT, previous)


def _start_aside(start: Callable[[], Any]) -> Any:
    """``start()`` in a thread of its own, waited for here: SparkContext puts its SIGINT handler in place only
    when made in the main thread, and this one stays. Ctrl-C meanwhile is raised here (the JVM being stopped);
    what the starting thread then meets is dropped with it."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = start()
        except BaseException as e:  # raised in the caller's thread
            box["error"] = e

    t = threading.Thread(target=run, name="rocketroute-spark-start", daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.1)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _interrupt_spark(signum: int, frame: Any) -> None:
    """SIGINT while a Spark session starts or runs: stop its JVM, then ``KeyboardInterrupt``."""
    logging.disable(logging.CRITICAL)  # py4j logs the interrupted call's traceback; the run is over
    _quiet_accumulator_server()
    stop_spark_jvms(SPARK_STOP_BOUND_S)
    _JVM_STOPPED.set()
    raise KeyboardInterrupt


def _quiet_accumulator_server() -> None:
    """pyspark's accumulator server (a ``socketserver`` in a thread of this process) reads from the JVM; when the
    JVM is stopped, its handler meets the end of the stream and ``socketserver`` prints the exception to stderr.
    The run is over: have it stop polling and drop what it meets."""
    context = sys.modules.get("pyspark.core.context") or sys.modules.get("pyspark.context")
    spark_context = getattr(getattr(context, "SparkContext", None), "_active_spark_context", None)
    server = getattr(spark_context, "_accumulatorServer", None)
    if server is not None:
        server.server_shutdown = True
        server.handle_error = lambda request, client_address: None


_JVM_STOPPED = threading.Event()
"""Set once :func:`_interrupt_spark` has stopped this process's Spark JVM."""


def stop_spark_jvms(timeout_s: float) -> None:
    """Stop the Spark JVMs this process started (its children running ``org.apache.spark``): ``SIGTERM``, then
    ``SIGKILL`` to those still running after ``timeout_s``. Linux (``/proc``); elsewhere nothing is done and the
    JVM exits when this process does (pyspark's gateway watches its standard input)."""
    pids = _spark_children()
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while pids and time.monotonic() < deadline:
        time.sleep(0.05)
        pids = [p for p in pids if _running(p)]
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _spark_children() -> list[int]:
    me = os.getpid()
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == me and b"org.apache.spark" in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, dead and not yet reaped by its ``Popen``, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def add_queue_args(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--route", help="the topic's route: the name server's TopicRouteData JSON file")
    where.add_argument("--queues", help='the publish queues in order, e.g. "broker-a:8,broker-b:8"')
    where.add_argument(
        "--namesrv", help='the live route from these name servers ("host:port" or "host:port;host:port")'
    )
    p.add_argument("--compat", default="5.3", help="RocketMQ profile: 5.3 or 4.9")
    add_access_args(p)  # for --namesrv


def add_spark_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--master", default=None, help="Spark master (default: local[*])")
    p.add_argument("--progress", action="store_true", help="show Spark's console progress")
    p.add_argument(
        "--verbose",
        action="store_true",
        help="show Spark's own log (WARN and above) and, when a job fails, its whole Java trace; without it a "
        "failure is one line, its root cause",
    )


def add_overwrite_arg(p: argparse.ArgumentParser, what: str = "OUT") -> None:
    p.add_argument(
        "--overwrite",
        action="store_true",
        help=f"replace a non-empty {what} (all of it) with this run's outputs; without it such a folder is an error",
    )
