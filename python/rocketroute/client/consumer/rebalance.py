"""The consumer's rebalance (``RebalanceImpl`` / ``RebalancePushImpl``): the members and queues of each
topic through the strategy, the process queues taken and given up, where a new queue starts, and the orderly
queues' broker locks.

A part of the :class:`~rocketroute.client.consumer.Consumer`, which builds one
:class:`Rebalancer` (its ``_rebalancer``): it works on the consumer's state (queues,
offsets, connections, set up in ``ConsumerBase.__init__`` and ``start``) through its ``consumer``, and asks the other
parts through it."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ...log_repeats import REPEATS
from ...rebalance import rebalance
from ..api import BrokerAPI
from ._shared import _now_ms, log
from .constants import CONSUMER_CONSTANTS
from .errors import DuplicateClientIdError
from .process_queue import ProcessQueue
from .settings import parse_java_timestamp
from .subscription import retry_topic

__all__ = ["Rebalancer"]

if TYPE_CHECKING:
    from .base import ConsumerBase


class Rebalancer:
    """See the module."""

    def __init__(self, consumer: ConsumerBase[Any]) -> None:
        self.consumer = consumer

    async def check_unique_client_id(self, *, registered: bool) -> None:
        """Refuse to start when another member of the group runs with this consumer's client id (the same IP and
        instance name): both would own the same queues and every message would be consumed twice. Java only logs
        it; this raises :class:`DuplicateClientIdError`. Asked twice: before this consumer's first heartbeat
        (is the id listed already? RocketMQ-Rust lists an id once however many connections carry it) and after
        it (is it listed twice? Apache's brokers list one entry per connection, which catches two starting at
        once)."""
        rt = retry_topic(self.consumer.group)
        for topic in self.consumer._subs:
            if topic == rt or topic not in self.consumer._coordinator.routes:
                continue
            try:
                cids = await self.find_consumer_ids(topic)
            except Exception as e:
                log.debug("the member list of %s could not be read at start: %s", self.consumer.group, e)
                continue
            if cids.count(self.consumer.client_id) > (1 if registered else 0):
                raise DuplicateClientIdError(
                    f"another member of consumer group {self.consumer.group!r} already runs with client id "
                    f"{self.consumer.client_id!r}: two members with one id would both own the same queues and "
                    "consume every message twice. Give each consumer of a process its own instance_name (the default, "
                    "<pid>#<nanos>, is unique)"
                )
            if cids:
                return

    async def find_consumer_ids(self, topic: str) -> list[str]:
        """``findConsumerIdList``: GET_CONSUMER_LIST_BY_GROUP to a broker of the topic. Java asks one broker
        picked at random and gives up if it fails; this asks the others in turn before giving up."""
        route = self.consumer._coordinator.routes.get(topic)
        names = [b.broker_name for b in (route.broker_datas if route is not None else None) or ()]
        random.shuffle(names)
        last: Exception | None = None
        for name in names:
            addr = self.consumer._broker_addrs.master_or_first(name)
            if addr is None:
                continue
            try:
                ids = await self._api().consumer_ids(
                    addr, self.consumer.group, self.consumer.settings.mq_client_api_timeout
                )
            except Exception as e:
                last = e
                continue
            if ids:  # a broker that has just (re)started knows no member yet: ask another
                return ids
        if last is not None:
            raise last
        return []

    async def rebalance_loop(self) -> None:
        assert self.consumer._rebalance_wakeup is not None
        while self.consumer._state == "running":
            await self.wait_for_wakeup(self.consumer.settings.rebalance_interval / 1000)
            if self.consumer._state != "running":
                return
            self.consumer._rebalance_wakeup.clear()
            try:
                await self.rebalance_all()
            except asyncio.CancelledError:
                raise
            except Exception:
                REPEATS.log(log, logging.ERROR, "rebalance of %s failed", self.consumer.group, exc_info=True)

    async def wait_for_wakeup(self, timeout_s: float) -> None:
        """Until a broker's notification sets the wakeup event, or ``timeout_s``. Not ``asyncio.wait_for``: on
        Python 3.11 it returns normally when it is cancelled just as the event is set (the cancellation is lost),
        and the rebalance loop then ran on after shutdown had cancelled it, so shutdown waited for ever."""
        assert self.consumer._rebalance_wakeup is not None
        waiter = asyncio.ensure_future(self.consumer._rebalance_wakeup.wait())
        try:
            await asyncio.wait([waiter], timeout=timeout_s)
        finally:
            waiter.cancel()

    async def rebalance_all(self) -> None:
        """``RebalanceImpl.doRebalance``: each subscribed topic, then the queues of topics no longer subscribed
        are given up."""
        assert self.consumer._rebalance_lock is not None
        async with self.consumer._rebalance_lock:
            self.consumer.stats.add(rebalances=1)
            for topic in list(self.consumer._subs):
                try:
                    await self.rebalance_topic(topic)
                except Exception as e:
                    REPEATS.log(log, logging.WARNING, "rebalance of %s failed: %s", topic, e, about=topic)
            for mq in [mq for mq in self.consumer._pqs if mq.topic not in self.consumer._subs]:
                await self.drop(mq)

    async def rebalance_topic(self, topic: str) -> None:
        mqs = self.consumer._sub_info.get(topic)
        if mqs is None:
            # Java logs "doRebalance, ... the topic[...] not exist" and waits for the next route poll (30 s); the
            # retry topic of a new group is created by the broker on the first heartbeat, so it is looked up here
            if not await self.consumer._coordinator.refresh_route(topic):
                return
            mqs = self.consumer._sub_info.get(topic)
            if mqs is None:
                return
        cids: list[str] = []
        if self.consumer.model == "BROADCASTING":
            assigned: tuple[Any, ...] = tuple(sorted(mqs))
        else:
            cids = await self.find_consumer_ids(topic)
            if not cids:
                group = self.consumer.group
                REPEATS.log(log, logging.WARNING, "rebalance of %s: the brokers report no member of %s", topic, group)
                return
            if cids.count(self.consumer.client_id) > 1 and topic not in self.consumer._duplicate_logged:
                self.consumer._duplicate_logged.add(topic)
                log.error(
                    "another member of %s runs with this consumer's client id %s: both own the same queues of %s "
                    "and consume its messages twice; give each consumer its own instance_name",
                    self.consumer.group,
                    self.consumer.client_id,
                    topic,
                )
            owned = [mq for mq in self.consumer._pqs if mq.topic == topic]
            assigned = rebalance(
                self.consumer.strategy, self.consumer.group, self.consumer.client_id, mqs, cids, owned
            ).assigned
        self.consumer._limits.share(topic, len(assigned))
        before = self.owned(topic)
        changed = await self.update_process_queues(topic, set(assigned))
        self.log_change(topic, before, len(mqs), len(cids))
        if changed:
            await self.consumer._coordinator.heartbeat_all()  # 5.x messageQueueChanged: tell the brokers at once
            if (
                self.consumer.on_rebalance is not None and self.consumer._callbacks is not None
            ):  # it may call the consumer back
                self.consumer._callbacks.post(
                    "on_rebalance", self.consumer.on_rebalance, topic, tuple(sorted(assigned))
                )

    def owned(self, topic: str) -> set[Any]:
        """The queues of ``topic`` this consumer owns now (being given up: not)."""
        return {mq for mq, pq in self.consumer._pqs.items() if mq.topic == topic and not pq.dropped}

    def log_change(self, topic: str, before: set[Any], queues: int, members: int) -> None:
        """The INFO line of a rebalance that changed what this consumer owns of ``topic`` (Java's "rebalanced
        result changed"); nothing when it did not (a queue given up and taken again is no change)."""
        after = self.owned(topic)
        if after == before:
            return
        c = self.consumer
        log.info(
            "rebalance of %s in consumer group %s (client id %s, %s): owns %d of %d queues; added %s; removed %s",
            topic,
            c.group,
            c.client_id,
            f"{members} member(s)" if c.model == "CLUSTERING" else c.model,
            len(after),
            queues,
            queues_text(after - before),
            queues_text(before - after),
        )

    async def update_process_queues(self, topic: str, assigned: set[Any]) -> bool:
        """``updateProcessQueueTableInRebalance``: give up the queues no longer assigned (and those not pulled
        for ``PULL_MAX_IDLE_TIME``), take the new ones from where their offsets say."""
        changed = False
        for mq, pq in list(self.consumer._pqs.items()):
            if mq.topic != topic:
                continue
            if mq not in assigned or pq.is_pull_expired():
                if mq in assigned:
                    log.warning("%s not pulled for a long time: taken again", mq)
                if await self.drop(mq):
                    changed = True
        orderly_clustering = self.consumer.orderly and self.consumer.model == "CLUSTERING"
        for mq in sorted(assigned):
            existing = self.consumer._pqs.get(mq)
            if existing is not None:
                # a queue whose earlier give-up could not finish (an orderly listener call held it) is finished first
                if not existing.dropped or not await self.drop(mq):
                    continue
            if orderly_clustering and not await self.lock(mq):
                log.info("%s is still locked by another member: not taken this time", mq)
                continue
            assert self.consumer._offsets is not None
            self.consumer._offsets.remove_offset(mq)  # removeDirtyOffset
            try:
                offset = await self.compute_pull_from_where(mq)
            except Exception as e:
                REPEATS.log(log, logging.WARNING, "no start offset for %s (%s): not taken this time", mq, e, about=mq)
                continue
            pq = ProcessQueue()
            if orderly_clustering:
                pq.locked = True
                pq.last_lock_timestamp = _now_ms()
            self.consumer._pqs[mq] = pq
            puller = self.consumer._puller
            assert puller is not None  # built at start, before the first rebalance
            puller.start_pull(mq, pq, offset)
            changed = True
        if changed:
            self.consumer.stats.last_change_ms = _now_ms()
        return changed

    async def drop(self, mq: Any) -> bool:
        """``removeUnnecessaryMessageQueue``: stop the queue, commit its offset, forget it; an orderly queue is
        unlocked on its broker once no listener call is under way on it (the lock is taken for up to 1 s, else
        the queue is tried again next rebalance)."""
        pq = self.consumer._pqs.get(mq)
        if pq is None:
            return False
        pq.dropped = True
        if self.consumer._puller is not None:
            self.consumer._puller.stop_pull(mq)
        assert self.consumer._offsets is not None
        if self.consumer.orderly and self.consumer.model == "CLUSTERING":
            got = await asyncio.to_thread(pq.consume_lock.acquire, True, 1.0)
            if not got:
                pq.try_unlock_times += 1
                return False
            try:
                committed = await self.commit_and_forget(mq)
                # Java unlocks 20 s later when the queue still holds pulled messages, giving its oneway commit
                # time to land before the next owner reads the offset. This commit was acknowledged, under the
                # consume lock, so the next owner starts right after the last message consumed here: the queue
                # is unlocked at once, and the hand-over takes one rebalance, not 20 s. The delay stays for a
                # commit that failed.
                if not committed and pq.has_temp_message():
                    asyncio.get_running_loop().call_later(
                        CONSUMER_CONSTANTS["UNLOCK_DELAY_TIME_MILLS"] / 1000,
                        lambda: asyncio.ensure_future(self.unlock_all([mq])),
                    )
                else:
                    await self.unlock_all([mq])
            finally:
                pq.consume_lock.release()
        else:
            await self.commit_and_forget(mq)
        del self.consumer._pqs[mq]
        return True

    async def commit_and_forget(self, mq: Any) -> bool:
        """Commit the queue's offset and forget it; returns whether the commit was acknowledged."""
        offsets = self.consumer._offsets
        assert offsets is not None
        try:
            await offsets.persist(mq)
            # once more, acknowledged again, as at shutdown (ConsumerBase._final_commit_and_unregister): Apache's broker
            # runs UPDATE_CONSUMER_OFFSET on a pool of threads, so the periodic (oneway) commit sent just before,
            # one message older, can be applied after the first and win; the next owner then consumed that message
            # again (stop 62's CI: an orderly key's seq 13 from both members of a hand-over)
            await offsets.persist(mq)
        except Exception as e:
            REPEATS.log(log, logging.WARNING, "committing the offset of %s failed: %s", mq, e, about=mq)
            return False
        finally:
            offsets.remove_offset(mq)
        return True

    async def compute_pull_from_where(self, mq: Any) -> int:
        """``RebalancePushImpl.computePullFromWhereWithException``."""
        assert self.consumer._offsets is not None
        last = await self.consumer._offsets.read_from_store(mq)
        if last >= 0:
            return last
        if last != -1:
            raise RuntimeError(f"offset {last} read from the store")
        where = self.consumer.settings.consume_from_where
        is_retry = mq.topic.startswith("%RETRY%")
        if where == "CONSUME_FROM_FIRST_OFFSET" or (where == "CONSUME_FROM_LAST_OFFSET" and is_retry):
            return 0
        addr = self.consumer._coordinator.master_addr(mq.broker_name)
        if addr is None:
            raise RuntimeError(f"The broker[{mq.broker_name}] not exist")
        timeout = self.consumer.settings.mq_client_api_timeout
        if where == "CONSUME_FROM_LAST_OFFSET" or is_retry:
            return await self._api().max_offset(addr, mq, timeout)
        ts = parse_java_timestamp(self.consumer.settings.consume_timestamp)
        return await self._api().search_offset(addr, mq, ts, timeout)

    def _api(self) -> BrokerAPI:
        """The requests to the brokers, the consumer's instance's (while it runs)."""
        instance = self.consumer._instance
        assert instance is not None
        return instance.api

    # -- orderly locks -----------------------------------------------------------------------------------------

    async def lock_batch(self, broker_name: str, mqs: list[Any]) -> set[Any]:
        addr = self.consumer._coordinator.master_addr(broker_name)
        if addr is None:
            return set()
        locked = await self._api().lock_batch(addr, self.consumer.group, self.consumer.client_id, mqs, 1000)
        return {self.consumer._rr.MessageQueue(*fields) for fields in locked}

    async def lock(self, mq: Any) -> bool:
        """``RebalanceImpl.lock(mq)``."""
        try:
            locked = await self.lock_batch(mq.broker_name, [mq])
        except Exception as e:
            REPEATS.log(log, logging.WARNING, "locking %s failed: %s", mq, e, about=mq)
            return False
        pq = self.consumer._pqs.get(mq)
        if pq is not None and mq in locked:
            pq.locked = True
            pq.last_lock_timestamp = _now_ms()
        return mq in locked

    async def lock_all(self) -> None:
        """``RebalanceImpl.lockAll``: renew the locks of every owned queue, broker by broker."""
        by_broker: dict[str, list[Any]] = {}
        for mq, pq in self.consumer._pqs.items():
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
                pq = self.consumer._pqs.get(mq)
                if pq is None:
                    continue
                if mq in locked:
                    pq.locked = True
                    pq.last_lock_timestamp = now
                else:
                    pq.locked = False

    async def unlock_all(self, mqs: Iterable[Any]) -> None:
        by_broker: dict[str, list[Any]] = {}
        for mq in mqs:
            by_broker.setdefault(mq.broker_name, []).append(mq)
        for broker_name, group in by_broker.items():
            addr = self.consumer._coordinator.master_addr(broker_name)
            if addr is None:
                continue
            try:
                await self._api().unlock_batch(addr, self.consumer.group, self.consumer.client_id, group, 1000)
            except Exception as e:
                log.warning("unlocking %s on %s failed: %s", group, broker_name, e)
            for mq in group:
                pq = self.consumer._pqs.get(mq)
                if pq is not None:
                    pq.locked = False


def queues_text(mqs: Iterable[Any]) -> str:
    """Queues in a short form, by broker: ``broker-a[0,1] broker-b[3]``; ``none`` for none."""
    by_broker: dict[str, list[int]] = {}
    for mq in mqs:
        by_broker.setdefault(mq.broker_name, []).append(mq.queue_id)
    return " ".join(f"{b}[{','.join(map(str, sorted(ids)))}]" for b, ids in sorted(by_broker.items())) or "none"
