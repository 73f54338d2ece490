"""RemotingClient, the thread-safe synchronous facade, against fake peers."""

from __future__ import annotations

import asyncio
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rocketroute.net import RemotingClient
from rocketroute.protocol import (
    FrameError,
    RemotingCommand,
    RemotingCommandError,
    RemotingConnectError,
    RemotingError,
    RemotingTimeoutError,
    RequestCode,
    ResponseCode,
)

from ._peer import FakePeer, PeerConn, free_port

LONG_MS = 30_000


def request(i: int = 0, body: bytes | None = None) -> RemotingCommand:
    return RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {"i": i}, body)


def test_invoke() -> None:
    with FakePeer() as peer, RemotingClient() as client:
        req = request(3, b"b")
        resp = client.invoke(peer.addr, req, LONG_MS)
        assert resp.opaque == req.opaque and resp.ext_fields == {"i": "3"} and resp.body == b"b"


def test_from_8_threads_at_once() -> None:
    with FakePeer() as peer, RemotingClient() as client:

        def worker(t: int) -> list[tuple[str, str]]:
            out = []
            for k in range(100):
                i = t * 1000 + k
                resp = client.invoke(peer.addr, request(i, str(i).encode()), LONG_MS)
                out.append((resp.ext_fields["i"], resp.body.decode()))
            return out

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(worker, range(8)))
        for t, pairs in enumerate(results):
            assert pairs == [(str(t * 1000 + k), str(t * 1000 + k)) for k in range(100)]
    assert peer.connections == 1


def test_timeout() -> None:
    release = threading.Event()

    def silent_first(conn: PeerConn) -> None:
        first = conn.read_request()
        release.wait(LONG_MS / 1000)
        conn.answer(first)
        conn.echo_forever()

    with FakePeer(silent_first) as peer, RemotingClient() as client:
        with pytest.raises(RemotingTimeoutError) as info:
            client.invoke(peer.addr, request(1), 150)
        assert (info.value.addr, info.value.timeout_ms) == (peer.addr, 150)
        release.set()
        assert client.invoke(peer.addr, request(2), LONG_MS).ext_fields == {"i": "2"}


def test_oneway() -> None:
    with FakePeer() as peer, RemotingClient() as client:
        one = request(1)
        assert client.invoke_oneway(peer.addr, one) is None
        assert one.flag & 2
        assert client.invoke(peer.addr, request(2), LONG_MS).ext_fields == {"i": "2"}
        assert [r["flag"] for r in peer.received] == [2, 0]


def test_oneway_before_any_connection_then_close_still_delivers() -> None:
    with FakePeer() as peer:
        with RemotingClient() as client:
            client.invoke_oneway(peer.addr, request(1))
        # close() flushes what was written: the frame reaches the peer, which may read it after the client is gone
        # (on a loaded machine its acceptor thread may not even have taken the connection yet: closing the peer
        # at once would drop it unread)
        deadline = time.monotonic() + 10
        while not peer.received and time.monotonic() < deadline:
            time.sleep(0.01)
    assert [r["flag"] for r in peer.received] == [2]


def test_connect_refused() -> None:
    addr = f"127.0.0.1:{free_port()}"
    with RemotingClient() as client:
        with pytest.raises(RemotingConnectError, match=f"connect to {addr} failed"):
            client.invoke(addr, request(), LONG_MS)
        with pytest.raises(RemotingConnectError):
            client.invoke_oneway(addr, request())


def test_bad_frame_then_recovery() -> None:
    def two_gib(conn: PeerConn) -> None:
        conn.read_request()
        conn.send(struct.pack(">I", 0x80000000))
        conn.wait_closed()

    with FakePeer(two_gib) as peer, RemotingClient() as client:
        with pytest.raises(FrameError, match="less than 4"):
            client.invoke(peer.addr, request(1), LONG_MS)
        assert client.invoke(peer.addr, request(2), LONG_MS).ext_fields == {"i": "2"}
    assert peer.connections == 2


def test_invoke_checked() -> None:
    def refuse(conn: PeerConn) -> None:
        conn.answer(conn.read_request(), ResponseCode.NO_PERMISSION, remark="no")
        conn.echo_forever()

    with FakePeer(refuse) as peer, RemotingClient() as client:
        with pytest.raises(RemotingCommandError, match="CODE: 16  DESC: no"):
            client.invoke_checked(peer.addr, request(1), LONG_MS)
        assert client.invoke_checked(peer.addr, request(2), LONG_MS).code == 0


def test_loop_and_async_client_for_async_code() -> None:
    with FakePeer() as peer, RemotingClient() as client:
        future = asyncio.run_coroutine_threadsafe(
            client.async_client.invoke(peer.addr, request(5), LONG_MS), client.loop
        )
        assert future.result(LONG_MS / 1000).ext_fields == {"i": "5"}
        assert client.connected(peer.addr)
        assert client.invoke(peer.addr, request(6), LONG_MS).ext_fields == {"i": "6"}  # same connection
    assert peer.connections == 1


def test_close_is_idempotent_and_later_calls_fail() -> None:
    with FakePeer() as peer:
        client = RemotingClient()
        client.invoke(peer.addr, request(1), LONG_MS)
        client.close()
        client.close()
        assert client.closed and not client.loop.is_running()
        with pytest.raises(RemotingError, match="closed"):
            client.invoke(peer.addr, request(2), LONG_MS)


def test_loop_runs_here_is_true_on_the_client_s_running_loop_only() -> None:
    with RemotingClient() as client:  # its own loop, in its own thread
        assert not client.loop_runs_here()
        here = asyncio.run_coroutine_threadsafe(_runs_here(client), client.loop).result(5)
        assert here is True

    async def bound() -> tuple[bool, bool, bool]:
        client = RemotingClient(loop=asyncio.get_running_loop())  # the caller's loop
        try:
            other_thread = await asyncio.to_thread(client.loop_runs_here)
            other_loop = await asyncio.to_thread(asyncio.run, _runs_here(client))
            return client.loop_runs_here(), other_thread, other_loop
        finally:
            await client.aclose()

    assert asyncio.run(bound()) == (True, False, False)


async def _runs_here(client: RemotingClient) -> bool:
    return client.loop_runs_here()
