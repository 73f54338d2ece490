"""The consumer's consume services (``ConsumeMessageConcurrentlyService`` and
``ConsumeMessageOrderlyService``): listener calls on the consume pool, statuses, send-backs, retries, expired
messages and the orderly queues' one-thread-at-a-time consumption.

A part of the :class:`~rocketroute.client.consumer.Consumer`, which builds one
:class:`ConsumeService` (its ``_consume_service``): it works on the consumer's state (queues,
offsets, connections, set up in ``Consumer.__init__`` and ``start``) through its ``consumer``, and asks the other
parts through it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...protocol import RemotingCommand
from ..api import send_back_request
from ..message_const import PROPERTY_RETRY_TOPIC as _RETRY_TOPIC
from ..message_decode import reset_retry_topic
from ..namespace import unwrap, wrap
from ._shared import _RAISED, _name_of, _now_ms, log
from .constants import CONSUMER_CONSTANTS
from .listener import (
    ConsumeConcurrentlyContext,
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyContext,
    ConsumeOrderlyStatus,
)
from .process_queue import ProcessQueue

__all__ = ["ConsumeService"]

if TYPE_CHECKING:
    from .consumer import Consumer


_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
_ACK_ALL = ConsumeConcurrentlyContext.ack_index  # the context's default: every message of the call consumed


class ConsumeService:
    """See the module."""

    def __init__(self, consumer: Consumer) -> None:
        self.consumer = consumer
        self._settling: set[asyncio.Task[None]] = set()  # send-backs of async for's batches under way
        self._mq_async_locks: dict[Any, asyncio.Lock] = {}  # an asyncio-native orderly consumer's, per queue

    def submit_consume(self, msgs: list[Any], pq: ProcessQueue, mq: Any, dispatch: bool) -> None:
        assert self.consumer._executor is not None
        if self.consumer.orderly:
            if dispatch:
                orderly = self.consume_orderly_async if self.consumer._bind_loop else self.consume_orderly
                self.consumer._executor.submit(orderly, pq, mq)
        else:  # not queued once the pool is shut down: the consumer is stopping
            n = self.consumer.settings.consume_message_batch_max_size
            feed = self.consumer._feed
            if feed is not None:  # async for: the iterating tasks take the batches and settle them
                for i in range(0, len(msgs), n):
                    feed.put(msgs[i : i + n], pq, mq)
                return
            consume = self.consume_concurrently_async if self.consumer._bind_loop else self.consume_concurrently
            self.consumer._executor.submit_slices(consume, msgs, n, pq, mq)

    def settle_fed(self, msgs: list[Any], pq: ProcessQueue, mq: Any, status: ConsumeConcurrentlyStatus) -> None:
        """A batch ``async for`` is done with (:class:`~rocketroute.client.consumer.feed.Feed`): the result
        processed as a listener call's, in the iterating task; send-backs (the rare case) in a task of their own."""
        if self.all_consumed(msgs, pq, mq, status, _ACK_ALL):  # an ``async for`` has no context to move ack_index
            return
        context = ConsumeConcurrentlyContext(mq)
        to_send_back = self.concurrently_result(msgs, pq, context, status)
        if to_send_back is None:
            return
        if not to_send_back:
            self.concurrently_done(msgs, pq, mq, [], self.refeed)
            return
        task = asyncio.ensure_future(self.send_back_then_done(msgs, pq, mq, context, to_send_back, self.refeed))
        self._settling.add(task)
        task.add_done_callback(self._settling.discard)

    async def refeed(self, msgs: list[Any], pq: ProcessQueue, mq: Any) -> None:
        """Messages whose send-back failed, consumed again: back into the feed."""
        feed = self.consumer._feed
        if feed is not None and not pq.dropped:
            feed.put(msgs, pq, mq)

    def later(self, delay_ms: int, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the pool after ``delay_ms`` (Java's ``submitConsumeRequestLater``)."""
        remoting, executor = self.consumer._remoting, self.consumer._executor
        if remoting is None or executor is None or self.consumer._state != "running":
            return

        def submit() -> None:
            if self.consumer._state == "running":
                executor.submit(fn, *args)

        try:
            remoting.loop.call_soon_threadsafe(remoting.loop.call_later, delay_ms / 1000, submit)
        except RuntimeError:
            pass

    def prepare(self, msgs: list[Any]) -> None:
        """``resetRetryAndNamespace`` and the consume start time, before the listener sees the messages."""
        namespace = self.consumer.namespace
        group = self.consumer.group
        now = str(_now_ms())
        for m in msgs:
            properties = m.properties
            if _RETRY_TOPIC in properties:  # the retry topic, then the namespace
                reset_retry_topic(m, group)
            if namespace:
                m.topic = unwrap(namespace, m.topic)
            properties["CONSUME_START_TIME"] = now

    def listener_raised(self, msgs: list[Any], context: Any) -> Any:
        log.warning(
            "the listener %s raised on %d message(s) of %s",
            _name_of(self.consumer.listener),
            len(msgs),
            context.message_queue,
            exc_info=True,
        )
        return _RAISED

    def call_listener(self, msgs: list[Any], context: Any) -> Any:
        listener = self.consumer.listener
        assert listener is not None
        self.prepare(msgs)
        try:
            return listener(msgs, context)
        except Exception:
            return self.listener_raised(msgs, context)

    async def call_listener_async(self, msgs: list[Any], context: Any) -> Any:
        """The asyncio-native consumer's listener call: a coroutine function awaited on the loop."""
        self.prepare(msgs)
        listener = self.consumer.listener
        assert listener is not None
        try:
            return await listener(msgs, context)
        except Exception:
            return self.listener_raised(msgs, context)

    def not_a_status(self, status: Any, expected: type, instead: Any) -> Any:
        """Java's answer to a listener that returns no status (``null``) or a wrong one: ``instead``
        (RECONSUME_LATER, or SUSPEND_CURRENT_QUEUE_A_MOMENT for an orderly listener), with a WARNING naming the
        listener (none for one that raised: that was logged with its traceback)."""
        if status is not _RAISED:
            log.warning(
                "the listener %s returned %r, not a %s: treated as %s",
                _name_of(self.consumer.listener),
                status,
                expected.__name__,
                instead.name,
            )
        return instead

    def consume_concurrently(self, msgs: list[Any], pq: ProcessQueue, mq: Any) -> None:
        """``ConsumeMessageConcurrentlyService.ConsumeRequest.run`` and ``processConsumeResult`` (the listener
        called as :meth:`call_listener` calls it, written out: once per call on the pool)."""
        if pq.dropped:
            return
        context = ConsumeConcurrentlyContext(mq)
        listener = self.consumer.listener
        assert listener is not None
        self.prepare(msgs)
        try:
            status = listener(msgs, context)
        except Exception:
            status = self.listener_raised(msgs, context)
        if self.all_consumed(msgs, pq, mq, status, context.ack_index):
            return
        to_send_back = self.concurrently_result(msgs, pq, context, status)
        if to_send_back is None:
            return
        level = context.delay_level_when_next_consume
        retry_later = [m for m in to_send_back if not self.sent_back(m, self.send_back(m, level))]
        self.concurrently_done(msgs, pq, mq, retry_later, self.consume_concurrently)

    async def consume_concurrently_async(self, msgs: list[Any], pq: ProcessQueue, mq: Any) -> None:
        """:meth:`consume_concurrently` on the loop of an asyncio-native consumer: the listener and the
        send-backs are awaited. A call cancelled (the consumer stopping) processes nothing: its messages stay in
        their queue's cache, so their offsets are not committed."""
        if pq.dropped:
            return
        context = ConsumeConcurrentlyContext(mq)
        status = await self.call_listener_async(msgs, context)
        if self.all_consumed(msgs, pq, mq, status, context.ack_index):
            return
        to_send_back = self.concurrently_result(msgs, pq, context, status)
        if to_send_back is None:
            return
        await self.send_back_then_done(msgs, pq, mq, context, to_send_back, self.consume_concurrently_async)

    async def send_back_then_done(
        self,
        msgs: list[Any],
        pq: ProcessQueue,
        mq: Any,
        context: ConsumeConcurrentlyContext,
        to_send_back: list[Any],
        again: Callable[..., Any],
    ) -> None:
        """The send-backs awaited, then :meth:`concurrently_done` (``again`` consumes what failed to go back)."""
        level = context.delay_level_when_next_consume
        retry_later = [m for m in to_send_back if not self.sent_back(m, await self.try_send_back_async(m, level))]
        self.concurrently_done(msgs, pq, mq, retry_later, again)

    def concurrently_result(
        self, msgs: list[Any], pq: ProcessQueue, context: ConsumeConcurrentlyContext, status: Any
    ) -> list[Any] | None:
        """``processConsumeResult``'s first half: the status (a wrong one is ``RECONSUME_LATER``), the counts, and
        the messages to send back (clustering; broadcasting drops them with a WARNING). None when the queue was
        given up during the call: Java does not process the result then."""
        if not isinstance(status, ConsumeConcurrentlyStatus):
            status = self.not_a_status(status, ConsumeConcurrentlyStatus, ConsumeConcurrentlyStatus.RECONSUME_LATER)
        if pq.dropped:
            return None
        if status is ConsumeConcurrentlyStatus.CONSUME_SUCCESS:
            ack = min(context.ack_index, len(msgs) - 1)
        else:
            ack = -1
        self.consumer.stats.add_result(ack + 1, len(msgs) - ack - 1)
        if self.consumer.model == "CLUSTERING":
            return msgs[ack + 1 :]
        if ack + 1 < len(msgs):
            log.warning("BROADCASTING: %d message(s) failed and are dropped (no retry)", len(msgs) - ack - 1)
        return []

    def all_consumed(self, msgs: list[Any], pq: ProcessQueue, mq: Any, status: Any, ack_index: int) -> bool:
        """What :meth:`concurrently_result` and :meth:`concurrently_done` make of a call whose messages were all
        consumed (``CONSUME_SUCCESS``, ``ack_index`` at or after the last, the queue not given up), done here in a
        few lines: the usual case, once per listener call. Every message counts consumed and leaves the cache, and
        the offset moves. False (nothing done) for any other call: the general path's."""
        if status is not _SUCCESS or ack_index < len(msgs) - 1 or pq.dropped:
            return False
        consumer = self.consumer
        consumer.stats.add_result(len(msgs), 0)
        offset = pq.remove_messages(msgs)
        offsets = consumer._offsets
        if offset >= 0 and offsets is not None and not pq.dropped:
            offsets.update_offset(mq, offset, True)
        return True

    def sent_back(self, msg: Any, ok: bool) -> bool:
        """Count a send-back; one that failed is consumed again here (its reconsume times + 1). Returns ``ok``."""
        if ok:
            self.consumer.stats.add(sent_back=1)
        else:
            msg.reconsume_times += 1
        return ok

    def concurrently_done(
        self, msgs: list[Any], pq: ProcessQueue, mq: Any, retry_later: list[Any], again: Callable[..., Any]
    ) -> None:
        """``processConsumeResult``'s second half: the messages done leave the queue's cache and its offset
        moves; those whose send-back failed are consumed again in 5 s (``submitConsumeRequestLater``)."""
        if retry_later:
            later_ids = {id(m) for m in retry_later}
            done = [m for m in msgs if id(m) not in later_ids]
        else:
            done = msgs
        offset = pq.remove_messages(done)
        if offset >= 0 and not pq.dropped and self.consumer._offsets is not None:
            self.consumer._offsets.update_offset(mq, offset, True)
        if retry_later:
            self.later(5000, again, retry_later, pq, mq)

    def max_reconsume_times(self) -> int:
        n = self.consumer.settings.max_reconsume_times
        return 16 if n == -1 else n

    def send_back(self, msg: Any, delay_level: int) -> bool:
        """CONSUMER_SEND_MSG_BACK to the message's broker: the broker stores it again in the retry topic (or
        the dead-letter queue). Java falls back to sending it as a new message through its internal producer
        when this fails; here it is consumed again locally after 5 s instead."""
        remoting = self.consumer._remoting
        if remoting is None:
            return False
        addr, request = self.send_back_request(msg, delay_level)
        try:
            # a listener thread blocks on it: the runtime's blocking invoke (BrokerAPI.send_back is the loop's)
            remoting.invoke_checked(addr, request, self.consumer.settings.mq_client_api_timeout)
            return True
        except Exception as e:
            log.warning("sending back %s failed: %s", msg.msg_id, e)
            return False

    async def clean_expired(self, now_ms: int | None = None) -> None:
        """``cleanExpireMsg``: a message a listener started on more than ``consume_timeout`` minutes ago and
        still the first of its queue's cache is sent back (delay level 3) and removed from the cache, so one stuck
        listener call does not hold its queue's committed offset for ever (at most 16 per queue per round, as
        Java's). Concurrent consumption only."""
        timeout_ms = self.consumer.settings.consume_timeout * 60_000
        for mq, pq in list(self.consumer._pqs.items()):
            for _ in range(16):
                if pq.dropped:
                    break
                msg = pq.first_expired(timeout_ms, _now_ms() if now_ms is None else now_ms)
                if msg is None:
                    break
                try:
                    await self.send_back_async(msg, 3)
                except Exception as e:
                    log.error("sending back %s, expired in its listener (consume_timeout), failed: %s", msg.msg_id, e)
                    break
                log.warning(
                    "message %s of %s has been in its listener over consume_timeout (%d min): sent back",
                    msg.msg_id,
                    mq,
                    self.consumer.settings.consume_timeout,
                )
                pq.remove_messages([msg])
                self.consumer.stats.add(sent_back=1)

    async def set_aside_undecodable(self, msgs: list[Any], mq: Any) -> bool:
        """Messages whose body cannot be decoded (a codec missing, corrupt, over ``max_body_size``) never reach
        the listener and never stall their queue: each is logged at ERROR and, in a clustering group, sent back
        with delay level -1, which the broker stores straight into the group's dead-letter queue
        (``%DLQ%<group>``), where it can be looked at. False if a send-back failed (the pull is retried)."""
        for m in msgs:
            log.error(
                "message %s (offset %d of %s) cannot be decoded, %s: %s",
                m.msg_id,
                m.queue_offset,
                mq,
                "sent to the dead-letter queue" if self.consumer.model == "CLUSTERING" else "skipped (broadcasting)",
                m.decode_error,
            )
            if self.consumer.model != "CLUSTERING":
                continue
            try:
                await self.send_back_async(m, -1)
            except Exception as e:
                log.error("sending the undecodable message %s to the dead-letter queue failed: %s", m.msg_id, e)
                return False
        self.consumer.stats.add(undecodable=len(msgs))
        return True

    async def send_back_async(self, msg: Any, delay_level: int) -> None:
        """:meth:`_send_back` on the loop; raises what the broker or the connection answered."""
        instance = self.consumer._instance
        assert instance is not None
        addr, request = self.send_back_request(msg, delay_level)
        await instance.api.send_back(addr, request, self.consumer.settings.mq_client_api_timeout)

    def send_back_request(self, msg: Any, delay_level: int) -> tuple[str, RemotingCommand]:
        addr = self.consumer._coordinator.master_addr(msg.broker_name) if msg.broker_name else None
        if addr is None:
            addr = msg.store_host
        request = send_back_request(
            msg,
            group=self.consumer.group,
            delay_level=delay_level,
            origin_topic=wrap(self.consumer.namespace, msg.topic),  # Java: msg.setTopic(withNamespace(...))
            max_reconsume_times=self.max_reconsume_times(),
            compat=self.consumer.compat,
        )
        return addr, request

    def mq_lock(self, mq: Any) -> threading.Lock:
        with self.consumer._mq_locks_guard:
            lock = self.consumer._mq_locks.get(mq)
            if lock is None:
                lock = self.consumer._mq_locks[mq] = threading.Lock()
            return lock

    def try_lock_later(self, mq: Any, pq: ProcessQueue, delay_ms: int) -> None:
        """``tryLockLaterAndReconsume``: lock the queue on its broker after ``delay_ms``; consume again soon if
        it worked, else in 3 s."""
        remoting = self.consumer._remoting
        if remoting is None or self.consumer._state != "running":
            return
        again = self.consume_orderly_async if self.consumer._bind_loop else self.consume_orderly

        async def relock() -> None:
            await asyncio.sleep(delay_ms / 1000)
            ok = await self.consumer._rebalancer.lock(mq)
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
        return pq.take_messages(self.consumer.settings.consume_message_batch_max_size) or None

    def lock_lost(self, pq: ProcessQueue) -> bool:
        """Whether a clustering consumer no longer holds the queue's broker lock (never had it, or it expired)."""
        return self.consumer.model == "CLUSTERING" and (not pq.locked or pq.is_lock_expired())

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
        self.consumer.stats.add(**({"consumed": len(msgs)} if success else {"failed": len(msgs)}))
        if not success and not moved_away:
            pq.make_message_to_consume_again(msgs)
            suspend = context.suspend_current_queue_time_millis
            if suspend < 0:
                suspend = self.consumer.settings.suspend_current_queue_time_millis
            self.later(suspend, again, pq, mq)
            return False
        offset = pq.commit()
        # Java skips this when the queue was dropped during the listener call, so the next owner consumes those
        # messages again. Here the give-up waits for the consume lock before it commits, so the offset is
        # recorded even then and the commit includes these messages.
        if offset >= 0 and self.consumer._offsets is not None:
            self.consumer._offsets.update_offset(mq, offset, False)
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
        limit = self.consumer.settings.max_reconsume_times
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
            self.consumer.stats.add(sent_back=len(gone))
        for m in msgs:
            if id(m) not in gone:
                m.reconsume_times += 1
        return len(gone) == len(msgs)

    async def try_send_back_async(self, msg: Any, delay_level: int) -> bool:
        """:meth:`send_back` awaited: whether the broker took the message back (a failure is logged)."""
        try:
            await self.send_back_async(msg, delay_level)
            return True
        except Exception as e:
            log.warning("sending back %s failed: %s", msg.msg_id, e)
            return False
