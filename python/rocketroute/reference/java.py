"""Java semantics the routing path depends on: UTF-16 string hashing and ordering, boxed hashCodes,
32-bit wrap-around, a bit-exact ``java.util.Random``, and ``String.split`` / ``Integer.parseInt`` as the route
and the brokers' answers are read with them."""

from __future__ import annotations

import os
import threading
import unicodedata
from array import array

from ..errors import IllegalArgumentError, NumberFormatError

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1

__all__ = [
    "JavaRandom",
    "java_string_hash",
    "java_string_compare",
    "java_string_key",
    "java_int_hash",
    "java_long_hash",
    "utf16_units",
]


def wrap_int(v: int) -> int:
    """Java ``(int) v``: keep the low 32 bits, two's complement."""
    v &= 0xFFFFFFFF
    return v - 0x1_0000_0000 if v & 0x8000_0000 else v


def wrap_long(v: int) -> int:
    v &= 0xFFFF_FFFF_FFFF_FFFF
    return v - 0x1_0000_0000_0000_0000 if v & 0x8000_0000_0000_0000 else v


def java_abs(v: int) -> int:
    """``Math.abs(int)``: ``abs(Integer.MIN_VALUE)`` is still ``Integer.MIN_VALUE``."""
    return v if v == INT_MIN else abs(v)


def java_rem(a: int, b: int) -> int:
    """Java ``a % b`` on ints: truncated, with the sign of the dividend."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


# The checks below return the value as a plain ``str`` / ``int``: a subclass's overridden ``__eq__``,
# ``__hash__``, ``__format__`` or arithmetic never reaches the routing (the native backend reads the value too).


def check_int(name: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name} must be an int, not {type(v).__name__}")
    v = int.__int__(v)
    if not INT_MIN <= v <= INT_MAX:
        raise IllegalArgumentError(f"{name} {v} is out of the Java int range")
    return v


def check_long(name: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name} must be an int, not {type(v).__name__}")
    v = int.__int__(v)
    if not LONG_MIN <= v <= LONG_MAX:
        raise IllegalArgumentError(f"{name} {v} is out of the Java long range")
    return v


def check_opt_str(name: str, v: object) -> str | None:
    """``None`` or a ``str`` (a ``TypeError`` naming both otherwise)."""
    if v is None:
        return None
    if not isinstance(v, str):
        raise TypeError(f"{name} must be a str or None, not {type(v).__name__}")
    return str.__str__(v)


def check_str(name: str, v: object) -> str:
    if v is None:
        from ..errors import NullPointerError

        raise NullPointerError(f"{name} is None")
    if not isinstance(v, str):
        raise TypeError(f"{name} must be a str, not {type(v).__name__}")
    return str.__str__(v)


def utf8_name(name: str, v: str) -> str:
    """``v`` if UTF-8 can carry it. RocketMQ sends names (topic, broker, consumer id, ring node, room,
    address) as UTF-8, which has no lone surrogate (Java would send ``?`` and reach a name nobody has), so a
    name that holds one is refused. Keys are not names: they hash over UTF-16, lone surrogates included."""
    if not v.isascii():
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            from ..errors import IllegalArgumentError

            raise IllegalArgumentError(f"{name} contains a lone surrogate, which UTF-8 cannot carry") from None
    return v


def join_surrogate_pairs(s: str) -> str:
    """``s`` with every surrogate pair given as two Python code points joined into its one character, as
    Java reads the UTF-16 units; lone surrogates stay."""
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def java_utf8(s: str) -> bytes:
    """What Java's ``getBytes(UTF_8)`` gives for the UTF-16 units of ``s``: surrogate pairs (even as two
    Python code points) are one character, an unpaired surrogate is ``?``."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return join_surrogate_pairs(s).encode("utf-8", "replace")


def check_name(name: str, v: object) -> str:
    """A required name: ``None`` is ``NullPointerError``, a non-``str`` ``TypeError``, a lone surrogate
    ``IllegalArgumentError``."""
    return utf8_name(name, check_str(name, v))


def check_opt_name(name: str, v: object) -> str | None:
    s = check_opt_str(name, v)
    return None if s is None else utf8_name(name, s)


def utf16_units(s: str) -> array:
    """The UTF-16 code units of ``s`` (lone surrogates pass through as single units, as in Java)."""
    a = array("H")
    a.frombytes(s.encode("utf-16-le", "surrogatepass"))
    return a


def java_string_hash(s: str) -> int:
    """``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units, in int arithmetic."""
    s = check_str("s", s)
    h = 0
    if s.isascii():
        for c in s.encode("ascii"):
            h = (31 * h + c) & 0xFFFFFFFF
    else:
        for c in utf16_units(s):
            h = (31 * h + c) & 0xFFFFFFFF
    return h - 0x1_0000_0000 if h & 0x8000_0000 else h


