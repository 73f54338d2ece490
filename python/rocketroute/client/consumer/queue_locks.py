"""The broker locks of an orderly clustering consumer's queues (``RebalanceImpl.lock`` / ``lockAll`` /
``unlockAll``): LOCK_BATCH_MQ and UNLOCK_BATCH_MQ to each queue's master, and the ``locked`` mark of its process
queue.

A part of the consumer, built when it starts (:class:`~.base.ConsumerBase`), with what it needs in its
constructor: the group and client id the locks are held for, the broker requests and addresses, the subscription
state whose process queues it marks, and the backend's ``MessageQueue`` (for the queues a broker answers). The
rebalancer locks a queue before it takes it and unlocks it when it gives it up; the orderly consume service locks
one again when its lock lapsed; the consumer renews them all every ``REBALANCE_LOCK_INTERVAL`` and unlocks them at
shutdown."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ...log_repeats import REPEATS
from ._shared import _now_ms, log

__all__ = ["QueueLocks"]

if TYPE_CHECKING:
    from ..api import BrokerAPI
    from .subscription_state import SubscriptionState

LOCK_TIMEOUT_MS = 1000
"""Java's timeout of a LOCK_BATCH_MQ or UNLOCK_BATCH_MQ (``lockBatchMQ(..., 1000)``)."""


class QueueLocks:
    """See the module. ``master_addr(broker_name)``: where a broker's locks are asked for (None: unknown now)."""

    def __init__(
        self,
        group: str,
        client_id: str,
        *,
        api: BrokerAPI,
        master_addr: Callable[[str], str | None],
        state: SubscriptionState,
        message_queue: Callable[..., Any],
    ) -> None:
        self.group = group
        self.client_id = client_id
        self.api = api
        self.master_addr = master_addr
        self.state = state
        self.message_queue = message_queue

    async def lock_batch(self, broker_name: str, mqs: list[Any]) -> set[Any]:
        """The queues of ``mqs`` the broker ``broker_name`` locked for this client (none when it is unknown)."""
        addr = self.master_addr(broker_name)
        if addr is None:
            return set()
        locked = await self.api.lock_batch(addr, self.group, self.client_id, mqs, LOCK_TIMEOUT_MS)
        return {self.message_queue(*fields) for fields in locked}

    async def lock(self, mq: Any) -> bool:
        """``RebalanceImpl.lock(mq)``: whether the queue is locked for this client now (a failure is logged)."""
        try:
            locked = await self.lock_batch(mq.broker_name, [mq])
        except Exception as e:
            REPEATS.log(log, logging.WARNING, "locking %s failed: %s", mq, e, about=mq)
            return False
        pq = self.state.process_queues.get(mq)
        if pq is not None and mq in locked:
            pq.locked = True
            pq.last_lock_timestamp = _now_ms()
        return mq in locked

    async def lock_all(self) -> None:
        """``RebalanceImpl.lockAll``: renew the locks of every owned queue, broker by broker."""
        pqs = self.state.process_queues
        by_broker: dict[str, list[Any]] = {}
        for mq, pq in list(pqs.items()):
            if not pq.dropped:
                by_broker.setdefault(mq.broker_name, []).append(mq)
        for broker_name, mqs in by_broker.items():
            try:
                locked = await self.lock_batch(broker_name, mqs)
            except Exception as e:
                REPEATS.log(
                    log, logging.WARNING, "locking the queues of %s failed: %s", broker_name, e, about=broker_name
                )
                continue
            now = _now_ms()
            for mq in mqs:
                held = pqs.get(mq)
                if held is None:
                    continue
                if mq in locked:
                    held.locked = True
                    held.last_lock_timestamp = now
                else:
                    held.locked = False

    async def unlock_all(self, mqs: Iterable[Any]) -> None:
        """UNLOCK_BATCH_MQ of ``mqs``, broker by broker (a failure is logged: the broker's lock expires anyway)."""
        by_broker: dict[str, list[Any]] = {}
        for mq in mqs:
            by_broker.setdefault(mq.broker_name, []).append(mq)
        for broker_name, group in by_broker.items():
            addr = self.master_addr(broker_name)
            if addr is None:
                continue
            try:
                await self.api.unlock_batch(addr, self.group, self.client_id, group, LOCK_TIMEOUT_MS)
            except Exception as e:
                log.warning("unlocking %s on %s failed: %s", group, broker_name, e)
            for mq in group:
                pq = self.state.process_queues.get(mq)
                if pq is not None:
                    pq.locked = False
