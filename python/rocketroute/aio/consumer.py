""":class:`Consumer`: the push consumer for asyncio services, on the caller's event loop."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..client.consumer.base import STOP_TIMEOUT_S
from ..client.consumer.feed import Feed
from ..client.consumer.front_ends import LoopCalls
from ..client.consumer.listener import AsyncMessageListener
from ..client.consumer.loop_pool import LoopConsumePool
from ..client.consumer.push_base import PushConsumerBase
from ..client.consumer.settings import ConsumerSettings
from ..client.message_decode import MessageExt
from ..client.namespace import wrap
from ..loggers import get_logger
from ..rebalance import QueueAllocator

if TYPE_CHECKING:
    from .. import MessageQueue

__all__ = ["AsyncMessageListener", "Consumer"]

log = get_logger("consumer")


class Consumer(PushConsumerBase[AsyncMessageListener], LoopCalls):
    """``DefaultMQPushConsumer`` for asyncio: the arguments and settings of :class:`rocketroute.Consumer`
    (``strategy``, ``compat``, ``credentials``, ``tls``, ``namespace``, ``message_model``, the pull and flow-control
    settings, ...) and the same pulls, rebalance, offsets and retries, run on the loop that awaits :meth:`start`.
    Connections, pulls, timers and listener calls live on that loop, so :meth:`stop` (or ``async with``) must run
    before the loop ends.

    Two ways to consume:

    - ``async for msg in consumer`` (or ``async for msgs in consumer.batches()``): a message counts as consumed
      (``CONSUME_SUCCESS``) when the loop asks for the next one, or at :meth:`ack` (what the task was handed, not
      the rest of its batch). Several tasks may iterate one
      consumer: each holds its own batch. Messages held when the consumer stops are not committed (delivered again
      to the group); a task that ends holding one (it raised, or left the loop without :meth:`ack`) gives it back
      as ``RECONSUME_LATER``.
    - ``listener=``: ``async def listener(msgs, context) -> ConsumeConcurrentlyStatus``, awaited on the loop, at
      most ``consume_thread_min`` calls at a time (Java's consume threads); raising or returning anything else is
      ``RECONSUME_LATER``, as in Java. With ``orderly=True`` it answers a ``ConsumeOrderlyStatus``: each queue
      locked on its broker and consumed one call at a time in queue order (``SUSPEND_CURRENT_QUEUE_A_MOMENT``
      delivers the same messages again), as :class:`rocketroute.Consumer`'s orderly listener. ``async for`` is
      concurrent only.

    ``on_rebalance`` runs on a callback thread, as in :class:`rocketroute.Consumer`."""

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str,
        subscriptions: Mapping[str, str | None] | Iterable[str],
        strategy: QueueAllocator | None = None,
        *,
        listener: AsyncMessageListener | None = None,
        on_rebalance: Callable[[str, tuple[MessageQueue, ...]], None] | None = None,
        settings: ConsumerSettings | None = None,
        **kwargs: Any,
    ) -> None:
        if "instance" in kwargs:
            raise TypeError("rocketroute.aio.Consumer runs on an instance of its own loop: instance= is not taken")
        if kwargs.get("orderly") and listener is None:
            raise ValueError(
                "orderly consumption takes an async listener (listener=): async for hands batches to any task, "
                "so a queue's order would not hold"
            )
        if listener is not None and not inspect.iscoroutinefunction(listener) and not _async_callable(listener):
            raise TypeError(
                f"the listener of a rocketroute.aio.Consumer is a coroutine function (async def), not {listener!r}; "
                "a plain function is rocketroute.Consumer's"
            )
        super().__init__(
            namesrv, group, subscriptions, strategy, listener=listener, on_rebalance=on_rebalance, settings=settings,
            **kwargs,
        )  # fmt: skip

    async def consumer_ids(self, topic: str) -> list[str]:
        """The group's members as a broker of ``topic`` reports them (GET_CONSUMER_LIST_BY_GROUP)."""
        self._on_its_loop()
        return await self._rebalancing().find_consumer_ids(wrap(self.namespace, topic))

    async def rebalance_now(self) -> None:
        """Run a rebalance now and return when it is done."""
        self._on_its_loop()
        await self._rebalancing().rebalance_all()

    async def refresh_routes(self) -> None:
        """Fetch the subscribed topics' routes now."""
        self._on_its_loop()
        await self._refresh_routes()

    # -- lifecycle --------------------------------------------------------------------------------------------

    async def start(self) -> Consumer:
        """Start on the running loop: routes, heartbeats, the first rebalance (the consumer owns its queues when
        this returns), then the pulls. Without a listener, messages wait for ``async for``."""
        if self.running:
            return self
        self._bind_loop = asyncio.get_running_loop()
        if not self._begin_start():
            return self
        try:
            await self._start()
            await self._flush_callbacks()  # on_rebalance has run
        except BaseException:
            await self.stop()
            raise
        return self

    async def stop(self) -> None:
        """Stop pulling, end the ``async for`` loops (what they hold is not committed), wait for the listener
        calls under way (bounded as :meth:`rocketroute.Consumer.shutdown`), commit the offsets, unregister and
        close the connections (awaited)."""
        if not self._begin_stop():
            return
        executor = self._executor
        assert isinstance(executor, LoopConsumePool)
        try:
            await asyncio.wait_for(self._stop_pulls(), STOP_TIMEOUT_S)
        except Exception as e:
            log.warning("stopping the pulls and timers did not finish: %r", e)
        if self._feed is not None:  # what async for holds or has not taken yet is not consumed
            self._feed.close()
        wait_ms = self._listener_wait_ms()
        self._abandoned(await executor.shutdown(wait_ms / 1000), wait_ms)
        try:
            await asyncio.wait_for(self._final_commit_and_unregister(), self._final_bound_s())
        except Exception as e:
            log.warning("the final commit or unregister did not finish: %r", e)
        await self._leave()

    async def __aenter__(self) -> Consumer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _reading(self) -> Feed:
        if self._feed is None:
            if self.listener is not None:
                raise RuntimeError("this consumer has a listener: its messages go there, not to async for")
            raise RuntimeError("await start() before iterating the consumer (or use async with)")
        if self.running:
            self._refuse_other_loop()
        return self._feed

    # -- async for ----------------------------------------------------------------------------------------------

    def __aiter__(self) -> Consumer:
        return self

    async def __anext__(self) -> MessageExt:
        """The next message (the one before it, taken by this task, is consumed); ends when the consumer stops."""
        # _reading written out for a task on the consumer's loop (every message comes here): the feed's loop is it
        feed = self._feed
        task = feed.task_here() if feed is not None else None
        if task is not None:
            return await feed.next_message(task)  # type: ignore[union-attr]
        return await self._reading().next_message()

    def batches(self) -> AsyncIterator[list[MessageExt]]:
        """``async for msgs in consumer.batches()``: a listener call's messages at a time (up to
        ``consume_message_batch_max_size``, all of one queue); the batch before is consumed when the next is
        asked for."""
        return _Batches(self)

    def ack(self) -> None:
        """Count what the calling task was handed of the batch it holds (the messages up to the last one ``async
        for`` returned, or the whole batch of ``batches()``) as consumed now: before leaving an ``async for`` whose
        last message was handled. The rest of that batch is what the next ``async for`` step returns."""
        self._reading().ack()

    def __repr__(self) -> str:
        return f"rocketroute.aio.{super().__repr__()}"


class _Batches:
    def __init__(self, consumer: Consumer) -> None:
        self._consumer = consumer

    def __aiter__(self) -> _Batches:
        return self

    async def __anext__(self) -> list[MessageExt]:
        feed = self._consumer._feed  # Consumer.__anext__'s shortcut
        task = feed.task_here() if feed is not None else None
        if task is not None:
            return await feed.next_batch(task)  # type: ignore[union-attr]
        return await self._consumer._reading().next_batch()


def _async_callable(obj: Any) -> bool:
    """An object whose ``__call__`` is a coroutine function (a listener class)."""
    return inspect.iscoroutinefunction(getattr(obj, "__call__", None))  # noqa: B004
