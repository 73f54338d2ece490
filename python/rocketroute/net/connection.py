"""One connection to a peer: Java's Netty channel and its handlers for asyncio. Frames are written coalesced
per event-loop pass and read straight into the frame decoder's buffer; responses are matched to their waiters by
``opaque``; requests from the peer go to the processor registered for their code.
"""

from __future__ import annotations

import asyncio
import collections
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .._backend import native_twin
from ..loggers import get_logger
from ..protocol.command import RPC_ONEWAY, RemotingCommand
from ..protocol.errors import (
    FrameError,
    RemotingConnectError,
    RemotingSendRequestError,
)
from ..protocol.frame import FrameDecoder, encode_frame
from ..protocol.response_code import ResponseCode

__all__ = ["DEFAULT_MAX_WRITE_QUEUE", "Connection", "Processor", "parse_addr"]

_log = get_logger("net")

Processor = Callable[[RemotingCommand, str], "RemotingCommand | Awaitable[RemotingCommand | None] | None"]
"""A handler of a peer's requests of one code: ``(request, peer_addr) -> response, an awaitable of it, or None``
(see :meth:`AsyncRemotingClient.register_processor`)."""

EagerFuture: Any = native_twin("_EagerFuture")
"""The native backend's future of a response (``rocketroute._native._EagerFuture``): a connection that reads the
response completes it with ``wake``, which resumes the awaiting task within the read callback instead of queueing
its wake-up on the loop (``loop.call_soon``, a ``Handle``, the loop's next pass: eleven of the 89 Python calls of
an async send, 2.5 % of its instructions). The reference backend awaits ``asyncio.Future`` objects."""
_current_task = asyncio.current_task


def loop_future(loop: asyncio.AbstractEventLoop) -> asyncio.Future[Any]:
    return loop.create_future()


response_future: Callable[[asyncio.AbstractEventLoop], asyncio.Future[Any]] = (
    loop_future if EagerFuture is None else EagerFuture
)
"""The future a request's response completes: the class :data:`EagerFuture` itself with the native backend (no
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


def closed_before_sent(conn: Connection) -> str:
    reason = "the connection was closed before the request was sent"
    return f"{reason} ({conn.close_reason})" if conn.close_reason else reason


class Connection(asyncio.BufferedProtocol):
    """One connection: writes coalesced per event-loop pass, reads straight into the frame decoder's buffer,
    responses matched to their waiters by opaque.

    ``pending`` maps an opaque to ``(waiter, seq)`` (``seq`` tells this request from an earlier one with the same
    opaque, for the client's timeout queues); a waiter is an ``asyncio.Future`` (async callers) or a
    :class:`SyncWaiter` (the sync facade); both are completed only here, on the loop."""

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
        eager = EagerFuture if _current_task(self.loop) is None else None
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
