"""``Feed``: what ``async for msg in consumer`` reads (:class:`rocketroute.aio.Consumer` without a listener).

It stands where the consume pool and the listener would: the pulls put each batch (up to
``consume_message_batch_max_size`` messages of one queue) into the feed, a task takes it, and the batch is settled
``CONSUME_SUCCESS`` when that task asks for more: a message counts as consumed once the body of the loop has run for
it, so nothing is committed before it was handled (at least once, as a listener). ``ack()`` settles exactly what the
task was handed of its batch (every message of a batch read whole, the messages up to the last one returned by
``async for msg``); the rest of that batch goes back to the front of the feed, delivered next to whichever task asks
first (the same task when it goes on iterating). Each task holds its own batch, so several tasks may iterate one
consumer and share its messages. A task that ends holding a batch (it raised, or left the loop without ``ack()``)
settles what it was handed ``RECONSUME_LATER``, as a listener that raised: those messages are sent back and
delivered again after the retry delay; what it was not handed yet goes back to the feed.

No task and no future per batch: the settling runs in the iterating task (the result processing of the consume
service), so a message costs a queue append and pop when a task is already waiting for it.

A task that took a batch stays known to the feed until it ends (so a task left pending for ever keeps its batch
unsettled, and itself alive, until the consumer stops). What a task holds when the consumer stops, and what no task
took, is settled by nobody: the messages stay in their queue's cache, and the committed offset stays before them
(they are delivered again, to this group)."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from threading import get_ident
from typing import Any

from ...net.bridge import loop_runs_here
from ..message_decode import MessageExt
from .listener import ConsumeConcurrentlyStatus

__all__ = ["Feed"]

Settle = Callable[[list[MessageExt], Any, Any, ConsumeConcurrentlyStatus], None]
"""``settle(msgs, pq, mq, status)``: the consume service's processing of a listener call's result."""


class _Held:
    """The batch a task has taken: ``msgs`` (handed out up to ``pos``), their queue and cache, and for a message
    consumed directly (``mqadmin consumeMessage``) the future its answer goes to."""

    __slots__ = ("answer", "mq", "msgs", "pos", "pq", "prepared")

    def __init__(self, msgs: list[MessageExt], pq: Any, mq: Any, answer: asyncio.Future[Any] | None) -> None:
        self.msgs = msgs
        self.pq = pq
        self.mq = mq
        self.answer = answer
        self.pos = 0
        self.prepared = answer is not None  # a direct consumption is handed out as it came

    def split(self) -> _Held | None:
        """Keep the messages handed out (``msgs[:pos]``) and return the rest as a batch of its own (already
        prepared), or None when every message was handed out."""
        pos = self.pos
        if pos >= len(self.msgs):
            return None
        rest = _Held(self.msgs[pos:], self.pq, self.mq, self.answer)
        rest.prepared = True
        self.msgs = self.msgs[:pos]
        return rest


class Feed:
    """Batches waiting for a task (in the order the pulls gave them) and the batch each task holds.

    ``prepare(msgs)`` runs before a batch is handed out (the retry topic and namespace undone, the consume start
    time); ``settle`` when it is done."""

    def __init__(
        self, prepare: Callable[[list[MessageExt]], None], settle: Settle, loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        self._loop = loop
        self._prepare = prepare
        self._settle = settle
        self._waiting: collections.deque[_Held] = collections.deque()
        self._ready = asyncio.Event()
        # every task that took a batch, with the batch it holds (None once acknowledged). A task is in it from
        # its first batch until it ends (its done callback, ``_task_ended``, takes it out): plain dict operations
        # per batch, where a weak mapping would make a weak reference each time
        self._held: dict[asyncio.Task[Any], _Held | None] = {}
        self.closed = False

    def put(self, msgs: list[MessageExt], pq: Any, mq: Any) -> None:
        """A batch of ``mq`` (its cache ``pq``) for the next task that asks. Called on the loop."""
        if self.closed:
            return
        self._waiting.append(_Held(msgs, pq, mq, None))
        self._ready.set()

    async def deliver(self, msgs: list[MessageExt], context: Any) -> Any:
        """A message consumed directly: handed to the next task like any batch, nothing committed or sent back;
        the answer is ``CONSUME_SUCCESS`` once the task asks for more, ``RECONSUME_LATER`` if it ended holding it,
        ``None`` (no status) if the consumer stopped first."""
        if self.closed:
            return None
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Held(msgs, None, context.message_queue, answer))
        self._ready.set()
        return await answer

    def ack(self) -> None:
        """What the calling task was handed of its batch is consumed (``CONSUME_SUCCESS``); the rest of the batch
        is delivered next."""
        task = self._current_task()
        if task is not None:
            self._ack(task)

    def _current_task(self) -> asyncio.Task[Any] | None:
        """The calling task. On the feed's loop, told by its thread: ``asyncio.current_task()`` without a loop asks
        the kernel for the process id (``get_running_loop``), a system call per batch."""
        loop = self._loop
        if loop is not None and loop_runs_here(loop):
            return asyncio.current_task(loop)
        return asyncio.current_task()

    def _ack(self, task: asyncio.Task[Any]) -> None:
        held = self._held.get(task)
        if held is not None:
            self._held[task] = None
            self._done(held, ConsumeConcurrentlyStatus.CONSUME_SUCCESS)

    def _done(self, held: _Held, status: ConsumeConcurrentlyStatus) -> None:
        """Settle what ``held``'s task was handed with ``status``; the rest goes back to the front of the feed."""
        rest = held.split()
        if rest is not None and not self.closed:
            self._waiting.appendleft(rest)
            self._ready.set()
        if not held.msgs:  # nothing of it handed out: nothing to settle
            return
        if held.answer is not None:
            if rest is None and not held.answer.done():  # a direct consumption answers once all of it was seen
                held.answer.set_result(status)
        elif not self.closed:
            self._settle(held.msgs, held.pq, held.mq, status)

    def task_here(self) -> asyncio.Task[Any] | None:
        """The calling task when it runs on the feed's loop (the standard loops say which thread runs them), else
        ``None``: what a reader passes to :meth:`next_batch` and :meth:`next_message` after its own checks."""
        loop = self._loop
        if loop is not None and getattr(loop, "_thread_id", None) == get_ident():
            return asyncio.current_task(loop)
        return None

    async def next_batch(self, task: asyncio.Task[Any] | None = None) -> list[MessageExt]:
        """Acknowledge the calling task's batch and take the next one; ``StopAsyncIteration`` once closed.
        ``task``: the calling task, when the caller knows it (:meth:`task_here`)."""
        if task is None:
            task = self._current_task()
            assert task is not None, "a feed is read by a task"
        held = await self._next_batch(task)
        held.pos = len(held.msgs)  # handed out whole
        return held.msgs

    async def _next_batch(self, task: asyncio.Task[Any]) -> _Held:
        self._ack(task)
        waiting = self._waiting
        while True:
            while not waiting:
                if self.closed:
                    raise StopAsyncIteration
                self._ready.clear()
                await self._ready.wait()
            held = waiting.popleft()
            if held.pq is not None and held.pq.dropped:  # Java does not run a consume request of a queue given up
                continue
            if not held.prepared:
                held.prepared = True
                self._prepare(held.msgs)
            if task not in self._held:
                task.add_done_callback(self._task_ended)
            self._held[task] = held
            return held

    def _task_ended(self, task: asyncio.Task[Any]) -> None:
        held = self._held.pop(task, None)
        if held is not None:
            self._done(held, ConsumeConcurrentlyStatus.RECONSUME_LATER)

    async def next_message(self, task: asyncio.Task[Any] | None = None) -> MessageExt:
        """The next message of the calling task's batch, or the first of the next batch (``task``: as for
        :meth:`next_batch`)."""
        if task is None:
            task = self._current_task()
            assert task is not None, "a feed is read by a task"
        held = self._held.get(task)
        if held is None or held.pos >= len(held.msgs):
            held = await self._next_batch(task)
        msg = held.msgs[held.pos]
        held.pos += 1
        return msg

    def close(self) -> None:
        """End the iterations; nothing taken or waiting is settled (not committed). Direct consumptions waiting
        get no status."""
        self.closed = True
        for held in (*self._waiting, *self._held.values()):
            if held is not None and held.answer is not None and not held.answer.done():
                held.answer.set_result(None)
        self._waiting.clear()
        self._held.clear()
        self._ready.set()
