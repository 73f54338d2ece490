"""The consumer's pulls (``DefaultMQPushConsumerImpl.pullMessage`` and its callback): one long-polled
PULL_MESSAGE in flight per owned queue, with Java's flow control.

A part of the consumer, built when it starts (:class:`~.base.ConsumerBase`), with what it needs in its
constructor: the connections, the brokers' addresses, the offset store, the queues' limits, the consume service that
takes what it pulls, and the process-queue table (the subscription state's: it forgets a queue whose offset is
illegal, as Java's ``removeProcessQueue``). It owns the pull tasks (one per queue) and ``pullFromWhichNodeTable``,
the node each queue's next pull goes to."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from functools import partial
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

from ..namesrv import MASTER_ID
from ._shared import _now_ms, log
from .constants import CONSUMER_CONSTANTS
from .process_queue import ProcessQueue
from .pull import FLAG_COMMIT_OFFSET, PullStatus, fetch, log_pull_failure, pull_request, pull_sys_flag

__all__ = ["Puller"]

_DECODE_ERROR = attrgetter("decode_error")
_NONE = partial(is_, None)

if TYPE_CHECKING:
    from ...net.transport import AsyncRemotingClient
    from ..broker_addrs import BrokerAddrTable
    from .consume_service import ConsumeService
    from .offset_store import OffsetStore
    from .queue_limits import QueueLimits
    from .settings import ConsumerSettings
    from .stats import ConsumerStats
    from .subscription import SubscriptionData


class Puller:
    """See the module. ``running()`` says whether the consumer still runs (a pull loop ends when it does not);
    ``orderly`` and ``clustering``: an orderly clustering consumer pulls a queue only while it holds its lock."""

    def __init__(
        self,
        group: str,
        settings: ConsumerSettings,
        compat: str,
        subscriptions: Mapping[str, SubscriptionData],
        *,
        orderly: bool,
        clustering: bool,
        client: AsyncRemotingClient,
        broker_addrs: BrokerAddrTable,
        offsets: OffsetStore,
        limits: QueueLimits,
        consume: ConsumeService,
        process_queues: dict[Any, ProcessQueue],
        stats: ConsumerStats,
        running: Callable[[], bool],
    ) -> None:
        self.group = group
        self.settings = settings
        self.compat = compat
        self.subscriptions = subscriptions
        self.orderly = orderly
        self.clustering = clustering
        self.client = client
        self.broker_addrs = broker_addrs
        self.offsets = offsets
        self.limits = limits
        self.consume = consume
        self.process_queues = process_queues
        self.stats = stats
        self.running = running
        self.tasks: dict[Any, asyncio.Task[None]] = {}
        self.pull_from: dict[Any, int] = {}  # pullFromWhichNodeTable

    def start_pull(self, mq: Any, pq: ProcessQueue, offset: int) -> None:
        """Pull ``mq`` from ``offset`` into ``pq`` until the queue is dropped or the consumer stops."""
        self.tasks[mq] = asyncio.ensure_future(self.pull_loop(mq, pq, offset))

    def stop_pull(self, mq: Any) -> None:
        """Stop pulling ``mq`` (its pull in flight is cancelled)."""
        task = self.tasks.pop(mq, None)
        if task is not None:
            task.cancel()

    def cancel_all(self) -> list[asyncio.Task[None]]:
        """Cancel every pull; the tasks, for the caller to wait for their end."""
        tasks = list(self.tasks.values())
        self.tasks.clear()
        for task in tasks:
            task.cancel()
        return tasks

    def subscribe_addr(self, mq: Any) -> tuple[str | None, bool]:
        """The node ``pullFromWhichNode`` suggests for ``mq`` (the master at first), and whether it is a slave."""
        return self.broker_addrs.subscribe_addr(mq.broker_name, self.pull_from.get(mq, MASTER_ID))

    async def pull_loop(self, mq: Any, pq: ProcessQueue, next_offset: int) -> None:
        """``DefaultMQPushConsumerImpl.pullMessage`` and its callback, as a loop: one pull in flight per queue."""
        s = self.settings
        c = CONSUMER_CONSTANTS
        client = self.client
        offsets = self.offsets
        sub = self.subscriptions.get(mq.topic)
        if sub is None:
            return
        clustering = self.clustering
        failures = 0
        while not pq.dropped and self.running():  # the state too: see Rebalancer.wait_for_wakeup
            pq.last_pull_timestamp = _now_ms()
            count_limit, size_limit = self.limits.of(mq.topic)
            if pq.msg_count > count_limit or pq.msg_size > size_limit:
                await asyncio.sleep(c["PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL"] / 1000)
                continue
            if not self.orderly and pq.get_max_span() > s.consume_concurrently_max_span:
                await asyncio.sleep(c["PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL"] / 1000)
                continue
            if self.orderly and clustering and not pq.locked:
                await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                continue
            addr, slave = self.subscribe_addr(mq)
            if addr is None:
                await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                continue
            commit_offset = offsets.read_memory(mq) if clustering else -1
            sys_flag = pull_sys_flag(commit_offset > 0, True, bool(s.post_subscription_when_pull))
            if slave:
                sys_flag &= ~FLAG_COMMIT_OFFSET
            request = pull_request(
                self.group,
                mq,
                next_offset,
                max_nums=s.pull_batch_size,
                max_msg_bytes=s.pull_batch_size_in_bytes,  # 5.3's header only, as Java's
                sys_flag=sys_flag,
                commit_offset=max(commit_offset, 0),
                suspend_timeout_ms=c["BROKER_SUSPEND_MAX_TIME_MILLIS"],
                subscription=sub,
                compat=self.compat,
            )
            self.stats.add(pulls=1)
            try:
                timeout = c["CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND"]
                result = await fetch(client, addr, request, timeout, mq, sub, s)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self.stats.add(pull_errors=1)
                failures += 1
                log_pull_failure(mq, addr, failures, e)
                await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                continue
            failures = 0
            if pq.dropped:
                break
            self.pull_from[mq] = result.suggest_which_broker_id
            if result.status is PullStatus.FOUND:
                msgs = result.messages
                # some undecodable? (looped over in C: no Python step per message)
                if msgs and not all(map(_NONE, map(_DECODE_ERROR, msgs))):
                    if not await self.consume.set_aside_undecodable(
                        [m for m in msgs if m.decode_error is not None], mq
                    ):
                        await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                        continue  # pulled again from the same offset
                    msgs = [m for m in msgs if m.decode_error is None]
                    if not msgs and pq.msg_count == 0:
                        offsets.update_offset(mq, result.next_begin_offset, True)
                next_offset = result.next_begin_offset
                if msgs:
                    self.stats.add(pulled=len(msgs))
                    dispatch = pq.put_messages(msgs)
                    self.consume.submit_consume(msgs, pq, mq, dispatch)
                    if s.pull_interval > 0:
                        await asyncio.sleep(s.pull_interval / 1000)
            elif result.status in (PullStatus.NO_NEW_MSG, PullStatus.NO_MATCHED_MSG):
                next_offset = result.next_begin_offset
                if pq.msg_count == 0:  # correctTagsOffset
                    offsets.update_offset(mq, next_offset, True)
            else:  # OFFSET_ILLEGAL: Java drops the queue, then after 10 s commits the broker's offset
                log.warning("the offset of %s is illegal: the broker says %d", mq, result.next_begin_offset)
                next_offset = result.next_begin_offset
                pq.dropped = True
                await asyncio.sleep(10)
                offsets.update_offset(mq, next_offset, False)
                try:
                    await offsets.persist(mq)
                except Exception as e:
                    log.warning("committing the corrected offset of %s failed: %s", mq, e)
                if self.process_queues.get(mq) is pq:
                    del self.process_queues[mq]
                    self.tasks.pop(mq, None)
                break
