"""Connections of their own for the event loops that await a threaded client's requests.

A :class:`~rocketroute.net.RemotingClient` runs its connections on its own loop thread. A coroutine of
another loop that awaits a request through it (``await producer.send_async(msg)`` of the threaded
:class:`rocketroute.Producer` from an asyncio service) would hand the request to that thread and wait for the
answer to come back: two wake-ups across threads per request, and two threads taking turns at Python's lock. With
:class:`CallerLoops` such a loop gets an :class:`~rocketroute.net.AsyncRemotingClient` of its own, made on its
first request: its requests are written, answered and timed out on the caller's loop, as
:mod:`rocketroute.aio`'s are, with no hop between threads.

Each of these clients is closed:
- by :meth:`CallerLoops.close` (the threaded client's ``close``), on its loop, from any thread;
- when its loop ends its async generators (``loop.shutdown_asyncgens()``: ``asyncio.run`` does it before it closes
  the loop): an async generator of ours, parked on that loop, closes the client when the loop closes it.

A loop closed without ``shutdown_asyncgens`` (by hand) leaves its connections open to the end, as any transport
left open on it; its client is dropped when another loop makes one. A loop never closed keeps its client (and
its connections) until the threaded client closes. A loop ending its async generators takes no new client.

These clients take no requests from the peers' side (they answer REQUEST_CODE_NOT_SUPPORTED): a broker asks its
client things on the connection that the client's heartbeats registered, the threaded client's own."""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import AsyncGenerator, Callable
from threading import get_ident
from typing import TYPE_CHECKING

from ..protocol.errors import RemotingError
from .bridge import loop_runs_here

_NO_THREAD_ID = object()

if TYPE_CHECKING:
    from .transport import AsyncRemotingClient

__all__ = ["CallerLoops"]


class CallerLoops:
    """One :class:`AsyncRemotingClient` per calling loop, made by ``make()`` on its first request (see the
    module's text)."""

    def __init__(self, make: Callable[[], AsyncRemotingClient]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Entry] = weakref.WeakKeyDictionary()
        self._last: tuple[weakref.ref[asyncio.AbstractEventLoop], AsyncRemotingClient] | None = None
        self._closed = False

    def here(self) -> AsyncRemotingClient:
        """The client of the running loop (made now, on the first call from it). ``RemotingError`` once
        :meth:`close` ran; ``RuntimeError`` with no loop running."""
        last = self._last
        if last is not None:
            loop = last[0]()
            # the loop of the last call, told by its thread: asyncio.get_running_loop() asks the kernel for the
            # process id on each call
            if loop is not None and not self._closed:
                # loop_runs_here(loop) written out where the loop says which thread runs it (asyncio's do)
                thread_id = getattr(loop, "_thread_id", _NO_THREAD_ID)
                if thread_id == get_ident() if thread_id is not _NO_THREAD_ID else loop_runs_here(loop):
                    return last[1]
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._closed:
                raise RemotingError("the remoting client is closed")
            entry = self._clients.get(loop)
            gone = []
            if entry is None:
                if getattr(loop, "_asyncgens_shutdown_called", False):  # too late to close one with the loop
                    raise RemotingError("the event loop is ending: it takes no new connections")
                gone = [self._clients.pop(other) for other in list(self._clients) if other.is_closed()]
                entry = self._clients[loop] = _Entry(self._make(), loop, self)
        for dropped in gone:  # outside the lock: their generators' ends call _forget
            dropped.abandon()
        self._last = (weakref.ref(loop), entry.client)
        return entry.client

    def _forget(self, loop: asyncio.AbstractEventLoop, client: AsyncRemotingClient) -> None:
        """The loop closed ``client`` as it ended: its entry goes (it holds the loop)."""
        with self._lock:
            entry = self._clients.get(loop)
            if entry is not None and entry.client is client:
                del self._clients[loop]
        last = self._last
        if last is not None and last[1] is client:
            self._last = None

    def clients(self) -> dict[asyncio.AbstractEventLoop, AsyncRemotingClient]:
        """The clients made so far, by loop."""
        with self._lock:
            return {loop: entry.client for loop, entry in self._clients.items()}

    def close(self) -> None:
        """Close every client on its loop (from any thread; this does not wait for it) and make no more."""
        with self._lock:
            self._closed = True
            entries = list(self._clients.items())
            self._clients.clear()
        self._last = None
        for loop, entry in entries:
            if loop_runs_here(loop):
                loop.create_task(entry.client.close())
                continue
            closing = entry.client.close()
            try:
                asyncio.run_coroutine_threadsafe(closing, loop)
            except RuntimeError:  # the loop is closed: its connections stay as it left them
                closing.close()


class _Entry:
    """A loop's client, and the async generator that closes it when the loop ends its async generators (the
    generator holds the loop: the loop's finalizer hook, set at its first step)."""

    __slots__ = ("client", "closer")

    def __init__(self, client: AsyncRemotingClient, loop: asyncio.AbstractEventLoop, owner: CallerLoops) -> None:
        self.client = client
        client._loop = loop
        self.closer = _close_with_the_loop(client, weakref.ref(owner), weakref.ref(loop))
        # its first step, on the loop's thread now: the loop's first-iteration hook makes it one of the async
        # generators that loop.shutdown_asyncgens() closes, and it parks at its yield (held here: the loop
        # holds its async generators weakly)
        step = self.closer.asend(None)
        try:
            step.send(None)
        except StopIteration:
            pass

    def abandon(self) -> None:
        """Its loop was closed without ending its async generators: end the generator here (its loop cannot run
        the client's close; the connections stay as that loop left them)."""
        step = self.closer.aclose()
        try:
            step.send(None)
        except BaseException:  # StopIteration once ended; RuntimeError from the closed loop
            pass


async def _close_with_the_loop(
    client: AsyncRemotingClient,
    owner: weakref.ref[CallerLoops],
    loop: weakref.ref[asyncio.AbstractEventLoop],
) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        try:
            its_loop = loop()
            # ended by its loop (shutdown_asyncgens), or by hand for a closed loop (_Entry.abandon); not from another
            # thread while that loop runs (a loop without async generator hooks, dropping it): close() is on it
            if its_loop is None or loop_runs_here(its_loop) or its_loop.is_closed():
                await client.close()
        finally:
            caller_loops, its_loop = owner(), loop()
            if caller_loops is not None and its_loop is not None:
                caller_loops._forget(its_loop, client)
