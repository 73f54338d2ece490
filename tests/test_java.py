"""Java semantics: String / Integer / Long hashCode, String.compareTo over UTF-16, java.util.Random."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError, NullPointerError

from ._java import (
    INT_MAX,
    INT_MIN,
    LONG_MAX,
    LONG_MIN,
    java_ints,
    java_longs,
    java_text,
    long_hash,
    string_compare_sign,
    string_hash,
    to_int,
    utf16_units,
)


@given(s=java_text)
def test_string_hash_is_31h_over_utf16_units(backend, s):
    assert backend.java_string_hash(s) == string_hash(s)


def test_string_hash_facts_from_the_readme(backend):
    for s in ("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"):
        assert backend.java_string_hash(s) == INT_MIN
    assert backend.java_string_hash("") == 0
    # an astral character is two UTF-16 code units, both hashed
    units = utf16_units("\U0001f600")
    assert units == [0xD83D, 0xDE00]
    assert backend.java_string_hash("\U0001f600") == to_int(31 * 0xD83D + 0xDE00)


@given(a=java_text, b=java_text)
def test_string_compare_is_utf16_order_and_antisymmetric(backend, a, b):
    ab = backend.java_string_compare(a, b)
    ba = backend.java_string_compare(b, a)
    assert (ab > 0) - (ab < 0) == string_compare_sign(a, b)
    assert ab == -ba
    assert (ab == 0) == (a == b)


@given(prefix=java_text, a=java_text, b=java_text)
def test_string_compare_value_is_first_unit_difference_or_length_difference(backend, prefix, a, b):
    x, y = prefix + a, prefix + b
    ux, uy = utf16_units(x), utf16_units(y)
    diff = next((p - q for p, q in zip(ux, uy, strict=False) if p != q), len(ux) - len(uy))
    assert backend.java_string_compare(x, y) == diff


@given(a=java_text, b=java_text)
def test_the_shared_sort_key_orders_strings_as_string_compare_to(a, b):
    """``java_string_key``: the one sort key every reference module, the request signature and the planner use."""
    from rocketroute.reference.java import java_string_compare, java_string_key

    ka, kb = java_string_key(a), java_string_key(b)
    assert (
        (ka > kb) - (ka < kb) == string_compare_sign(a, b) == (lambda c: (c > 0) - (c < 0))(java_string_compare(a, b))
    )


def test_the_shared_sort_key_takes_a_lone_surrogate_as_a_unit_of_its_own():
    from rocketroute.reference.java import java_string_key

    assert sorted(["\uffff", "\U0001f600", "\ud800"], key=java_string_key) == ["\ud800", "\U0001f600", "\uffff"]


def test_string_compare_uses_code_units_not_code_points(backend):
    # README: "\ud83d\ude00" < "\uff5e" in Java, the opposite of code-point order
    assert "\U0001f600" > "\uff5e"
    assert backend.java_string_compare("\U0001f600", "\uff5e") < 0
    assert backend.java_string_compare("\uff5e", "\U0001f600") > 0


@given(v=java_ints)
def test_int_hash_is_the_value(backend, v):
    assert backend.java_int_hash(v) == v


@given(v=java_longs)
def test_long_hash_is_v_xor_v_ushr_32(backend, v):
    assert backend.java_long_hash(v) == long_hash(v)


def test_long_and_int_hash_of_minus_one_differ(backend):
    # README: -1L hashes to 0, while the Integer -1 hashes to -1
    assert backend.java_long_hash(-1) == 0
    assert backend.java_int_hash(-1) == -1


@pytest.mark.parametrize("v", [INT_MAX + 1, INT_MIN - 1, 2**64])
def test_int_hash_rejects_values_outside_int(backend, v):
    with pytest.raises(IllegalArgumentError):
        backend.java_int_hash(v)


@pytest.mark.parametrize("v", [LONG_MAX + 1, LONG_MIN - 1, 2**100])
def test_long_hash_rejects_values_outside_long(backend, v):
    with pytest.raises(IllegalArgumentError):
        backend.java_long_hash(v)


def test_hash_functions_reject_wrong_types(backend):
    with pytest.raises(TypeError):
        backend.java_int_hash("1")
    with pytest.raises(TypeError):
        backend.java_long_hash(1.0)
    with pytest.raises(TypeError):
        backend.java_string_hash(1)
    with pytest.raises(NullPointerError):
        backend.java_string_hash(None)
    with pytest.raises(NullPointerError):
        backend.java_string_compare("a", None)


# java.util.Random as its Javadoc specifies it: a 48-bit LCG, next(bits) = (int)(seed >>> (48 - bits)).
_MULT, _ADD, _MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1


def _lcg(seed):
    state = (seed ^ _MULT) & _MASK

    def next_bits(bits):
        nonlocal state
        state = (state * _MULT + _ADD) & _MASK
        return to_int(state >> (48 - bits))

    return next_bits


@given(seed=java_longs)
def test_java_random_next_int_matches_the_javadoc_lcg(backend, seed):
    rnd = backend.JavaRandom(seed)
    next_bits = _lcg(seed)
    assert [rnd.next_int() for _ in range(5)] == [next_bits(32) for _ in range(5)]


@given(seed=java_longs, log2=st.integers(0, 30))
def test_java_random_next_int_power_of_two_bound(backend, seed, log2):
    bound = 1 << log2
    rnd = backend.JavaRandom(seed)
    next_bits = _lcg(seed)
    # Javadoc: for a power of two, (int)((bound * (long)next(31)) >> 31)
    assert [rnd.next_int(bound) for _ in range(4)] == [(bound * next_bits(31)) >> 31 for _ in range(4)]


@given(seed=java_longs, bound=st.integers(1, INT_MAX))
def test_java_random_next_int_bound_is_in_range_and_reproducible(backend, seed, bound):
    r1, r2 = backend.JavaRandom(seed), backend.JavaRandom(seed)
    seq1 = [r1.next_int(bound) for _ in range(8)]
    seq2 = [r2.next_int(bound) for _ in range(8)]
    assert seq1 == seq2
    assert all(0 <= x < bound for x in seq1)


@pytest.mark.parametrize("bound", [0, -1, INT_MIN])
def test_java_random_rejects_a_non_positive_bound(backend, bound):
    with pytest.raises(IllegalArgumentError) as ei:
        backend.JavaRandom(1).next_int(bound)
    assert ei.value.java_class == "java.lang.IllegalArgumentException"


def test_java_random_seed_must_be_a_long(backend):
    with pytest.raises(IllegalArgumentError):
        backend.JavaRandom(2**63)
    with pytest.raises(TypeError):
        backend.JavaRandom("1")
