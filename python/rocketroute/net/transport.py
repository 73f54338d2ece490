"""The remoting client for asyncio: Java's ``NettyRemotingClient``.

One TCP connection per address (``"host:port"``), made on first use and kept; many requests in flight on it at once,
each response matched to its request by ``opaque``; a connection that breaks is dropped and the next call to that
address makes a new one (Java's ``getAndCreateChannel``).
"""

from __future__ import annotations

import _thread
import asyncio
import collections
import ssl
import time
from collections.abc import Collection
from typing import Any

from ..loggers import get_logger
from ..protocol.acl import Credentials, check_credentials, sign_request
from ..protocol.command import LANGUAGE_CODES, RPC_ONEWAY, EncodedRequest, RemotingCommand
from ..protocol.errors import (
    RemotingConnectError,
    RemotingError,
    RemotingSendRequestError,
    RemotingTimeoutError,
    response_error,
)
from ..protocol.frame import DEFAULT_MAX_FRAME_SIZE, encode_frame
from ..protocol.response_code import ResponseCode
from .connection import DEFAULT_MAX_WRITE_QUEUE, Connection, Processor, closed_before_sent, parse_addr, response_future
from .tls import TLS, check_tls

__all__ = ["AsyncRemotingClient", "SyncWaiter", "check_timeout_ms"]

_log = get_logger("net")

SUCCESS_CODES = (ResponseCode.SUCCESS,)
"""The codes a request succeeds with unless its caller says others (``ok_codes``)."""
_monotonic = time.monotonic
_LOOP_TIME = asyncio.BaseEventLoop.time
"""asyncio's ``loop.time()``, which is ``time.monotonic()``: a loop whose class keeps it is read without the call."""


def blocking_on_loop(what: str) -> RuntimeError:
    """A blocking call made on the client's own event-loop thread (a future's callback, a processor), where it would
    wait for the loop it stops: refused at once, never a stall until its timeout."""
    return RuntimeError(
        f"{what} blocks until the client's event loop answers, so it cannot be called on that loop's thread (a "
        "send's callback, a processor): use the async API there (submit, send_async) or call it from another thread"
    )


