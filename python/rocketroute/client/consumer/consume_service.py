"""The consumer's consume services (``ConsumeMessageConcurrentlyService`` and
``ConsumeMessageOrderlyService``): listener calls on the consume pool, statuses, send-backs, retries, expired
messages and the orderly queues' one-thread-at-a-time consumption.

A part of :class:`~rocketroute.client.consumer.Consumer`: a mixin whose methods work on the consumer's state (set up
in ``Consumer.__init__``)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from ...consumer_config import CONSUMER_CONSTANTS
from ...remoting import RemotingCommand
from ...remoting.headers import (
    ConsumerSendMsgBackRequestHeader,
)
from ..message_decode import reset_retry_topic
from ._shared import _RAISED, _name_of, _now_ms, log
from .listener import (
    ConsumeConcurrentlyContext,
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyContext,
    ConsumeOrderlyStatus,
)
from .process_queue import ProcessQueue

__all__: list[str] = []


class _Consuming:
    """See the module."""

    def _submit_consume(self, msgs: list[Any], pq: ProcessQueue, mq: Any, dispatch: bool) -> None:
        assert self._executor is not None
        if self.orderly:
            if dispatch:
                self._executor.submit(self._consume_orderly, pq, mq)
        else:  # not queued once the pool is shut down: the consumer is stopping
            n = self.settings.consume_message_batch_max_size
            for i in range(0, len(msgs), n):
                self._executor.submit(self._consume_concurrently, msgs[i : i + n], pq, mq)

    def _later(self, delay_ms: int, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the pool after ``delay_ms`` (Java's ``submitConsumeRequestLater``)."""
        remoting, executor = self._remoting, self._executor
        if remoting is None or executor is None or self._state != "running":
            return

        def submit() -> None:
            if self._state == "running":
                executor.submit(fn, *args)

        try:
            remoting.loop.call_soon_threadsafe(remoting.loop.call_later, delay_ms / 1000, submit)
        except RuntimeError:
            pass

    def _call_listener(self, msgs: list[Any], context: Any) -> Any:
        listener = self.listener
        assert listener is not None
        for m in msgs:
            reset_retry_topic(m, self.group)
            m.properties["CONSUME_START_TIME"] = str(_now_ms())
        try:
            return listener(msgs, context)
        except Exception:
            log.warning(
                "the listener %s raised on %d message(s) of %s",
                _name_of(listener),
                len(msgs),
                context.message_queue,
                exc_info=True,
            )
            return _RAISED

    def _not_a_status(self, status: Any, expected: type, instead: Any) -> Any:
        """Java's answer to a listener that returns no status (``null``) or a wrong one: ``instead``
        (RECONSUME_LATER, or SUSPEND_CURRENT_QUEUE_A_MOMENT for an orderly listener), with a WARNING naming the
        listener (none for one that raised: that was logged with its traceback)."""
        if status is not _RAISED:
            log.warning(
                "the listener %s returned %r, not a %s: treated as %s",
                _name_of(self.listener),
                status,
                expected.__name__,
                instead.name,
            )
        return instead

    def _consume_concurrently(self, msgs: list[Any], pq: ProcessQueue, mq: Any) -> None:
        """``ConsumeMessageConcurrentlyService.ConsumeRequest.run`` and ``processConsumeResult``."""
        if pq.dropped:
            return
        context = ConsumeConcurrentlyContext(mq)
        status = self._call_listener(msgs, context)
        if not isinstance(status, ConsumeConcurrentlyStatus):
            status = self._not_a_status(status, ConsumeConcurrentlyStatus, ConsumeConcurrentlyStatus.RECONSUME_LATER)
        if pq.dropped:  # Java: the queue was given up meanwhile; the result is not processed
            return
        if status is ConsumeConcurrentlyStatus.CONSUME_SUCCESS:
            ack = min(context.ack_index, len(msgs) - 1)
        else:
            ack = -1
        self.stats.add(consumed=ack + 1, failed=len(msgs) - ack - 1)
        retry_later: list[Any] = []
        if self.model == "CLUSTERING":
            for m in msgs[ack + 1 :]:
                if self._send_back(m, context.delay_level_when_next_consume):
                    self.stats.add(sent_back=1)
                else:
                    m.reconsume_times += 1
                    retry_later.append(m)
        elif ack + 1 < len(msgs):
            log.warning("BROADCASTING: %d message(s) failed and are dropped (no retry)", len(msgs) - ack - 1)
        later_ids = {id(m) for m in retry_later}
        done = [m for m in msgs if id(m) not in later_ids] if retry_later else msgs
        offset = pq.remove_messages(done)
        if offset >= 0 and not pq.dropped and self._offsets is not None:
            self._offsets.update_offset(mq, offset, True)
        if retry_later:  # submitConsumeRequestLater: 5 s
            self._later(5000, self._consume_concurrently, retry_later, pq, mq)

    def _max_reconsume_times(self) -> int:
        n = self.settings.max_reconsume_times
        return 16 if n == -1 else n

    def _send_back(self, msg: Any, delay_level: int) -> bool:
        """CONSUMER_SEND_MSG_BACK to the message's broker: the broker stores it again in the retry topic (or
        the dead-letter queue). Java falls back to sending it as a new message through its internal producer
        when this fails; here it is consumed again locally after 5 s instead."""
        remoting = self._remoting
        if remoting is None:
            return False
        addr, request = self._send_back_request(msg, delay_level)
        try:
            remoting.invoke_checked(addr, request, self.settings.mq_client_api_timeout)
            return True
        except Exception as e:
            log.warning("sending back %s failed: %s", msg.msg_id, e)
            return False

    async def _clean_expired(self, now_ms: int | None = None) -> None:
        """``cleanExpireMsg``: a message a listener started on more than ``consume_timeout`` minutes ago and
        still the first of its queue's cache is sent back (delay level 3) and removed from the cache, so one stuck
        listener call does not hold its queue's committed offset for ever (at most 16 per queue per round, as
        Java's). Concurrent consumption only."""
        timeout_ms = self.settings.consume_timeout * 60_000
        for mq, pq in list(self._pqs.items()):
            for _ in range(16):
                if pq.dropped:
                    break
                msg = pq.first_expired(timeout_ms, _now_ms() if now_ms is None else now_ms)
                if msg is None:
                    break
                try:
                    await self._send_back_async(msg, 3)
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

    async def _set_aside_undecodable(self, msgs: list[Any], mq: Any) -> bool:
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
                "sent to the dead-letter queue" if self.model == "CLUSTERING" else "skipped (broadcasting)",
                m.decode_error,
            )
            if self.model != "CLUSTERING":
                continue
            try:
                await self._send_back_async(m, -1)
            except Exception as e:
                log.error("sending the undecodable message %s to the dead-letter queue failed: %s", m.msg_id, e)
                return False
        self.stats.add(undecodable=len(msgs))
        return True

    async def _send_back_async(self, msg: Any, delay_level: int) -> None:
        """:meth:`_send_back` on the loop; raises what the broker or the connection answered."""
        assert self._remoting is not None
        addr, request = self._send_back_request(msg, delay_level)
        await self._remoting.async_client.invoke_checked(addr, request, self.settings.mq_client_api_timeout)

    def _send_back_request(self, msg: Any, delay_level: int) -> tuple[str, RemotingCommand]:
        addr = self._master_addr(msg.broker_name) if msg.broker_name else None
        if addr is None:
            addr = msg.store_host
        request = ConsumerSendMsgBackRequestHeader(
            offset=msg.commit_log_offset,
            group=self.group,
            delay_level=delay_level,
            origin_msg_id=msg.msg_id,
            origin_topic=msg.topic,
            max_reconsume_times=self._max_reconsume_times(),
            broker_name=msg.broker_name,
        ).request(self.compat)
        return addr, request

    def _mq_lock(self, mq: Any) -> threading.Lock:
        with self._mq_locks_guard:
            lock = self._mq_locks.get(mq)
            if lock is None:
                lock = self._mq_locks[mq] = threading.Lock()
            return lock

    def _try_lock_later(self, mq: Any, pq: ProcessQueue, delay_ms: int) -> None:
        """``tryLockLaterAndReconsume``: lock the queue on its broker after ``delay_ms``; consume again soon if
        it worked, else in 3 s."""
        remoting = self._remoting
        if remoting is None or self._state != "running":
            return

        async def relock() -> None:
            await asyncio.sleep(delay_ms / 1000)
            ok = await self._lock(mq)
            self._later(10 if ok else 3000, self._consume_orderly, pq, mq)

        try:
            asyncio.run_coroutine_threadsafe(relock(), remoting.loop)
        except RuntimeError:
            pass

    def _consume_orderly(self, pq: ProcessQueue, mq: Any) -> None:
        """``ConsumeMessageOrderlyService.ConsumeRequest.run``: one thread per queue at a time, the queue's
        broker lock held, messages in queue order; ``SUSPEND_CURRENT_QUEUE_A_MOMENT`` delivers the same messages
        again after the suspend time. The listener call and the commit of its offset happen under the queue's
        consume lock, which a rebalance takes before it commits and unlocks the queue on the broker: the next
        owner starts exactly after the last message consumed here."""
        if pq.dropped:
            return
        clustering = self.model == "CLUSTERING"
        c = CONSUMER_CONSTANTS
        with self._mq_lock(mq):
            if clustering and (not pq.locked or pq.is_lock_expired()):
                self._try_lock_later(mq, pq, 100)
                return
            begin = time.monotonic()
            batch = self.settings.consume_message_batch_max_size
            while not pq.dropped:
                if clustering and (not pq.locked or pq.is_lock_expired()):
                    self._try_lock_later(mq, pq, 10)
                    return
                if (time.monotonic() - begin) * 1000 > c["MAX_TIME_CONSUME_CONTINUOUSLY"]:
                    self._later(10, self._consume_orderly, pq, mq)
                    return
                msgs = pq.take_messages(batch)
                if not msgs:
                    return
                context = ConsumeOrderlyContext(mq)
                with pq.consume_lock:
                    if pq.dropped:
                        return
                    status = self._call_listener(msgs, context)
                    if not isinstance(status, ConsumeOrderlyStatus):
                        status = self._not_a_status(
                            status, ConsumeOrderlyStatus, ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
                        )
                    if status is ConsumeOrderlyStatus.SUCCESS:
                        self.stats.add(consumed=len(msgs))
                        offset = pq.commit()
                    elif self._over_reconsume_times(msgs):
                        self.stats.add(failed=len(msgs))
                        offset = pq.commit()
                    else:
                        self.stats.add(failed=len(msgs))
                        pq.make_message_to_consume_again(msgs)
                        suspend = context.suspend_current_queue_time_millis
                        if suspend < 0:
                            suspend = self.settings.suspend_current_queue_time_millis
                        self._later(suspend, self._consume_orderly, pq, mq)
                        return
                    # Java skips this when the queue was dropped during the listener call, so the next owner
                    # consumes those messages again. Here the give-up waits for this consume lock before it
                    # commits, so the offset is recorded even then and the commit includes these messages.
                    if offset >= 0 and self._offsets is not None:
                        self._offsets.update_offset(mq, offset, False)

    def _over_reconsume_times(self, msgs: list[Any]) -> bool:
        """``checkReconsumeTimes``: a message consumed ``max_reconsume_times`` times already goes to the
        dead-letter queue (sent back with delay level -1); the others are counted once more. True when every
        message was moved away (nothing to suspend for). With the default -1 (no limit for orderly consumers),
        messages are retried for ever, as Java's."""
        limit = self.settings.max_reconsume_times
        limit = 2**31 - 1 if limit == -1 else limit
        suspend = False
        for m in msgs:
            if m.reconsume_times >= limit:
                m.properties["RECONSUME_TIME"] = str(m.reconsume_times)
                if not self._send_back(m, -1):
                    suspend = True
                    m.reconsume_times += 1
                else:
                    self.stats.add(sent_back=1)
            else:
                suspend = True
                m.reconsume_times += 1
        return not suspend
