"""Batch entry points: one call for a whole column of keys, returning NumPy arrays (native backend).

Keys may be a Python sequence of ``str`` / ``int``, a NumPy array (``U``, ``object``, ``int32``, ``int64``) or a
pyarrow ``Array`` / ``ChunkedArray`` (``string``, ``large_string``, ``int32``, ``int64``); Arrow and NumPy
buffers are read in place, and the work runs without the GIL. A null key raises :class:`NullPointerError`
unless ``nulls="mask"``, which returns a ``numpy.ma.MaskedArray`` masking the nulls. Without the native
extension this module is :mod:`rocketroute.reference.batch`.
"""

from __future__ import annotations

from typing import Any

from . import _backend

__all__ = ["java_string_hashes", "hash_select_indices", "round_robin_indices", "route_nodes", "KEY_TYPES"]

KEY_TYPES = ("string", "int", "long")

_impl = _backend.batch_module()
java_string_hashes = _impl.java_string_hashes
hash_select_indices = _impl.hash_select_indices
round_robin_indices = _impl.round_robin_indices

if _backend.BACKEND == "native":

    def route_nodes(router: Any, keys: Any, *, nulls: str | None = "raise") -> list[str | None]:
        """``router.route_node`` of every key (``None`` for an empty ring or a masked null)."""
        return router.route_nodes(keys, nulls=nulls)  # type: ignore[no-any-return]

else:  # pragma: no cover - exercised by ROCKETROUTE_BACKEND=reference
    route_nodes = _impl.route_nodes
