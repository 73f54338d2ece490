"""The lite pull consumer's pulls (``DefaultLitePullConsumerImpl.PullTaskImpl``): one long-polled PULL_MESSAGE
in flight per assigned queue, whose messages wait in the :class:`~.poll_buffer.PollBuffer` for ``poll``.

A part of the lite pull consumer, built when it starts, with what it needs in its constructor: the connections,
the brokers' addresses, the buffer, the subscription of each topic and where a queue with no offset starts. It
owns the queues' states (Java's ``AssignedMessageQueue``: each queue's process queue, the next offset to pull,
the offset ``poll`` has reached, a pending seek, whether it is paused) and their pull tasks. The rebalancer (of
a subscribing consumer) or ``assign`` starts and stops the queues (:meth:`LitePuller.start_pull`,
:meth:`LitePuller.stop_pull`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...log_repeats import REPEATS
from ...protocol.errors import RemotingCommandError
from ...protocol.response_code import ResponseCode
from ..namesrv import MASTER_ID
from ._shared import _now_ms, log
from .constants import CONSUMER_CONSTANTS
from .poll_buffer import PollBuffer, Pulled
from .process_queue import ProcessQueue
from .pull import PullStatus, fetch, log_pull_failure, pull_request, pull_sys_flag

if TYPE_CHECKING:
    from ...net.transport import AsyncRemotingClient
    from ..broker_addrs import BrokerAddrTable
    from .lite_pull_settings import LitePullConsumerSettings
    from .offset_store import OffsetStore
    from .stats import ConsumerStats
    from .subscription import SubscriptionData

__all__ = ["LITE_PULL_SYS_FLAG", "LitePuller", "QueueState"]

LITE_PULL_SYS_FLAG = pull_sys_flag(False, True, True, lite_pull=True)
"""``PullSysFlag.buildSysFlag(false, true, true, false, true)``: no commit in the pull, long-polled, the
subscription sent, a lite pull."""
JAVA_INT_MAX = 2**31 - 1
"""5.3's lite pulls ask for up to ``Integer.MAX_VALUE`` bytes (4.9's header has no such field)."""
PAUSED_S = 1.0
"""``PULL_TIME_DELAY_MILLS_WHEN_PAUSE``."""
NO_OFFSET_S = 3.0
"""``PULL_TIME_DELAY_MILLS_ON_EXCEPTION``: the pause after a queue's start offset could not be read."""
MIB = 1024 * 1024


