"""``AllocateMessageQueueSticky``: a balanced allocation that moves as few queues as possible away from the
group's previous assignment (not a strategy of the Java client: opt in, every member alike)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..errors import NullPointerError
from .allocate import _GlobalStrategy
from .java import utf8_name
from .message_queue import MessageQueue

__all__ = ["AllocateMessageQueueSticky", "Assignment"]

Assignment = Mapping[str, Iterable[MessageQueue] | None]


def _previous(previous: object) -> dict[str, tuple[MessageQueue, ...]]:
    """``previous`` checked and copied: ``{cid: (queue, ...)}`` in the mapping's order (``None`` queues: none)."""
    if previous is None:
        return {}
    if not isinstance(previous, Mapping):
        raise TypeError(f"previous must be a mapping of consumer id to queues, not {type(previous).__name__}")
    out: dict[str, tuple[MessageQueue, ...]] = {}
    for cid, queues in previous.items():
        if cid is None:
            raise NullPointerError("previous holds a None consumer id")
        if not isinstance(cid, str):
            raise TypeError(f"previous: a consumer id must be a str, not {type(cid).__name__}")
        utf8_name("previous", cid)
        if queues is None:
            out[cid] = ()
            continue
        held = tuple(queues)
        for mq in held:
            if not isinstance(mq, MessageQueue):
                raise TypeError(f"previous: a queue must be a MessageQueue, not {type(mq).__name__}")
        out[cid] = held
    return out


def sticky_positions(n_mq: int, previous: list[list[int]]) -> list[list[int]]:
    """The sticky assignment over positions: ``previous[c]`` holds the positions (in ``range(n_mq)``) consumer
    ``c`` owned; the result, each consumer's positions in increasing order. See ``AllocateMessageQueueSticky``."""
    n_cid = len(previous)
    if n_cid == 0:
        return []
    owner: list[int | None] = [None] * n_mq
    for c, held in enumerate(previous):
        for p in held:
            if owner[p] is None:  # a queue claimed twice stays with the first claimant in cid_all order
                owner[p] = c
    kept = [0] * n_cid
    for o in owner:
        if o is not None:
            kept[o] += 1
    base, extra = divmod(n_mq, n_cid)
    quota = [base] * n_cid
    for c in sorted(range(n_cid), key=lambda c: (-kept[c], c))[:extra]:
        quota[c] += 1
    out: list[list[int]] = [[] for _ in range(n_cid)]
    free = []
    for p, o in enumerate(owner):
        if o is not None and len(out[o]) < quota[o]:
            out[o].append(p)
        else:
            free.append(p)
    it = iter(free)
    for c in range(n_cid):
        grow = quota[c] - len(out[c])
        if grow:
            out[c].extend(next(it) for _ in range(grow))
            out[c].sort()
    return out


class AllocateMessageQueueSticky(_GlobalStrategy):
    """``STICKY``: a balanced assignment (every consumer ``len(mq_all) // n`` or one more queue, ``n`` the
    distinct consumers) that keeps as many queues as possible with the consumer that owned them in ``previous``,
    the group's previous assignment ``{cid: queues}`` (so a join or leave moves the fewest queues).

    The ``len(mq_all) % n`` larger shares go to the consumers that keep the most of their previous queues
    still in ``mq_all`` (ties: the earlier in ``cid_all``); each consumer keeps its previous queues up to its
    share (the first ones in ``mq_all`` order); the queues left over go, in ``mq_all`` order, to the consumers
    below their share, in ``cid_all`` order. A queue that ``previous`` gives to two consumers counts for the
    earlier of them in ``cid_all``; queues not in ``mq_all`` and consumers not in ``cid_all`` are ignored, and
    duplicates in ``mq_all`` / ``cid_all`` count once. Without a previous assignment this is ``AVG``.

    Every member computes the whole assignment and takes its own part, so **all members must use the same
    previous assignment** (e.g. the one all of them computed last round, ``allocate_all``'s result, or the
    owners the broker reports) to agree; the order of the mapping does not matter. Not a Java strategy: a group
    must not mix it with members that allocate otherwise."""

    __slots__ = ("_previous",)
    name = "STICKY"

    def __init__(self, previous: Assignment | None = None) -> None:
        self._previous = _previous(previous)

    @property
    def previous(self) -> dict[str, tuple[MessageQueue, ...]]:
        """The previous assignment, ``{cid: (queue, ...)}`` (a copy)."""
        return dict(self._previous)

    def with_previous(self, assignment: Assignment | None) -> AllocateMessageQueueSticky:
        """A new strategy with ``assignment`` as the previous one (e.g. this strategy's last ``allocate_all``)."""
        return AllocateMessageQueueSticky(assignment)

    def _assignment(self, mqs: list[MessageQueue], cids: list[str]) -> dict[str, list[MessageQueue]]:
        queues = list(dict.fromkeys(mqs))
        position = {mq: p for p, mq in enumerate(queues)}
        held = [[position[mq] for mq in self._previous.get(c, ()) if mq in position] for c in cids]
        return {c: [queues[p] for p in ps] for c, ps in zip(cids, sticky_positions(len(queues), held), strict=True)}

    def allocate_all(
        self, mq_all: Sequence[MessageQueue] | None, cid_all: Sequence[str] | None
    ) -> dict[str, list[MessageQueue]]:
        """The whole assignment, ``{cid: queues}`` for each distinct consumer of ``cid_all`` in order (feed it
        to ``with_previous`` for the next round); equal to ``allocate`` for each of them."""
        return super().allocate_all(mq_all, cid_all)

    def __repr__(self) -> str:
        return f"AllocateMessageQueueSticky(previous={len(self._previous)} consumers)"
