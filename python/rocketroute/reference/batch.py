"""Batch entry points: one call for a whole column of keys, returning NumPy arrays.

Keys may be a Python sequence (list / tuple) of ``str`` or ``int``, a NumPy array (unicode ``U``, ``object``,
``int32`` or ``int64``), or a pyarrow ``Array`` / ``ChunkedArray`` (``string``, ``large_string``, ``int32``,
``int64``). A missing key (``None``, an Arrow null) is an error by default (:class:`NullPointerError`, as Java's
``hashCode`` of null); with ``nulls="mask"`` the result is a ``numpy.ma.MaskedArray`` whose masked entries are
the nulls (their data is 0). This is the pure-Python reference; :mod:`rocketroute.batch` is the native one.
"""

from __future__ import annotations

import sys
from typing import Any

from ..errors import IllegalArgumentError, JavaArithmeticError, NullPointerError
from .java import java_abs, java_int_hash, java_long_hash, java_rem, java_string_hash

__all__ = ["java_string_hashes", "hash_select_indices", "round_robin_indices", "route_nodes", "KEY_TYPES"]

KEY_TYPES = ("string", "int", "long")
_NULLS = ("raise", "mask")


def _np() -> Any:
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy is a dependency of the batch extra
        raise ImportError("rocketroute batch functions need numpy (pip install 'rocketroute[batch]')") from e
    return numpy


def _values(keys: Any) -> list[Any]:
    """The keys as a Python list (``None`` for nulls)."""
    if keys is None:
        raise NullPointerError("keys is None")
    if hasattr(keys, "to_pylist"):  # pyarrow Array / ChunkedArray
        return list(keys.to_pylist())
    np = _np()
    if isinstance(keys, np.ndarray):
        if keys.ndim != 1:
            raise IllegalArgumentError(f"keys must be one-dimensional, not {keys.ndim}-dimensional")
        return keys.tolist()
    if isinstance(keys, (str, bytes)):
        raise TypeError("keys must be a sequence of keys, not a single str")
    return list(keys)


def check_choice(name: str, value: object) -> str:
    """A ``"raise"`` / ``"mask"`` option (``nulls``, ``refused``); ``None`` is the default, ``"raise"``."""
    if value is None:
        return "raise"
    if not (isinstance(value, str) and value in _NULLS):
        raise IllegalArgumentError(f"{name} must be one of {_NULLS}, not {value!r}")
    return value


def _check_nulls(nulls: str | None) -> str:
    return check_choice("nulls", nulls)


def check_num_queues(num_queues: object) -> int:
    """A batch call's queue count: an ``int`` in ``0..2**31 - 1``."""
    if isinstance(num_queues, bool) or not isinstance(num_queues, int):
        raise TypeError(f"num_queues must be an int, not {type(num_queues).__name__}")
    if not 0 <= num_queues <= 2**31 - 1:
        raise IllegalArgumentError(f"num_queues must be in 0..2147483647, not {num_queues}")
    return num_queues


def _finish(out: list[int], mask: list[bool], nulls: str) -> Any:
    np = _np()
    data = np.array(out, dtype=np.int32)
    if nulls == "mask":
        return np.ma.MaskedArray(data, mask=np.array(mask, dtype=bool))
    return data


def _key_hash(v: Any, key_type: str) -> int:
    if key_type == "string":
        if not isinstance(v, str):
            raise TypeError(f"a string key must be a str, not {type(v).__name__}")
        return java_string_hash(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"an {key_type} key must be an int, not {type(v).__name__}")
    return java_int_hash(v) if key_type == "int" else java_long_hash(v)


