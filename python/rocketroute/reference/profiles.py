"""Cross-client routing profiles: where each RocketMQ client (and Kafka) puts a keyed message.

No two clients agree: Java remoting hashes ``key.hashCode()``, the 5.x gRPC Java client SipHash-2-4 of the
UTF-8 bytes, the 5.x proxy Guava's jump hash of ``hashCode()``, the Python 5.x client SHA-256, the Go 4.x
client FNV-1a, Kafka murmur2, and the C++ client 2.x (``rocketmq-client-cpp``, the core under
``rocketmq-client-python`` 2.x, whose ``send_orderly_with_sharding_key`` hashes the key with libstdc++'s
``std::hash<std::string>``, MurmurHash2-64 with seed ``0xc70f6907``, of the key as a C string). A mixed
fleet therefore breaks per-key ordering; these profiles show how.

=====================  ==========================================================================
profile                index among ``n`` queues
=====================  ==========================================================================
java-hashcode          ``abs(key.hashCode() % n)`` (``SelectMessageQueueByHash``)
java5-grpc-siphash     ``floorMod(Hashing.sipHash24().hashBytes(utf8(key)).asLong(), n)``
proxy-jump             ``Hashing.consistentHash(key.hashCode(), n)`` (jump consistent hash)
python5-sha256         ``int.from_bytes(sha256(utf8(key)).digest(), "big") % n``
go4-fnv32a             ``fnv32a(utf8(key)) % n``
kafka-murmur2          ``(murmur2(utf8(key)) & 0x7fffffff) % n``
cpp2-stdhash           ``std::hash<std::string>{}(utf8(key) up to its first NUL) % n`` (libstdc++, 64-bit)
=====================  ==========================================================================

A key the client refuses or does not hash has no placement and raises :class:`IllegalArgumentError`: a
blank message group (gRPC Java: ``Character.isWhitespace`` throughout; Python: ``not key.strip()``), an
empty Go sharding key (the Go client sends it to a random queue), a lone surrogate for the clients whose
text is strict UTF-8 (Python, Go, the C++ client through its Python binding). The Java clients send a lone
surrogate as ``?`` (``getBytes(UTF_8)``). The C++ client reads the key as a C string: a NUL character ends it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import IllegalArgumentError, JavaArithmeticError, NullPointerError
from .batch import _np, _values, check_choice, check_num_queues
from .java import java_abs, java_rem, java_string_hash, java_utf8, join_surrogate_pairs

__all__ = [
    "PROFILES",
    "ProfileSelector",
    "profile_select_index",
    "profile_select_indices",
    "compat_report",
    "CompatReport",
]

PROFILES = (
    "java-hashcode",
    "java5-grpc-siphash",
    "proxy-jump",
    "python5-sha256",
    "go4-fnv32a",
    "kafka-murmur2",
    "cpp2-stdhash",
)

_M64 = (1 << 64) - 1
_M32 = (1 << 32) - 1

# Character.isWhitespace and str.isspace, written out: the two clients disagree (no-break spaces, U+0085)
_JAVA_WHITESPACE = frozenset(
    [*range(9, 14), *range(28, 33), 5760, *range(8192, 8199), *range(8200, 8203), 8232, 8233, 8287, 12288]
)
_PYTHON_WHITESPACE = frozenset(
    [*range(9, 14), *range(28, 33), 133, 160, 5760, *range(8192, 8203), 8232, 8233, 8239, 8287, 12288]
)


def check_profile(profile: object) -> str:
    if not (isinstance(profile, str) and profile in PROFILES):
        raise IllegalArgumentError(f"unknown routing profile {profile!r}; expected one of {PROFILES}")
    return profile


def _check_key(key: object) -> str:
    if key is None:
        raise NullPointerError("the key is None")
    if not isinstance(key, str):
        raise TypeError(f"a profile key must be a str, not {type(key).__name__}")
    return key


def _refused(profile: str, what: str) -> IllegalArgumentError:
    return IllegalArgumentError(f"{profile}: the client refuses {what}")


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _M64


def siphash24(data: bytes, k0: int = 0x0706050403020100, k1: int = 0x0F0E0D0C0B0A0908) -> int:
    """SipHash-2-4 of ``data``, by default under Guava's key, as Guava's ``asLong()`` (a signed long)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573

    def rounds(v0: int, v1: int, v2: int, v3: int, n: int) -> tuple[int, int, int, int]:
        for _ in range(n):
            v0 = (v0 + v1) & _M64
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _M64
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _M64
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _M64
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    end = len(data) - len(data) % 8
    blocks = [int.from_bytes(data[i : i + 8], "little") for i in range(0, end, 8)]
    blocks.append(int.from_bytes(data[end:], "little") | (len(data) & 0xFF) << 56)
    for m in blocks:
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    h = v0 ^ v1 ^ v2 ^ v3
    return h - (1 << 64) if h >> 63 else h


