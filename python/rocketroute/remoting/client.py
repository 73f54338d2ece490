"""The remoting client: Java's ``NettyRemotingClient`` for asyncio, and a thread-safe synchronous facade.

One TCP connection per address (``"host:port"``), made on first use and kept; many requests in flight on it at once,
each response matched to its request by ``opaque``; a connection that breaks is dropped and the next call to that
address makes a new one (Java's ``getAndCreateChannel``).
"""

from __future__ import annotations

import _thread
import asyncio
import collections
import concurrent.futures
import inspect
import os
import ssl
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping
from typing import Any, TypeVar

from .._backend import native_twin
from ..loggers import get_logger
from .acl import Credentials, check_credentials, sign_request
from .bridge import LoopInbox, ReturnPath, loop_runs_here
from .caller_loops import CallerLoops
from .command import LANGUAGE_CODES, RPC_ONEWAY, EncodedRequest, RemotingCommand
from .direct import DirectConnections
from .errors import (
    FrameError,
    RemotingConnectError,
    RemotingError,
    RemotingSendRequestError,
    RemotingTimeoutError,
    response_error,
)
from .frame import DEFAULT_MAX_FRAME_SIZE, FrameDecoder, encode_frame
from .response_code import ResponseCode
from .tls import TLS, check_tls, warn_unchecked

__all__ = ["DEFAULT_MAX_WRITE_QUEUE", "AsyncRemotingClient", "RemotingClient", "parse_addr"]

_log = get_logger("remoting")

T = TypeVar("T")

Processor = Callable[[RemotingCommand, str], "RemotingCommand | Awaitable[RemotingCommand | None] | None"]
"""A handler of a peer's requests of one code: ``(request, peer_addr) -> response, an awaitable of it, or None``
(see :meth:`AsyncRemotingClient.register_processor`)."""

_SUCCESS = (ResponseCode.SUCCESS,)
_monotonic = time.monotonic
_LOOP_TIME = asyncio.BaseEventLoop.time
"""asyncio's ``loop.time()``, which is ``time.monotonic()``: a loop whose class keeps it is read without the call."""
_EagerFuture: Any = native_twin("_EagerFuture")
"""The native backend's future of a response (``rocketroute._native._EagerFuture``): a connection that reads the
response completes it with ``wake``, which resumes the awaiting task within the read callback instead of queueing
its wake-up on the loop (``loop.call_soon``, a ``Handle``, the loop's next pass: eleven of the 89 Python calls of
an async send, 2.5 % of its instructions). The reference backend awaits ``asyncio.Future`` objects."""
_current_task = asyncio.current_task


def _loop_future(loop: asyncio.AbstractEventLoop) -> asyncio.Future[Any]:
    return loop.create_future()


_response_future: Callable[[asyncio.AbstractEventLoop], asyncio.Future[Any]] = (
    _loop_future if _EagerFuture is None else _EagerFuture
)
"""The future a request's response completes: the class :data:`_EagerFuture` itself with the native backend (no
Python call per request), the loop's future with the reference backend."""


_WRITE_HIGH_WATER = 1024 * 1024
"""Bytes buffered in a connection's transport above which no more frames are handed to it: they wait in the
connection's own queue, where a request that times out is dropped before it is ever written."""
_WRITE_BATCH = 256 * 1024
"""Frames are joined into one transport write up to about this many bytes."""
DEFAULT_MAX_WRITE_QUEUE = 64 * 1024 * 1024
"""The default bound on the bytes of frames waiting to be written on one connection (``max_write_queue``)."""


def parse_addr(addr: str) -> tuple[str, int]:
    """``"host:port"`` -> ``(host, port)``; the port is after the last colon (Java's
    ``RemotingHelper.string2SocketAddress``), so ``"::1:9876"`` and ``"[::1]:9876"`` are IPv6. Raises
    :class:`RemotingConnectError` for anything else."""
    if not isinstance(addr, str):
        raise TypeError(f"addr must be a 'host:port' str, not {type(addr).__name__}")
    host, sep, port = addr.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port.isdigit() or int(port) > 0xFFFF:
        raise RemotingConnectError(addr, "not a host:port address")
    return host, int(port)


_TLS_HINT_WITHIN_S = 2.0
"""A plain connection closed this soon after it was made, before any answer, gets the hint that the server may
require TLS (an enforcing server closes it at the first bytes; a broker restarting later does not get the hint)."""


