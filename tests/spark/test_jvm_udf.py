"""rocketroute's JVM UDFs (``rocketroute.spark.jvm``, the Java classes of ``java/src``) on a real local
SparkSession: every profile's UDF and the hash UDFs equal the per-call functions (native and reference) on many
keys and queue counts, edge cases included; lone surrogates, which a Spark string cannot carry, are checked on the
Java methods the UDFs call (through Py4J, with a ``StringBuilder``). Without the jar everything falls back.

The jar is built with the extension (``rust/python/build.rs``: ``make build``, ``pip wheel .``); where a JDK's ``javac``
exists these tests fail rather than skip when it is missing."""

from __future__ import annotations

import importlib
import random
import shutil

import pytest

import rocketroute.reference as ref
import rocketroute.reference.profiles as ref_profiles
from rocketroute.errors import IllegalArgumentError
from rocketroute.spark import jvm

pytestmark = pytest.mark.spark

NS = (1, 2, 3, 7, 16, 1000, 65537, 2**31 - 1)
EDGE_KEYS = [
    "",
    " ",
    "\t\n",
    "\u00a0",  # blank to Python, not to Java
    "\u0085",
    "\u2007",
    "\u202f",
    "\u3000",
    "\u200b",
    "polygenelubricants",  # String.hashCode is Integer.MIN_VALUE
    "GydZG_",
    "DESIGNING WORKHOUSES",
    "order-1",
    "h\u00e9llo",
    "\u952e",
    "\U0001f600",  # non-BMP: a surrogate pair in Java
    "\U0001f600 astral \U00010348",
    "\x00",
    "a" * 1000,
    "?",
]


def _random_keys(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    alphabet = "abcxyz0123-_: 键😀é\u00a0\u3000\t"
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40))) for _ in range(count)]


KEYS = [*EDGE_KEYS, *_random_keys(21, 400)]


@pytest.fixture(scope="module")
def udfs(spark):
    if jvm.jar_path() is None and shutil.which("javac") is None:
        pytest.skip("no JDK here: the UDF jar is not built (the jobs fall back; see test_fallback_*)")
    status = jvm.register_udfs(spark)
    assert status, f"the JVM UDFs do not load: {status.why} (build the jar: make build)"
    return status


def _expected(key: str, n: int, profile: str, module) -> int | None:
    try:
        return module.profile_select_index(key, n, profile)
    except IllegalArgumentError:
        return None


@pytest.mark.parametrize("profile", ref_profiles.PROFILES)
def test_every_profiles_udf_is_the_per_call_function(spark, udfs, backend, profile):
    profiles = importlib.import_module(backend.__name__ + ".profiles")
    name = jvm.PROFILE_UDFS[profile][0]
    df = spark.createDataFrame([(i, k) for i, k in enumerate(KEYS)] + [(len(KEYS), None)], "i int, k string")
    cols = [f"{name}(k, {n}) as n{j}" for j, n in enumerate(NS)]
    got = {r["i"]: r for r in df.selectExpr("i", *cols).collect()}
    for i, key in enumerate(KEYS):
        for j, n in enumerate(NS):
            assert got[i][f"n{j}"] == _expected(key, n, profile, profiles), (profile, key, n)
    assert all(got[len(KEYS)][f"n{j}"] is None for j in range(len(NS)))  # a null key has no index