def jump_hash(key: int, buckets: int) -> int:
    """Guava's ``Hashing.consistentHash(long, int)``: jump hashing with Guava's 64-bit LCG and doubles."""
    state = key & _M64
    candidate = 0
    while True:
        state = (2862933555777941757 * state + 1) & _M64
        unit = (state >> 33) + 1  # Java adds in int: 2^31 wraps to -2^31
        next_double = (unit - (1 << 32) if unit >= 1 << 31 else unit) / 2147483648.0
        quotient = (candidate + 1) / next_double
        nxt = int(quotient) if -(2**31) <= quotient < 2**31 else (2**31 - 1 if quotient > 0 else -(2**31))
        if 0 <= nxt < buckets:
            candidate = nxt
        else:
            return candidate


def fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & _M32
    return h


def murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2`` (MurmurHash2, seed 0x9747b28c), as a signed int."""
    m = 0x5BD1E995
    n = len(data)
    h = (0x9747B28C ^ n) & _M32
    end = n - n % 4
    for i in range(0, end, 4):
        k = (int.from_bytes(data[i : i + 4], "little") * m) & _M32
        k ^= k >> 24
        k = (k * m) & _M32
        h = ((h * m) & _M32) ^ k
    if n % 4:
        for i in range(n % 4 - 1, -1, -1):
            h ^= data[end + i] << (8 * i)
        h = (h * m) & _M32
    h ^= h >> 13
    h = (h * m) & _M32
    h ^= h >> 15
    return h - (1 << 32) if h >> 31 else h


_STD_HASH_MUL = (0xC6A4A793 << 32) + 0x5BD1E995
_STD_HASH_SEED = 0xC70F6907


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def std_hash(data: bytes) -> int:
    """libstdc++'s ``std::hash<std::string>`` on a 64-bit target (``std::_Hash_bytes``: MurmurHash2 for 64-bit
    words, seed ``0xc70f6907``), as an unsigned 64-bit value: 8-byte little-endian words, then the 1 to 7 bytes
    left as one little-endian word, then two shift-mixes."""
    n = len(data)
    h = (_STD_HASH_SEED ^ (n * _STD_HASH_MUL)) & _M64
    aligned = n - n % 8
    for i in range(0, aligned, 8):
        word = (_shift_mix((int.from_bytes(data[i : i + 8], "little") * _STD_HASH_MUL) & _M64) * _STD_HASH_MUL) & _M64
        h = ((h ^ word) * _STD_HASH_MUL) & _M64
    if n % 8:
        h = ((h ^ int.from_bytes(data[aligned:], "little")) * _STD_HASH_MUL) & _M64
    h = (_shift_mix(h) * _STD_HASH_MUL) & _M64
    return _shift_mix(h)


def _strict_utf8(profile: str, key: str) -> bytes:
    try:
        return key.encode("utf-8")
    except UnicodeEncodeError:
        try:  # a surrogate pair given as two code points is one character to every client
            return join_surrogate_pairs(key).encode("utf-8")
        except UnicodeEncodeError:
            raise _refused(profile, "a lone surrogate (its text is strict UTF-8)") from None


def _index(profile: str, key: str, n: int) -> int:
    """The index, for checked arguments with ``n >= 1``."""
    if profile == "java-hashcode":
        return java_abs(java_rem(java_string_hash(key), n))
    if profile == "proxy-jump":
        return jump_hash(java_string_hash(key), n)
    if profile == "java5-grpc-siphash":
        if all(ord(c) in _JAVA_WHITESPACE for c in key):
            raise _refused(profile, "a blank message group")
        return siphash24(java_utf8(key)) % n
    if profile == "kafka-murmur2":
        return (murmur2(java_utf8(key)) & 0x7FFFFFFF) % n
    if profile == "python5-sha256":
        if all(ord(c) in _PYTHON_WHITESPACE for c in key):
            raise _refused(profile, "a blank message group")
        return int.from_bytes(hashlib.sha256(_strict_utf8(profile, key)).digest(), "big") % n
    if profile == "cpp2-stdhash":  # the key as a C string: up to its first NUL
        return std_hash(_strict_utf8(profile, key).split(b"\0", 1)[0]) % n
    # go4-fnv32a
    if not key:
        raise IllegalArgumentError("go4-fnv32a: the client sends a message without a sharding key to a random queue")
    return fnv1a32(_strict_utf8(profile, key)) % n


def profile_select_index(key: str, num_queues: int, profile: str) -> int:
    """The queue index ``profile``'s client picks for ``key`` among ``num_queues`` queues."""
    profile = check_profile(profile)
    key = _check_key(key)
    n = check_num_queues(num_queues)
    if n == 0:
        raise JavaArithmeticError("/ by zero")
    return _index(profile, key, n)