def _closed_before_sent(conn: _Connection) -> str:
    reason = "the connection was closed before the request was sent"
    return f"{reason} ({conn.close_reason})" if conn.close_reason else reason


class _Connection(asyncio.BufferedProtocol):
    """One connection: writes coalesced per event-loop pass, reads straight into the frame decoder's buffer,
    responses matched to their waiters by opaque.

    ``pending`` maps an opaque to ``(waiter, seq)`` (``seq`` tells this request from an earlier one with the same
    opaque, for the client's timeout queues); a waiter is an ``asyncio.Future`` (async callers) or a
    :class:`_SyncWaiter` (the sync facade); both are completed only here, on the loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        addr: str,
        max_frame_size: int,
        processors: Mapping[int, Processor] | None = None,
        max_write_queue: int = DEFAULT_MAX_WRITE_QUEUE,
        *,
        tls: bool = False,
    ) -> None:
        self.loop = loop
        self.addr = addr
        self.tls = tls
        self.received_any = False
        self.close_reason: str | None = None  # why it closed, for a request that finds it closed
        self.connected_at = loop.time()
        self.processors: Mapping[int, Processor] = processors if processors is not None else {}
        self.decoder = FrameDecoder(max_frame_size)
        self.pending: dict[int, tuple[Any, int]] = {}
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.on_close: Any = None
        self.max_write_queue = max_write_queue
        # frames not yet handed to the transport: (frame, opaque, seq) for a request (written only while it is
        # still in ``pending`` with that seq), (frame, None, 0) for a response or a oneway request
        self._out: collections.deque[tuple[bytes, int | None, int]] = collections.deque()
        self._out_bytes = 0
        self._flush_scheduled = False
        self._paused = False

    # -- asyncio.BufferedProtocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.connected_at = self.loop.time()
        self.transport = transport  # type: ignore[assignment]
        transport.set_write_buffer_limits(high=_WRITE_HIGH_WATER)  # type: ignore[attr-defined]

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.decoder.get_buffer(sizehint)

    def buffer_updated(self, nbytes: int) -> None:
        self.received_any = True
        pending = self.pending
        # called by the transport, where no task runs: an eager future wakes its task here (unless this was
        # called from a task, as a test may: a task cannot resume inside another)
        eager = _EagerFuture if _current_task(self.loop) is None else None
        try:
            for cmd in self.decoder.buffer_updated(nbytes):
                if cmd.flag & 1:
                    entry = pending.pop(cmd.opaque, None)
                    if entry is None:
                        _log.debug("response %s from %s matches no request in flight: dropped", cmd, self.addr)
                        continue
                    waiter = entry[0]
                    if type(waiter) is eager:
                        waiter.wake(cmd)
                    elif not waiter.done():
                        waiter.set_result(cmd)
                else:
                    self._on_request(cmd)
        except FrameError as e:
            _log.warning("malformed frame from %s, closing the connection: %s", self.addr, e)
            message = f"malformed frame from <{self.addr}>, connection closed: {e}"
            self.close(lambda: FrameError(message, addr=self.addr), cause=e)

    def eof_received(self) -> bool:
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        if self.closed:
            return
        buffered = self.decoder.buffered
        if exc is not None:
            reason = f"connection lost: {exc}"
        elif buffered:
            expected = self.decoder.expected
            total = f" of {expected}" if expected is not None else ""
            reason = f"connection closed by the peer in the middle of a frame ({buffered}{total} bytes received)"
        elif not self.received_any and not self.tls and self.loop.time() - self.connected_at < _TLS_HINT_WITHIN_S:
            # Apache's servers with -Dtls.server.mode=enforcing close a plain connection at its first bytes
            reason = "connection closed by the peer before it answered anything (does the server require TLS? tls=True)"
        else:
            reason = "connection closed by the peer"
        self.close(lambda: RemotingSendRequestError(self.addr, reason), cause=exc)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._flush()

    # -- writing

    def _in_flight(self, opaque: int | None, seq: int) -> bool:
        """Whether a queued frame is still to be written: a response or oneway frame (no opaque), or a request
        still in ``pending`` with that ``seq`` (not timed out, not cancelled)."""
        if opaque is None:
            return True
        entry = self.pending.get(opaque)
        return entry is not None and entry[1] == seq

    def room_for(self, size: int) -> bool:
        """Whether a frame of ``size`` bytes may join the queue (always, when the queue is empty)."""
        return not self._out_bytes or self._out_bytes + size <= self.max_write_queue

    def full_error(self, size: int) -> RemotingSendRequestError:
        return RemotingSendRequestError(
            self.addr,
            f"{self._out_bytes} bytes already wait to be written on the connection and a frame of {size} would pass "
            f"max_write_queue ({self.max_write_queue}): the peer is not reading",
        )

    def write(self, data: bytes, opaque: int | None = None, seq: int = 0) -> None:
        """Queue a frame; the queue is handed to the transport once per loop pass, while the transport is under
        its high-water mark. A request's frame (``opaque``, ``seq``) is skipped if the request is no longer in
        flight by then (timed out, cancelled)."""
        self._out.append((data, opaque, seq))
        self._out_bytes += len(data)
        if not self._flush_scheduled and not self._paused:
            self._flush_scheduled = True
            self.loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        out = self._out
        if self.closed or self.transport is None:
            return
        write = self.transport.write
        pending = self.pending
        while out and not self._paused:
            batch: list[bytes] = []
            size = dropped = 0
            while out and size < _WRITE_BATCH:
                frame, opaque, seq = out.popleft()
                if opaque is not None:  # self._in_flight written out (every request's frame comes here)
                    entry = pending.get(opaque)
                    if entry is None or entry[1] != seq:
                        dropped += len(frame)
                        continue  # timed out or cancelled before it was written: never written
                batch.append(frame)
                size += len(frame)
            self._out_bytes -= size + dropped
            if batch:
                write(batch[0] if len(batch) == 1 else b"".join(batch))  # may call pause_writing

    def purge(self) -> None:
        """Drop queued frames of requests no longer in flight (their memory is freed now, not at the next write)."""
        kept = collections.deque(item for item in self._out if self._in_flight(item[1], item[2]))
        self._out, self._out_bytes = kept, sum(len(item[0]) for item in kept)

    # -- requests from the peer

    def _on_request(self, cmd: RemotingCommand) -> None:
        """Java's ``processRequestCommand``: the processor registered for the code answers (``None``: no answer);
        with none registered, REQUEST_CODE_NOT_SUPPORTED (" request type <code> not supported"). A processor that
        raises gets SYSTEM_ERROR with the exception's text, as Java's. Oneway requests are never answered. A
        processor that must wait (for a listener on another thread) returns an awaitable of the response, which is
        written when it completes (Java's asynchronous request processors)."""
        processor = self.processors.get(cmd.code)
        if processor is None:
            _log.debug("request %s from %s: no processor", cmd, self.addr)
            self._answer(
                cmd,
                RemotingCommand.response_to(
                    cmd, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported"
                ),
            )
            return
        try:
            response = processor(cmd, self.addr)
        except Exception as e:  # a processor's bug must not break the connection
            self._answer(cmd, self._processor_failed(cmd, e))
            return
        if inspect.isawaitable(response):
            self.loop.create_task(self._answer_later(cmd, response))
        else:
            self._answer(cmd, response)

    def _processor_failed(self, cmd: RemotingCommand, e: BaseException) -> RemotingCommand:
        _log.error(
            "processor of request code %s failed on a request from %s",
            cmd.code,
            self.addr,
            exc_info=(type(e), e, e.__traceback__),
        )
        return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, f"{type(e).__name__}: {e}")

    async def _answer_later(self, cmd: RemotingCommand, pending: Awaitable[RemotingCommand | None]) -> None:
        try:
            response = await pending
        except Exception as e:
            response = self._processor_failed(cmd, e)
        if not self.closed:
            self._answer(cmd, response)

    def _answer(self, cmd: RemotingCommand, response: RemotingCommand | None) -> None:
        if response is None or cmd.flag & RPC_ONEWAY or self.closed:
            return  # closed: by an earlier answer of the same read, whose queue was full
        response.opaque = cmd.opaque
        response.mark_response()
        frame = encode_frame(response)
        if not self.room_for(len(frame)):
            # a peer that sends requests and does not read the answers: bounded, by closing
            _log.warning("%s does not read the responses to its requests: closing the connection", self.addr)
            error = self.full_error(len(frame))
            self.close(lambda: RemotingSendRequestError(self.addr, error.reason))
            return
        self.write(frame)

    # -- closing

    def close(self, make_error: Any, cause: BaseException | None = None, *, graceful: bool = False) -> None:
        """Drop the connection and fail every request in flight on it with ``make_error()`` (one new exception
        per request). ``graceful``: write what is buffered before closing the socket (else discard it)."""
        if self.closed:
            return
        if graceful:
            self._flush()
        self.closed = True
        first = make_error()
        self.close_reason = getattr(first, "reason", None) or str(first)
        self._out.clear()
        self._out_bytes = 0
        if self.on_close is not None:
            self.on_close(self)
        if self.transport is not None:
            if graceful:
                self.transport.close()
            else:
                self.transport.abort()
        pending, self.pending = self.pending, {}
        for waiter, _ in pending.values():
            if not waiter.done():
                error = make_error()
                if cause is not None:
                    error.__cause__ = cause
                waiter.set_exception(error)