def check_timeout_ms(name: str, value: Any) -> int:
    """A request's or a connect's timeout: an int of at least 1 ms. Java's remoting takes 0 and fails at once (a
    sync invoke times out before it writes; a connect awaited for 0 ms never completes), so 0 and less are refused
    here, where the mistake is made, with a ``ValueError`` that names the argument."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int (milliseconds), not {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1 (milliseconds), not {value!r}")
    return value


class AsyncRemotingClient:
    """The remoting client for asyncio code (Java's ``NettyRemotingClient``). Use it from one event loop (the
    one of its first call).

    ``connect_timeout_ms`` bounds a connect (Java's ``connectTimeoutMillis``, 3000); ``max_frame_size`` bounds a
    frame from a peer (Java's 16 MiB, :data:`~rocketroute.protocol.frame.DEFAULT_MAX_FRAME_SIZE`);
    ``max_write_queue`` bounds the bytes of frames waiting to be written on one connection
    (:data:`DEFAULT_MAX_WRITE_QUEUE`, 64 MiB); ``language``, when given, is written in every request's header
    (Java's ``ClientConfig.language``; else each command's own, ``PYTHON`` by default); ``credentials``, when
    given, sign every request as Java's ``AclClientRPCHook`` does (:mod:`rocketroute.protocol.acl`); ``tls``
    (``True`` or an :class:`ssl.SSLContext`) makes every connection TLS (:mod:`rocketroute.net.tls`).

    Every request ends at its timeout, whether or not the peer reads: frames are handed to the socket only while
    its buffer is under 1 MiB, the rest wait in the connection's queue, and a request that times out (or is
    cancelled) while queued is dropped from it and never written. A request that would take the queue past
    ``max_write_queue`` fails at once with :class:`RemotingSendRequestError` (the peer is not reading); a peer
    that sends requests and does not read our answers past that bound has its connection closed.

    Errors: :class:`RemotingConnectError` (no connection), :class:`RemotingTimeoutError` (no response in time),
    :class:`RemotingSendRequestError` (the connection broke with the request in flight), :class:`FrameError` (the
    peer sent a malformed frame: the connection is closed). Requests from a peer are answered
    REQUEST_CODE_NOT_SUPPORTED (Java's answer when no processor is registered for a code); oneway ones are dropped.
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
    ) -> None:
        self._credentials = check_credentials(credentials)
        self.tls = tls
        self._ssl = check_tls(tls)
        if language is not None and language not in LANGUAGE_CODES:
            raise ValueError(
                f"language must be a LanguageCode name ({', '.join(sorted(LANGUAGE_CODES))}), not {language!r}"
            )
        self._language = language
        self.encoded_language: str | None = None if self._credentials is not None else (language or "PYTHON")
        """:meth:`frame_language`, read once per send."""
        if isinstance(max_write_queue, bool) or not isinstance(max_write_queue, int) or max_write_queue <= 0:
            raise ValueError(f"max_write_queue must be a positive int (bytes), not {max_write_queue!r}")
        self.connect_timeout_ms = check_timeout_ms("connect_timeout_ms", connect_timeout_ms)
        self.max_frame_size = max_frame_size
        self.max_write_queue = max_write_queue
        self._loop: asyncio.AbstractEventLoop | None = None
        self._conns: dict[str, Connection] = {}
        self._connecting: dict[str, asyncio.Task[Connection]] = {}
        self._closed = False
        self._seq = 0
        self._deadlines: dict[int, collections.deque[tuple[float, Connection, int, int, int]]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._processors: dict[int, Processor] = {}

    @property
    def credentials(self) -> Credentials | None:
        """What signs every request (read-only: requests encoded ahead depend on it)."""
        return self._credentials

    @property
    def language(self) -> str | None:
        """The language written in every request (read-only: requests encoded ahead depend on it)."""
        return self._language

    def register_processor(self, code: int, processor: Processor | None) -> None:
        """Answer the peers' requests of ``code`` with ``processor(request, peer_addr)`` (Java's
        ``registerProcessor``), called on the client's loop: it returns the response (its opaque and response flag
        are set for it), an awaitable of the response when it has to wait for something (it is written when the
        awaitable completes; the loop goes on meanwhile), or ``None`` for no answer, and must not block. ``None``
        unregisters. Applies to open connections too."""
        if processor is None:
            self._processors.pop(code, None)
        else:
            self._processors[code] = processor

    # -- connections

    def _bind(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        elif self._loop is not loop:
            raise RuntimeError("an AsyncRemotingClient is used from one event loop only")
        return loop

    def _forget(self, conn: Connection) -> None:
        if self._conns.get(conn.addr) is conn:
            del self._conns[conn.addr]

    async def _connect(self, addr: str) -> Connection:
        loop = self._loop
        assert loop is not None
        host, port = parse_addr(addr)
        try:
            _, conn = await asyncio.wait_for(
                loop.create_connection(
                    lambda: Connection(
                        loop,
                        addr,
                        self.max_frame_size,
                        self._processors,
                        self.max_write_queue,
                        tls=self._ssl is not None,
                    ),
                    host,
                    port,
                    ssl=self._ssl,
                    ssl_handshake_timeout=self.connect_timeout_ms / 1000 if self._ssl is not None else None,
                ),
                self.connect_timeout_ms / 1000,
            )
        except asyncio.TimeoutError:
            reason = f"not connected within {self.connect_timeout_ms}(ms)"
            if self._ssl is not None:  # a plain server takes the TLS hello for the start of a huge frame and waits
                reason += " (the TLS handshake did not finish: does the server speak TLS?)"
            raise RemotingConnectError(addr, reason) from None
        except ssl.SSLError as e:
            raise RemotingConnectError(addr, f"TLS handshake failed: {e} (does the server speak TLS?)") from e
        except ConnectionResetError as e:
            reason = f"{e} during the TLS handshake (does the server speak TLS?)" if self._ssl is not None else str(e)
            raise RemotingConnectError(addr, reason) from e
        except OSError as e:
            raise RemotingConnectError(addr, str(e)) from e
        if self._closed:
            conn.close(lambda: RemotingError("the remoting client is closed", addr=addr))
            raise RemotingError("the remoting client is closed", addr=addr)
        conn.on_close = self._forget
        self._conns[addr] = conn
        return conn

    def _connect_done(self, addr: str, task: asyncio.Task[Connection]) -> None:
        if self._connecting.get(addr) is task:
            del self._connecting[addr]
        if not task.cancelled():
            task.exception()  # retrieved: every waiter may have been cancelled meanwhile

    async def connection(self, addr: str) -> Connection:
        """The open connection to ``addr``, made now if there is none (one connect at a time per address)."""
        self._bind()
        conn = self._conns.get(addr)
        if conn is not None:
            return conn
        if self._closed:
            raise RemotingError("the remoting client is closed", addr=addr)
        task = self._connecting.get(addr)
        if task is None:
            task = asyncio.ensure_future(self._connect(addr))
            self._connecting[addr] = task
            task.add_done_callback(lambda t: self._connect_done(addr, t))
        try:
            return await asyncio.shield(task)
        except RemotingConnectError as e:
            # every waiter gets its own exception object
            raise RemotingConnectError(addr, e.reason) from e.__cause__

    # -- requests

    def _register(
        self,
        conn: Connection,
        request: RemotingCommand | EncodedRequest,
        waiter: Any,
        timeout_s: float,
        timeout_ms: int,
    ) -> None:
        """Put ``request`` in flight on ``conn``: waiter in the table, deadline queued, frame written (on the loop).

        Deadlines wait in one FIFO queue per ``timeout_ms`` value (a request's deadline is never before the
        previous one's with the same timeout), served by one loop timer for the whole client: cheaper than a
        ``call_later`` handle per request, whose heap orders its entries with a Python ``__lt__``."""
        if conn.closed:
            raise RemotingSendRequestError(conn.addr, closed_before_sent(conn))
        opaque = request.opaque
        pending = conn.pending
        if opaque in pending:
            raise ValueError(f"a request with opaque {opaque} is already in flight to {conn.addr}")
        # _frame_of and conn.room_for written out (every request comes here)
        frame = request.frame if type(request) is EncodedRequest and self._credentials is None else None
        if frame is None:
            frame = self._frame_of(request)
        queued = conn._out_bytes
        if queued and queued + len(frame) > conn.max_write_queue:
            raise conn.full_error(len(frame))
        self._seq = seq = self._seq + 1
        pending[opaque] = (waiter, seq)
        # conn.write written out
        conn._out.append((frame, opaque, seq))
        conn._out_bytes = queued + len(frame)
        if not conn._flush_scheduled and not conn._paused:
            conn._flush_scheduled = True
            conn.loop.call_soon(conn._flush)
        # the loop's clock: time.monotonic itself where the loop's time() is asyncio's (no Python call)
        loop = self._loop
        deadline = (_monotonic() if type(loop).time is _LOOP_TIME else loop.time()) + timeout_s  # type: ignore[union-attr]
        queue = self._deadlines.get(timeout_ms)
        if queue is None:
            queue = self._deadlines[timeout_ms] = collections.deque()
        else:
            # drop answered requests from the front, so the queue stays about as long as what is in flight
            while queue:
                _, head_conn, head_opaque, head_seq, _ = queue[0]
                entry = head_conn.pending.get(head_opaque)
                if entry is not None and entry[1] == head_seq:
                    break
                queue.popleft()
            if queue and queue[-1][0] > deadline:
                deadline = queue[-1][0]  # after a connect (a shorter remaining time): kept in order, a little late
        queue.append((deadline, conn, opaque, seq, request.code))
        if self._timer is None or deadline < self._timer_at:
            self._arm(deadline)

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = when
        self._timer = self._loop.call_at(when, self._expire_due)  # type: ignore[union-attr]

    def _expire_due(self) -> None:
        """Fail every request whose deadline has passed with :class:`RemotingTimeoutError`; re-arm the timer."""
        self._timer = None
        now = self._loop.time()  # type: ignore[union-attr]
        next_at: float | None = None
        backed_up: set[Connection] = set()
        for timeout_ms, queue in list(self._deadlines.items()):
            while queue and queue[0][0] <= now:
                _, conn, opaque, seq, code = queue.popleft()
                entry = conn.pending.get(opaque)
                if entry is not None and entry[1] == seq:
                    del conn.pending[opaque]
                    if conn._out:
                        backed_up.add(conn)
                    if not entry[0].done():
                        entry[0].set_exception(RemotingTimeoutError(conn.addr, timeout_ms, code))
            if queue:
                next_at = queue[0][0] if next_at is None else min(next_at, queue[0][0])
            else:
                del self._deadlines[timeout_ms]
        for conn in backed_up:  # the timed-out requests' frames still queued: freed now, never written
            conn.purge()
        if next_at is not None:
            self._arm(next_at)

    async def invoke(
        self, addr: str, request: RemotingCommand | EncodedRequest, timeout_ms: int = 3000
    ) -> RemotingCommand:
        """Send ``request`` to ``addr`` and return its response, whatever its code (Java's ``invokeSync``).

        ``timeout_ms`` runs from the call: connecting counts against it (a connect is bounded by
        ``connect_timeout_ms`` on its own, as in Java), and :class:`RemotingTimeoutError` is raised when it has
        passed; the request is then forgotten (never written if it was still queued) and a late response dropped.
        A ``timeout_ms`` under 1 is refused (``ValueError``): Java's ``invokeSync`` with 0 times out at once."""
        check_timeout_ms("timeout_ms", timeout_ms)
        loop = self._loop
        if loop is None:
            loop = self._bind()
        conn = self._conns.get(addr)
        if conn is None:
            begin = loop.time()
            conn = await self.connection(addr)
            remaining = timeout_ms / 1000 - (loop.time() - begin)
            if remaining <= 0:
                raise RemotingTimeoutError(addr, timeout_ms, request.code)
        else:
            remaining = timeout_ms / 1000
        waiter = response_future(loop)
        self._register(conn, request, waiter, remaining, timeout_ms)
        try:
            return await waiter
        except asyncio.CancelledError:
            _abandon(conn, request.opaque, waiter)
            raise

    def start_invoke(
        self, addr: str, request: RemotingCommand | EncodedRequest, timeout_ms: int
    ) -> asyncio.Future[RemotingCommand] | None:
        """:meth:`invoke`'s first half, when a connection to ``addr`` is open (else ``None``: await :meth:`invoke`):
        the request is in flight on return; await the future for its response (an asyncio future; with the native
        backend an ``_EagerFuture``, which resumes the awaiting task as the response is read), and when that
        awaiting is cancelled call :meth:`abandon`. The hot path of async sends: one coroutine fewer per request in
        flight than :meth:`invoke` (fewer objects for the garbage collector to walk while a thousand requests
        wait)."""
        conn = self._conns.get(addr)
        loop = self._loop
        if conn is None or loop is None:
            return None
        waiter = response_future(loop)
        self._register(conn, request, waiter, timeout_ms / 1000, timeout_ms)
        return waiter

    def abandon(self, addr: str, request: RemotingCommand | EncodedRequest, waiter: asyncio.Future[Any]) -> None:
        """Forget a request :meth:`start_invoke` started whose awaiting was cancelled (a late response is dropped).
        A connection closed meanwhile forgot it already."""
        conn = self._conns.get(addr)
        if conn is not None:
            _abandon(conn, request.opaque, waiter)

    async def invoke_checked(
        self,
        addr: str,
        request: RemotingCommand,
        timeout_ms: int = 3000,
        ok_codes: Collection[int] = SUCCESS_CODES,
    ) -> RemotingCommand:
        """:meth:`invoke`, raising :class:`RemotingCommandError` (code, remark, addr) when the response's code is
        not in ``ok_codes`` (default: SUCCESS only), or :class:`~rocketroute.errors.AuthenticationError` /
        :class:`~rocketroute.errors.PermissionDeniedError` when the server refused the client's credentials
        (:func:`~rocketroute.protocol.errors.response_error`)."""
        response = await self.invoke(addr, request, timeout_ms)
        if response.code not in ok_codes:
            raise response_error(response.code, response.remark, addr, request_code=request.code)
        return response

    async def invoke_oneway(self, addr: str, request: RemotingCommand | EncodedRequest) -> None:
        """Send ``request`` with the oneway flag set (Java's ``invokeOneway``: ``markOnewayRPC`` then write) and
        return once it is queued on the connection; no response is waited for. Sets the flag on ``request`` (an
        :class:`~rocketroute.protocol.command.EncodedRequest` is written as it is: its frame carries the flag).
        Raises :class:`RemotingSendRequestError` when the connection's queue is full."""
        if self._loop is None:
            self._bind()
        conn = self._conns.get(addr)
        if conn is None:
            conn = await self.connection(addr)
        self._write_oneway(conn, request)

    def frame_language(self) -> str | None:
        """The language a request encoded ahead (:class:`~rocketroute.protocol.command.EncodedRequest`) writes in
        its frame, or ``None`` when this client takes commands only (it signs every request)."""
        return self.encoded_language

    def _frame_of(self, request: RemotingCommand | EncodedRequest) -> bytes:
        """The frame to write for ``request``: a command's encoded now (:meth:`_encode_request`), an encoded
        request's as it is. An encoded request cannot be signed: a client with credentials refuses it."""
        if type(request) is EncodedRequest:
            if self.credentials is not None:
                raise ValueError(
                    "this client signs its requests (credentials): it takes RemotingCommands, not EncodedRequests"
                )
            return request.frame
        return self._encode_request(request)  # type: ignore[arg-type]

    def _encode_request(self, request: RemotingCommand) -> bytes:
        """The frame of a request about to be written: this client's ``language`` in it, signed when it has
        credentials (Java's RPC hooks run here too, after every field is set)."""
        if self.language is not None:
            request.language = self.language
        if self.credentials is not None:
            sign_request(request, self.credentials)
        return encode_frame(request)

    def _write_oneway(self, conn: Connection, request: RemotingCommand | EncodedRequest) -> None:
        """Write a oneway request (an encoded one carries the oneway flag already)."""
        if conn.closed:
            raise RemotingSendRequestError(conn.addr, closed_before_sent(conn))
        if type(request) is not EncodedRequest:
            request.flag |= RPC_ONEWAY
        frame = self._frame_of(request)
        if not conn.room_for(len(frame)):
            raise conn.full_error(len(frame))
        conn.write(frame)

    # -- sync facade support (runs on the loop)

    def _submit(
        self, addr: str, request: RemotingCommand | EncodedRequest, timeout_ms: int, waiter: SyncWaiter
    ) -> None:
        """Start ``invoke`` for a thread outside the loop; the outcome goes to ``waiter``."""
        conn = self._conns.get(addr)
        if conn is None:
            task = asyncio.ensure_future(self.invoke(addr, request, timeout_ms))
            task.add_done_callback(waiter.copy_outcome)
            return
        try:
            self._register(conn, request, waiter, timeout_ms / 1000, timeout_ms)
        except BaseException as e:
            waiter.set_exception(e)

    def _submit_oneway(self, addr: str, request: RemotingCommand | EncodedRequest, waiter: SyncWaiter) -> None:
        conn = self._conns.get(addr)
        if conn is None:
            task = asyncio.ensure_future(self.invoke_oneway(addr, request))
            task.add_done_callback(waiter.copy_outcome)
            return
        try:
            self._write_oneway(conn, request)
        except BaseException as e:
            waiter.set_exception(e)
        else:
            waiter.set_result(None)

    # -- closing

    async def close(self) -> None:
        """Close every connection; requests in flight fail with :class:`RemotingSendRequestError`. Later calls
        raise :class:`RemotingError`."""
        self._closed = True
        connecting = list(self._connecting.values())
        for task in connecting:
            task.cancel()
        if connecting:  # let each connect in flight end (its socket closed) before the loop may stop
            await asyncio.gather(*connecting, return_exceptions=True)
        for conn in list(self._conns.values()):
            conn.close(lambda c=conn: RemotingSendRequestError(c.addr, "the remoting client was closed"), graceful=True)
        self._conns.clear()
        self._deadlines.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @property
    def closed(self) -> bool:
        return self._closed

    def connected(self, addr: str) -> bool:
        """Whether a connection to ``addr`` is open now."""
        conn = self._conns.get(addr)
        return conn is not None and not conn.closed


def _abandon(conn: Connection, opaque: int, waiter: Any) -> None:
    entry = conn.pending.get(opaque)
    if entry is not None and entry[0] is waiter:
        del conn.pending[opaque]


class SyncWaiter:
    """The outcome of one request for a thread outside the loop: set on the loop, waited for by the caller.
    A bare lock, the cheapest cross-thread wake-up CPython has (a ``concurrent.futures.Future`` costs a condition
    variable and more)."""

    __slots__ = ("_done", "_error", "_lock", "_result")

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._lock.acquire()
        self._done = False
        self._result: Any = None
        self._error: BaseException | None = None

    def done(self) -> bool:
        return self._done

    def set_result(self, result: Any) -> None:
        if not self._done:
            self._result = result
            self._done = True
            self._lock.release()

    def set_exception(self, error: BaseException) -> None:
        if not self._done:
            self._error = error
            self._done = True
            self._lock.release()

    def copy_outcome(self, task: asyncio.Future[Any]) -> None:
        if task.cancelled():
            self.set_exception(RemotingError("the request was cancelled"))
        elif task.exception() is not None:
            self.set_exception(task.exception())  # type: ignore[arg-type]
        else:
            self.set_result(task.result())

    def wait(self, timeout_s: float) -> Any:
        """The result (or raise the error); ``TimeoutError`` if nothing came within ``timeout_s``."""
        if not self._lock.acquire(timeout=timeout_s):
            raise TimeoutError
        if self._error is not None:
            error, self._error = self._error, None  # no reference cycle through the traceback
            raise error
        return self._result
