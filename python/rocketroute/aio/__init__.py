"""The asyncio-native clients: they run on the caller's event loop, with no I/O thread of their own and no hop
between threads per send (only ``on_route_change`` callbacks still run on a callback thread, as in the threaded
clients).

``rocketroute.aio.Producer`` is :class:`rocketroute.Producer`'s core (the same routing, retries, fault tolerance,
encoding and back-pressure) on a client instance bound to the loop it was started on::

    async with rr.aio.Producer("127.0.0.1:9876", "my-group") as producer:
        result = await producer.send(rr.Message("TopicTest", b"hello"))

The threaded :class:`rocketroute.Producer` stays the facade for code without an event loop.
"""

from __future__ import annotations

from .producer import Producer

__all__ = ["Producer"]
