"""``analyse_views``: what a consumer group does when its members do not see the same thing.

During a rebalance every consumer allocates on its own view: the topic's queues from its last route fetch and
the group's consumer ids from its last heartbeat answer. While those views differ (a member joined a moment
ago, a broker's queues changed, a heartbeat was lost), two consumers may both take a queue (its messages are
consumed twice) or none may (the queue is orphaned until the next rebalance). Works with either backend's
strategies, the Java-compatible ones and the sticky and bounded ones alike."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import RocketRouteError
from .rebalance import rebalance

__all__ = ["ViewReport", "analyse_views"]


@dataclass(frozen=True)
class ViewReport:
    """``claims``: the queues each consumer takes on its own view; ``owners``: every queue of ``mq_all`` with the
    consumers that take it; ``duplicated``: the queues taken by two consumers or more; ``orphaned``: the queues
    of ``mq_all`` nobody takes; ``stray``: queues taken that are not in ``mq_all`` (a stale view of a queue that is
    gone); ``errors``: the consumers whose allocation failed (Java logs it and keeps its old queues; here they
    take nothing), with the exception's text."""

    claims: dict[str, tuple[Any, ...]]
    owners: dict[Any, tuple[str, ...]]
    duplicated: dict[Any, tuple[str, ...]]
    orphaned: tuple[Any, ...]
    stray: dict[Any, tuple[str, ...]]
    errors: dict[str, str]

    @property
    def consistent(self) -> bool:
        """Every queue of ``mq_all`` taken exactly once, nothing else taken, no allocation failed."""
        return not (self.duplicated or self.orphaned or self.stray or self.errors)


def analyse_views(
    strategy: Any,
    views: Mapping[str, tuple[Iterable[Any], Iterable[str]]],
    *,
    mq_all: Iterable[Any] | None = None,
    consumer_group: str | None = None,
) -> ViewReport:
    """Each consumer of ``views`` (``cid -> (its mq_all, its cid_all)``) allocates with ``strategy`` as
    ``RebalanceImpl`` does (lists deduplicated and sorted with Java's ``compareTo``); the claims are then
    compared with ``mq_all``, the queues that really exist (default: every queue some view holds)."""
    if views is None:
        raise RocketRouteError("views is None")
    claims: dict[str, tuple[Any, ...]] = {}
    errors: dict[str, str] = {}
    seen: dict[Any, None] = {}
    for cid, view in views.items():
        if not isinstance(view, tuple) or len(view) != 2:
            raise RocketRouteError(f"the view of {cid!r} must be a (mq_all, cid_all) pair")
        mqs, cids = list(view[0]), list(view[1])
        seen.update(dict.fromkeys(mqs))
        try:
            claims[cid] = rebalance(strategy, consumer_group, cid, mqs, cids).assigned
        except Exception as e:  # a failed allocation takes nothing; the reason is reported
            claims[cid] = ()
            errors[cid] = f"{type(e).__name__}: {e}"
    truth = list(dict.fromkeys(seen if mq_all is None else mq_all))
    taken: dict[Any, list[str]] = {}
    for cid, queues in claims.items():
        for mq in queues:
            taken.setdefault(mq, []).append(cid)
    owners = {mq: tuple(taken.get(mq, ())) for mq in sorted(truth)}
    truth_set = set(truth)
    return ViewReport(
        claims=claims,
        owners=owners,
        duplicated={mq: c for mq, c in owners.items() if len(c) > 1},
        orphaned=tuple(mq for mq, c in owners.items() if not c),
        stray={mq: tuple(c) for mq, c in taken.items() if mq not in truth_set},
        errors=errors,
    )
