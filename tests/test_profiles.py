"""Cross-client routing profiles, on both backends, proven against the clients' own code where it is
installed (the Python 5.x client's ``QueueSelector``, kafka-python's ``murmur2``) and against published
test values (Go's FNV-32a, the SipHash paper); the C++ client's std::hash in ``tests/test_profile_cpp.py``.
Guava's SipHash and jump hash are checked on the JVM in ``tests/spark/test_profiles_jvm.py``."""

from __future__ import annotations

import importlib
import random
import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError, JavaArithmeticError, NullPointerError

from ._java import INT_MAX, java_text, python_text
from .test_differential import same

PROFILES = (
    "java-hashcode",
    "java5-grpc-siphash",
    "proxy-jump",
    "python5-sha256",
    "go4-fnv32a",
    "kafka-murmur2",
    "cpp2-stdhash",
)


@pytest.fixture(scope="session")
def profiles(backend):
    """``rocketroute.profiles`` or ``rocketroute.reference.profiles``."""
    return importlib.import_module(backend.__name__ + ".profiles")


def _keys(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    alphabet = "abcxyz0123-_ 键😀é"
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 16))) for _ in range(count)]


def _placed(profiles, key: str, n: int, profile: str) -> int | None:
    try:
        return profiles.profile_select_index(key, n, profile)
    except IllegalArgumentError:
        return None


def test_profile_names(profiles):
    assert profiles.PROFILES == PROFILES


# ------------------------------------------------------------------------------------------------ oracles


def test_python5_is_the_python_clients_own_queue_selector(profiles):
    from rocketmq.v5.client.balancer.queue_selector import QueueSelector

    keys = [k for k in _keys(1, 400) if k.strip()] + ["order-1", "键", "😀", "a" * 300]
    for n in (1, 2, 3, 7, 16, 64, 1000):
        selector = QueueSelector(list(range(n)))
        for key in keys:
            assert profiles.profile_select_index(key, n, "python5-sha256") == selector.select_queue_by_hash_key(key)


def test_kafka_is_kafka_pythons_murmur2_partitioner(profiles):
    from kafka.partitioner.default import murmur2

    keys = [*_keys(2, 400), "", "a", "ab", "abc", "abcd", "abcde"]
    for n in (1, 3, 12, 100, INT_MAX):
        for key in keys:
            expected = (murmur2(key.encode("utf-8")) & 0x7FFFFFFF) % n
            assert profiles.profile_select_index(key, n, "kafka-murmur2") == expected, (key, n)


# Go's hash/fnv golden values for FNV-1a, 32 bits
FNV32A = {"a": 0xE40C292C, "ab": 0x4D2505CA, "abc": 0x1A47E90B, "foobar": 0xBF9CF968}


def test_go4_is_fnv32a_of_the_published_vectors(profiles):
    for key, h in FNV32A.items():
        for n in (INT_MAX, 1000, 16, 1):
            assert profiles.profile_select_index(key, n, "go4-fnv32a") == h % n


def test_siphash_of_the_paper_vectors():
    # the SipHash paper's key 00..0f is Guava's sipHash24() key; its outputs for messages 00, 00 01, ...
    from rocketroute.reference.profiles import siphash24

    assert siphash24(b"") % 2**64 == 0x726FDB47DD0E0E31
    assert siphash24(bytes([0])) % 2**64 == 0x74F839C593DC67FD
    assert siphash24(bytes(range(15))) % 2**64 == 0xA129CA6149BE45E5


def test_java_hashcode_is_select_message_queue_by_hash(profiles, backend):
    selector = backend.SelectMessageQueueByHash()
    for key in [*_keys(3, 300), "", "�"]:
        for n in (1, 5, 16, INT_MAX):
            assert profiles.profile_select_index(key, n, "java-hashcode") == selector.select_index(key, n)


def test_jump_hash_moves_only_to_the_new_queue(profiles):
    # the property that defines jump consistent hashing: growing n by one moves a key to n - 1 or nowhere
    for key in _keys(4, 200):
        last = 0
        for n in range(1, 200):
            q = profiles.profile_select_index(key, n, "proxy-jump")
            assert q in (last, n - 1)
            last = q


# ------------------------------------------------------------------------------------------------ refusals


def test_blank_message_groups_are_refused_as_each_client_refuses_them(profiles):
    for profile in ("java5-grpc-siphash", "python5-sha256"):
        for blank in ("", " ", "\t\n", "\u3000"):
            with pytest.raises(IllegalArgumentError, match=f"^{profile}: the client refuses a blank message group$"):
                profiles.profile_select_index(blank, 8, profile)
    # a no-break space is whitespace to Python, not to Java's Character.isWhitespace
    with pytest.raises(IllegalArgumentError):
        profiles.profile_select_index("\u00a0", 8, "python5-sha256")
    assert 0 <= profiles.profile_select_index("\u00a0", 8, "java5-grpc-siphash") < 8
    # the remoting and Kafka clients hash an empty key
    for profile in ("java-hashcode", "proxy-jump", "kafka-murmur2"):
        assert 0 <= profiles.profile_select_index("", 8, profile) < 8


