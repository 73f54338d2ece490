"""A message's properties on the wire, as Java's ``MessageDecoder`` writes and reads them: ``name \\x01 value
\\x02`` per entry, in the iteration order of the message's ``java.util.HashMap`` (4.9.8 drops the last
``\\x02``), with the native twin of the join."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

from .._backend import native_twin
from ..errors import IllegalArgumentError
from ..reference.compat import parse_compat
from ..reference.java import java_string_hash
from ..reference.static_topic import hash_map_order
from .message_const import NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR

__all__ = [
    "java_property_order",
    "properties_to_string",
    "string_to_properties",
]


@functools.lru_cache(maxsize=8192)
def _spread(name: str) -> int:
    """``HashMap.hash(name)``: ``h ^ (h >>> 16)`` of ``String.hashCode``."""
    h = java_string_hash(name) & 0xFFFFFFFF
    return h ^ (h >> 16)


def java_property_order(names: Sequence[str]) -> list[str]:
    """The iteration order of a ``new HashMap<String, String>()`` after putting the distinct ``names`` in this
    order (``Message.properties``). Up to 8 names the table keeps its 16 bins, so the order is the names stably
    sorted by bin; beyond that :func:`rocketroute.reference.static_topic.hash_map_order` follows the resizes.
    In the case that function cannot reproduce (a red-black tree bin: 9 names colliding in the low 6+ bits of
    their hash), the put order is kept: the broker reads the properties in any order."""
    if len(names) <= 8:
        return sorted(names, key=lambda n: _spread(n) & 15)
    try:
        return hash_map_order(list(names), "message properties")
    except IllegalArgumentError:
        return list(names)


def _join_properties(items: Sequence[tuple[str, str]], compat: str) -> str:
    if _native_properties is not None and type(items) is list:
        joined = _native_properties(items, compat == "4.9")  # None past 8 items or with a lone surrogate
        if joined is not None:
            return joined  # type: ignore[no-any-return]
    if len(items) <= 8:
        ordered: Iterable[tuple[str, str]] = sorted(items, key=lambda kv: _spread(kv[0]) & 15)
    else:
        values = dict(items)
        ordered = [(n, values[n]) for n in java_property_order([n for n, _ in items])]
    s = "".join(f"{n}\x01{v}\x02" for n, v in ordered)
    if compat == "4.9" and s:
        s = s[:-1]
    return s


def properties_to_string(properties: Mapping[str, str | None] | None, *, compat: str | None = "5.3") -> str:
    """``MessageDecoder.messageProperties2String``: ``name \\x01 value \\x02`` for each entry whose value is not
    ``None``, in the iteration order of the Java ``HashMap`` the entries were put into in ``properties``'
    order. 4.9.8 drops the final ``\\x02``; 5.3.3 keeps it. ``None`` gives ``""``."""
    compat = parse_compat(compat)
    if properties is None:
        return ""
    items = [(n, v) for n, v in properties.items() if v is not None]
    return _join_properties(items, compat)  # type: ignore[arg-type]


def string_to_properties(s: str | None) -> dict[str, str]:
    """``MessageDecoder.string2messageProperties``: reads what either version wrote. An entry shorter than 3
    chars, or without a name or a value, is skipped as Java skips it. Entries come back in the string's order
    (Java returns a ``HashMap``)."""
    out: dict[str, str] = {}
    if s is None:
        return out
    n = len(s)
    index = 0
    while index < n:
        new_index = s.find(PROPERTY_SEPARATOR, index)
        if new_index < 0:
            new_index = n
        if new_index - index >= 3:
            kv = s.find(NAME_VALUE_SEPARATOR, index)
            if index < kv < new_index - 1:
                out[s[index:kv]] = s[kv + 1 : new_index]
        index = new_index + 1
    return out


_native_properties = native_twin("_properties_string")
