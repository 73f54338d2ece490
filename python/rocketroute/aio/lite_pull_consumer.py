""":class:`LitePullConsumer`: the lite pull consumer for asyncio services, on the caller's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..client.consumer.front_ends import LoopCalls
from ..client.consumer.lite_pull_base import LitePullBase
from ..client.consumer.lite_pull_settings import LitePullConsumerSettings

if TYPE_CHECKING:
    from .. import MessageQueue
    from ..client.message_decode import MessageExt
    from ..rebalance import QueueAllocator

__all__ = ["LitePullConsumer"]


class LitePullConsumer(LitePullBase, LoopCalls):
    """``DefaultLitePullConsumer`` for asyncio: the arguments, settings and behaviour of
    :class:`rocketroute.LitePullConsumer` (subscribe or assign, the bounded buffer, auto-commit, seeks, pauses),
    with its connections, pulls and timers on the loop that awaits :meth:`start`, so :meth:`stop` (or
    ``async with``) must run before the loop ends.

    Three ways to read: ``await consumer.poll()`` (one pull's messages, a batch of up to ``pull_batch_size``),
    ``async for msgs in consumer.batches()`` (the same, skipping empty polls) and ``async for msg in consumer`` (a
    message at a time). With ``auto_commit``, what was handed out is committed when the next poll is asked for
    (for ``async for``, once the batch it came from is used up)."""

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str,
        subscriptions: Mapping[str, str | None] | Iterable[str] | None = None,
        strategy: QueueAllocator | None = None,
        *,
        on_rebalance: Callable[[str, tuple[MessageQueue, ...]], None] | None = None,
        settings: LitePullConsumerSettings | None = None,
        **kwargs: Any,
    ) -> None:
        if "instance" in kwargs:
            raise TypeError(
                "rocketroute.aio.LitePullConsumer runs on an instance of its own loop: instance= is not taken"
            )
        super().__init__(
            namesrv, group, subscriptions, strategy, on_rebalance=on_rebalance, settings=settings, **kwargs
        )
        self._pending: list[MessageExt] = []  # async for's rest of the batch

    # -- the queues (on the loop once started) ----------------------------------------------------------------

    def subscribe(self, topic: str, expression: str | None = "*") -> None:
        """Subscribe ``topic`` (see :meth:`rocketroute.LitePullConsumer.subscribe`)."""
        self._here()
        self._subscribe_now(topic, expression)

    def unsubscribe(self, topic: str) -> None:
        """Stop consuming ``topic``."""
        self._here()
        self._unsubscribe_now(topic)

    def assign(self, queues: Iterable[MessageQueue]) -> None:
        """Consume exactly ``queues`` (see :meth:`rocketroute.LitePullConsumer.assign`)."""
        self._here()
        self._assign_now(list(queues) if isinstance(queues, Iterable) else queues)

    def set_sub_expression_for_assign(self, topic: str, expression: str) -> None:
        """The tag expression the assigned queues of ``topic`` pull with (before :meth:`start`)."""
        self._set_sub_expression_for_assign_now(topic, expression)

    def pause(self, queues: Iterable[MessageQueue]) -> None:
        """Stop pulling ``queues`` until :meth:`resume`."""
        self._pause_now(queues, True)

    def resume(self, queues: Iterable[MessageQueue]) -> None:
        """Pull ``queues`` again."""
        self._pause_now(queues, False)

    async def fetch_message_queues(self, topic: str) -> list[MessageQueue]:
        """The queues of ``topic`` the name servers' route offers, sorted."""
        self._on_its_loop()
        return await self._fetch_message_queues(topic)

    # -- poll and offsets ------------------------------------------------------------------------------------------

    async def poll(self, timeout_ms: int | None = None) -> list[MessageExt]:
        """The messages of one pull (see :meth:`rocketroute.LitePullConsumer.poll`)."""
        self._on_its_loop()
        return await self._poll(timeout_ms)

    async def commit_sync(self) -> None:
        """Commit what the polls returned and wait for the brokers' acknowledgement."""
        self._on_its_loop()
        await self._commit_sync()

    async def commit(self, offsets: Mapping[MessageQueue, int], *, persist: bool = True) -> None:
        """Commit ``offsets`` (see :meth:`rocketroute.LitePullConsumer.commit`)."""
        self._on_its_loop()
        await self._commit(offsets, persist)

    async def committed(self, mq: MessageQueue) -> int:
        """The queue's committed offset; -1 when there is none."""
        self._on_its_loop()
        return await self._committed(mq)

    async def seek(self, mq: MessageQueue, offset: int) -> None:
        """Consume ``mq`` from ``offset`` (see :meth:`rocketroute.LitePullConsumer.seek`)."""
        self._on_its_loop()
        await self._seek(mq, offset)

    async def seek_to_begin(self, mq: MessageQueue) -> None:
        """Seek to the queue's min offset."""
        self._on_its_loop()
        await self._seek_to_begin(mq)

    async def seek_to_end(self, mq: MessageQueue) -> None:
        """Seek to the queue's max offset."""
        self._on_its_loop()
        await self._seek_to_end(mq)

    async def offset_for_timestamp(self, mq: MessageQueue, timestamp_ms: int) -> int:
        """The offset of ``mq``'s first message stored at or after ``timestamp_ms``."""
        self._on_its_loop()
        return await self._offset_for_timestamp(mq, timestamp_ms)

    # -- async for ----------------------------------------------------------------------------------------------

    def __aiter__(self) -> LitePullConsumer:
        return self

    async def __anext__(self) -> MessageExt:
        """The next message; ends when the consumer stops."""
        while not self._pending:
            if not self.running:
                raise StopAsyncIteration
            self._pending = list(reversed(await self.poll()))
        return self._pending.pop()

    def batches(self) -> _Batches:
        """``async for msgs in consumer.batches()``: each non-empty poll; ends when the consumer stops."""
        return _Batches(self)

    # -- lifecycle ------------------------------------------------------------------------------------------------

    async def start(self) -> LitePullConsumer:
        """Start on the running loop: routes, heartbeats, the queues taken (a first rebalance, or the assigned
        ones), then the pulls and timers."""
        if self.running:
            return self
        self._bind_loop = asyncio.get_running_loop()
        if not self._begin_start():
            return self
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise
        return self

    async def stop(self) -> None:
        """Stop pulling, commit (see :meth:`rocketroute.LitePullConsumer.shutdown`), unregister and close the
        connections; a waiting :meth:`poll` returns ``[]`` and ``async for`` ends."""
        if not self._begin_stop():
            return
        await self._stop_steps()
        self._pending = []
        await self._leave()

    async def __aenter__(self) -> LitePullConsumer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _here(self) -> None:
        """Once started, the queues change on the consumer's loop only."""
        if self.running:
            self._refuse_other_loop()

    def __repr__(self) -> str:
        return f"rocketroute.aio.{super().__repr__()}"


class _Batches:
    def __init__(self, consumer: LitePullConsumer) -> None:
        self._consumer = consumer

    def __aiter__(self) -> _Batches:
        return self

    async def __anext__(self) -> list[MessageExt]:
        consumer = self._consumer
        while consumer.running:
            msgs = await consumer.poll()
            if msgs:
                return msgs
        raise StopAsyncIteration