def test_python_blank_is_str_isspace():
    from rocketroute.reference.profiles import _PYTHON_WHITESPACE

    assert _PYTHON_WHITESPACE == {cp for cp in range(sys.maxunicode + 1) if chr(cp).isspace()}


@pytest.mark.parametrize("cp", sorted({*range(0x0, 0x30), 0x85, 0xA0, 0x1680, *range(0x2000, 0x2030), 0x205F, 0x3000}))
def test_single_character_blanks_agree_between_backends(cp, backend, profiles):
    for profile in ("java5-grpc-siphash", "python5-sha256"):
        expected = _placed(importlib.import_module("rocketroute.reference.profiles"), chr(cp), 16, profile)
        assert _placed(profiles, chr(cp), 16, profile) == expected


def test_go_refuses_an_empty_sharding_key(profiles):
    with pytest.raises(IllegalArgumentError, match="random queue"):
        profiles.profile_select_index("", 8, "go4-fnv32a")
    # a blank one is hashed: FNV-1a of the one byte 0x20
    assert profiles.profile_select_index(" ", 1000, "go4-fnv32a") == ((0x811C9DC5 ^ 0x20) * 0x01000193) % 2**32 % 1000


def test_lone_surrogates_follow_each_client(profiles):
    key = "a\ud800b"
    for profile in ("python5-sha256", "go4-fnv32a", "cpp2-stdhash"):
        with pytest.raises(IllegalArgumentError, match="lone surrogate"):
            profiles.profile_select_index(key, 8, profile)
    # Java sends "?" for it
    for profile in ("java5-grpc-siphash", "kafka-murmur2"):
        assert profiles.profile_select_index(key, 1000, profile) == profiles.profile_select_index("a?b", 1000, profile)
    # a surrogate pair given as two code points is one character to every client
    for profile in PROFILES:
        assert profiles.profile_select_index("\ud83d\ude00", 1000, profile) == profiles.profile_select_index(
            "😀", 1000, profile
        )


def test_bad_arguments(profiles):
    with pytest.raises(IllegalArgumentError, match="unknown routing profile 'java'"):
        profiles.profile_select_index("k", 8, "java")
    with pytest.raises(IllegalArgumentError, match="unknown routing profile 1"):
        profiles.ProfileSelector(1)
    with pytest.raises(JavaArithmeticError, match="/ by zero"):
        profiles.profile_select_index("k", 0, "kafka-murmur2")
    with pytest.raises(IllegalArgumentError, match=r"num_queues must be in 0\.\.2147483647, not -1"):
        profiles.profile_select_index("k", -1, "kafka-murmur2")
    # an argument's TypeError: the reference's words, or PyO3's ("argument 'num_queues': must be an int, ...")
    with pytest.raises(TypeError, match=r"num_queues'?:? must be an int, not float"):
        profiles.profile_select_index("k", 2.0, "kafka-murmur2")
    with pytest.raises(NullPointerError):
        profiles.profile_select_index(None, 8, "kafka-murmur2")
    with pytest.raises(TypeError, match="a profile key must be a str, not int"):
        profiles.profile_select_index(5, 8, "java-hashcode")


# ------------------------------------------------------------------------------------------------ selector and batch


def test_profile_selector_picks_the_indexed_queue(profiles, backend):
    mqs = [backend.MessageQueue("T", f"b{i % 2}", i) for i in range(6)]
    for profile in PROFILES:
        selector = profiles.ProfileSelector(profile)
        assert selector.profile == profile
        assert repr(selector) == f"ProfileSelector({profile!r})"
        for key in _keys(5, 50):
            assert selector.select(mqs, None, key) == mqs[profiles.profile_select_index(key, 6, profile)]
            assert selector(mqs, None, key) == selector.select(mqs, None, key)


@pytest.mark.parametrize("profile", PROFILES)
def test_batch_equals_per_call_for_every_input_kind(profiles, profile):
    keys = [k for k in _keys(6, 500) if k.strip()]
    expected = [profiles.profile_select_index(k, 24, profile) for k in keys]
    for given_keys in (keys, tuple(keys), np.array(keys), np.array(keys, dtype=object), pa.array(keys)):
        assert profiles.profile_select_indices(given_keys, 24, profile).tolist() == expected
    chunked = pa.chunked_array([keys[:100], keys[100:], []])
    assert profiles.profile_select_indices(chunked, 24, profile).tolist() == expected
    assert profiles.profile_select_indices(pa.array(keys, pa.large_string()), 24, profile).tolist() == expected
    assert profiles.profile_select_indices(pa.array(keys).slice(7, 30), 24, profile).tolist() == expected[7:37]
    big = keys * 10  # past the size where the native backend lets go of the GIL
    assert profiles.profile_select_indices(pa.array(big), 24, profile).tolist() == expected * 10