def test_the_hash_udfs_are_select_message_queue_by_hash(spark, udfs):
    string_udf, utf8_udf, long_udf = (jvm.HASH_UDFS[t][0] for t in ("string", "utf8", "long"))
    rnd = random.Random(22)
    longs = [0, 1, -1, 2**31 - 1, -(2**31), 2**31, 2**63 - 1, -(2**63), 2**32 + 5, -(2**32) - 5]
    longs += [rnd.randrange(-(2**63), 2**63) for _ in range(300)]
    df = spark.createDataFrame(list(zip(KEYS, longs[: len(KEYS)], strict=False)), "k string, v long")
    df = df.union(spark.createDataFrame([(None, None)], "k string, v long"))
    calls = ((string_udf, "k", "k"), (utf8_udf, "cast(k as binary)", "b"), (long_udf, "v", "v"))
    cols = [f"{udf}({arg}, {n}) as {c}{j}" for j, n in enumerate(NS) for udf, arg, c in calls]
    by_string, by_long = ref.SelectMessageQueueByHash(), ref.SelectMessageQueueByHash(key_type="long")
    for r in df.selectExpr("k", "v", *cols).collect():
        for j, n in enumerate(NS):
            s_expected = None if r.k is None else by_string.select_index(r.k, n)
            l_expected = None if r.v is None else by_long.select_index(r.v, n)
            assert (r[f"k{j}"], r[f"b{j}"], r[f"v{j}"]) == (s_expected, s_expected, l_expected), (r.k, r.v, n)
    # bytes that are not UTF-8 (route rejects them): both read them as Spark's String does, U+FFFD for each bad one
    bad = ["ff", "61ff62", "c3", "eda080", "f09f98", "c328", "e282"]
    got = spark.sql(
        "select "
        + ", ".join(f"{string_udf}(cast(unhex('{h}') as string), 7) = {utf8_udf}(unhex('{h}'), 7)" for h in bad)
    ).collect()[0]
    assert all(got), got
    (row,) = spark.sql(f"select {string_udf}('polygenelubricants', 7) as i").collect()
    assert row.i == 2  # Math.abs(MIN_VALUE % 7) = |-2|; Math.abs(MIN_VALUE) % 7 would be -2


def _java_string(jvm_view, key: str):
    """A Java ``StringBuilder`` holding ``key``'s UTF-16 units as they are (Py4J would send a ``str`` as UTF-8,
    which has no lone surrogate)."""
    sb = jvm_view.java.lang.StringBuilder()
    for unit in memoryview(key.encode("utf-16-le", "surrogatepass")).cast("H"):
        sb.appendCodePoint(unit)  # a surrogate's value appends that one unit
    return sb


LONE = ["\ud800", "a\udc00b", "\udbff", "x\ud83d", "\ude00y", "\ud83d\ude00", "\ud83d\ud83d\ude00", " \ud800 "]


@pytest.mark.parametrize("profile", ref_profiles.PROFILES)
def test_lone_surrogates_on_the_java_methods_the_udfs_call(spark, udfs, profile):
    view = spark.sparkContext._jvm
    java = view.io.rocketroute.udf.Profiles
    for key in [*LONE, "abc", "\U0001f600"]:
        units = _java_string(view, key)
        assert units.length() == len(key.encode("utf-16-le", "surrogatepass")) // 2
        for n in (1, 7, 1000, 2**31 - 1):
            expected = _expected(key, n, profile, ref_profiles)
            got = java.index(profile, units, n)
            assert (None if got == -1 else got) == expected, (profile, key, n)


def test_a_queue_count_below_one_is_an_error(spark, udfs):
    name = jvm.PROFILE_UDFS["go4-fnv32a"][0]
    with pytest.raises(Exception, match="the queue count must be at least 1, not 0"):
        spark.sql(f"select {name}('a', 0)").collect()


def test_a_missing_packaged_jar_is_blamed_on_the_build_and_says_how_to_get_one(monkeypatch, tmp_path):
    monkeypatch.delenv(jvm.JAR_ENV, raising=False)
    monkeypatch.setattr(jvm, "_PACKAGED", tmp_path / "jars" / "rocketroute-udf.jar")
    status = jvm.register_udfs(None)  # no jar: answered before the session is touched
    assert not status and status.jar is None
    assert str(tmp_path / "jars" / "rocketroute-udf.jar") in status.why
    assert "built without its JVM UDF jar" in status.why and "JDK 17+" in status.why
    assert "pip install --force-reinstall ." in status.why and jvm.JAR_ENV in status.why


def test_fallback_without_the_jar(spark, monkeypatch, tmp_path):
    monkeypatch.setenv(jvm.JAR_ENV, str(tmp_path / "missing.jar"))
    assert jvm.jar_path() is None
    status = jvm.register_udfs(spark)
    assert not status and "missing.jar" in status.why and "is not a file" in status.why
    monkeypatch.setenv(jvm.JAR_ENV, "")
    assert not jvm.register_udfs(spark)


# ---- the jobs: route's hash paths and compare_profiles on the UDFs, and their fallbacks ----