@dataclass
class QueueState:
    """One assigned queue (``MessageQueueState``): its process queue, the offset to pull next (-1: not known
    yet, read from the offset store or ``consume_from_where``), the offset ``poll`` has reached (-1: nothing
    polled yet) and a seek to apply (-1: none)."""

    pq: ProcessQueue
    pull_offset: int = -1
    consume_offset: int = -1
    seek_offset: int = -1
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class LitePuller:
    """See the module. ``subscription_of(topic)`` gives the subscription a queue of ``topic`` pulls with;
    ``start_offset(mq)`` where a queue with no offset starts (the committed offset, else ``consume_from_where``);
    ``paused`` the queues paused (the consumer's ``pause`` changes it); ``running()`` whether the consumer still
    runs. ``offsets`` gets a queue's polled offset when it is stopped, with ``auto_commit``."""

    def __init__(
        self,
        group: str,
        settings: LitePullConsumerSettings,
        compat: str,
        *,
        client: AsyncRemotingClient,
        broker_addrs: BrokerAddrTable,
        buffer: PollBuffer,
        offsets: OffsetStore,
        paused: set[Any],
        subscription_of: Callable[[str], SubscriptionData],
        start_offset: Callable[[Any], Awaitable[int]],
        stats: ConsumerStats,
        running: Callable[[], bool],
    ) -> None:
        self.group = group
        self.settings = settings
        self.compat = compat
        self.client = client
        self.broker_addrs = broker_addrs
        self.buffer = buffer
        self.offsets = offsets
        self.paused = paused
        self.subscription_of = subscription_of
        self.start_offset = start_offset
        self.stats = stats
        self.running = running
        self.queues: dict[Any, QueueState] = {}  # AssignedMessageQueue.assignedMessageQueueState
        self.pull_from: dict[Any, int] = {}  # pullFromWhichNodeTable

    # -- what the rebalancer and assign() call ---------------------------------------------------------------------

    def start_pull(self, mq: Any, pq: ProcessQueue, offset: int = -1) -> None:
        """Pull ``mq`` into ``pq`` from ``offset`` (-1: from where ``start_offset`` says) until it is stopped."""
        state = self.queues.get(mq)
        if state is None or state.pq is not pq:
            state = self.queues[mq] = QueueState(pq, pull_offset=offset)
        self._spawn(mq, state)

    def stop_pull(self, mq: Any) -> None:
        """Stop pulling ``mq`` and forget it (its pull in flight is cancelled; what it holds is never polled). With
        ``auto_commit``, the offset its polls reached goes to the offset store first, as a Kafka consumer commits
        before a rebalance takes its partitions: the next owner starts after what this one's polls returned (Java
        leaves it to the next automatic commit, which never comes for a queue given up)."""
        state = self.queues.pop(mq, None)
        if state is not None:
            if self.settings.auto_commit and state.consume_offset != -1:
                self.offsets.update_offset(mq, state.consume_offset)
            state.pq.dropped = True
            if state.task is not None:
                state.task.cancel()

    def polled_offsets(self) -> dict[Any, int]:
        """The offset each queue's polls reached (those polled at all)."""
        # items listed at once (a poll of the threaded front-end reads this off the loop, which may add a queue)
        return {mq: st.consume_offset for mq, st in list(self.queues.items()) if st.consume_offset != -1}

    def cancel_all(self) -> list[asyncio.Task[None]]:
        """Cancel every pull; the tasks, for the caller to wait for their end."""
        tasks = [q.task for q in self.queues.values() if q.task is not None]
        for task in tasks:
            task.cancel()
        return tasks

    def seek(self, mq: Any, offset: int) -> None:
        """``seek``: what ``mq`` holds is dropped, its pull in flight cancelled, and it is pulled again from
        ``offset``, which ``poll`` has then reached (the next commit writes it)."""
        state = self.queues[mq]
        state.pq.clear()
        self.buffer.drop_queue(mq)
        state.seek_offset = offset
        self._spawn(mq, state)

    def _spawn(self, mq: Any, state: QueueState) -> None:
        if state.task is not None:
            state.task.cancel()
        state.task = asyncio.ensure_future(self.pull_loop(mq, state))

    # -- the pulls ---------------------------------------------------------------------------------------------

    def _held_back(self, state: QueueState) -> bool:
        """Java's flow control: the buffer, the queue's messages, its MiB, its offsets' span."""
        s = self.settings
        pq = state.pq
        return (
            len(self.buffer) * s.pull_batch_size > s.pull_threshold_for_all
            or pq.msg_count > s.pull_threshold_for_queue
            or pq.msg_size // MIB > s.pull_threshold_size_for_queue
            or pq.get_max_span() > s.consume_max_span
        )

    async def _next_offset(self, mq: Any, state: QueueState) -> int:
        """``nextPullOffset``: a pending seek (``poll`` has then reached it), the offset after the last pull, or
        where the queue starts."""
        if state.seek_offset != -1:
            offset, state.seek_offset = state.seek_offset, -1
            state.consume_offset = offset
            return offset
        if state.pull_offset == -1:
            state.pull_offset = await self.start_offset(mq)
        return state.pull_offset

    async def pull_loop(self, mq: Any, state: QueueState) -> None:
        s = self.settings
        pq = state.pq
        failures = 0
        flow_waits = 0
        me = asyncio.current_task()
        while self.running() and not pq.dropped and state.task is me:
            if mq in self.paused:
                await asyncio.sleep(PAUSED_S)
                continue
            pq.last_pull_timestamp = _now_ms()
            if self._held_back(state):
                flow_waits += 1
                if flow_waits % 1000 == 1:
                    log.debug(
                        "pulls of %s wait: %d messages held, %d pulls unpolled", mq, pq.msg_count, len(self.buffer)
                    )
                await asyncio.sleep(CONSUMER_CONSTANTS["PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL"] / 1000)
                continue
            try:
                offset = await self._next_offset(mq, state)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                REPEATS.log(log, logging.WARNING, "no start offset for %s: %s", mq, e, about=mq)
                await asyncio.sleep(NO_OFFSET_S)
                continue
            addr, _slave = self.broker_addrs.subscribe_addr(mq.broker_name, self.pull_from.get(mq, MASTER_ID))
            if addr is None:
                await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                continue
            sub = self.subscription_of(mq.topic)
            request = pull_request(
                self.group,
                mq,
                offset,
                max_nums=s.pull_batch_size,
                max_msg_bytes=JAVA_INT_MAX,
                sys_flag=LITE_PULL_SYS_FLAG,
                commit_offset=0,
                suspend_timeout_ms=s.broker_suspend_max_time_millis,
                subscription=sub,
                sub_version=0 if sub.expression_type == "TAG" else None,
                compat=self.compat,
            )
            self.stats.add(pulls=1)
            try:
                result = await fetch(self.client, addr, request, s.consumer_timeout_millis_when_suspend, mq, sub, s)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self.stats.add(pull_errors=1)
                failures += 1
                refused = isinstance(e, RemotingCommandError) and e.code == ResponseCode.REQUEST_CODE_NOT_SUPPORTED
                if refused and self.compat == "5.3":
                    REPEATS.log(
                        log,
                        logging.ERROR,
                        "the broker %s does not know LITE_PULL_MESSAGE, the 5.x lite pull (a 4.9 broker): a lite pull "
                        "consumer of compat='4.9' pulls with PULL_MESSAGE, as Java's 4.9 client",
                        addr,
                        about=(addr, "lite pull refused"),
                    )
                else:
                    log_pull_failure(mq, addr, failures, e)
                flow = isinstance(e, RemotingCommandError) and e.code == ResponseCode.FLOW_CONTROL
                delay_ms = (
                    CONSUMER_CONSTANTS["PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL"]
                    if flow
                    else s.pull_time_delay_mills_when_exception
                )
                await asyncio.sleep(delay_ms / 1000)
                continue
            failures = 0
            if pq.dropped or state.task is not me:
                break
            self.pull_from[mq] = result.suggest_which_broker_id
            if result.status is PullStatus.FOUND and result.messages:
                msgs = result.messages
                undecodable = sum(m.decode_error is not None for m in msgs)
                if undecodable:
                    # handed over with their decode_error: poll's caller decides; dropping them would lose them
                    self.stats.add(undecodable=undecodable)
                    REPEATS.log(log, logging.ERROR, "%d message(s) of %s could not be decoded", undecodable, mq)
                self.stats.add(pulled=len(msgs))
                pq.put_messages(msgs)
                self.buffer.put(Pulled(mq, pq, msgs))
            elif result.status is PullStatus.OFFSET_ILLEGAL:
                log.warning(
                    "the pull offset %d of %s is illegal: the broker says %d", offset, mq, result.next_begin_offset
                )
            state.pull_offset = result.next_begin_offset
