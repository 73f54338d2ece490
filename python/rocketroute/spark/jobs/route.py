"""``route``: every message of a dataset with the broker and queue the Java client would pick, bad rows set
aside with a reason, a per-queue table and skew metrics.

Selectors: ``hash`` (``SelectMessageQueueByHash`` on the key: stateless, runs anywhere), ``round-robin``
(``TopicPublishInfo.select_one_message_queue`` with fault tolerance off: each producer's own index, over its
messages in time order) and ``random`` (each producer's own seeded ``SelectMessageQueueByRandom``).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import IllegalArgumentError, NumberFormatError
from ..columns import check_distinct, fresh_name, rename_clashes

__all__ = [
    "SELECTORS",
    "HASH_PATHS",
    "HASH_PATHS_RUN",
    "QueueSpec",
    "RouteResult",
    "parse_queue_list",
    "queue_spec",
    "route",
    "skew_metrics",
]

SELECTORS = ("hash", "round-robin", "random")
#: the hash paths one asks for: ``jvm``: the JVM UDF when its jar is loaded, else ``reflect``; ``jvm-udf`` /
#: ``jvm-reflect``: that one only; ``arrow``: the native batch functions in a Python Arrow worker
HASH_PATHS = ("jvm", "jvm-udf", "jvm-reflect", "arrow")
#: the hash paths a result reports (what ran): ``jvm-udf``, ``jvm-reflect``, ``arrow``, and ``jvm-sql``, an int
#: key on any ``jvm`` path: Spark SQL's own ``abs(key % n)`` in the JVM (``Integer.hashCode`` is the value), no
#: UDF and no ``reflect``
HASH_PATHS_RUN = ("jvm-udf", "jvm-reflect", "jvm-sql", "arrow")
KEY_TYPES = ("string", "int", "long")
#: the columns route adds to the input's: ``broker``, ``queue_id``, ``queue_index`` in routed, ``reason`` in rejected
OUTPUT_COLUMNS = ("broker", "queue_id", "queue_index", "reason")


@dataclass(frozen=True)
class _Internal:
    """The working columns' names, generated to differ from every input column."""

    key: str
    reject: str
    qi: str
    order: str

    @classmethod
    def avoiding(cls, columns: list[str]) -> _Internal:
        taken = [*columns, *OUTPUT_COLUMNS]
        names: list[str] = []
        for base in ("_key", "_reject", "_queue_index", "_input_order"):
            names.append(fresh_name([*taken, *names], base))
        return cls(*names)


@dataclass(frozen=True)
class QueueSpec:
    """The topic's publish queues, ``(broker, queue_id)`` in the order selectors index them."""

    topic: str
    queues: tuple[tuple[str, int], ...]

    def __len__(self) -> int:
        return len(self.queues)


def queue_spec(topic: str, *, route_json: Any = None, queues: str | None = None, compat: str = "5.3") -> QueueSpec:
    """From the name server's route JSON (as ``TopicPublishInfo.from_route`` builds the publish queues), or
    from ``"broker-a:8,broker-b:8"`` (those queues in that order, read as Java reads ``orderTopicConf``)."""
    import rocketroute as rr

    if (route_json is None) == (queues is None):
        raise IllegalArgumentError("give exactly one of a route (route_json) and a queue list (queues)")
    if route_json is not None:
        route = rr.TopicRouteData.from_json(route_json)
        _check_is_a_route(route_json)
    else:
        pairs = parse_queue_list(str(queues))
        route = rr.TopicRouteData(order_topic_conf=";".join(f"{b}:{n}" for b, n in pairs))
    tp = rr.TopicPublishInfo.from_route(topic, route, compat=compat)
    if not tp.ok():
        brokers = sorted({q.broker_name for q in route.queue_datas or ()})
        why = f" (its queue data name {', '.join(brokers)}, none with a writeable queue on a master)" if brokers else ""
        raise IllegalArgumentError(f"the route of {topic!r} has no writeable queue{why}")
    return QueueSpec(topic, tuple((mq.broker_name, mq.queue_id) for mq in tp.message_queues))


