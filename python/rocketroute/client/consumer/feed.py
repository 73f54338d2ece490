"""``Feed``: what ``async for msg in consumer`` reads (:class:`rocketroute.aio.Consumer` without a listener).

It stands where the listener would: each listener call of the consume pool (up to
``consume_message_batch_max_size`` messages of one queue) waits in the feed until a task takes it, and is answered
``CONSUME_SUCCESS`` when that task asks for more (or calls ``ack()``): a message counts as consumed once the body of
the loop has run for it, so nothing is committed before it was handled (at least once, as a listener). Each task
holds its own batch, so several tasks may iterate one consumer and share its messages. A task that ends holding a
batch (it raised, or left the loop without ``ack()``) answers ``RECONSUME_LATER``, as a listener that raised: the
messages are sent back and delivered again after the retry delay.

What a task holds when the consumer stops, and what no task took, answers :data:`NOT_CONSUMED`: the consume
service processes nothing for it, the messages stay in their queue's cache, and the committed offset stays
before them (they are delivered again, to this group)."""

from __future__ import annotations

import asyncio
import collections
import weakref
from typing import Any

from .listener import ConsumeConcurrentlyStatus

__all__ = ["NOT_CONSUMED", "Feed"]

NOT_CONSUMED = object()
"""A feed's answer for messages no task consumed: their listener call has no result to process."""


class _Held:
    """The batch a task has taken: ``msgs`` (handed out up to ``pos``) and the listener call's answer."""

    __slots__ = ("answer", "msgs", "pos")

    def __init__(self, msgs: list[Any], answer: asyncio.Future[Any]) -> None:
        self.msgs = msgs
        self.answer = answer
        self.pos = 0


class Feed:
    """Batches waiting for a task (in the order the consume pool gave them) and the batch each task holds."""

    def __init__(self) -> None:
        self._waiting: collections.deque[tuple[list[Any], Any, asyncio.Future[Any]]] = collections.deque()
        self._ready = asyncio.Event()
        self._held: weakref.WeakKeyDictionary[asyncio.Task[Any], _Held] = weakref.WeakKeyDictionary()
        self._watched: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()  # tasks with _task_ended on them
        self.closed = False

    async def deliver(self, msgs: list[Any], context: Any, pq: Any) -> Any:
        """The listener call: wait until a task has taken ``msgs`` and asked for more (``CONSUME_SUCCESS``), or
        the feed closed first (:data:`NOT_CONSUMED`). ``pq``: their queue's cache (None for a message consumed
        directly), so a batch of a queue given up meanwhile is never handed out."""
        if self.closed:
            return NOT_CONSUMED
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append((msgs, pq, answer))
        self._ready.set()
        return await answer

    def ack(self) -> None:
        """The calling task's batch is consumed (``CONSUME_SUCCESS``), whatever of it was handed out."""
        held = self._take_held()
        if held is not None and not held.answer.done():
            held.answer.set_result(ConsumeConcurrentlyStatus.CONSUME_SUCCESS)

    def _take_held(self) -> _Held | None:
        task = asyncio.current_task()
        return None if task is None else self._held.pop(task, None)

    async def next_batch(self) -> list[Any]:
        """Acknowledge the calling task's batch and take the next one; ``StopAsyncIteration`` once closed."""
        self.ack()
        task = asyncio.current_task()
        assert task is not None, "a feed is read by a task"
        while True:
            while not self._waiting:
                if self.closed:
                    raise StopAsyncIteration
                self._ready.clear()
                await self._ready.wait()
            msgs, pq, answer = self._waiting.popleft()
            if answer.done():
                continue
            if pq is not None and pq.dropped:  # Java does not run a consume request of a queue given up
                answer.set_result(NOT_CONSUMED)
                continue
            self._held[task] = _Held(msgs, answer)
            if task not in self._watched:
                self._watched.add(task)
                task.add_done_callback(self._task_ended)
            return msgs

    def _task_ended(self, task: asyncio.Task[Any]) -> None:
        held = self._held.pop(task, None)
        if held is not None and not held.answer.done():
            held.answer.set_result(ConsumeConcurrentlyStatus.RECONSUME_LATER)

    async def next_message(self) -> Any:
        """The next message of the calling task's batch, or the first of the next batch."""
        task = asyncio.current_task()
        held = None if task is None else self._held.get(task)
        if held is None or held.pos >= len(held.msgs):
            await self.next_batch()
            held = self._held[task]  # type: ignore[index]
        msg = held.msgs[held.pos]
        held.pos += 1
        return msg

    def close(self) -> None:
        """End the iterations; every batch taken or waiting answers :data:`NOT_CONSUMED`."""
        self.closed = True
        for _, _, answer in self._waiting:
            if not answer.done():
                answer.set_result(NOT_CONSUMED)
        self._waiting.clear()
        for held in list(self._held.values()):
            if not held.answer.done():
                held.answer.set_result(NOT_CONSUMED)
        self._held.clear()
        self._ready.set()
