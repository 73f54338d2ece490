"""Direct connections: a blocked thread's requests written by that thread and answered to it, with no event loop
between them.

:class:`RemotingClient`'s blocking methods hand a request to the client's event loop and sleep until the loop hands
the response back: two hand-overs between threads per request, each a wake-up and a pass of the loop. With the
native backend a producer's sync sends (``invoke(..., direct=True)``) skip both: the calling thread writes the frame
on a connection of the native core's (``rocketroute._native._DirectConnection``) and waits, with Python's lock
released, until that connection's reader thread (Rust, no Python) wakes it with the response.

A direct connection is a second connection to the broker beside the event loop's (which carries the heartbeats,
and with them every request a broker makes to the client), made on the first direct request to that address and
made again after it breaks. It is not used for TLS connections, nor with the pure-Python reference backend: those
requests go through the event loop as every other.

Two kinds of request go through the loop even when asked to go direct, because the loop's write queue keeps a
promise the direct path cannot: a request that times out before its bytes reach the socket is never written.
- A body over :data:`DIRECT_MAX_BODY` (1 MiB): a large frame can sit in the loop's queue, not in the kernel's
  buffers, while the broker is slow to read.
- Every request to an address whose last direct request timed out or failed, until a request through the loop to
  that address is answered: a broker that stopped answering (paused, overloaded) gets no more frames written
  straight into its socket, where they would be stored after the send was reported failed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..protocol.command import EncodedRequest, RemotingCommand, SerializeType
from ..protocol.errors import RemotingError, RemotingSendRequestError, RemotingTimeoutError
from ..protocol.frame import decode_frame

__all__ = ["DIRECT_MAX_BODY", "DirectConnections", "direct_connection_class"]

DIRECT_MAX_BODY = 1024 * 1024
"""Requests with a larger body go through the event loop (the loop's write high-water mark)."""


def direct_connection_class(backend: Any) -> Any:
    """The native backend's direct connection class, or ``None`` for the reference backend (or none given)."""
    if getattr(backend, "BACKEND", None) != "native":
        return None
    from .. import _native

    return _native._DirectConnection


class DirectConnections:
    """One direct connection per address, made when first needed (one connect at a time: a thread that needs a
    connection while another connects waits for it)."""

    def __init__(
        self,
        make: Any,
        parse_addr: Callable[[str], tuple[str, int]],
        *,
        connect_timeout_ms: int,
        max_frame_size: int,
        language: str,
    ) -> None:
        self._make = make
        self._parse_addr = parse_addr
        self._connect_timeout_ms = connect_timeout_ms
        self._max_frame_size = max_frame_size
        self._language = language
        self._conns: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._stalled: set[str] = set()  # addresses whose requests go through the loop until it gets an answer

    def takes(self, addr: str, request: RemotingCommand | EncodedRequest) -> bool:
        """Whether ``request`` to ``addr`` goes direct (see the module's text for the ones that do not)."""
        if addr in self._stalled:
            return False
        if type(request) is EncodedRequest:
            return request.body_size <= DIRECT_MAX_BODY
        body = request.body  # type: ignore[union-attr]
        return body is None or len(body) <= DIRECT_MAX_BODY

    def answered_through_loop(self, addr: str) -> None:
        """A request through the loop to ``addr`` was answered: its requests may go direct again."""
        self._stalled.discard(addr)

    def invoke(
        self, addr: str, request: RemotingCommand | EncodedRequest, frame: bytes, timeout_ms: int
    ) -> RemotingCommand:
        """The response to ``request`` (encoded as ``frame``) on the direct connection to ``addr``."""
        conn = self.to(addr)
        try:
            return conn.invoke(request.opaque, frame, timeout_ms, request.code)  # type: ignore[no-any-return]
        except (RemotingTimeoutError, RemotingSendRequestError):
            self._stalled.add(addr)
            raise

    def send_oneway(self, addr: str, frame: bytes, timeout_ms: int) -> None:
        """Write a oneway request's ``frame`` on the direct connection to ``addr``."""
        conn = self.to(addr)
        try:
            conn.send_oneway(frame, timeout_ms)
        except (RemotingTimeoutError, RemotingSendRequestError):
            self._stalled.add(addr)
            raise

    def to(self, addr: str) -> Any:
        """The open connection to ``addr``, made now if there is none (or the last one broke)."""
        conn = self._conns.get(addr)
        if conn is not None and not conn.closed:
            return conn
        with self._lock:
            if self._closed:
                raise RemotingError("the remoting client is closed", addr=addr)
            conn = self._conns.get(addr)
            if conn is None or conn.closed:
                host, port = self._parse_addr(addr)
                conn = self._make(
                    addr,
                    host,
                    port,
                    connect_timeout_ms=self._connect_timeout_ms,
                    max_frame_size=self._max_frame_size,
                    language=self._language,
                    command=RemotingCommand,
                    serialize_type=SerializeType.JSON,
                    decode=decode_frame,
                )
                self._conns[addr] = conn
        return conn

    def close(self) -> None:
        """Close every connection (a request waiting on one fails with ``RemotingSendRequestError``) and refuse
        new ones."""
        with self._lock:
            self._closed = True
            conns, self._conns = list(self._conns.values()), {}
        for conn in conns:
            conn.close("the remoting client was closed")

    def connected(self, addr: str) -> bool:
        conn = self._conns.get(addr)
        return conn is not None and not conn.closed