def parse_queue_list(text: str) -> list[tuple[str, int]]:
    """``"broker-a:8,broker-b:8"``: each broker and its queue count, in order (spaces around a name or a count are
    allowed). Anything else is an :class:`IllegalArgumentError` that says what is wrong in one line: a part
    without ``:``, an empty name, a count that is not a whole number (a :class:`NumberFormatError`, as Java's
    ``Integer.parseInt`` raises) or is below 1, a broker named twice."""
    form = "--queues takes broker:count pairs, e.g. broker-a:8,broker-b:8"
    pairs: list[tuple[str, int]] = []
    seen: set[str] = set()
    for part in text.split(","):
        broker, sep, count = (x.strip() for x in part.partition(":"))
        if not sep:
            raise IllegalArgumentError(f"{form}; {part.strip()!r} has no ':count'")
        if not broker:
            raise IllegalArgumentError(f"{form}; {part.strip()!r} has no broker name")
        if not re.fullmatch(r"[+-]?[0-9]+", count):  # what Java's Integer.parseInt reads
            raise NumberFormatError(
                f"{form}; the queue count of {broker!r} must be a whole number of at least 1, not {count!r}"
            )
        if int(count) < 1:
            raise IllegalArgumentError(
                f"{form}; the queue count of {broker!r} must be a whole number of at least 1, not {count!r}"
            )
        if broker in seen:
            raise IllegalArgumentError(
                f"{form}; {broker!r} is named twice (give each broker once, with its total count)"
            )
        seen.add(broker)
        pairs.append((broker, int(count)))
    return pairs


def _check_is_a_route(route_json: Any) -> None:
    """A JSON document with neither ``queueDatas`` nor ``brokerDatas`` is not a topic route (a route file mixed
    up with another JSON file): said as such, rather than as a route with no writeable queue."""
    import json

    try:
        doc = json.loads(route_json) if isinstance(route_json, (str, bytes)) else route_json
    except ValueError:
        return  # from_json has already said it is not valid JSON
    if not isinstance(doc, dict) or not ({"queueDatas", "brokerDatas"} & set(doc)):
        keys = ", ".join(sorted(map(str, doc))[:5]) if isinstance(doc, dict) else type(doc).__name__
        raise IllegalArgumentError(
            f"this is not a topic route (a TopicRouteData JSON from the name server, with queueDatas and "
            f"brokerDatas); it has: {keys or 'nothing'}"
        )


@dataclass
class RouteResult:
    """The routed rows (input columns + ``broker``, ``queue_id``, ``queue_index``), the rejected rows (input
    columns + ``reason``), the per-queue table, the hottest keys of each queue, and the counts and skew.
    ``renamed``: the input columns named like an output column, and their names in routed and rejected
    (``{"broker": "input_broker"}``)."""

    routed: Any
    rejected: Any
    per_queue: Any
    hot_keys: Any
    input_rows: int
    routed_rows: int
    rejected_rows: int
    skew: dict[str, float]
    cached: list[Any] = field(default_factory=list, repr=False)
    renamed: dict[str, str] = field(default_factory=dict)
    #: the hash path that ran (one of :data:`HASH_PATHS_RUN`; None for the other selectors)
    hash_path: str | None = None
    #: why ``hash_path="jvm"`` did not run the JVM UDF (empty when it did, or was not asked to)
    hash_fallback: str = ""

    def unpersist(self) -> None:
        """Free the cached routed rows once the outputs are written."""
        for df in self.cached:
            df.unpersist()

    def write_aggregates(self, out: str | Path) -> list[Path]:
        """Write the small aggregates the report reads into the job's output folder ``out``:
        ``summary/hot_keys.json`` (:data:`~rocketroute.spark.aggregates.HOT_KEYS`), collected on the driver
        (at most ``hot_keys`` rows per queue). Returns the paths written."""
        from ..aggregates import HOT_KEYS, write_records

        rows = [r.asDict() for r in self.hot_keys.select(*HOT_KEYS.names).collect()]
        return [write_records(Path(out), HOT_KEYS, rows)]


def skew_metrics(messages: list[int]) -> dict[str, float]:
    """Max/mean, coefficient of variation (population) and Gini coefficient of per-queue message counts."""
    n = len(messages)
    total = sum(messages)
    if n == 0 or total == 0:
        return {"max_over_mean": 0.0, "cv": 0.0, "gini": 0.0}
    mean = total / n
    var = sum((m - mean) ** 2 for m in messages) / n
    ordered = sorted(messages)
    gini = sum((2 * (i + 1) - n - 1) * m for i, m in enumerate(ordered)) / (n * total)
    return {"max_over_mean": max(messages) / mean, "cv": math.sqrt(var) / mean, "gini": gini}