def test_batch_masks_nulls_and_refused_keys_on_request(profiles):
    keys = ["a", None, "", "b"]
    with pytest.raises(NullPointerError, match="key 1 is null"):
        profiles.profile_select_indices(keys, 8, "go4-fnv32a")
    with pytest.raises(IllegalArgumentError, match="random queue"):
        profiles.profile_select_indices(keys, 8, "go4-fnv32a", nulls="mask")
    for given_keys in (keys, pa.array(keys)):
        out = profiles.profile_select_indices(given_keys, 8, "go4-fnv32a", nulls="mask", refused="mask")
        assert out.mask.tolist() == [False, True, True, False]
        assert out.compressed().tolist() == [profiles.profile_select_index(k, 8, "go4-fnv32a") for k in ("a", "b")]
    out = profiles.profile_select_indices(["", "x"], 8, "go4-fnv32a", refused="mask")
    assert out.mask.tolist() == [True, False]
    with pytest.raises(IllegalArgumentError, match="refused must be one of"):
        profiles.profile_select_indices(keys, 8, "go4-fnv32a", refused="drop")
    with pytest.raises(JavaArithmeticError):
        profiles.profile_select_indices(["a"], 0, "go4-fnv32a", refused="mask")
    assert profiles.profile_select_indices([None], 0, "go4-fnv32a", nulls="mask").mask.tolist() == [True]
    with pytest.raises(TypeError, match="a profile key must be a str, not int"):
        profiles.profile_select_indices(pa.array([None, 5]), 8, "kafka-murmur2", nulls="mask")
    assert profiles.profile_select_indices([], 8, "kafka-murmur2").tolist() == []


# ------------------------------------------------------------------------------------------------ compat report


def test_compat_report_counts_and_shares(profiles):
    keys = [*_keys(7, 3000), None, None, "", " "]
    report = profiles.compat_report(keys, 16)
    assert report.profiles == PROFILES
    assert (report.keys, report.nulls, report.num_queues) == (3002, 2, 16)
    ref = importlib.import_module("rocketroute.reference.profiles")
    placed = {p: [_placed(ref, k, 16, p) for k in keys if k is not None] for p in PROFILES}
    for i, a in enumerate(PROFILES):
        assert report.placed[i] == sum(q is not None for q in placed[a])
        assert report.refused[i] == report.keys - report.placed[i]
        assert report.same[i][i] == 1.0
        for j, b in enumerate(PROFILES):
            both = [(x, y) for x, y in zip(placed[a], placed[b], strict=True) if x is not None and y is not None]
            assert report.share(a, b) == pytest.approx(sum(x == y for x, y in both) / len(both))
            assert report.same[i][j] == report.same[j][i]
    assert len(report.rows()) == len(PROFILES) ** 2
    assert "java-hashcode" in str(report)


def test_compat_report_of_one_queue_agrees_everywhere(profiles):
    report = profiles.compat_report(pa.array(["a", "b", "c"]), 1, ["java-hashcode", "kafka-murmur2"])
    assert report.same == ((1.0, 1.0), (1.0, 1.0))


def test_compat_report_arguments(profiles):
    with pytest.raises(TypeError):
        profiles.compat_report(["a"], 4, "java-hashcode")
    with pytest.raises(IllegalArgumentError):
        profiles.compat_report(["a"], 4, [])
    with pytest.raises(JavaArithmeticError):
        profiles.compat_report(["a"], 0)
    report = profiles.compat_report(["", ""], 4, ["go4-fnv32a", "java-hashcode"])
    assert report.same[0][1] is None and report.refused == (2, 0)


# ------------------------------------------------------------------------------------------------ both backends agree


@pytest.mark.skipif(
    importlib.import_module("rocketroute").BACKEND != "native", reason="needs the native backend to compare"
)
@given(
    key=st.one_of(python_text, java_text, st.sampled_from(["", " ", "\u00a0", "\ud800", "a\udfff"])),
    n=st.one_of(st.integers(0, 64), st.just(INT_MAX)),
    profile=st.sampled_from(PROFILES),
)
def test_native_and_reference_agree(key, n, profile):
    same(lambda m: importlib.import_module(m.__name__ + ".profiles").profile_select_index(key, n, profile))
    same(
        lambda m: (
            importlib.import_module(m.__name__ + ".profiles")
            .profile_select_indices([key, None, key], n, profile, nulls="mask", refused="mask")
            .filled(-1)
            .tolist()
        )
    )
    same(
        lambda m: (
            importlib.import_module(m.__name__ + ".profiles")
            .profile_select_indices(np.array([key]), n, profile)
            .tolist()
        )
    )
