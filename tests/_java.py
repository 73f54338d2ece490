"""Java arithmetic written out directly from the JLS / JDK documentation, as an oracle for property tests.

Deliberately independent of ``rocketroute.reference.java``: a test that compared the reference with
itself would prove nothing.
"""

from __future__ import annotations

from hypothesis import strategies as st

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1


def to_int(v: int) -> int:
    """Java's ``(int) v``: the low 32 bits as a two's-complement value."""
    return (v + 2**31) % 2**32 - 2**31


def java_rem(a: int, b: int) -> int:
    """Java's ``a % b``: truncated division, the result has the sign of ``a``."""
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return a - b * q


def utf16_units(s: str) -> list[int]:
    """The UTF-16 code units of ``s``, the way a Java String stores them."""
    data = s.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def string_hash(s: str) -> int:
    """``String.hashCode()``: ``h = 31 * h + c`` over the UTF-16 code units, in int arithmetic."""
    h = 0
    for c in utf16_units(s):
        h = to_int(31 * h + c)
    return h


def string_compare_sign(a: str, b: str) -> int:
    """The sign of ``a.compareTo(b)``: lexicographic over UTF-16 code units."""
    ua, ub = utf16_units(a), utf16_units(b)
    return (ua > ub) - (ua < ub)


def long_hash(v: int) -> int:
    """``Long.hashCode(v)`` = ``(int)(v ^ (v >>> 32))``."""
    u = v % 2**64
    return to_int(u ^ (u >> 32))


# Text as Java sees it: any code point except lone surrogates (which the library does not cover), so astral
# characters (two UTF-16 units each) come up often.
java_text = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=("Cs",)),
        st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF, exclude_categories=("Cs",)),
        st.sampled_from("ab-_%@~\uff5e\U0001f600"),
    ),
    max_size=40,
)
# Text as a Python str may hold it: now and then a lone surrogate, which keys accept (hashed over UTF-16) and
# names refuse alike on both backends (UTF-8, RocketMQ's wire encoding, cannot carry one).
python_text = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=("Cs",)),
        st.sampled_from("ab-_%@~\uff5e\U0001f600"),
        st.characters(categories=("Cs",)),
    ),
    max_size=40,
)
java_ints = st.integers(INT_MIN, INT_MAX)
java_longs = st.integers(LONG_MIN, LONG_MAX)