def _check_columns(
    df: Any, key: str | None, key_type: str | None, size: str | None, producer: str | None, ts: str | None
) -> None:
    """Clear errors for missing or unusable columns, before any Spark job runs."""
    from pyspark.sql.types import IntegralType, StringType

    names = set(df.columns)
    for what, col in (("key", key), ("size", size), ("producer", producer), ("timestamp", ts)):
        if col is not None and col not in names:
            raise IllegalArgumentError(f"the {what} column {col!r} is not in the input (columns: {sorted(names)})")
    if key is None or key_type is None:
        return
    dtype = df.schema[key].dataType
    if key_type == "string" and not isinstance(dtype, StringType):
        raise IllegalArgumentError(
            f"the key column {key!r} is {dtype.simpleString()}: Java hashes a String and a Long differently; "
            "use --key-type int or long, or cast the column to string"
        )
    if key_type != "string" and not isinstance(dtype, (StringType, IntegralType)):
        raise IllegalArgumentError(f"the key column {key!r} is {dtype.simpleString()}, not an integer or a string")


def _with_reject_reason(df: Any, key: str | None, key_type: str | None, size: str | None, names: _Internal) -> Any:
    """Adds ``names.reject`` (why a row cannot be sent, or null) and ``names.key`` (the key as the selector
    reads it; ``key_type`` None: the selector does not read the key). A string key whose bytes are not valid
    UTF-8 (Parquet does not check) is rejected: Java would hash it with U+FFFD in place of the bad bytes, and
    no real producer could have sent that key as it stands."""
    from pyspark.sql import functions as F

    if key is None or key_type is None:
        parsed = F.lit(None).cast("string")
        reason = F.when(F.lit(False), F.lit(""))
    elif key_type == "string":
        parsed = F.col(key)
        reason = F.when(parsed.isNull(), F.lit("null key")).when(
            ~F.is_valid_utf8(parsed), F.lit("key is not valid UTF-8")
        )
    else:
        k = F.col(key)
        parsed = k.try_cast("long")
        reason = F.when(k.isNull(), F.lit("null key")).when(parsed.isNull(), F.lit("key is not an integer"))
        if key_type == "int":
            reason = reason.when((parsed < -(2**31)) | (parsed > 2**31 - 1), F.lit("key is out of the Java int range"))
    if size is not None:
        s = F.col(size).try_cast("long")
        reason = reason.when(F.col(size).isNotNull() & s.isNull(), F.lit("size is not an integer")).when(
            s < 0, F.lit("negative size")
        )
    return df.withColumn(names.key, parsed).withColumn(names.reject, reason)


