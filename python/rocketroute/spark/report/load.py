"""Loading: the jobs' ``summary.json`` files and their JSON aggregates (:mod:`rocketroute.spark.aggregates`),
read and checked against their schemas before anything is drawn.

A missing file, a file that is not JSON, or a record without one of its fields or with a value of the wrong
type is a :class:`~rocketroute.errors.RocketRouteError` in one line that names the file (and the record).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import RocketRouteError
from ..aggregates import BROKER_WINDOWS, CHURN, CONSUMERS, HOT_KEYS, IMBALANCE, TRAFFIC, Field, Schema

__all__ = ["PlanData", "ReplayData", "RouteData", "load_plan", "load_records", "load_replay", "load_route"]

_EXPECTED = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true or false"}


def read_json(path: Path, what: str) -> Any:
    """The JSON document in ``path`` (``what``: what it is, for the error message)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RocketRouteError(f"{path} does not exist ({what})") from None
    except IsADirectoryError:
        raise RocketRouteError(f"{path} is a folder, not a file ({what})") from None
    except OSError as e:
        raise RocketRouteError(f"cannot read {path} ({what}): {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise RocketRouteError(f"{path} is not UTF-8 text ({what}): {e.reason}") from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as e:
        raise RocketRouteError(f"{path} is not valid JSON ({what}): {e}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _value(v: Any, f: Field) -> Any:
    """``v`` when it is a JSON value of ``f``'s kind (an integer is also a number), else a ``ValueError``."""
    if v is None and f.nullable:
        return None
    ok = (
        isinstance(v, str)
        if f.kind == "str"
        else isinstance(v, bool)
        if f.kind == "bool"
        else isinstance(v, int) and not isinstance(v, bool)
        if f.kind == "int"
        else isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    )
    if not ok:
        raise ValueError(f"expected {_EXPECTED[f.kind]}{' or null' if f.nullable else ''}")
    return float(v) if f.kind == "float" else v


def check_object(obj: Any, fields: Sequence[Field], where: str) -> dict[str, Any]:
    """The named fields of the JSON object ``obj`` (the others dropped), each checked; a nullable field may be
    missing (``None``). Errors name ``where``."""
    if not isinstance(obj, dict):
        raise RocketRouteError(f"{where}: expected an object, found {_json_type(obj)}")
    out = {}
    for f in fields:
        if f.name not in obj and not f.nullable:
            raise RocketRouteError(f"{where} lacks {f.name!r}")
        try:
            out[f.name] = _value(obj.get(f.name), f)
        except ValueError as e:
            raise RocketRouteError(f"{where} has a bad {f.name!r} ({obj.get(f.name)!r}): {e}") from None
    return out


def check_list(items: Any, fields: Sequence[Field], where: str) -> list[dict[str, Any]]:
    """Every object of the JSON array ``items``, checked by :func:`check_object`; errors name the record."""
    if not isinstance(items, list):
        raise RocketRouteError(f"{where}: expected an array of records, found {_json_type(items)}")
    return [check_object(r, fields, f"{where}: record {n}") for n, r in enumerate(items, start=1)]


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(type(v), "a number")


def load_records(folder: Path, schema: Schema) -> list[dict[str, Any]]:
    """The records of ``folder / schema.path``, checked against ``schema``."""
    path = folder / schema.path
    return check_list(read_json(path, schema.what), schema.fields, str(path))


def _fields(spec: str) -> tuple[Field, ...]:
    """``"a:int b:str? c:float"``: fields (``?``: nullable, may be missing)."""
    out = []
    for part in spec.split():
        name, kind = part.split(":")
        out.append(Field(name, kind.rstrip("?"), kind.endswith("?")))
    return tuple(out)


# ---------------------------------------------------------------------------------------------------- route

_ROUTE_SUMMARY = _fields("topic:str selector:str input_rows:int routed_rows:int rejected_rows:int seconds:float?")
_SKEW = _fields("max_over_mean:float cv:float gini:float")
_PER_QUEUE = _fields("queue_index:int broker:str queue_id:int messages:int bytes:int share:float")
_COMPAT_PAIR = _fields(
    "a:str b:str keys_both:int keys_same:int messages_both:int messages_same:int key_share:float? message_share:float?"
)


@dataclass(frozen=True)
class RouteData:
    """What the report shows of a ``route`` output: its summary, per-queue table (in queue order), skew, hot
    keys and, with ``--compare-profiles``, the profiles compared and every pair's counts."""

    summary: dict[str, Any]
    skew: dict[str, float]
    per_queue: list[dict[str, Any]]
    hot_keys: list[dict[str, Any]]
    compat_profiles: list[str] | None = None
    compat_pairs: list[dict[str, Any]] | None = None


def load_route(root: Path) -> RouteData:
    """``root/summary/summary.json`` and ``root/summary/hot_keys.json`` of ``rocketroute route --out root``."""
    path = root / "summary" / "summary.json"
    where = str(path)
    raw = read_json(path, "the summary `rocketroute route` writes")
    summary = check_object(raw, _ROUTE_SUMMARY, where)
    skew = check_object(raw.get("skew"), _SKEW, f"{where}: 'skew'")
    per_queue = sorted(check_list(raw.get("per_queue"), _PER_QUEUE, f"{where}: 'per_queue'"), key=_queue_index)
    hot_keys = load_records(root, HOT_KEYS)
    compat = raw.get("compat")
    if compat is None:
        return RouteData(summary, skew, per_queue, hot_keys)
    compat_where = f"{where}: 'compat'"
    if not isinstance(compat, dict):
        raise RocketRouteError(f"{compat_where}: expected an object, found {_json_type(compat)}")
    names = compat.get("profiles")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise RocketRouteError(f"{compat_where}: 'profiles' is not a list of names")
    pairs = check_list(compat.get("pairs"), _COMPAT_PAIR, f"{compat_where}: 'pairs'")
    have = {(r["a"], r["b"]) for r in pairs}
    missing = [(a, b) for a in names for b in names if (a, b) not in have]
    if missing:
        raise RocketRouteError(f"{compat_where} lacks the pair {missing[0]!r}")
    return RouteData(summary, skew, per_queue, hot_keys, names, pairs)


def _queue_index(r: dict[str, Any]) -> int:
    return int(r["queue_index"])


# ---------------------------------------------------------------------------------------------------- plan

_PLAN_SUMMARY = _fields("topic:str queues:int")
_RESIZE = _fields(
    "from_queues:int to_queues:int messages:int messages_moved:int messages_moved_share:float keys:int "
    "keys_moved:int keys_moved_share:float"
)


@dataclass(frozen=True)
class PlanData:
    """What the report shows of a ``plan`` output: topic and queue count, the resize risk (``None`` without
    ``--resize``), and the three tables."""

    topic: str
    queues: int
    resize: dict[str, Any] | None
    consumers: list[dict[str, Any]]
    imbalance: list[dict[str, Any]]
    churn: list[dict[str, Any]]


def load_plan(root: Path) -> PlanData:
    """``root/plan/summary.json`` and the tables' records of ``rocketroute plan --out root``."""
    d = root / "plan"
    path = d / "summary.json"
    raw = read_json(path, "the summary `rocketroute plan` writes")
    s = check_object(raw, _PLAN_SUMMARY, str(path))
    resize = raw.get("resize")
    if resize is not None:
        resize = check_object(resize, _RESIZE, f"{path}: 'resize'")
    return PlanData(
        s["topic"],
        s["queues"],
        resize,
        load_records(d, CONSUMERS),
        load_records(d, IMBALANCE),
        load_records(d, CHURN),
    )


# ---------------------------------------------------------------------------------------------------- replay

_MODE = _fields(
    "mode:str sends:int failures:int retries:int p50_ms:float p99_ms:float max_ms:float degraded_share:float? "
    "max_delay_ms:float?"
)
_ROWS = _fields("trace_rows:int trace_used:int trace_rejected:int send_rows:int sends_replayed:int sends_rejected:int")
MODE_ORDER = ("fault tolerance on", "fault tolerance off")


@dataclass(frozen=True)
class ReplayData:
    """What the report shows of a ``replay`` output: the per-mode summaries (fault tolerance on first), the
    row-conservation counts, the traffic per window and each broker's latency per window."""

    modes: list[dict[str, Any]]
    rows: dict[str, int]
    traffic: list[dict[str, Any]]
    broker_windows: list[dict[str, Any]]


def mode_key(mode: str) -> tuple[int, str]:
    """Sorts the modes as :data:`MODE_ORDER`, any other after them by name."""
    return (MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER), mode)


def load_replay(root: Path) -> ReplayData:
    """``root/summary/summary.json``, ``traffic.json`` and ``broker_windows.json`` of ``rocketroute replay
    --out root``."""
    path = root / "summary" / "summary.json"
    raw = read_json(path, "the summary `rocketroute replay` writes")
    if not isinstance(raw, dict):
        raise RocketRouteError(f"{path}: expected an object with 'modes' and 'rows', found {_json_type(raw)}")
    modes = sorted(check_list(raw.get("modes"), _MODE, f"{path}: 'modes'"), key=lambda r: mode_key(r["mode"]))
    rows = check_object(raw.get("rows"), _ROWS, f"{path}: 'rows'")
    return ReplayData(modes, rows, load_records(root, TRAFFIC), load_records(root, BROKER_WINDOWS))
