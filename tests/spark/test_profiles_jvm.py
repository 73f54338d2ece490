"""The Java-side routing profiles against the real thing on the JVM that ships with pyspark: Guava's
``Hashing.sipHash24()``, ``LongMath.mod`` and ``Hashing.consistentHash`` (called through Py4J), Java's
``String.hashCode`` and ``Character.isWhitespace`` (through Spark SQL ``reflect``)."""

from __future__ import annotations

import importlib
import random

import pytest

from rocketroute.errors import IllegalArgumentError

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def guava(spark):
    jvm = spark.sparkContext._jvm
    return jvm.com.google.common.hash.Hashing, jvm.com.google.common.math.LongMath, jvm


def _keys(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    alphabet = "abcxyz0123-_:键😀é\u00a0"
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 14))) for _ in range(count)]


def test_java5_grpc_siphash_is_guavas_siphash_and_long_math_mod(guava, backend):
    hashing, long_math, jvm = guava
    profiles = importlib.import_module(backend.__name__ + ".profiles")
    sip, utf8 = hashing.sipHash24(), jvm.java.nio.charset.StandardCharsets.UTF_8
    for key in [*_keys(11, 150), "order-42", "a" * 100]:
        h = sip.hashString(key, utf8).asLong()
        for n in (1, 3, 16, 1000, 2**31 - 1):
            assert profiles.profile_select_index(key, n, "java5-grpc-siphash") == long_math.mod(h, n), (key, n)


def test_proxy_jump_is_guavas_consistent_hash_of_hashcode(guava, backend):
    hashing, _, jvm = guava
    profiles = importlib.import_module(backend.__name__ + ".profiles")
    for key in [*_keys(12, 150), ""]:
        h = jvm.java.util.Objects.hashCode(key)
        for n in (1, 2, 7, 64, 1000, 2**31 - 1):
            assert profiles.profile_select_index(key, n, "proxy-jump") == hashing.consistentHash(h, n), (key, n)


def test_jump_hash_of_extreme_longs_is_guavas(guava):
    from rocketroute.reference.profiles import jump_hash

    hashing, _, _ = guava
    rnd = random.Random(13)
    for key in [0, 1, -1, 2**63 - 1, -(2**63)] + [rnd.randrange(-(2**63), 2**63) for _ in range(40)]:
        for n in (1, 2, 5, 100, 65536, 2**31 - 1):
            assert jump_hash(key, n) == hashing.consistentHash(key, n), (key, n)


def test_java_hashcode_is_the_jvms_string_hashcode(spark, backend):
    profiles = importlib.import_module(backend.__name__ + ".profiles")
    keys = _keys(14, 300)
    rows = spark.createDataFrame([(k,) for k in keys], "k string").selectExpr(
        "k", "cast(reflect('java.util.Objects', 'hashCode', k) as int) as h"
    )
    for row in rows.collect():
        for n in (3, 16, 2**31 - 1):
            # Math.abs(h % n) with Java's truncating remainder is |h| mod n
            assert profiles.profile_select_index(row.k, n, "java-hashcode") == abs(row.h) % n


def test_grpc_blank_is_character_is_whitespace(spark, backend):
    # every code point the JVM calls whitespace, against the one-character keys the profile refuses
    profiles = importlib.import_module(backend.__name__ + ".profiles")
    whitespace = {
        r.id
        for r in spark.range(0, 0x110000)
        .selectExpr("id", "reflect('java.lang.Character', 'isWhitespace', cast(id as int)) as ws")
        .where("ws = 'true'")
        .collect()
    }
    assert whitespace  # the JVM answered
    candidates = whitespace | {0x85, 0xA0, 0x2007, 0x202F, 0x180E, 0x200B, 0xFEFF, 0x41}
    for cp in sorted(candidates):
        try:
            profiles.profile_select_index(chr(cp), 16, "java5-grpc-siphash")
            refused = False
        except IllegalArgumentError:
            refused = True
        assert refused == (cp in whitespace), hex(cp)
