"""The consumer's rebalance (``RebalanceImpl``, ``RebalancePushImpl`` and ``RebalanceLitePullImpl``): the members
and queues of each topic through the strategy, the process queues taken and given up, and where a new queue starts.

A part of the consumer, built when it starts (:class:`~.base.ConsumerBase`), with what it needs in its
constructor: the subscription state (whose process queues it takes and gives up), the strategy, the broker
requests, addresses and routes, the offset store, the puller it asks to start and stop a queue, the queues' limits
and, for an orderly clustering consumer, the queues' broker locks. It owns the rebalance loop's wakeup (a broker's
NOTIFY_CONSUMER_IDS_CHANGED sets it, :meth:`Rebalancer.wake`) and the lock one rebalance at a time holds."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ...log_repeats import REPEATS
from ...rebalance import QueueAllocator, rebalance
from ._shared import _now_ms, log
from .constants import CONSUMER_CONSTANTS
from .errors import DuplicateClientIdError
from .process_queue import ProcessQueue
from .settings import parse_java_timestamp
from .subscription import retry_topic

__all__ = ["QueuePuller", "Rebalancer"]


class QueuePuller(Protocol):
    """What the rebalancer asks of the part that pulls (the push consumer's :class:`~.puller.Puller`, the lite pull
    consumer's :class:`~.lite_puller.LitePuller`): start a queue taken, stop one given up."""

    def start_pull(self, mq: Any, pq: ProcessQueue, offset: int) -> None: ...

    def stop_pull(self, mq: Any) -> None: ...


if TYPE_CHECKING:
    from ..api import BrokerAPI
    from ..broker_addrs import BrokerAddrTable
    from .lite_pull_settings import LitePullConsumerSettings
    from .offset_store import OffsetStore
    from .queue_limits import QueueLimits
    from .queue_locks import QueueLocks
    from .settings import ConsumerSettings
    from .stats import ConsumerStats
    from .subscription_state import SubscriptionState


class Rebalancer:
    """See the module."""

    def __init__(
        self,
        group: str,
        client_id: str,
        settings: ConsumerSettings | LitePullConsumerSettings,
        state: SubscriptionState,
        strategy: QueueAllocator,
        *,
        clustering: bool,
        api: BrokerAPI,
        broker_addrs: BrokerAddrTable,
        routes: Mapping[str, Any],
        update_route: Callable[[str, int], Awaitable[bool]],
        heartbeat: Callable[[], Awaitable[object]],
        offsets: OffsetStore,
        puller: QueuePuller,
        limits: QueueLimits | None,
        locks: QueueLocks | None,
        stats: ConsumerStats,
        on_change: Callable[[str, tuple[Any, ...]], None] | None,
        running: Callable[[], bool],
    ) -> None:
        """``routes``: the instance's route table (``topicRouteTable``), ``update_route(topic, timeout_ms)`` its
        fetch of one route; ``heartbeat()`` one heartbeat to every broker; ``locks``: the queues' broker locks of an
        orderly clustering consumer (None: none taken); ``on_change(topic, queues)``: told the queues this consumer
        owns of a topic after a rebalance changed them; ``running()``: whether the consumer still runs."""
        self.group = group
        self.client_id = client_id
        self.settings = settings
        self.state = state
        self.strategy = strategy
        self.clustering = clustering
        self.api = api
        self.broker_addrs = broker_addrs
        self.routes = routes
        self.update_route = update_route
        self.heartbeat = heartbeat
        self.offsets = offsets
        self.puller = puller
        self.limits = limits
        self.locks = locks
        self.stats = stats
        self.on_change = on_change
        self.running = running
        self._wakeup = asyncio.Event()  # set by a broker's NOTIFY_CONSUMER_IDS_CHANGED: rebalance now
        self._lock = asyncio.Lock()  # one rebalance at a time (the loop's, rebalance_now's)
        self._duplicate_logged: set[str] = set()  # the topics whose duplicate client id was logged

    def wake(self) -> None:
        """``rebalanceImmediately``: the rebalance loop runs a rebalance now (on the loop)."""
        self._wakeup.set()

    async def refresh_route(self, topic: str) -> bool:
        """``updateTopicRouteInfoFromNameServer`` for one topic, through the instance: True when a route was
        found."""
        try:
            found = await self.update_route(topic, self.settings.mq_client_api_timeout)
        except Exception as e:  # the name servers down: try again next round
            REPEATS.log(log, logging.WARNING, "route refresh of %s failed: %s", topic, e, about=topic)
            return False
        if not found and topic != retry_topic(self.group):
            group = self.group
            REPEATS.log(log, logging.WARNING, "no route for topic %s, subscribed by consumer group %s", topic, group)
        return found

    async def check_unique_client_id(self, *, registered: bool) -> None:
        """Refuse to start when another member of the group runs with this consumer's client id (the same IP and
        instance name): both would own the same queues and every message would be consumed twice. Java only logs
        it; this raises :class:`DuplicateClientIdError`. Asked twice: before this consumer's first heartbeat
        (is the id listed already? RocketMQ-Rust lists an id once however many connections carry it) and after
        it (is it listed twice? Apache's brokers list one entry per connection, which catches two starting at
        once)."""
        rt = retry_topic(self.group)
        for topic in self.state.subscriptions:
            if topic == rt or topic not in self.routes:
                continue
            try:
                cids = await self.find_consumer_ids(topic)
            except Exception as e:
                log.debug("the member list of %s could not be read at start: %s", self.group, e)
                continue
            if cids.count(self.client_id) > (1 if registered else 0):
                raise DuplicateClientIdError(
                    f"another member of consumer group {self.group!r} already runs with client id "
                    f"{self.client_id!r}: two members with one id would both own the same queues and "
                    "consume every message twice. Give each consumer of a process its own instance_name (the default, "
                    "<pid>#<nanos>, is unique)"
                )
            if cids:
                return

    async def find_consumer_ids(self, topic: str) -> list[str]:
        """``findConsumerIdList``: GET_CONSUMER_LIST_BY_GROUP to a broker of the topic. Java asks one broker
        picked at random and gives up if it fails; this asks the others in turn before giving up."""
        route = self.routes.get(topic)
        names = [b.broker_name for b in (route.broker_datas if route is not None else None) or ()]
        random.shuffle(names)
        last: Exception | None = None
        for name in names:
            addr = self.broker_addrs.master_or_first(name)
            if addr is None:
                continue
            try:
                ids = await self.api.consumer_ids(addr, self.group, self.settings.mq_client_api_timeout)
            except Exception as e:
                last = e
                continue
            if ids:  # a broker that has just (re)started knows no member yet: ask another
                return ids
        if last is not None:
            raise last
        return []

    async def rebalance_loop(self) -> None:
        while self.running():
            await self.wait_for_wakeup(self.settings.rebalance_interval / 1000)
            if not self.running():
                return
            self._wakeup.clear()
            try:
                await self.rebalance_all()
            except asyncio.CancelledError:
                raise
            except Exception:
                REPEATS.log(log, logging.ERROR, "rebalance of %s failed", self.group, exc_info=True)

    async def wait_for_wakeup(self, timeout_s: float) -> None:
        """Until a broker's notification sets the wakeup event, or ``timeout_s``. Not ``asyncio.wait_for``: on
        Python 3.11 it returns normally when it is cancelled just as the event is set (the cancellation is lost),
        and the rebalance loop then ran on after shutdown had cancelled it, so shutdown waited for ever."""
        waiter = asyncio.ensure_future(self._wakeup.wait())
        try:
            await asyncio.wait([waiter], timeout=timeout_s)
        finally:
            waiter.cancel()

    async def rebalance_all(self) -> None:
        """``RebalanceImpl.doRebalance``: each subscribed topic, then the queues of topics no longer subscribed
        are given up."""
        async with self._lock:
            self.stats.add(rebalances=1)
            for topic in list(self.state.subscriptions):
                try:
                    await self.rebalance_topic(topic)
                except Exception as e:
                    REPEATS.log(log, logging.WARNING, "rebalance of %s failed: %s", topic, e, about=topic)
            for mq in [mq for mq in self.state.process_queues if mq.topic not in self.state.subscriptions]:
                await self.drop(mq)

    async def rebalance_topic(self, topic: str) -> None:
        mqs = self.state.subscribe_info.get(topic)
        if mqs is None:
            # Java logs "doRebalance, ... the topic[...] not exist" and waits for the next route poll (30 s); the
            # retry topic of a new group is created by the broker on the first heartbeat, so it is looked up here
            if not await self.refresh_route(topic):
                return
            mqs = self.state.subscribe_info.get(topic)
            if mqs is None:
                return
        cids: list[str] = []
        if not self.clustering:
            assigned: tuple[Any, ...] = tuple(sorted(mqs))
        else:
            cids = await self.find_consumer_ids(topic)
            if not cids:
                group = self.group
                REPEATS.log(log, logging.WARNING, "rebalance of %s: the brokers report no member of %s", topic, group)
                return
            if cids.count(self.client_id) > 1 and topic not in self._duplicate_logged:
                self._duplicate_logged.add(topic)
                log.error(
                    "another member of %s runs with this consumer's client id %s: both own the same queues of %s "
                    "and consume its messages twice; give each consumer its own instance_name",
                    self.group,
                    self.client_id,
                    topic,
                )
            owned = [mq for mq in self.state.process_queues if mq.topic == topic]
            assigned = rebalance(self.strategy, self.group, self.client_id, mqs, cids, owned).assigned
        if self.limits is not None:
            self.limits.share(topic, len(assigned))
        before = self.state.owned(topic)
        changed = await self.update_process_queues(topic, set(assigned))
        self.log_change(topic, before, len(mqs), len(cids))
        if changed:
            await self.heartbeat()  # 5.x messageQueueChanged: tell the brokers at once
            if self.on_change is not None:
                self.on_change(topic, tuple(sorted(assigned)))

    def log_change(self, topic: str, before: set[Any], queues: int, members: int) -> None:
        """The INFO line of a rebalance that changed what this consumer owns of ``topic`` (Java's "rebalanced
        result changed"); nothing when it did not (a queue given up and taken again is no change)."""
        after = self.state.owned(topic)
        if after == before:
            return
        log.info(
            "rebalance of %s in consumer group %s (client id %s, %s): owns %d of %d queues; added %s; removed %s",
            topic,
            self.group,
            self.client_id,
            f"{members} member(s)" if self.clustering else "BROADCASTING",
            len(after),
            queues,
            queues_text(after - before),
            queues_text(before - after),
        )

    async def update_process_queues(self, topic: str, assigned: set[Any]) -> bool:
        """``updateProcessQueueTableInRebalance``: give up the queues no longer assigned (and those not pulled
        for ``PULL_MAX_IDLE_TIME``), take the new ones from where their offsets say."""
        changed = False
        for mq, pq in list(self.state.process_queues.items()):
            if mq.topic != topic:
                continue
            if mq not in assigned or pq.is_pull_expired():
                if mq in assigned:
                    log.warning("%s not pulled for a long time: taken again", mq)
                if await self.drop(mq):
                    changed = True
        locks = self.locks
        for mq in sorted(assigned):
            existing = self.state.process_queues.get(mq)
            if existing is not None:
                # a queue whose earlier give-up could not finish (an orderly listener call held it) is finished first
                if not existing.dropped or not await self.drop(mq):
                    continue
            if locks is not None and not await locks.lock(mq):
                log.info("%s is still locked by another member: not taken this time", mq)
                continue
            self.offsets.remove_offset(mq)  # removeDirtyOffset
            try:
                offset = await self.compute_pull_from_where(mq)
            except Exception as e:
                REPEATS.log(log, logging.WARNING, "no start offset for %s (%s): not taken this time", mq, e, about=mq)
                continue
            pq = ProcessQueue()
            if locks is not None:
                pq.locked = True
                pq.last_lock_timestamp = _now_ms()
            self.state.process_queues[mq] = pq
            self.puller.start_pull(mq, pq, offset)
            changed = True
        if changed:
            self.stats.last_change_ms = _now_ms()
        return changed

    async def drop(self, mq: Any) -> bool:
        """``removeUnnecessaryMessageQueue``: stop the queue, commit its offset, forget it; an orderly queue is
        unlocked on its broker once no listener call is under way on it (the lock is taken for up to 1 s, else
        the queue is tried again next rebalance)."""
        pq = self.state.process_queues.get(mq)
        if pq is None:
            return False
        pq.dropped = True
        self.puller.stop_pull(mq)
        locks = self.locks
        if locks is not None:
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
                unlock = locks.unlock_all
                if not committed and pq.has_temp_message():
                    asyncio.get_running_loop().call_later(
                        CONSUMER_CONSTANTS["UNLOCK_DELAY_TIME_MILLS"] / 1000,
                        lambda: asyncio.ensure_future(unlock([mq])),
                    )
                else:
                    await unlock([mq])
            finally:
                pq.consume_lock.release()
        else:
            await self.commit_and_forget(mq)
        del self.state.process_queues[mq]
        return True

    async def commit_and_forget(self, mq: Any) -> bool:
        """Commit the queue's offset and forget it; returns whether the commit was acknowledged."""
        offsets = self.offsets
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
        last = await self.offsets.read_from_store(mq)
        if last >= 0:
            return last
        if last != -1:
            raise RuntimeError(f"offset {last} read from the store")
        where = self.settings.consume_from_where
        is_retry = mq.topic.startswith("%RETRY%")
        if where == "CONSUME_FROM_FIRST_OFFSET" or (where == "CONSUME_FROM_LAST_OFFSET" and is_retry):
            return 0
        addr = self.broker_addrs.master(mq.broker_name)
        if addr is None:
            raise RuntimeError(f"The broker[{mq.broker_name}] not exist")
        timeout = self.settings.mq_client_api_timeout
        if where == "CONSUME_FROM_LAST_OFFSET" or is_retry:
            return await self.api.max_offset(addr, mq, timeout)
        ts = parse_java_timestamp(self.settings.consume_timestamp)
        return await self.api.search_offset(addr, mq, ts, timeout)


def queues_text(mqs: Iterable[Any]) -> str:
    """Queues in a short form, by broker: ``broker-a[0,1] broker-b[3]``; ``none`` for none."""
    by_broker: dict[str, list[int]] = {}
    for mq in mqs:
        by_broker.setdefault(mq.broker_name, []).append(mq.queue_id)
    return " ".join(f"{b}[{','.join(map(str, sorted(ids)))}]" for b, ids in sorted(by_broker.items())) or "none"
