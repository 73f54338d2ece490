"""The small aggregates the jobs write for the report: JSON records with a stable schema.

Each file is a JSON array of objects (one per line), every object with exactly its schema's fields, in that
order: integers as JSON integers, shares and ratios as JSON numbers (never NaN), text as strings, flags as
``true`` / ``false``, and ``null`` only where a field is nullable. The jobs collect these aggregates on the
driver (each is a few rows per queue, consumer or time window) and write them with :func:`write_records`;
``rocketroute report`` reads them back against the same schemas, and reads nothing else of the jobs' outputs
but their ``summary.json``.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "BROKER_WINDOWS",
    "CHURN",
    "CONSUMERS",
    "HOT_KEYS",
    "IMBALANCE",
    "KINDS",
    "TRAFFIC",
    "Field",
    "Schema",
    "write_records",
]

KINDS = ("int", "float", "str", "bool")


@dataclass(frozen=True)
class Field:
    """One field of a record: its name, its kind (one of :data:`KINDS`) and whether it may be ``null``."""

    name: str
    kind: str
    nullable: bool = False


@dataclass(frozen=True)
class Schema:
    """A file of records: its path under the folder the job writes, what it holds (for error messages), and
    its fields."""

    path: str
    what: str
    fields: tuple[Field, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


HOT_KEYS = Schema(
    "summary/hot_keys.json",
    "the hot keys `rocketroute route` writes",
    (Field("queue_index", "int"), Field("key", "str", nullable=True), Field("messages", "int"), Field("rank", "int")),
)
"""``route``: the hottest keys of each queue (``rank`` 1 is the hottest), in queue then rank order."""

TRAFFIC = Schema(
    "summary/traffic.json",
    "the traffic per window `rocketroute replay` writes",
    (
        Field("mode", "str"),
        Field("window_ms", "int"),
        Field("broker", "str"),
        Field("sends", "int"),
        Field("share", "float"),
    ),
)
"""``replay``: each broker's sends and share of the mode's sends per window (by ``sent_ms``)."""

BROKER_WINDOWS = Schema(
    "summary/broker_windows.json",
    "the broker latency per window `rocketroute replay` writes",
    (
        Field("window_ms", "int"),
        Field("broker", "str"),
        Field("max_latency_ms", "int"),
        Field("failed", "bool"),
    ),
)
"""``replay``: each traced broker's state per window, from the trace rows used: the highest latency it had in
the window and whether it failed (``ok = false``) at some instant of it."""

CONSUMERS = Schema(
    "consumers.json",
    "the per-consumer load `rocketroute plan` writes",
    (
        Field("strategy", "str"),
        Field("consumers", "int"),
        Field("consumer", "str"),
        Field("queues", "int"),
        Field("messages", "int"),
        Field("bytes", "int"),
    ),
)
"""``plan`` (under ``OUT/plan``): every consumer's queues and load, per strategy and consumer count."""

IMBALANCE = Schema(
    "imbalance.json",
    "the imbalance `rocketroute plan` writes",
    (
        Field("strategy", "str"),
        Field("consumers", "int"),
        Field("max_over_mean", "float"),
        Field("cv", "float"),
        Field("idle_consumers", "int"),
    ),
)
"""``plan``: max/mean, coefficient of variation and idle consumers, per strategy and consumer count."""

CHURN = Schema(
    "churn.json",
    "the rebalance churn `rocketroute plan` writes",
    (
        Field("strategy", "str"),
        Field("consumers", "int"),
        Field("event", "str"),
        Field("consumers_after", "int"),
        Field("queues_moved", "int"),
        Field("queues_moved_share", "float"),
        Field("load_moved", "float", nullable=True),
        Field("load_moved_share", "float"),
    ),
)
"""``plan``: the queues and load that move when a consumer joins (``event`` ``join``) or leaves (``leave``)."""


def _value(v: Any, f: Field) -> Any:
    """``v`` as the JSON value of field ``f``; a ``ValueError`` when it is not one."""
    if v is None:
        if f.nullable:
            return None
        raise ValueError(f"{f.name!r} is null")
    if f.kind == "str":
        return str(v)
    if f.kind == "bool":
        if not isinstance(v, bool):
            raise ValueError(f"{f.name!r} is not a boolean: {v!r}")
        return v
    if isinstance(v, bool):
        raise ValueError(f"{f.name!r} is a boolean, not a number")
    if f.kind == "int":
        if isinstance(v, numbers.Integral):
            return int(v)
        x = float(v)
        if not x.is_integer():
            raise ValueError(f"{f.name!r} is not an integer: {v!r}")
        return int(x)
    x = float(v)
    if not math.isfinite(x):
        raise ValueError(f"{f.name!r} is not a finite number: {v!r}")
    return x


def write_records(folder: Path, schema: Schema, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write ``rows`` to ``folder / schema.path`` (folders made as needed) as ``schema``'s records; returns the
    path. Fields outside the schema are left out; a missing or mistyped one is a ``ValueError`` (a bug in the
    job, not in its input)."""
    records = []
    for number, row in enumerate(rows, start=1):
        try:
            records.append({f.name: _value(row.get(f.name), f) for f in schema.fields})
        except (TypeError, ValueError) as e:
            raise ValueError(f"{schema.path}: record {number}: {e}") from None
    path = Path(folder) / schema.path
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join(json.dumps(r, ensure_ascii=False, allow_nan=False) for r in records)
    path.write_text(f"[\n{lines}\n]\n" if records else "[]\n", encoding="utf-8")
    return path
