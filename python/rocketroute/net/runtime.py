"""The runtime: the remoting client's event loop, on a daemon thread of its own or the caller's loop, and the one
API that crosses threads into it (:meth:`RemotingClient.run`, :meth:`RemotingClient.submit`, the blocking
``invoke`` with its direct path and batched wake-ups).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
import weakref
from collections.abc import Callable, Collection, Coroutine
from threading import get_ident
from typing import Any, TypeVar

from ..loggers import get_logger
from ..protocol.acl import Credentials
from ..protocol.command import RPC_ONEWAY, EncodedRequest, RemotingCommand
from ..protocol.errors import (
    RemotingConnectError,
    RemotingError,
    RemotingTimeoutError,
    response_error,
)
from ..protocol.frame import DEFAULT_MAX_FRAME_SIZE
from .bridge import LoopInbox, ReturnPath, loop_runs_here
from .caller_loops import CallerLoops
from .connection import DEFAULT_MAX_WRITE_QUEUE, Processor, parse_addr
from .direct import DirectConnections
from .tls import TLS, warn_unchecked
from .transport import (
    SUCCESS_CODES,
    AsyncRemotingClient,
    SyncWaiter,
    blocking_on_loop,
    check_timeout_ms,
)

__all__ = ["RemotingClient"]

_log = get_logger("net")

T = TypeVar("T")


class RemotingClient:
    """The synchronous remoting client: an :class:`AsyncRemotingClient` on an event loop in a daemon thread of its
    own. Safe to share between threads; every method blocks the calling thread only.

    ``.loop`` and ``.async_client`` are there for code that is already async on that loop (:meth:`submit` and
    :meth:`run` start it there from other threads). Use it as a context manager, or call :meth:`close`.

    ``loop=`` (built on that loop, while it runs) binds the client to a loop it does not own, the caller's: no thread
    of its own, the connections live on that loop, and the asyncio-native clients (:mod:`rocketroute.aio`) await
    ``.async_client`` there with no hop between threads. The blocking methods then work only from other threads;
    :meth:`aclose` closes it from the loop, and :meth:`close` from the loop only starts the closing.

    ``.caller_loops.here()`` is a client of its own for the running loop when that is another one
    (:mod:`rocketroute.net.caller_loops`): its requests are written and answered on the caller's loop, with no
    hop to the client's thread; :meth:`close` closes those too.

    ``direct=`` (the native backend's ``_DirectConnection`` class; ignored with ``tls``) gives the client direct
    connections (:mod:`rocketroute.net.direct`): :meth:`invoke` and :meth:`invoke_oneway` with ``direct=True``
    then write the request in the calling thread and wait for the response there, with no hop to the loop.
    """

    def __init__(
        self,
        *,
        connect_timeout_ms: int = 3000,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
        max_write_queue: int = DEFAULT_MAX_WRITE_QUEUE,
        language: str | None = None,
        credentials: Credentials | None = None,
        tls: TLS = None,
        loop: asyncio.AbstractEventLoop | None = None,
        direct: Any = None,
    ) -> None:
        def make() -> AsyncRemotingClient:
            return AsyncRemotingClient(
                connect_timeout_ms=connect_timeout_ms,
                max_frame_size=max_frame_size,
                max_write_queue=max_write_queue,
                language=language,
                credentials=credentials,
                tls=tls,
            )

        self.async_client = make()
        warn_unchecked(tls, "a rocketroute client")  # once per client instance (each has one of these)
        # clients of their own for the other loops that await requests (net.caller_loops)
        self.caller_loops = CallerLoops(make)
        self.connect_timeout_ms = connect_timeout_ms
        self._closed = False
        self._forked = False  # made before os.fork(), used in the child (forked_away)
        self._close_lock = threading.Lock()
        # direct connections (net.direct) for the blocking callers that ask for them, on plain TCP only
        self._direct: DirectConnections | None = None
        if direct is not None and tls is None:
            self._direct = DirectConnections(
                direct,
                parse_addr,
                connect_timeout_ms=connect_timeout_ms,
                max_frame_size=max_frame_size,
                language=language or "PYTHON",
            )
        self.owns_loop = loop is None
        if loop is not None:
            if asyncio.get_running_loop() is not loop:
                raise RuntimeError("RemotingClient(loop=) is built on that loop, while it runs")
            self.loop = loop
            self._bridge(loop)
            self.async_client._loop = loop
            self._thread = threading.current_thread()
            self._thread_id = self._thread.ident
            self._finalizer = weakref.finalize(self, _no_op)  # the loop is the caller's: it is never stopped here
            return
        self.loop = asyncio.new_event_loop()
        self._bridge(self.loop)
        started = threading.Event()
        self.async_client._loop = self.loop
        self._thread = threading.Thread(
            target=_run_loop, args=(self.loop, started), name="rocketroute-remoting", daemon=True
        )
        self._thread.start()
        self._thread_id = self._thread.ident  # what a blocking call compares its own thread's id with
        started.wait()
        # an unclosed client that is garbage-collected stops its loop (the thread holds no reference to self)
        self._finalizer = weakref.finalize(self, _stop_loop, self.loop)

    def _slack_s(self, timeout_ms: int) -> float:
        # the loop fails the request at timeout_ms (or connect_timeout_ms + timeout_ms at worst); this bound
        # only guards against a stopped loop
        return (timeout_ms + self.connect_timeout_ms) / 1000 + 5.0

    def _bridge(self, loop: asyncio.AbstractEventLoop) -> None:
        # requests from other threads: queued, handed to the loop by one wake-up per batch (net.bridge);
        # ``returns`` starts coroutines on the loop for other threads (``returns.from_thread(coro)``) or loops
        # (``await returns.from_loop(coro)``), the wake-ups coalesced both ways
        self._inbox = LoopInbox(loop)
        self.returns = ReturnPath(loop, self._inbox)

    def _enqueue(self, submit: Callable[..., Any], *args: Any) -> None:
        # the last argument is the caller's waiter: failed if the loop stops before it takes the request
        try:
            self._inbox.post(submit, *args, on_abandon=args[-1].set_exception)
        except RuntimeError:  # the loop was closed by a concurrent close()
            raise RemotingError("the remoting client is closed") from None

    def register_processor(self, code: int, processor: Processor | None) -> None:
        """:meth:`AsyncRemotingClient.register_processor` from any thread (a dict update, in effect at once);
        the processor runs on the client's loop thread."""
        self.async_client.register_processor(code, processor)

    def invoke(
        self, addr: str, request: RemotingCommand | EncodedRequest, timeout_ms: int = 3000, *, direct: bool = False
    ) -> RemotingCommand:
        """:meth:`AsyncRemotingClient.invoke` from any thread. ``direct``: on the client's direct connection to
        ``addr`` when it has them (built with ``direct=``, no TLS; :mod:`rocketroute.net.direct`) and the
        caller is not on the loop, else through the loop. A ``timeout_ms`` under 1 is refused (``ValueError``)."""
        if type(timeout_ms) is not int or timeout_ms < 1:
            check_timeout_ms("timeout_ms", timeout_ms)
        if self._closed:
            raise self._closed_error(addr)
        if get_ident() == self._thread_id:  # self.on_loop_thread() written out
            raise blocking_on_loop("RemotingClient.invoke")
        conns = self._direct if direct else None
        if conns is not None and conns.takes(addr, request):
            frame = self.async_client._frame_of(request)
            return conns.invoke(addr, request, frame, timeout_ms)
        waiter = SyncWaiter()
        self._enqueue(self.async_client._submit, addr, request, timeout_ms, waiter)
        try:
            response: RemotingCommand = waiter.wait(self._slack_s(timeout_ms))
        except TimeoutError:
            if waiter.done():  # a RemotingTimeoutError from the loop
                raise
            raise RemotingTimeoutError(addr, timeout_ms, request.code) from None
        if conns is not None:
            conns.answered_through_loop(addr)
        return response

    def invoke_checked(
        self,
        addr: str,
        request: RemotingCommand,
        timeout_ms: int = 3000,
        ok_codes: Collection[int] = SUCCESS_CODES,
    ) -> RemotingCommand:
        """:meth:`invoke`, raising :class:`RemotingCommandError` when the code is not in ``ok_codes`` (an
        :class:`~rocketroute.errors.AccessDeniedError` for a refusal of the credentials, as the async client's)."""
        response = self.invoke(addr, request, timeout_ms)
        if response.code not in ok_codes:
            raise response_error(response.code, response.remark, addr, request_code=request.code)
        return response

    def invoke_oneway(self, addr: str, request: RemotingCommand | EncodedRequest, *, direct: bool = False) -> None:
        """:meth:`AsyncRemotingClient.invoke_oneway` from any thread: returns once the frame is handed to the
        connection (after connecting, if needed); ``direct`` as for :meth:`invoke` (written by the calling
        thread, within ``connect_timeout_ms``)."""
        if self._closed:
            raise self._closed_error(addr)
        if get_ident() == self._thread_id:
            raise blocking_on_loop("RemotingClient.invoke_oneway")
        conns = self._direct if direct else None
        if conns is not None and conns.takes(addr, request):
            if type(request) is not EncodedRequest:
                request.flag |= RPC_ONEWAY
            conns.send_oneway(addr, self.async_client._frame_of(request), self.connect_timeout_ms)
            return
        waiter = SyncWaiter()
        self._enqueue(self.async_client._submit_oneway, addr, request, waiter)
        try:
            waiter.wait(self._slack_s(0))
        except TimeoutError:
            if waiter.done():
                raise
            raise RemotingConnectError(addr, "the client's event loop did not take the request") from None

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the client's loop, from any thread, and return its future at once (the one way code
        on other threads starts work on the loop)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run ``coro`` on the client's loop and wait for its result in the calling thread, at most ``timeout_s``
        (``None``: until it ends): past it the coroutine is cancelled and ``TimeoutError`` raised. Refused
        (``RuntimeError``) on the loop's own thread, where the wait would never end."""
        if self.on_loop_thread():
            coro.close()
            raise blocking_on_loop("a blocking call")
        future = self.submit(coro)
        try:
            return future.result(timeout_s)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def loop_runs_here(self) -> bool:
        """Whether the caller runs on ``.loop`` now, i.e. may await the async client's futures
        (:func:`~rocketroute.net.bridge.loop_runs_here`: no system call per check)."""
        return loop_runs_here(self.loop)

    def on_loop_thread(self) -> bool:
        """Whether the caller runs on the client's event-loop thread (a processor, or code scheduled on
        ``.loop``), where a blocking call that waits for the loop would never return."""
        return get_ident() == self._thread_id

    def _closed_error(self, addr: str) -> RemotingError:
        if self._forked:
            return RemotingError(
                f"the remoting client was made in process {self._parent_pid}, before os.fork(): make one in this "
                "process",
                addr=addr,
            )
        return RemotingError("the remoting client is closed", addr=addr)

    def forked_away(self) -> None:
        """In the child of a fork: the loop's thread, the connections and the loop's selector are the parent's.
        Nothing is closed here (closing would shut down sockets and a selector the parent still uses): the client
        is marked closed and its finalizer is detached, so nothing of it runs in the child."""
        self._close_lock = threading.Lock()  # held by another thread of the parent, maybe
        self._closed = True
        self._forked = True
        self._thread_id = None  # a thread of the child may get the id the parent's loop thread had
        self._parent_pid = os.getppid()
        self._finalizer.detach()

    def close(self) -> None:
        """Close the connections and stop the loop's thread (idempotent)."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._finalizer.detach()
        if self._direct is not None:
            self._direct.close()
        self.caller_loops.close()
        if not self.owns_loop:  # the caller's loop: closed on it, and never stopped
            if self.on_loop_thread():
                self.loop.create_task(self.async_client.close())
            elif self.loop.is_running():
                self.submit(self.async_client.close()).result(10)
            return
        if self.on_loop_thread():  # from a callback on the loop itself: cannot wait
            self.loop.create_task(self.async_client.close()).add_done_callback(lambda _: self.loop.stop())
            return
        if self.loop.is_running():
            try:
                self.submit(self.async_client.close()).result(10)
            except concurrent.futures.TimeoutError:  # the loop is blocked (by a processor?): stop it regardless
                _log.warning("the remoting client's event loop did not close its connections within 10 s")
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self._inbox.abandon(RemotingError("the remoting client is closed"))  # taken by no drain: the loop stopped

    async def aclose(self) -> None:
        """Close the connections from the client's loop, and return when they are (a client bound to the caller's
        loop, ``loop=``; the loop goes on)."""
        if self.owns_loop:
            raise RuntimeError("aclose() is for a client bound to the caller's loop (loop=); use close()")
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._finalizer.detach()
        if self._direct is not None:
            self._direct.close()
        self.caller_loops.close()
        await self.async_client.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def connected(self, addr: str) -> bool:
        """Whether a connection to ``addr`` is open now."""
        return self.async_client.connected(addr)

    def __enter__(self) -> RemotingClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _run_loop(loop: asyncio.AbstractEventLoop, started: threading.Event) -> None:
    asyncio.set_event_loop(loop)
    loop.call_soon(started.set)
    try:
        loop.run_forever()
    finally:
        loop.close()


def _no_op() -> None:
    pass


def _stop_loop(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.call_soon_threadsafe(loop.stop)
    except RuntimeError:  # already closed
        pass
