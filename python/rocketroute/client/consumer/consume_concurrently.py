"""The concurrent consume service (``ConsumeMessageConcurrentlyService``): each slice of pulled messages is a
listener call of its own, on the consume pool or on the loop; its status settles it (``processConsumeResult``):
the messages consumed leave their queue's cache and the offset moves, the others go back to the broker
(clustering) or are dropped (broadcasting); ``async for``'s batches are settled the same way. Messages a
listener has held past ``consume_timeout`` are sent back (``cleanExpireMsg``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._shared import _now_ms, log
from .consume_service import ConsumeService
from .listener import ConsumeConcurrentlyContext, ConsumeConcurrentlyStatus
from .process_queue import ProcessQueue

__all__ = ["ConcurrentConsumeService"]

if TYPE_CHECKING:
    from .feed import Feed


_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
_ACK_ALL = ConsumeConcurrentlyContext.ack_index  # the context's default: every message of the call consumed


class ConcurrentConsumeService(ConsumeService):
    """See the module."""

    def __init__(self, *args: Any, process_queues: dict[Any, ProcessQueue], **kwargs: Any) -> None:
        """:class:`~.consume_service.ConsumeService`'s arguments, and the process-queue table that
        :meth:`clean_expired` walks."""
        super().__init__(*args, **kwargs)
        self.process_queues = process_queues
        # async for's feed, when the asyncio-native consumer has no listener (given once the feed is built)
        self.feed: Feed | None = None
        self._settling: set[asyncio.Task[None]] = set()  # send-backs of async for's batches under way

    def submit_consume(self, msgs: list[Any], pq: ProcessQueue, mq: Any, dispatch: bool) -> None:
        """The messages in slices of ``consume_message_batch_max_size``, each a listener call on the pool (a
        coroutine on the loop for an asyncio-native consumer), or, for ``async for``, into its feed. Not queued
        once the pool is shut down: the consumer is stopping."""
        executor = self.executor
        n = self.settings.consume_message_batch_max_size
        feed = self.feed
        if feed is not None:  # async for: the iterating tasks take the batches and settle them
            for i in range(0, len(msgs), n):
                feed.put(msgs[i : i + n], pq, mq)
            return
        consume = self.consume_concurrently_async if self.on_loop else self.consume_concurrently
        executor.submit_slices(consume, msgs, n, pq, mq)

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
        feed = self.feed
        if feed is not None and not pq.dropped:
            feed.put(msgs, pq, mq)

    def consume_concurrently(self, msgs: list[Any], pq: ProcessQueue, mq: Any) -> None:
        """``ConsumeMessageConcurrentlyService.ConsumeRequest.run`` and ``processConsumeResult`` (the listener
        called as :meth:`call_listener` calls it, written out: once per call on the pool)."""
        if pq.dropped:
            return
        context = ConsumeConcurrentlyContext(mq)
        listener = self.listener
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
        self.stats.add_result(ack + 1, len(msgs) - ack - 1)
        if self.clustering:
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
        self.stats.add_result(len(msgs), 0)
        offset = pq.remove_messages(msgs)
        if offset >= 0 and not pq.dropped:
            self.offsets.update_offset(mq, offset, True)
        return True

    def sent_back(self, msg: Any, ok: bool) -> bool:
        """Count a send-back; one that failed is consumed again here (its reconsume times + 1). Returns ``ok``."""
        if ok:
            self.stats.add(sent_back=1)
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
        if offset >= 0 and not pq.dropped:
            self.offsets.update_offset(mq, offset, True)
        if retry_later:
            self.later(5000, again, retry_later, pq, mq)

    async def clean_expired(self, now_ms: int | None = None) -> None:
        """``cleanExpireMsg``: a message a listener started on more than ``consume_timeout`` minutes ago and
        still the first of its queue's cache is sent back (delay level 3) and removed from the cache, so one stuck
        listener call does not hold its queue's committed offset for ever (at most 16 per queue per round, as
        Java's). Concurrent consumption only."""
        timeout_ms = self.settings.consume_timeout * 60_000
        for mq, pq in list(self.process_queues.items()):
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
                    self.settings.consume_timeout,
                )
                pq.remove_messages([msg])
                self.stats.add(sent_back=1)
