"""Column-name rules shared by the jobs: an input's columns are never clobbered and never ambiguous.

- Duplicate column names (case-insensitively, unless ``spark.sql.caseSensitive`` is on) are refused: Spark
  could not tell them apart, and Parquet could not write them.
- A job's own working columns get names generated to differ from every input column (:func:`fresh_name`).
- An input column named like one a job adds to its outputs (``broker`` in ``routed/``, ``reason`` in
  ``rejected/``) is kept, renamed ``input_<name>`` (:func:`rename_clashes`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..errors import IllegalArgumentError

__all__ = ["check_distinct", "fresh_name", "rename_clashes"]


def _case_sensitive(df: Any) -> bool:
    try:
        return str(df.sparkSession.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
    except Exception:  # no session at hand: the stricter rule
        return False


def _fold(name: str, case_sensitive: bool) -> str:
    return name if case_sensitive else name.lower()


def check_distinct(df: Any, what: str = "the input") -> None:
    """Refuses a DataFrame with two columns of one name: a reference to it would be ambiguous."""
    cs = _case_sensitive(df)
    counts = Counter(_fold(c, cs) for c in df.columns)
    dups = [c for c in dict.fromkeys(df.columns) if counts[_fold(c, cs)] > 1]
    if dups:
        same = [c for c in df.columns if _fold(c, cs) == _fold(dups[0], cs)]
        raise IllegalArgumentError(
            f"{what} has the column {dups[0]!r} {len(same)} times ({', '.join(map(repr, same))}); "
            "rename them so that every column has its own name"
        )


def fresh_name(taken: Iterable[str], base: str) -> str:
    """``base``, or ``base_2``, ``base_3``... : the first that differs from every name in ``taken``, compared
    case-insensitively (so it is distinct whatever ``spark.sql.caseSensitive`` says)."""
    used = {t.lower() for t in taken}
    name, i = base, 1
    while name.lower() in used:
        i += 1
        name = f"{base}_{i}"
    return name


def rename_clashes(df: Any, reserved: Iterable[str]) -> tuple[Any, dict[str, str]]:
    """``df`` with every column named like one of ``reserved`` (the columns the job adds) renamed
    ``input_<name>`` (``input_<name>_2``... when that is taken too), and the renames made."""
    cs = _case_sensitive(df)
    clash = {_fold(r, cs) for r in reserved}
    renames: dict[str, str] = {}
    taken = [*df.columns, *reserved]
    for col in df.columns:
        if _fold(col, cs) in clash:
            new = fresh_name(taken, f"input_{col}")
            renames[col] = new
            taken.append(new)
    if renames:
        df = df.withColumnsRenamed(renames)
    return df, renames