def java_string_key(s: str) -> bytes:
    """A sort key in ``String.compareTo``'s order: the UTF-16 code units as big-endian bytes, compared unit by unit,
    a prefix first (Python's ``str`` order is by code points, which differs once one string has a character above
    U+FFFF and another one at or above U+E000). A lone surrogate is a code unit of its own, as in Java."""
    return s.encode("utf-16-be", "surrogatepass")


def java_string_compare(a: str, b: str) -> int:
    """``a.compareTo(b)``: the first differing UTF-16 code unit decides, else the length difference."""
    a = check_str("a", a)
    b = check_str("b", b)
    if a == b:  # one C comparison: equal names (a route's queues share theirs) are not walked unit by unit
        return 0
    if a.isascii() and b.isascii():
        ua: bytes | array = a.encode("ascii")
        ub: bytes | array = b.encode("ascii")
    else:
        ua, ub = utf16_units(a), utf16_units(b)
    for x, y in zip(ua, ub):  # noqa: B905 - lengths differ on purpose
        if x != y:
            return x - y
    return len(ua) - len(ub)


def java_int_hash(v: int) -> int:
    """``Integer.hashCode(v)``: the value itself."""
    return check_int("value", v)


def java_long_hash(v: int) -> int:
    """``Long.hashCode(v)``: ``(int)(v ^ (v >>> 32))``."""
    v = check_long("value", v)
    u = v & 0xFFFF_FFFF_FFFF_FFFF
    return wrap_int(u ^ (u >> 32))


_MULTIPLIER = 0x5DEECE66D
_ADDEND = 0xB
_MASK = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random``, bit for bit: the same seed gives the same numbers as the JVM.

    ``JavaRandom()`` seeds itself from the OS. Thread-safe (Java's Random is too)."""

    __slots__ = ("_lock", "_seed")

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "big", signed=True)
        self._lock = threading.Lock()
        self._seed = (check_long("seed", seed) ^ _MULTIPLIER) & _MASK

    def set_seed(self, seed: int) -> None:
        with self._lock:
            self._seed = (check_long("seed", seed) ^ _MULTIPLIER) & _MASK

    def _next(self, bits: int) -> int:
        with self._lock:
            self._seed = (self._seed * _MULTIPLIER + _ADDEND) & _MASK
            r = self._seed >> (48 - bits)
        return wrap_int(r)

    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()``, or ``nextInt(bound)`` (uniform in ``[0, bound)``)."""
        if bound is None:
            return self._next(32)
        bound = check_int("bound", bound)
        if bound <= 0:
            raise IllegalArgumentError("bound must be positive")
        r = self._next(31)
        m = bound - 1
        if bound & m == 0:
            return (bound * r) >> 31
        u = r
        while True:
            r = u % bound
            if wrap_int(u - r + m) >= 0:
                return r
            u = self._next(31)

    def next_long(self) -> int:
        return wrap_long((self._next(32) << 32) + self._next(32))

    def next_boolean(self) -> bool:
        return self._next(1) != 0

    def next_double(self) -> float:
        return ((self._next(26) << 27) + self._next(27)) * (1.0 / (1 << 53))

    def __repr__(self) -> str:
        return "JavaRandom(...)"


# --- String.split, Integer.parseInt ------------------------------------------------------------------------------


def java_split(s: str, sep: str) -> list[str]:
    """``String.split(sep)`` for a one-character, non-regex ``sep``: trailing empty strings are dropped,
    and a string without ``sep`` splits to itself."""
    if sep not in s:
        return [s]
    parts = s.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _java_digit(ch: str) -> int:
    """``Character.digit(ch, 10)`` for one UTF-16 code unit: any Unicode decimal digit counts."""
    if "0" <= ch <= "9":
        return ord(ch) - 48
    if ord(ch) > 0xFFFF or 0xD800 <= ord(ch) <= 0xDFFF:
        return -1
    return unicodedata.decimal(ch, -1)


def java_parse_int(s: str) -> int:
    """``Integer.parseInt(s)``, with Java's ``NumberFormatException`` messages."""
    if s is None:
        raise NumberFormatError("Cannot parse null string: null")
    if len(s) < 10 and s.isascii() and s.isdigit():  # the usual case: at most 9 ASCII digits always fit
        return int(s)
    # astral characters are two UTF-16 units in Java, neither of them a digit
    units = s if s.isascii() else join_surrogate_pairs(s)
    err = NumberFormatError(f'For input string: "{s}"')
    if not units:
        raise err
    i, neg = 0, False
    if units[0] < "0":
        if units[0] == "-":
            neg = True
        elif units[0] != "+":
            raise err
        if len(units) == 1:
            raise err
        i = 1
    v = 0
    for ch in units[i:]:
        d = _java_digit(ch)
        if d < 0:
            raise err
        v = v * 10 + d
        if v > INT_MAX + (1 if neg else 0):
            raise err
    v = -v if neg else v
    assert INT_MIN <= v <= INT_MAX
    return v
