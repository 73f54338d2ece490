"""``compare_profiles``: for the keys of a routed dataset, how often every two clients' routing profiles
(:mod:`rocketroute.profiles`) put a key on the same queue: what a mixed Java / Go / Python / proxy fleet
does to per-key ordering. Counted over distinct keys and over messages (a key weighs its message count), in the
JVM with the profiles' Java UDFs where their jar is built, else in a native Arrow worker."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import IllegalArgumentError

__all__ = ["COMPAT_COLUMNS", "compare_profiles", "parse_profiles"]

COMPAT_COLUMNS = ("a", "b", "keys_both", "keys_same", "messages_both", "messages_same", "key_share", "message_share")


def parse_profiles(text: str) -> tuple[str, ...]:
    """``"all"`` or a comma-separated list of profile names (each checked, duplicates dropped)."""
    from ..reference.profiles import PROFILES, check_profile

    if text.strip() == "all":
        return PROFILES
    names = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    if len(names) < 2:
        raise IllegalArgumentError(f"--compare-profiles needs two profiles or more (or 'all'), not {text!r}")
    return tuple(check_profile(p) for p in names)


def _pair_batches(batches: Iterator[Any], *, profiles: Sequence[str], n: int) -> Iterator[Any]:
    """Arrow worker over (key, messages) rows: each profile pair's agreement counts of this batch."""
    import numpy as np
    import pyarrow as pa

    from rocketroute import profiles as rp

    for b in batches:
        keys = b.column(0)
        weights = np.asarray(b.column(1).to_numpy(zero_copy_only=False), dtype=np.int64)
        placed, index = [], []
        for p in profiles:
            out = rp.profile_select_indices(keys, n, p, nulls="mask", refused="mask")
            placed.append(~np.ma.getmaskarray(out))
            index.append(np.ma.getdata(out))
        rows: dict[str, list[Any]] = {c: [] for c in COMPAT_COLUMNS[:6]}
        for i, a in enumerate(profiles):
            for j in range(i, len(profiles)):
                both = placed[i] & placed[j]
                same = both & (index[i] == index[j])
                for col, v in zip(
                    COMPAT_COLUMNS[:6],
                    (
                        a,
                        profiles[j],
                        int(both.sum()),
                        int(same.sum()),
                        int(weights[both].sum()),
                        int(weights[same].sum()),
                    ),
                    strict=True,
                ):
                    rows[col].append(v)
        yield pa.RecordBatch.from_pydict(rows)


def _pair_sums_jvm(keyed: Any, profiles: Sequence[str], n: int) -> list[dict[str, Any]]:
    """The pair counts in the JVM alone: each profile's index by its Java UDF (null where refused), then one
    aggregation with the four sums of every pair (``i <= j``)."""
    from pyspark.sql import functions as F

    from .jvm import PROFILE_UDFS

    cols = [f"p{i}" for i in range(len(profiles))]
    index = [F.call_function(PROFILE_UDFS[p][0], F.col("key"), F.lit(n)) for p in profiles]
    indexed = keyed.select("messages", *[i.alias(c) for i, c in zip(index, cols, strict=True)])
    zero = F.lit(0).cast("long")
    aggs = []
    for i in range(len(profiles)):
        for j in range(i, len(profiles)):
            both = F.col(cols[i]).isNotNull() & F.col(cols[j]).isNotNull()
            same = both & (F.col(cols[i]) == F.col(cols[j]))
            aggs += [
                F.sum(F.when(both, F.lit(1).cast("long")).otherwise(zero)).alias(f"kb_{i}_{j}"),
                F.sum(F.when(same, F.lit(1).cast("long")).otherwise(zero)).alias(f"ks_{i}_{j}"),
                F.sum(F.when(both, F.col("messages")).otherwise(zero)).alias(f"mb_{i}_{j}"),
                F.sum(F.when(same, F.col("messages")).otherwise(zero)).alias(f"ms_{i}_{j}"),
            ]
    row = indexed.agg(*aggs).collect()[0]
    return [
        dict(
            zip(
                ("a", "b", *COMPAT_COLUMNS[2:6]),
                (profiles[i], profiles[j], *(row[f"{p}_{i}_{j}"] for p in ("kb", "ks", "mb", "ms"))),
                strict=True,
            )
        )
        for i in range(len(profiles))
        for j in range(i, len(profiles))
    ]


def compare_profiles(
    df: Any, key: str, num_queues: int, profiles: Sequence[str], *, method: str = "auto"
) -> list[dict[str, Any]]:
    """Every ordered pair of ``profiles`` (the diagonal included) with the keys and messages both place and the
    ones they place on the same queue among ``num_queues``, and the two shares (``None`` when nothing is
    placed by both). ``df`` holds the messages; its ``key`` column is read as a string, nulls left out.
    ``method``: ``"jvm"`` (the profiles' Java UDFs, :mod:`rocketroute.spark.jvm`), ``"arrow"`` (the native
    profile functions in a Python Arrow worker) or ``"auto"`` (the default: ``jvm`` when its jar loads); the
    same counts either way."""
    from pyspark.sql import functions as F

    from ..reference.profiles import check_profile
    from .jvm import register_udfs

    if method not in ("auto", "jvm", "arrow"):
        raise IllegalArgumentError(f"method must be one of ('auto', 'jvm', 'arrow'), not {method!r}")

    names = tuple(check_profile(p) for p in profiles)
    if num_queues < 1:
        raise IllegalArgumentError(f"num_queues must be positive, not {num_queues}")
    keyed = (
        df.select(F.col(key).cast("string").alias("key"))
        .where(F.col("key").isNotNull())
        .groupBy("key")
        .agg(F.count(F.lit(1)).alias("messages"))
    )
    status = register_udfs(df.sparkSession) if method != "arrow" else None
    if method == "jvm" and not status:
        raise IllegalArgumentError(f"method 'jvm' needs rocketroute's JVM UDFs: {status.why if status else ''}")
    if status:
        found = {(r["a"], r["b"]): r for r in _pair_sums_jvm(keyed, names, num_queues)}
    else:
        schema = "a string, b string, keys_both long, keys_same long, messages_both long, messages_same long"
        worker = functools.partial(_pair_batches, profiles=names, n=num_queues)
        sums = (
            keyed.mapInArrow(worker, schema)
            .groupBy("a", "b")
            .agg(*[F.sum(c).alias(c) for c in COMPAT_COLUMNS[2:6]])
            .collect()
        )
        found = {(r["a"], r["b"]): r.asDict() for r in sums}
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            r = found.get((a, b) if i <= j else (b, a))
            counts = [0, 0, 0, 0] if r is None else [int(r[c] or 0) for c in COMPAT_COLUMNS[2:6]]
            keys_both, keys_same, msgs_both, msgs_same = counts
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "keys_both": keys_both,
                    "keys_same": keys_same,
                    "messages_both": msgs_both,
                    "messages_same": msgs_same,
                    "key_share": keys_same / keys_both if keys_both else None,
                    "message_share": msgs_same / msgs_both if msgs_both else None,
                }
            )
    return rows