def profile_select_indices(
    keys: Any, num_queues: int, profile: str, *, nulls: str | None = "raise", refused: str | None = "raise"
) -> Any:
    """:func:`profile_select_index` of every key, as an int32 array. A null key raises
    :class:`NullPointerError` and a key the client refuses :class:`IllegalArgumentError`, unless
    ``nulls="mask"`` / ``refused="mask"``: then the result is a ``numpy.ma.MaskedArray`` masking them."""
    profile = check_profile(profile)
    n = check_num_queues(num_queues)
    nulls, refused = check_choice("nulls", nulls), check_choice("refused", refused)
    out: list[int] = []
    mask: list[bool] = []
    for i, key in enumerate(_values(keys)):
        if key is None:
            if nulls == "raise":
                raise NullPointerError(f"key {i} is null")
            out.append(0)
            mask.append(True)
            continue
        key = _check_key(key)
        if n == 0:
            raise JavaArithmeticError("/ by zero")
        try:
            out.append(_index(profile, key, n))
            mask.append(False)
        except IllegalArgumentError:
            if refused == "raise":
                raise
            out.append(0)
            mask.append(True)
    np = _np()
    data = np.array(out, dtype=np.int32)
    if nulls == "mask" or refused == "mask":
        return np.ma.MaskedArray(data, mask=np.array(mask, dtype=bool))
    return data


class ProfileSelector:
    """A ``MessageQueueSelector`` that picks as ``profile``'s client does: ``mqs[index(arg, len(mqs))]``."""

    __slots__ = ("_profile",)

    def __init__(self, profile: str) -> None:
        self._profile = check_profile(profile)

    @property
    def profile(self) -> str:
        return self._profile

    def select_index(self, key: str, num_queues: int) -> int:
        return profile_select_index(key, num_queues, self._profile)

    def select(self, mqs: Sequence[Any], msg: Any, arg: Any) -> Any:
        if mqs is None:
            raise NullPointerError("mqs is None")
        return mqs[self.select_index(arg, len(mqs))]

    __call__ = select

    def __repr__(self) -> str:
        return f"ProfileSelector({self._profile!r})"