@pytest.fixture(scope="module")
def spec():
    from rocketroute.spark import queue_spec

    return queue_spec("TopicTest", queues="broker-a:4,broker-b:3")


def _routed(result):
    return {r["id"]: (r["broker"], r["queue_id"], r["queue_index"]) for r in result.routed.collect()}


def test_route_on_every_hash_path_is_the_library_row_for_row(spark, udfs, spec):
    from rocketroute.spark import route
    from rocketroute.spark.jobs.route import HASH_PATHS

    rows = [(k, i) for i, k in enumerate(KEYS)] + [(None, len(KEYS))]
    df = spark.createDataFrame(rows, "key string, id long")
    results = {p: route(spark, df, spec, hash_path=p) for p in HASH_PATHS}
    assert {p: r.hash_path for p, r in results.items()} == {
        "jvm": "jvm-udf", "jvm-udf": "jvm-udf", "jvm-reflect": "jvm-reflect", "arrow": "arrow",
    }  # fmt: skip
    assert all(r.hash_fallback == "" for r in results.values())
    selector = ref.SelectMessageQueueByHash()
    expected = {i: spec.queues[selector.select_index(k, len(spec))] for k, i in rows if k is not None}
    expected = {i: (b, q, spec.queues.index((b, q))) for i, (b, q) in expected.items()}
    for path, result in results.items():
        assert _routed(result) == expected, path
        assert (result.routed_rows, result.rejected_rows) == (len(KEYS), 1), path
        result.unpersist()


def test_route_long_keys_on_the_udf_is_long_hashcode(spark, udfs, spec):
    from rocketroute.spark import route

    values = ["0", "-1", "2147483648", "-2147483649", "9223372036854775807", "-9223372036854775808", "4294967296"]
    rng = random.Random(23)
    values += [str(rng.randrange(-(2**63), 2**63)) for _ in range(200)]
    df = spark.createDataFrame([(v, i) for i, v in enumerate(values)], "key string, id long")
    result = route(spark, df, spec, key_type="long", hash_path="jvm-udf")
    selector = ref.SelectMessageQueueByHash(key_type="long")
    got = {i: q for i, (_, _, q) in _routed(result).items()}
    assert got == {i: selector.select_index(int(v), len(spec)) for i, v in enumerate(values)}
    result.unpersist()


def test_compare_profiles_on_the_udfs_equals_the_arrow_worker(spark, udfs):
    from rocketroute.spark.compat import compare_profiles

    keys = [*KEYS, *KEYS[:50], None]
    df = spark.createDataFrame([(k,) for k in keys], "key string").repartition(3)
    on_jvm = compare_profiles(df, "key", 7, ref_profiles.PROFILES, method="jvm")
    on_arrow = compare_profiles(df, "key", 7, ref_profiles.PROFILES, method="arrow")
    assert on_jvm == on_arrow
    assert compare_profiles(df, "key", 7, ref_profiles.PROFILES) == on_jvm
    both = {(r["a"], r["b"]): r["keys_both"] for r in on_jvm}
    assert both[("go4-fnv32a", "go4-fnv32a")] == len(set(KEYS)) - 1  # "" refused


def test_route_and_compare_fall_back_without_the_jar(spark, spec, monkeypatch, tmp_path):
    from rocketroute.spark import route
    from rocketroute.spark.compat import compare_profiles

    monkeypatch.setenv(jvm.JAR_ENV, str(tmp_path / "missing.jar"))
    df = spark.createDataFrame([(k, i) for i, k in enumerate(KEYS)], "key string, id long")
    result = route(spark, df, spec)
    assert result.hash_path == "jvm-reflect" and "missing.jar" in result.hash_fallback
    selector = ref.SelectMessageQueueByHash()
    assert {i: q for i, (_, _, q) in _routed(result).items()} == {
        i: selector.select_index(k, len(spec)) for i, k in enumerate(KEYS)
    }
    result.unpersist()
    with pytest.raises(IllegalArgumentError, match=r"hash_path 'jvm-udf' needs rocketroute's JVM UDFs: .*missing"):
        route(spark, df, spec, hash_path="jvm-udf")
    with pytest.raises(IllegalArgumentError, match="method 'jvm' needs"):
        compare_profiles(df, "key", 5, ["java-hashcode", "go4-fnv32a"], method="jvm")
    rows = compare_profiles(df, "key", 5, ["java-hashcode", "go4-fnv32a"])  # the Arrow worker
    assert {(r["a"], r["b"]): r["keys_both"] for r in rows}[("go4-fnv32a", "go4-fnv32a")] == len(set(KEYS)) - 1


