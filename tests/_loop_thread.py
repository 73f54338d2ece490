"""An event loop running in a thread of its own, for tests of calls made from another loop than a client's."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def loop_in_thread() -> Iterator[asyncio.AbstractEventLoop]:
    """A loop running forever in a daemon thread; stopped, joined and closed on exit."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


async def until_closed(client: Any, addr: str, timeout_s: float = 2.0) -> bool:
    """Wait (on the running loop) until ``client`` (an ``AsyncRemotingClient``) is closed and has no connection to
    ``addr``, for at most ``timeout_s``: whether it is."""
    for _ in range(int(timeout_s / 0.01)):
        if client.closed and not client.connected(addr):
            return True
        await asyncio.sleep(0.01)
    return bool(client.closed and not client.connected(addr))