@dataclass(frozen=True)
class CompatReport:
    """For one key set and queue count: ``same[i][j]``, the share of the keys that profiles ``i`` and ``j``
    both place that they place on the same queue (1.0 on the diagonal; ``None`` when no key is placed by
    both); ``placed[i]``, how many keys profile ``i`` places; ``refused[i]``, how many its client refuses;
    ``nulls``, the null keys (left out)."""

    profiles: tuple[str, ...]
    num_queues: int
    keys: int
    nulls: int
    placed: tuple[int, ...]
    refused: tuple[int, ...]
    same: tuple[tuple[float | None, ...], ...]

    def share(self, a: str, b: str) -> float | None:
        """The share of keys ``a`` and ``b`` place on the same queue."""
        return self.same[self.profiles.index(a)][self.profiles.index(b)]

    def rows(self) -> list[dict[str, Any]]:
        """One row per ordered profile pair: ``a``, ``b``, ``same_share``."""
        return [
            {"a": a, "b": b, "same_share": self.same[i][j]}
            for i, a in enumerate(self.profiles)
            for j, b in enumerate(self.profiles)
        ]

    def __str__(self) -> str:
        width = max(len(p) for p in self.profiles)
        head = " " * width + "  " + "  ".join(f"{p:>{width}}" for p in self.profiles)
        lines = [f"{self.keys} keys, {self.num_queues} queues: share of keys on the same queue", head]
        for i, a in enumerate(self.profiles):
            cells = ("-" if s is None else f"{s:.4f}" for s in self.same[i])
            lines.append(f"{a:>{width}}  " + "  ".join(f"{c:>{width}}" for c in cells))
        return "\n".join(lines)


def _null_count(keys: Any) -> int:
    if hasattr(keys, "null_count"):  # pyarrow Array / ChunkedArray
        return int(keys.null_count)
    if hasattr(keys, "dtype") and getattr(keys.dtype, "kind", "O") != "O":
        return 0  # a NumPy str array has no nulls
    return sum(1 for k in keys if k is None)


def compat_report(
    keys: Any, num_queues: int, profiles: Iterable[str] = PROFILES, *, _indices: Any = None
) -> CompatReport:
    """Which share of ``keys`` every two ``profiles`` place on the same queue among ``num_queues``: what a
    mixed fleet of those clients does to per-key ordering. Null keys are left out; a key a client refuses
    counts for no pair with that profile."""
    np = _np()
    select = profile_select_indices if _indices is None else _indices
    if isinstance(profiles, str):
        raise TypeError("profiles must be an iterable of profile names, not a str")
    names = tuple(check_profile(p) for p in profiles)
    if not names:
        raise IllegalArgumentError("profiles is empty")
    n = check_num_queues(num_queues)
    if n == 0:
        raise JavaArithmeticError("/ by zero")
    columns = [select(keys, n, p, nulls="mask", refused="mask") for p in names]
    total = len(columns[0])
    placed_masks = [~np.ma.getmaskarray(c) for c in columns]
    values = [np.ma.getdata(c) for c in columns]
    nulls = _null_count(keys)
    same: list[tuple[float | None, ...]] = []
    for i in range(len(names)):
        row: list[float | None] = []
        for j in range(len(names)):
            both = placed_masks[i] & placed_masks[j]
            count = int(both.sum())
            row.append(None if count == 0 else float((values[i][both] == values[j][both]).sum()) / count)
        same.append(tuple(row))
    placed = tuple(int(m.sum()) for m in placed_masks)
    return CompatReport(
        profiles=names,
        num_queues=n,
        keys=total - nulls,
        nulls=nulls,
        placed=placed,
        refused=tuple(total - nulls - p for p in placed),
        same=tuple(same),
    )
