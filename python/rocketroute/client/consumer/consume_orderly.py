"""The orderly consume service (``ConsumeMessageOrderlyService``): each queue is consumed by one call at a time,
in queue order, while its broker lock is held (clustering); a call that fails suspends the queue and delivers the
same messages again, and messages consumed ``max_reconsume_times`` times go to the dead-letter queue."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .constants import CONSUMER_CONSTANTS
from .consume_service import ConsumeService
from .listener import ConsumeOrderlyContext, ConsumeOrderlyStatus
from .process_queue import ProcessQueue

__all__ = ["OrderlyConsumeService"]


class OrderlyConsumeService(ConsumeService):
    """See the module."""

    def __init__(self, *args: Any, lock: Callable[[Any], Awaitable[bool]] | None, **kwargs: Any) -> None:
        """:class:`~.consume_service.ConsumeService`'s arguments, and ``lock(mq)``: the queue locked on its broker
        again (:class:`~.queue_locks.QueueLocks`' LOCK_BATCH_MQ), whether it was; None for a broadcasting consumer,
        which holds no broker lock."""
        super().__init__(*args, **kwargs)
        self.lock = lock
        self._mq_locks: dict[Any, threading.Lock] = {}  # MessageQueueLock: one call at a time per queue
        self._mq_locks_guard = threading.Lock()
        self._mq_async_locks: dict[Any, asyncio.Lock] = {}  # an asyncio-native consumer's, per queue

    def submit_consume(self, msgs: list[Any], pq: ProcessQueue, mq: Any, dispatch: bool) -> None:
        """A call that consumes the queue in order, when its cache was empty before these (``dispatch``): one
        already under way takes what comes meanwhile."""
        executor = self.executor
        if dispatch:
            orderly = self.consume_orderly_async if self.on_loop else self.consume_orderly
            executor.submit(orderly, pq, mq)

    def mq_lock(self, mq: Any) -> threading.Lock:
        with self._mq_locks_guard:
            lock = self._mq_locks.get(mq)
            if lock is None:
                lock = self._mq_locks[mq] = threading.Lock()
            return lock

    def try_lock_later(self, mq: Any, pq: ProcessQueue, delay_ms: int) -> None:
        """``tryLockLaterAndReconsume``: lock the queue on its broker after ``delay_ms``; consume again soon if
        it worked, else in 3 s."""
        remoting, lock = self.remoting, self.lock
        assert lock is not None  # a lock is lost only in clustering, which has them
        if not self.running():
            return
        again = self.consume_orderly_async if self.on_loop else self.consume_orderly

        async def relock() -> None:
            await asyncio.sleep(delay_ms / 1000)
            ok = await lock(mq)
            self.later(10 if ok else 3000, again, pq, mq)

        try:
            remoting.submit(relock())
        except RuntimeError:
            pass

    def consume_orderly(self, pq: ProcessQueue, mq: Any) -> None:
        """``ConsumeMessageOrderlyService.ConsumeRequest.run``: one thread per queue at a time, the queue's
        broker lock held, messages in queue order; ``SUSPEND_CURRENT_QUEUE_A_MOMENT`` delivers the same messages
        again after the suspend time. The listener call and the commit of its offset happen under the queue's
        consume lock, which a rebalance takes before it commits and unlocks the queue on the broker: the next
        owner starts exactly after the last message consumed here."""
        if pq.dropped:
            return
        with self.mq_lock(mq):
            if self.lock_lost(pq):
                self.try_lock_later(mq, pq, 100)
                return
            begin = time.monotonic()
            while (msgs := self.orderly_next(pq, mq, begin, self.consume_orderly)) is not None:
                context = ConsumeOrderlyContext(mq)
                with pq.consume_lock:
                    if pq.dropped:
                        return
                    success = self.orderly_status(self.call_listener(msgs, context))
                    dead = [] if success else self.dead_letters(msgs)
                    moved = not success and self.moved_away(msgs, dead, [self.send_back(m, -1) for m in dead])
                    if not self.orderly_settle(msgs, pq, mq, context, success, moved, self.consume_orderly):
                        return

    async def consume_orderly_async(self, pq: ProcessQueue, mq: Any) -> None:
        """:meth:`consume_orderly` on the loop of an asyncio-native consumer: one call per queue at a time (an
        asyncio lock per queue), the listener awaited while the queue's consume lock is held. That lock is taken
        without waiting: only a rebalance giving the queue up takes it elsewhere (in a thread, after marking the
        queue dropped), and then there is nothing more to consume here."""
        if pq.dropped:
            return
        async with self.mq_async_lock(mq):
            if self.lock_lost(pq):
                self.try_lock_later(mq, pq, 100)
                return
            begin = time.monotonic()
            while (msgs := self.orderly_next(pq, mq, begin, self.consume_orderly_async)) is not None:
                context = ConsumeOrderlyContext(mq)
                if pq.dropped or not pq.consume_lock.acquire(blocking=False):
                    return
                try:
                    success = self.orderly_status(await self.call_listener_async(msgs, context))
                    dead = [] if success else self.dead_letters(msgs)
                    oks = [await self.try_send_back_async(m, -1) for m in dead]
                    moved = not success and self.moved_away(msgs, dead, oks)
                    if not self.orderly_settle(msgs, pq, mq, context, success, moved, self.consume_orderly_async):
                        return
                finally:
                    pq.consume_lock.release()

    def orderly_next(self, pq: ProcessQueue, mq: Any, begin: float, again: Callable[..., Any]) -> list[Any] | None:
        """The next messages of an orderly queue, or None to stop here: the queue given up, its broker lock lost
        or expired (locked again, then consumed), ``MAX_TIME_CONSUME_CONTINUOUSLY`` spent on it (``again`` soon, so
        the other queues get their turn), or nothing cached."""
        if pq.dropped:
            return None
        if self.lock_lost(pq):
            self.try_lock_later(mq, pq, 10)
            return None
        if (time.monotonic() - begin) * 1000 > CONSUMER_CONSTANTS["MAX_TIME_CONSUME_CONTINUOUSLY"]:
            self.later(10, again, pq, mq)
            return None
        return pq.take_messages(self.settings.consume_message_batch_max_size) or None

    def lock_lost(self, pq: ProcessQueue) -> bool:
        """Whether a clustering consumer no longer holds the queue's broker lock (never had it, or it expired)."""
        return self.clustering and (not pq.locked or pq.is_lock_expired())

    def orderly_status(self, status: Any) -> bool:
        """Whether an orderly listener's answer is ``SUCCESS`` (anything but a status is Java's
        ``SUSPEND_CURRENT_QUEUE_A_MOMENT``, with a WARNING)."""
        if not isinstance(status, ConsumeOrderlyStatus):
            status = self.not_a_status(
                status, ConsumeOrderlyStatus, ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
            )
        return status is ConsumeOrderlyStatus.SUCCESS

    def orderly_settle(
        self,
        msgs: list[Any],
        pq: ProcessQueue,
        mq: Any,
        context: ConsumeOrderlyContext,
        success: bool,
        moved_away: bool,
        again: Callable[..., Any],
    ) -> bool:
        """``processConsumeResult`` of an orderly call: committed when it succeeded or every message went to the
        dead-letter queue, else the same messages again after the suspend time. True: the queue goes on now."""
        self.stats.add(**({"consumed": len(msgs)} if success else {"failed": len(msgs)}))
        if not success and not moved_away:
            pq.make_message_to_consume_again(msgs)
            suspend = context.suspend_current_queue_time_millis
            if suspend < 0:
                suspend = self.settings.suspend_current_queue_time_millis
            self.later(suspend, again, pq, mq)
            return False
        offset = pq.commit()
        # Java skips this when the queue was dropped during the listener call, so the next owner consumes those
        # messages again. Here the give-up waits for the consume lock before it commits, so the offset is
        # recorded even then and the commit includes these messages.
        if offset >= 0:
            self.offsets.update_offset(mq, offset, False)
        return True

    def mq_async_lock(self, mq: Any) -> asyncio.Lock:
        lock = self._mq_async_locks.get(mq)
        if lock is None:
            lock = self._mq_async_locks[mq] = asyncio.Lock()
        return lock

    def dead_letters(self, msgs: list[Any]) -> list[Any]:
        """``checkReconsumeTimes``' first half: the messages consumed ``max_reconsume_times`` times already (the
        default -1 is no limit for orderly consumers, as Java's), each marked with its ``RECONSUME_TIME``; they are
        sent back with delay level -1, to the dead-letter queue."""
        limit = self.settings.max_reconsume_times
        limit = 2**31 - 1 if limit == -1 else limit
        dead = [m for m in msgs if m.reconsume_times >= limit]
        for m in dead:
            m.properties["RECONSUME_TIME"] = str(m.reconsume_times)
        return dead

    def moved_away(self, msgs: list[Any], dead: list[Any], sent: list[bool]) -> bool:
        """``checkReconsumeTimes``' second half, once ``dead`` were sent back (``sent``): every other message is
        counted once more; True when every message went away (nothing to suspend for)."""
        gone = {id(m) for m, ok in zip(dead, sent, strict=True) if ok}
        if gone:
            self.stats.add(sent_back=len(gone))
        for m in msgs:
            if id(m) not in gone:
                m.reconsume_times += 1
        return len(gone) == len(msgs)