def _blocking_on_loop(what: str) -> RuntimeError:
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
    frame from a peer (Java's 16 MiB, :data:`~rocketroute.remoting.frame.DEFAULT_MAX_FRAME_SIZE`);
    ``max_write_queue`` bounds the bytes of frames waiting to be written on one connection
    (:data:`DEFAULT_MAX_WRITE_QUEUE`, 64 MiB); ``language``, when given, is written in every request's header
    (Java's ``ClientConfig.language``; else each command's own, ``PYTHON`` by default); ``credentials``, when
    given, sign every request as Java's ``AclClientRPCHook`` does (:mod:`rocketroute.remoting.acl`); ``tls``
    (``True`` or an :class:`ssl.SSLContext`) makes every connection TLS (:mod:`rocketroute.remoting.tls`).

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
        self._conns: dict[str, _Connection] = {}
        self._connecting: dict[str, asyncio.Task[_Connection]] = {}
        self._closed = False
        self._seq = 0
        self._deadlines: dict[int, collections.deque[tuple[float, _Connection, int, int, int]]] = {}
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

    def _forget(self, conn: _Connection) -> None:
        if self._conns.get(conn.addr) is conn:
            del self._conns[conn.addr]

    async def _connect(self, addr: str) -> _Connection:
        loop = self._loop
        assert loop is not None
        host, port = parse_addr(addr)
        try:
            _, conn = await asyncio.wait_for(
                loop.create_connection(
                    lambda: _Connection(
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

    def _connect_done(self, addr: str, task: asyncio.Task[_Connection]) -> None:
        if self._connecting.get(addr) is task:
            del self._connecting[addr]
        if not task.cancelled():
            task.exception()  # retrieved: every waiter may have been cancelled meanwhile

    async def connection(self, addr: str) -> _Connection:
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
        conn: _Connection,
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
            raise RemotingSendRequestError(conn.addr, _closed_before_sent(conn))
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
        backed_up: set[_Connection] = set()
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
        waiter = _response_future(loop)
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
        waiter = _response_future(loop)
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
        ok_codes: Collection[int] = _SUCCESS,
    ) -> RemotingCommand:
        """:meth:`invoke`, raising :class:`RemotingCommandError` (code, remark, addr) when the response's code is
        not in ``ok_codes`` (default: SUCCESS only), or :class:`~rocketroute.errors.AuthenticationError` /
        :class:`~rocketroute.errors.PermissionDeniedError` when the server refused the client's credentials
        (:func:`~rocketroute.remoting.errors.response_error`)."""
        response = await self.invoke(addr, request, timeout_ms)
        if response.code not in ok_codes:
            raise response_error(response.code, response.remark, addr, request_code=request.code)
        return response

    async def invoke_oneway(self, addr: str, request: RemotingCommand | EncodedRequest) -> None:
        """Send ``request`` with the oneway flag set (Java's ``invokeOneway``: ``markOnewayRPC`` then write) and
        return once it is queued on the connection; no response is waited for. Sets the flag on ``request`` (an
        :class:`~rocketroute.remoting.command.EncodedRequest` is written as it is: its frame carries the flag).
        Raises :class:`RemotingSendRequestError` when the connection's queue is full."""
        if self._loop is None:
            self._bind()
        conn = self._conns.get(addr)
        if conn is None:
            conn = await self.connection(addr)
        self._write_oneway(conn, request)

    def frame_language(self) -> str | None:
        """The language a request encoded ahead (:class:`~rocketroute.remoting.command.EncodedRequest`) writes in
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

    def _write_oneway(self, conn: _Connection, request: RemotingCommand | EncodedRequest) -> None:
        """Write a oneway request (an encoded one carries the oneway flag already)."""
        if conn.closed:
            raise RemotingSendRequestError(conn.addr, _closed_before_sent(conn))
        if type(request) is not EncodedRequest:
            request.flag |= RPC_ONEWAY
        frame = self._frame_of(request)
        if not conn.room_for(len(frame)):
            raise conn.full_error(len(frame))
        conn.write(frame)

    # -- sync facade support (runs on the loop)

    def _submit(
        self, addr: str, request: RemotingCommand | EncodedRequest, timeout_ms: int, waiter: _SyncWaiter
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

    def _submit_oneway(self, addr: str, request: RemotingCommand | EncodedRequest, waiter: _SyncWaiter) -> None:
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


def _abandon(conn: _Connection, opaque: int, waiter: Any) -> None:
    entry = conn.pending.get(opaque)
    if entry is not None and entry[0] is waiter:
        del conn.pending[opaque]


class _SyncWaiter:
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
    (:mod:`rocketroute.remoting.caller_loops`): its requests are written and answered on the caller's loop, with no
    hop to the client's thread; :meth:`close` closes those too.

    ``direct=`` (the native backend's ``_DirectConnection`` class; ignored with ``tls``) gives the client direct
    connections (:mod:`rocketroute.remoting.direct`): :meth:`invoke` and :meth:`invoke_oneway` with ``direct=True``
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
        # clients of their own for the other loops that await requests (remoting.caller_loops)
        self.caller_loops = CallerLoops(make)
        self.connect_timeout_ms = connect_timeout_ms
        self._closed = False
        self._forked = False  # made before os.fork(), used in the child (forked_away)
        self._close_lock = threading.Lock()
        # direct connections (remoting.direct) for the blocking callers that ask for them, on plain TCP only
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
        started.wait()
        # an unclosed client that is garbage-collected stops its loop (the thread holds no reference to self)
        self._finalizer = weakref.finalize(self, _stop_loop, self.loop)

    def _slack_s(self, timeout_ms: int) -> float:
        # the loop fails the request at timeout_ms (or connect_timeout_ms + timeout_ms at worst); this bound
        # only guards against a stopped loop
        return (timeout_ms + self.connect_timeout_ms) / 1000 + 5.0

    def _bridge(self, loop: asyncio.AbstractEventLoop) -> None:
        # requests from other threads: queued, handed to the loop by one wake-up per batch (remoting.bridge);
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
        ``addr`` when it has them (built with ``direct=``, no TLS; :mod:`rocketroute.remoting.direct`) and the
        caller is not on the loop, else through the loop. A ``timeout_ms`` under 1 is refused (``ValueError``)."""
        check_timeout_ms("timeout_ms", timeout_ms)
        if self._closed:
            raise self._closed_error(addr)
        if threading.current_thread() is self._thread:  # self.on_loop_thread() written out
            raise _blocking_on_loop("RemotingClient.invoke")
        conns = self._direct if direct else None
        if conns is not None and conns.takes(addr, request):
            frame = self.async_client._frame_of(request)
            return conns.invoke(addr, request, frame, timeout_ms, self.async_client.max_frame_size)
        waiter = _SyncWaiter()
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
        ok_codes: Collection[int] = _SUCCESS,
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
        if threading.current_thread() is self._thread:
            raise _blocking_on_loop("RemotingClient.invoke_oneway")
        conns = self._direct if direct else None
        if conns is not None and conns.takes(addr, request):
            if type(request) is not EncodedRequest:
                request.flag |= RPC_ONEWAY
            conns.send_oneway(addr, self.async_client._frame_of(request), self.connect_timeout_ms)
            return
        waiter = _SyncWaiter()
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
            raise _blocking_on_loop("a blocking call")
        future = self.submit(coro)
        try:
            return future.result(timeout_s)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def loop_runs_here(self) -> bool:
        """Whether the caller runs on ``.loop`` now, i.e. may await the async client's futures
        (:func:`~rocketroute.remoting.bridge.loop_runs_here`: no system call per check)."""
        return loop_runs_here(self.loop)

    def on_loop_thread(self) -> bool:
        """Whether the caller runs on the client's event-loop thread (a processor, or code scheduled on
        ``.loop``), where a blocking call that waits for the loop would never return."""
        return threading.current_thread() is self._thread

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