def _hashes(keys: Any, key_type: str | None, nulls: str) -> tuple[list[int], list[bool]]:
    key_type = "string" if key_type is None else key_type
    if not (isinstance(key_type, str) and key_type in KEY_TYPES):
        raise IllegalArgumentError(f"key_type must be one of {KEY_TYPES}, not {key_type!r}")
    out: list[int] = []
    mask: list[bool] = []
    for i, v in enumerate(_values(keys)):
        if v is None:
            if nulls == "raise":
                raise NullPointerError(f"key {i} is null")
            out.append(0)
            mask.append(True)
            continue
        out.append(_key_hash(v, key_type))
        mask.append(False)
    return out, mask


def java_string_hashes(keys: Any, *, nulls: str | None = "raise") -> Any:
    """Java ``String.hashCode`` of every key, as an int32 array."""
    nulls = _check_nulls(nulls)
    out, mask = _hashes(keys, "string", nulls)
    return _finish(out, mask, nulls)


def hash_select_indices(
    keys: Any, num_queues: int, key_type: str | None = "string", *, nulls: str | None = "raise"
) -> Any:
    """The index ``SelectMessageQueueByHash`` picks among ``num_queues`` queues for every key
    (``|hashCode % n|``), as an int32 array. ``key_type``: ``"string"`` (Java ``String``), ``"int"``
    (``Integer``) or ``"long"`` (``Long``)."""
    check_num_queues(num_queues)
    nulls = _check_nulls(nulls)
    out, mask = _hashes(keys, key_type, nulls)
    if num_queues == 0 and any(not m for m in mask):
        raise JavaArithmeticError("/ by zero")
    idx = [0 if m else java_abs(java_rem(h, num_queues)) for h, m in zip(out, mask, strict=True)]
    return _finish(idx, mask, nulls)


def round_robin_indices(counter: Any, count: int, num_queues: int | None = None) -> Any:
    """The next ``count`` values of ``counter.increment_and_get()`` (a :class:`SendWhichQueue`) as an int32
    array, the counter advanced by ``count``; with ``num_queues``, the positions ``value % num_queues`` that
    ``TopicPublishInfo.select_one_message_queue()`` would take."""
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(f"count must be an int, not {type(count).__name__}")
    if count < 0:
        raise IllegalArgumentError(f"count must not be negative, not {count}")
    if count > 2**63 - 1:  # checked in this order by the native backend too
        raise IllegalArgumentError(f"a result of {count} items is too large")
    if num_queues is not None:
        if isinstance(num_queues, bool) or not isinstance(num_queues, int):
            raise TypeError(f"num_queues must be an int, not {type(num_queues).__name__}")
        if num_queues == 0:
            raise JavaArithmeticError("/ by zero")
        if num_queues < 0:
            raise IllegalArgumentError(f"num_queues must not be negative, not {num_queues}")
    if count * 4 > sys.maxsize:  # an int32 array's bytes must fit a Py_ssize_t, as in the native backend
        raise IllegalArgumentError(f"a result of {count} items is too large")
    np = _np()
    if count == 0:
        return np.zeros(0, dtype=np.int32)
    out = np.empty(count, dtype=np.int32)  # allocated before the counter moves: a MemoryError changes nothing
    before = counter.advance(count)
    chunk = 1 << 16
    for lo in range(0, count, chunk):  # int arithmetic on a bounded slice at a time
        values = [((before + 1 + i) & 0xFFFFFFFF) & 0x7FFFFFFF for i in range(lo, min(lo + chunk, count))]
        if num_queues is not None:
            values = [v % num_queues for v in values]
        out[lo : lo + len(values)] = values
    return out


def route_nodes(router: Any, keys: Any, *, nulls: str | None = "raise") -> list[str | None]:
    """``router.route_node`` of every key (``None`` for an empty ring, and for a null key with
    ``nulls="mask"``)."""
    nulls = _check_nulls(nulls)
    out: list[str | None] = []
    for i, v in enumerate(_values(keys)):
        if v is None:
            if nulls == "raise":
                raise NullPointerError(f"key {i} is null")
            out.append(None)
            continue
        out.append(router.route_node(v))
    return out