@pytest.mark.parametrize("jar", ["as built", "missing"])
def test_route_int_keys_on_a_jvm_path_reports_jvm_sql_and_is_exact(spark, spec, monkeypatch, tmp_path, jar):
    """An int key on any ``jvm`` path is Spark SQL's ``abs(key % n)`` (``Integer.hashCode`` is the value): the
    result says ``jvm-sql``, not a UDF or ``reflect`` that did not run, with or without the jar (``jvm-udf``
    asked for explicitly works without it), and every row is still the library's."""
    from rocketroute.spark import route
    from rocketroute.spark.jobs.route import HASH_PATHS, HASH_PATHS_RUN

    if jar == "missing":
        monkeypatch.setenv(jvm.JAR_ENV, str(tmp_path / "missing.jar"))
    rng = random.Random(24)
    ints = [0, 1, -1, 7, -7, 2**31 - 1, -(2**31), *(rng.randrange(-(2**31), 2**31) for _ in range(300))]
    values = [str(v) for v in ints] + ["2147483648", "x"]
    df = spark.createDataFrame([(v, i) for i, v in enumerate(values)], "key string, id long")
    selector = ref.SelectMessageQueueByHash(key_type="int")
    expected = {i: selector.select_index(v, len(spec)) for i, v in enumerate(ints)}
    for path in HASH_PATHS:
        result = route(spark, df, spec, key_type="int", hash_path=path)
        assert result.hash_path == ("arrow" if path == "arrow" else "jvm-sql"), path
        assert result.hash_path in HASH_PATHS_RUN and result.hash_fallback == ""
        assert {i: q for i, (_, _, q) in _routed(result).items()} == expected, path
        assert (result.routed_rows, result.rejected_rows) == (len(ints), 2), path
        result.unpersist()


def test_cli_route_says_which_hash_path_ran(tmp_path, cli):
    """With the jar (this process's session has it) and without (a process of its own, pointed at a missing jar)."""
    import json
    import os
    import subprocess
    import sys

    src = tmp_path / "m.csv"
    src.write_text("key\n" + "".join(f"order-{i}\n" for i in range(50)))
    args = ["route", "--input", str(src), "--topic", "T", "--queues", "broker-a:4"]
    env = {**os.environ, jvm.JAR_ENV: str(tmp_path / "missing.jar")}
    done = subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", *args, "--master", "local[1]", "--out", str(tmp_path / "no_jar")],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    without = json.loads((tmp_path / "no_jar" / "summary" / "summary.json").read_text())
    assert without["hash_path"] == "jvm-reflect"
    assert "hash path jvm-reflect (the JVM UDFs are unavailable: ROCKETROUTE_UDF_JAR=" in done.stderr
    here = cli(*args, "--out", str(tmp_path / "default"))
    assert here.returncode == 0, here.stderr
    summary = json.loads((tmp_path / "default" / "summary" / "summary.json").read_text())
    if jvm.jar_path() is not None or shutil.which("javac"):
        assert summary["hash_path"] == "jvm-udf" and "route: hash path jvm-udf\n" in here.stderr
    assert summary["per_queue"] == without["per_queue"]


def test_register_adds_the_jar_to_a_session_made_elsewhere(udfs, tmp_path):
    # a session without spark.jars (not local_session's) in its own process: register_udfs adds the jar itself
    import subprocess
    import sys

    code = """if True:
        from pyspark.sql import SparkSession
        from rocketroute.spark import jvm
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        assert not spark.catalog.functionExists("rocketroute_hash_index")
        status = jvm.register_udfs(spark)
        assert status, status.why
        df = spark.range(0, 1000, numPartitions=3).selectExpr("rocketroute_hash_index(cast(id as string), 16) as q")
        print(df.groupBy().sum("q").collect()[0][0])
        spark.stop()
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    selector = ref.SelectMessageQueueByHash()
    assert done.stdout.split()[-1] == str(sum(selector.select_index(str(i), 16) for i in range(1000)))
