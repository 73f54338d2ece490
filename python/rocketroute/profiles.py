"""Cross-client routing profiles: where each RocketMQ client (and Kafka) puts a keyed message, and how
often two of them agree (:func:`compat_report`). See :mod:`rocketroute.reference.profiles` for the table of
profiles and what each client refuses. Without the native extension this module is the reference one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import _backend
from .reference.profiles import PROFILES, CompatReport
from .reference.profiles import compat_report as _compat_report

__all__ = [
    "PROFILES",
    "ProfileSelector",
    "profile_select_index",
    "profile_select_indices",
    "compat_report",
    "CompatReport",
]

_impl = _backend.profiles_module()
ProfileSelector = _impl.ProfileSelector
profile_select_index = _impl.profile_select_index
profile_select_indices = _impl.profile_select_indices


def compat_report(keys: Any, num_queues: int, profiles: Iterable[str] = PROFILES) -> CompatReport:
    """Which share of ``keys`` every two ``profiles`` place on the same queue among ``num_queues``: what a
    mixed fleet of those clients does to per-key ordering (null keys left out; a key a client refuses counts
    for no pair with that profile)."""
    return _compat_report(keys, num_queues, profiles, _indices=profile_select_indices)
