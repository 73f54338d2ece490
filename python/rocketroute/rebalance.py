"""``rebalance`` (a consumer's step of ``RebalanceImpl``) and ``churn`` (what an assignment change moves).
Both work with either backend's objects."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import NullPointerError

__all__ = ["QueueAllocator", "RebalanceResult", "Churn", "rebalance", "churn"]


class QueueAllocator(Protocol):
    """What a consumer's ``strategy`` is: either backend's ``AllocateMessageQueue*`` strategies, or any object of
    your own with ``allocate(consumer_group, current_cid, mq_all, cid_all)`` returning ``current_cid``'s queues
    (Java's ``AllocateMessageQueueStrategy``). The queues are either backend's ``MessageQueue``."""

    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[Any] | None,
        cid_all: Sequence[str] | None,
        /,
    ) -> Sequence[Any] | None: ...


def _checked_cid(s: str) -> str:
    if s is None:  # Collections.sort(cidAll) calls compareTo on it (RebalanceImpl.java): NullPointerException
        raise NullPointerError("cid_all holds None")
    if not isinstance(s, str):
        raise TypeError(f"cid_all must hold str, not {type(s).__name__}")
    return s


@dataclass(frozen=True)
class RebalanceResult:
    """The consumer's new queues, and the queues it starts and stops consuming."""

    assigned: tuple[Any, ...]
    added: tuple[Any, ...]
    dropped: tuple[Any, ...]


def rebalance(
    strategy: QueueAllocator,
    consumer_group: str | None,
    current_cid: str,
    mq_all: Iterable[Any],
    cid_all: Iterable[str],
    owned: Iterable[Any] = (),
) -> RebalanceResult:
    """One consumer's rebalance, as ``RebalanceImpl.rebalanceByTopic`` does it for a clustering consumer:
    the topic's queues (a set, so without duplicates) and the group's consumer ids are sorted with Java's
    ``compareTo``, the strategy allocates, and the result is compared with the queues the consumer ``owned``.

    Java logs an allocation error and keeps the old assignment; here the strategy's exception propagates."""
    # here, not at import time: import rocketroute imports this module before the reference package, whose
    # __init__ imports this one
    from .reference.java import java_string_key

    mqs = sorted(dict.fromkeys(mq_all))
    cids = sorted(cid_all, key=lambda s: java_string_key(_checked_cid(s)))  # Java's String.compareTo order
    result = strategy.allocate(consumer_group, current_cid, mqs, cids)
    assigned = tuple(dict.fromkeys(result or ()))
    owned_list = list(dict.fromkeys(owned))
    owned_set, assigned_set = set(owned_list), set(assigned)
    return RebalanceResult(
        assigned=assigned,
        added=tuple(mq for mq in assigned if mq not in owned_set),
        dropped=tuple(mq for mq in owned_list if mq not in assigned_set),
    )


@dataclass(frozen=True)
class Churn:
    """What changes between two assignments of a group.

    ``moved``: queues present in both whose owners changed, as ``(queue, owners_before, owners_after)``;
    ``added`` / ``removed``: queues owned only after / only before (a queue-count change). With per-queue
    load, ``load_moved`` is the load of the moved queues and ``load_total`` the load of the queues after."""

    moved: tuple[tuple[Any, frozenset[str], frozenset[str]], ...]
    added: tuple[Any, ...]
    removed: tuple[Any, ...]
    queues_total: int
    load_moved: float | None = None
    load_total: float | None = None

    @property
    def queues_moved(self) -> int:
        return len(self.moved)

    @property
    def moved_share(self) -> float:
        """Moved queues over the queues present after (0 when there are none)."""
        return len(self.moved) / self.queues_total if self.queues_total else 0.0


def _owners(assignment: Mapping[str, Iterable[Any] | None]) -> dict[Any, frozenset[str]]:
    owners: dict[Any, set[str]] = {}
    for cid, mqs in assignment.items():
        for mq in mqs or ():
            owners.setdefault(mq, set()).add(cid)
    return {mq: frozenset(c) for mq, c in owners.items()}


def churn(
    before: Mapping[str, Iterable[Any] | None],
    after: Mapping[str, Iterable[Any] | None],
    load: Mapping[Any, float] | None = None,
) -> Churn:
    """Compare two assignments (``{cid: queues}``, e.g. from ``allocate_all`` before and after a consumer
    joins or leaves): the queues that moved to another consumer, and with ``load`` the load that moved."""
    ob, oa = _owners(before), _owners(after)
    moved = tuple((mq, ob[mq], oa[mq]) for mq in oa if mq in ob and ob[mq] != oa[mq])
    added = tuple(mq for mq in oa if mq not in ob)
    removed = tuple(mq for mq in ob if mq not in oa)
    load_moved = load_total = None
    if load is not None:
        load_moved = float(sum(load.get(mq, 0) for mq, _, _ in moved))
        load_total = float(sum(load.get(mq, 0) for mq in oa))
    return Churn(moved, added, removed, len(oa), load_moved, load_total)