def _hash_batches(batches: Iterator[Any], *, key_type: str, n: int, names: _Internal) -> Iterator[Any]:
    """Arrow worker: the ``SelectMessageQueueByHash`` index of every valid row (-1 for rejected rows)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rocketroute import batch

    for b in batches:
        valid = pc.is_null(b.column(names.reject))
        keys = pc.if_else(valid, b.column(names.key), pa.scalar(None, b.column(names.key).type))
        idx = batch.hash_select_indices(keys, n, key_type, nulls="mask")
        yield b.append_column(names.qi, pa.array(idx.filled(-1), type=pa.int32()))


def _sequence_batches(
    batches: Iterator[Any],
    *,
    selector: str,
    n: int,
    producer: str | None,
    compat: str,
    start_index: int,
    seed: int,
    names: _Internal,
) -> Iterator[Any]:
    """Arrow worker over one partition holding whole producers in send order: each producer's own
    round-robin index (or seeded random selector), advanced only by the rows it really sends."""
    import pyarrow as pa
    import pyarrow.compute as pc

    import rocketroute as rr

    state: dict[Any, Any] = {}
    for b in batches:
        valid = pc.is_null(b.column(names.reject)).to_pylist()
        owners = b.column(producer).to_pylist() if producer else [None] * b.num_rows
        out = []
        for ok, p in zip(valid, owners, strict=True):
            if not ok:
                out.append(-1)
                continue
            s = state.get(p)
            if s is None:
                if selector == "round-robin":
                    s = rr.SendWhichQueue(compat, start=start_index)
                else:
                    salt = 0 if p is None else rr.java_string_hash(str(p))
                    s = rr.SelectMessageQueueByRandom(rr.JavaRandom(seed + salt))
                state[p] = s
            out.append(s.increment_and_get() % n if selector == "round-robin" else s.select_index(n))
        yield b.append_column(names.qi, pa.array(out, type=pa.int32()))


def _jvm_hash_index(key_type: str, n: int, names: _Internal, *, udf: bool) -> Any:
    """The hash index in the JVM alone: ``udf``, our Java UDF (:data:`rocketroute.spark.jvm.HASH_UDFS`);
    otherwise ``java.util.Objects.hashCode`` through Spark SQL's ``reflect``. An int key is Spark SQL either way
    (``Integer.hashCode`` is the value; reported as ``jvm-sql``)."""
    from pyspark.sql import functions as F

    from ..jvm import HASH_UDFS

    if key_type == "int":
        index = F.abs(F.col(names.key).cast("int") % F.lit(n))
    elif udf and key_type == "string":  # the UTF-8 bytes: no Java String per row, the same index
        index = F.call_function(HASH_UDFS["utf8"][0], F.col(names.key).cast("binary"), F.lit(n))
    elif udf:
        index = F.call_function(HASH_UDFS["long"][0], F.col(names.key), F.lit(n))
    else:
        cls = "java.util.Objects" if key_type == "string" else "java.lang.Long"
        h = F.expr(f"reflect('{cls}', 'hashCode', `{names.key}`)").cast("int")
        index = F.abs(h % F.lit(n))
    return F.when(F.col(names.reject).isNull(), index).otherwise(F.lit(-1)).cast("int")


def _choose_hash_path(spark: Any, hash_path: str, key_type: str) -> tuple[str, str]:
    """The hash path to run for the asked one (one of :data:`HASH_PATHS_RUN`), and why ``jvm`` fell back to
    ``reflect`` (or ""). An int key on a ``jvm`` path is ``jvm-sql``: it needs neither the UDF nor ``reflect``,
    so ``jvm-udf`` works without the jar."""
    if hash_path.startswith("jvm") and key_type == "int":
        return "jvm-sql", ""
    if hash_path not in ("jvm", "jvm-udf"):
        return hash_path, ""
    from ..jvm import register_udfs

    status = register_udfs(spark)
    if status:
        return "jvm-udf", ""
    if hash_path == "jvm-udf":
        raise IllegalArgumentError(f"hash_path 'jvm-udf' needs rocketroute's JVM UDFs: {status.why}")
    return "jvm-reflect", status.why


def route(
    spark: Any,
    df: Any,
    spec: QueueSpec,
    *,
    selector: str = "hash",
    key: str | None = "key",
    key_type: str = "string",
    size: str | None = None,
    producer: str | None = None,
    ts: str | None = None,
    compat: str = "5.3",
    start_index: int = -1,
    seed: int = 0,
    hash_path: str = "jvm",
    hot_keys: int = 5,
) -> RouteResult:
    """Route every row of ``df`` onto ``spec``'s queues as the Java client's ``selector`` would.

    Rows that cannot be sent (a null or non-integer key, a string key that is not valid UTF-8, a negative size)
    go to ``rejected`` with a reason; ``input_rows == routed_rows + rejected_rows`` is checked. Columns: ``df``
    may not have two columns of one name; an input column named like an output one (``broker``, ``queue_id``,
    ``queue_index``, ``reason``, case-insensitively) is kept as ``input_<name>`` (see ``renamed``).
    ``round-robin`` starts every producer's index at ``start_index`` (so the first message goes to queue
    ``(start_index + 1) % n``; Java draws it at random), and ``random`` seeds each producer's selector with
    ``seed + String.hashCode(producer)``. Rows of a producer are taken in ``ts`` order (then input order).
    ``hash_path="jvm"`` (the default) runs the hash selector in the JVM alone: rocketroute's Java UDF
    (``"jvm-udf"``, :mod:`rocketroute.spark.jvm`) when its jar is built and loads, else Spark SQL's ``reflect``
    (``"jvm-reflect"``; ``hash_fallback`` says why); ``"arrow"`` runs the native batch functions in a Python
    Arrow worker. All give the same answer; ``rocketroute bench-spark`` measures them (the UDF is the fastest:
    rows never leave the JVM, and nothing is called by reflection). ``hash_path`` in the result is the path that
    ran: an int key on a ``jvm`` path is ``"jvm-sql"`` (Spark SQL's ``abs(key % n)``, since ``Integer.hashCode``
    is the value: no UDF, no ``reflect``). Round-robin and random do not read the key: without a ``key`` column
    they route all the same (and report no hot keys)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType, StructField, StructType

    if selector not in SELECTORS:
        raise IllegalArgumentError(f"selector must be one of {SELECTORS}, not {selector!r}")
    if key_type not in KEY_TYPES:
        raise IllegalArgumentError(f"key_type must be one of {KEY_TYPES}, not {key_type!r}")
    if hash_path not in HASH_PATHS:
        raise IllegalArgumentError(f"hash_path must be one of {HASH_PATHS}, not {hash_path!r}")
    check_distinct(df)
    read_key = key_type if selector == "hash" else None  # round-robin and random ignore the key
    if selector != "hash" and key is not None and key not in df.columns:
        key = None
    if selector == "hash" and key is None:
        raise IllegalArgumentError("the hash selector needs a key column")
    _check_columns(df, key, read_key, size, producer, ts)
    input_df = df
    # an input column named like an output one is kept under another name; the job's own columns get names
    # that no input column has, so nothing of the input is ever overwritten
    df, renamed = rename_clashes(df, OUTPUT_COLUMNS)
    key, size, producer, ts = (None if c is None else renamed.get(c, c) for c in (key, size, producer, ts))
    names = _Internal.avoiding(df.columns)
    n = len(spec)
    checked = _with_reject_reason(df, key, read_key, size, names)
    out_schema = StructType([*checked.schema.fields, StructField(names.qi, IntegerType(), False)])
    ran, fallback = _choose_hash_path(spark, hash_path, key_type) if selector == "hash" else (None, "")
    if ran in ("jvm-udf", "jvm-reflect", "jvm-sql"):
        indexed = checked.withColumn(names.qi, _jvm_hash_index(key_type, n, names, udf=ran == "jvm-udf"))
    elif selector == "hash":
        worker = functools.partial(_hash_batches, key_type=key_type, n=n, names=names)
        indexed = checked.mapInArrow(worker, out_schema)
    else:
        order = [producer] if producer else []
        # the input position is taken before the shuffle, which would reorder rows
        numbered = checked.withColumn(names.order, F.monotonically_increasing_id())
        part = numbered.repartition(*[F.col(c) for c in order]) if producer else numbered.repartition(1)
        sort_cols = [*order, *([ts] if ts else []), names.order]
        part = part.sortWithinPartitions(*sort_cols).drop(names.order)
        worker = functools.partial(
            _sequence_batches,
            selector=selector,
            n=n,
            producer=producer,
            compat=compat,
            start_index=start_index,
            seed=seed,
            names=names,
        )
        indexed = part.mapInArrow(worker, out_schema)
    indexed = indexed.persist()
    queues = spark.createDataFrame(
        [(i, b, q) for i, (b, q) in enumerate(spec.queues)],
        schema=f"`{names.qi}` int, broker string, queue_id int",
    )
    routed = (
        indexed.where(F.col(names.reject).isNull())
        .join(F.broadcast(queues), on=names.qi, how="inner")
        .withColumnRenamed(names.qi, "queue_index")
        .drop(names.reject, names.key)
    )
    rejected = (
        indexed.where(F.col(names.reject).isNotNull())
        .withColumnRenamed(names.reject, "reason")
        .drop(names.qi, names.key)
    )
    input_rows = input_df.count()  # counted from the input itself, so a lost row cannot go unnoticed
    split = {
        r["ok"]: r["rows"]
        for r in indexed.groupBy(F.col(names.reject).isNull().alias("ok"))
        .count()
        .withColumnRenamed("count", "rows")
        .collect()
    }
    routed_rows, rejected_rows = split.get(True, 0), split.get(False, 0)
    if input_rows != routed_rows + rejected_rows:
        raise RuntimeError(
            f"row conservation failed: {input_rows} input rows != {routed_rows} routed + {rejected_rows} rejected"
        )
    size_sum = F.sum(F.col(size).cast("long")) if size else F.lit(0).cast("long")
    counts = routed.groupBy("queue_index").agg(F.count(F.lit(1)).alias("messages"), size_sum.alias("bytes"))
    per_queue = (
        queues.withColumnRenamed(names.qi, "queue_index")
        .join(counts, on="queue_index", how="left")
        .fillna(0, subset=["messages", "bytes"])
        .withColumn("share", F.col("messages") / F.lit(max(routed_rows, 1)))
        .orderBy("queue_index")
    )
    messages = [int(r["messages"]) for r in per_queue.select("messages").collect()]
    from pyspark.sql.window import Window

    w = Window.partitionBy("queue_index").orderBy(F.col("messages").desc(), F.col("key"))
    keyed = routed if key is not None else routed.where(F.lit(False))  # no key column: no hot keys
    key_col = F.col(key).cast("string") if key is not None else F.lit(None).cast("string")
    hot = (
        keyed.groupBy("queue_index", key_col.alias("key"))
        .agg(F.count(F.lit(1)).alias("messages"))
        .withColumn("rank", F.row_number().over(w))
        .where(F.col("rank") <= hot_keys)
        .orderBy("queue_index", "rank")
    )
    return RouteResult(
        routed,
        rejected,
        per_queue,
        hot,
        input_rows,
        routed_rows,
        rejected_rows,
        skew_metrics(messages),
        [indexed],
        renamed,
        ran,
        fallback,
    )
