"""A fake remoting peer for the client tests: a real TCP server on 127.0.0.1, raw sockets in threads, that behaves
as each test scripts it (answer, stay silent, send garbage, close mid-frame, ...).

It parses and builds frames with its own few lines of struct and json, independent of rocketroute.protocol.frame,
so a bug there cannot hide itself.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Callable
from typing import Any

Handler = Callable[["PeerConn"], None]


def build_frame(
    code: int,
    opaque: int,
    flag: int = 1,
    *,
    remark: str | None = None,
    ext: dict[str, str] | None = None,
    body: bytes = b"",
) -> bytes:
    """A JSON-header frame, written out from the documented layout."""
    header: dict[str, Any] = {"code": code, "language": "JAVA", "version": 479, "opaque": opaque, "flag": flag}
    if remark is not None:
        header["remark"] = remark
    header["extFields"] = ext or {}
    header["serializeTypeCurrentRPC"] = "JSON"
    data = json.dumps(header).encode()
    return struct.pack(">ii", 4 + len(data) + len(body), len(data)) + data + body


class PeerConn:
    """One accepted connection, seen from the fake peer."""

    def __init__(self, sock: socket.socket, index: int, peer: FakePeer) -> None:
        self.sock = sock
        self.index = index
        self.peer = peer
        self._buf = b""

    def _read_exact(self, n: int) -> bytes | None:
        while len(self._buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self._buf += chunk
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def read_request(self) -> dict[str, Any] | None:
        """The next frame from the client as a dict (the JSON header's keys plus ``body``), or None at EOF."""
        prefix = self._read_exact(8)
        if prefix is None:
            return None
        length, mark = struct.unpack(">ii", prefix)
        header_length = mark & 0xFFFFFF
        assert mark >> 24 == 0, "the client sends JSON headers"
        rest = self._read_exact(length - 4)
        if rest is None:
            return None
        request = json.loads(rest[:header_length])
        request["body"] = rest[header_length:]
        self.peer.received.append(request)
        return request

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def answer(self, request: dict[str, Any], code: int = 0, *, remark: str | None = None, **ext: str) -> None:
        """Respond to ``request``: its opaque, its ext fields echoed plus ``ext``, its body echoed."""
        fields = dict(request.get("extFields") or {})
        fields.update(ext)
        self.send(build_frame(code, request["opaque"], 1, remark=remark, ext=fields, body=request["body"]))

    def echo_forever(self) -> None:
        """Answer every request (not the oneway ones) until the client closes."""
        while (request := self.read_request()) is not None:
            if not request["flag"] & 2:
                self.answer(request)

    def wait_closed(self) -> None:
        """Read and discard until the client closes (keeps the connection open meanwhile)."""
        while self.sock.recv(65536):
            pass


def echo(conn: PeerConn) -> None:
    conn.echo_forever()


class FakePeer:
    """``FakePeer(h1, h2, ...)``: the n-th accepted connection is handled by the n-th handler, the ones after the
    last by :func:`echo`. ``addr`` is its ``"127.0.0.1:port"``; ``connections`` counts accepted connections and
    ``received`` lists every request read. Use as a context manager. ``rcvbuf``: the accepted connections' receive
    buffer (``SO_RCVBUF``), set on the listening socket so that the connections start with it: shrinking it on an
    established connection shrinks the window the client was offered, which Linux answers by dropping segments
    (``TCPRcvQDrop``) and, on a loaded machine, by stalling the connection for tens of seconds."""

    def __init__(self, *handlers: Handler, rcvbuf: int | None = None) -> None:
        self.handlers = list(handlers)
        self.received: list[dict[str, Any]] = []
        self.errors: list[BaseException] = []
        self.connections = 0
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as socket.create_server
        if rcvbuf is not None:
            self._server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen()
        self.addr = f"127.0.0.1:{self._server.getsockname()[1]}"
        self._socks: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._acceptor = threading.Thread(target=self._accept, daemon=True)
        self._acceptor.start()

    def _accept(self) -> None:
        self._server.settimeout(0.05)  # closing a listening socket does not wake accept(): poll for close()
        while not self._closed:
            try:
                sock, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(None)
            index = self.connections
            self.connections += 1
            handler = self.handlers[index] if index < len(self.handlers) else echo
            self._socks.append(sock)
            thread = threading.Thread(target=self._serve, args=(handler, PeerConn(sock, index, self)), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, handler: Handler, conn: PeerConn) -> None:
        try:
            handler(conn)
        except OSError:
            pass  # the client closed the connection
        except BaseException as e:  # surfaced by close()
            self.errors.append(e)
        finally:
            conn.sock.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._acceptor.join(10)
        self._server.close()
        for sock in self._socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in self._threads:
            thread.join(10)
        if self.errors:
            raise self.errors[0]

    def __enter__(self) -> FakePeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def free_port() -> int:
    """A port nothing listens on (bound then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
