"""The asyncio-native clients: they run on the caller's event loop, with no I/O thread of their own and no hop
between threads per send (only ``on_route_change`` callbacks still run on a callback thread, as in the threaded
clients).

``rocketroute.aio.Producer`` is :class:`rocketroute.Producer`'s core (the same routing, retries, fault tolerance,
encoding and back-pressure) on a client instance bound to the loop it was started on::

    async with rr.aio.Producer("127.0.0.1:9876", "my-group") as producer:
        result = await producer.send(rr.Message("TopicTest", b"hello"))

``rocketroute.aio.Consumer`` is :class:`rocketroute.Consumer`'s core (pulls, rebalance, offsets, retries) with
its listener calls on that loop: ``async for msg in consumer``, or an ``async def`` listener::

    async with rr.aio.Consumer("127.0.0.1:9876", "my-group", ["TopicTest"]) as consumer:
        async for msg in consumer:
            await handle(msg)  # consumed when the loop asks for the next message

``rocketroute.aio.LitePullConsumer`` is :class:`rocketroute.LitePullConsumer` on that loop: ``await
consumer.poll()``, or ``async for``::

    async with rr.aio.LitePullConsumer("127.0.0.1:9876", "my-group", ["TopicTest"]) as consumer:
        async for msg in consumer:
            await handle(msg)  # committed (auto_commit) once the batch it came from is used up

The threaded :class:`rocketroute.Producer` and :class:`rocketroute.Consumer` stay the facade for code without an
event loop.
"""

from __future__ import annotations

from .consumer import AsyncMessageListener, Consumer
from .lite_pull_consumer import LitePullConsumer
from .producer import Producer

__all__ = ["AsyncMessageListener", "Consumer", "LitePullConsumer", "Producer"]
