""":class:`Consumer`: the push consumer for asyncio services, on the caller's event loop."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..client.consumer.consumer import Consumer as _ThreadedConsumer
from ..client.consumer.feed import Feed
from ..client.consumer.listener import AsyncMessageListener
from ..client.consumer.process_queue import ProcessQueue
from ..client.consumer.settings import ConsumerSettings
from ..client.consumer.stats import ConsumerStats
from ..client.message_decode import MessageExt
from ..client.namespace import wrap
from ..net.bridge import loop_runs_here
from ..rebalance import QueueAllocator

if TYPE_CHECKING:
    from .. import MessageQueue

__all__ = ["AsyncMessageListener", "Consumer"]


class Consumer:
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
        self._consumer = _ThreadedConsumer(
            namesrv, group, subscriptions, strategy, on_rebalance=on_rebalance, settings=settings, **kwargs
        )
        self._consumer.listener = listener

    # -- what the threaded consumer has, read-only --------------------------------------------------------------

    @property
    def group(self) -> str:
        return self._consumer.group

    @property
    def settings(self) -> ConsumerSettings:
        return self._consumer.settings

    @property
    def client_id(self) -> str:
        return self._consumer.client_id

    @property
    def model(self) -> str:
        return self._consumer.model

    @property
    def stats(self) -> ConsumerStats:
        """Counts of messages pulled, consumed, failed and sent back."""
        return self._consumer.stats

    @property
    def running(self) -> bool:
        return self._consumer.running

    def assignment(self, topic: str | None = None) -> tuple[MessageQueue, ...]:
        """The queues this consumer owns now (:meth:`rocketroute.Consumer.assignment`)."""
        return self._consumer.assignment(topic)

    def committed_offsets(self) -> dict[MessageQueue, int]:
        """The offsets held in memory (the next message to consume of each owned queue)."""
        return self._consumer.committed_offsets()

    def process_queue(self, mq: MessageQueue) -> ProcessQueue | None:
        """The queue's cache of messages pulled and not consumed yet."""
        return self._consumer.process_queue(mq)

    async def consumer_ids(self, topic: str) -> list[str]:
        """The group's members as a broker of ``topic`` reports them (GET_CONSUMER_LIST_BY_GROUP)."""
        c = self._on_its_loop()
        return await c._rebalancer.find_consumer_ids(wrap(c.namespace, topic))

    async def rebalance_now(self) -> None:
        """Run a rebalance now and return when it is done."""
        await self._on_its_loop()._rebalancer.rebalance_all()

    async def refresh_routes(self) -> None:
        """Fetch the subscribed topics' routes now."""
        await self._on_its_loop()._coordinator.refresh_routes()

    # -- lifecycle --------------------------------------------------------------------------------------------

    async def start(self) -> Consumer:
        """Start on the running loop: routes, heartbeats, the first rebalance (the consumer owns its queues when
        this returns), then the pulls. Without a listener, messages wait for ``async for``."""
        c = self._consumer
        if c.running:
            return self
        c._bind_loop = asyncio.get_running_loop()
        if c.listener is None and c._feed is None:
            c._feed = Feed(c._consume_service.prepare, c._consume_service.settle_fed, c._bind_loop)
        await c._start_on_loop()
        return self

    async def stop(self) -> None:
        """Stop pulling, end the ``async for`` loops (what they hold is not committed), wait for the listener
        calls under way (bounded as :meth:`rocketroute.Consumer.shutdown`), commit the offsets, unregister and
        close the connections (awaited)."""
        await self._consumer._shutdown_on_loop()

    async def __aenter__(self) -> Consumer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _on_its_loop(self) -> _ThreadedConsumer:
        c = self._consumer
        if c._remoting is None or not c.running:
            raise RuntimeError(f"the consumer is {c._state}: await start() first (or use async with)")
        self._refuse_other_loop()
        return c

    def _refuse_other_loop(self) -> None:
        """Its connections' futures belong to the loop that started it: awaited from another they never wake. Asks
        the bridge about the client's loop directly (each message or batch of an ``async for`` comes here)."""
        remoting = self._consumer._remoting
        if remoting is not None and not loop_runs_here(remoting.loop):
            raise RuntimeError("a rocketroute.aio.Consumer is used on the event loop that started it, not another")

    def _reading(self) -> Feed:
        c = self._consumer
        if c._feed is None:
            if c.listener is not None:
                raise RuntimeError("this consumer has a listener: its messages go there, not to async for")
            raise RuntimeError("await start() before iterating the consumer (or use async with)")
        if c.running:
            self._refuse_other_loop()
        return c._feed

    # -- async for ----------------------------------------------------------------------------------------------

    def __aiter__(self) -> Consumer:
        return self

    async def __anext__(self) -> MessageExt:
        """The next message (the one before it, taken by this task, is consumed); ends when the consumer stops."""
        # _reading written out for a task on the consumer's loop (every message comes here): the feed's loop is it
        feed = self._consumer._feed
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
        return f"rocketroute.aio.{self._consumer!r}"


class _Batches:
    def __init__(self, consumer: Consumer) -> None:
        self._consumer = consumer

    def __aiter__(self) -> _Batches:
        return self

    async def __anext__(self) -> list[MessageExt]:
        feed = self._consumer._consumer._feed  # Consumer.__anext__'s shortcut
        task = feed.task_here() if feed is not None else None
        if task is not None:
            return await feed.next_batch(task)  # type: ignore[union-attr]
        return await self._consumer._reading().next_batch()


def _async_callable(obj: Any) -> bool:
    """An object whose ``__call__`` is a coroutine function (a listener class)."""
    return inspect.iscoroutinefunction(getattr(obj, "__call__", None))  # noqa: B004
