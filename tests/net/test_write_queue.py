"""A peer that stops reading: every request still ends at its timeout, a request that timed out while queued is
never written, the bytes waiting per connection are bounded, and a peer that floods requests without reading the
answers gets its connection closed (issue 27, items 1 and 12).

The peers are real sockets on 127.0.0.1 that do not call ``recv`` until the test lets them; the kernel's socket
buffers then fill and the client's writes back up, as against a stalled (SIGSTOPped) broker."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from rocketroute.net import AsyncRemotingClient, RemotingClient
from rocketroute.protocol import (
    RemotingCommand,
    RemotingSendRequestError,
    RemotingTimeoutError,
    RequestCode,
)

from ._peer import FakePeer, PeerConn, build_frame

MB = 1024 * 1024


def request(i: int, size: int = 0) -> RemotingCommand:
    return RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {"i": i}, b"x" * size if size else None)


class Stalled:
    """A handler that reads nothing until ``release`` is set, then records and answers what it receives."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.seen: list[int] = []

    def __call__(self, conn: PeerConn) -> None:
        self.release.wait(60)
        while (req := conn.read_request()) is not None:
            self.seen.append(int(req["extFields"]["i"]))
            if not req["flag"] & 2:
                conn.send(build_frame(0, req["opaque"], 1))


def _conn(client: AsyncRemotingClient, addr: str):  # the connection object, for its queue's size
    return client._conns[addr]


def test_invokes_end_at_their_timeout_when_the_peer_never_reads() -> None:
    stalled = Stalled()
    with FakePeer(stalled) as peer:

        async def main() -> None:
            client = AsyncRemotingClient()
            try:
                loop = asyncio.get_running_loop()
                ends = []
                for i in range(3):  # 3 x 5 MB: the socket buffers fill, later frames wait in the queue
                    begin = loop.time()
                    with pytest.raises(RemotingTimeoutError):
                        await asyncio.wait_for(client.invoke(peer.addr, request(i, 5 * MB), 1000), 10)
                    ends.append(loop.time() - begin)
                begin = loop.time()
                with pytest.raises(RemotingTimeoutError):
                    await asyncio.wait_for(client.invoke(peer.addr, request(3, 1), 1000), 10)
                ends.append(loop.time() - begin)
                # each ended by its own 1000 ms timeout (wait_for's 10 s would raise TimeoutError instead)
                assert all(0.9 < t < 5 for t in ends), ends
                assert _conn(client, peer.addr)._out_bytes == 0  # timed-out frames freed, not kept to write
            finally:
                stalled.release.set()
                await client.close()

        asyncio.run(main())


def test_a_request_that_timed_out_while_queued_is_never_written() -> None:
    stalled = Stalled()
    with FakePeer(stalled) as peer:

        async def main() -> None:
            client = AsyncRemotingClient()
            try:
                await client.connection(peer.addr)
                calls = [client.invoke(peer.addr, request(i, 4 * MB), 500) for i in range(12)]
                results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
                assert all(isinstance(r, RemotingTimeoutError) for r in results), results
                conn = _conn(client, peer.addr)
                assert conn._out_bytes == 0 and not conn._out
                stalled.release.set()  # the peer reads now: only what reached the socket before the timeouts
                await client.invoke(peer.addr, request(99), 10_000)  # ... arrives, then this one
            finally:
                stalled.release.set()
                await client.close()

        asyncio.run(main())
        # 48 MB were asked for; the socket buffers and the transport's 1 MiB took a few frames before the
        # timeouts, the rest were dropped from the queue unwritten
        assert stalled.seen[-1] == 99
        written = stalled.seen[:-1]
        assert written == sorted(written) and len(written) <= 6, written


def test_the_queue_is_bounded_and_a_request_past_it_fails_at_once() -> None:
    stalled = Stalled()
    with FakePeer(stalled) as peer:

        async def main() -> None:
            client = AsyncRemotingClient(max_write_queue=8 * MB)
            waiting: list[asyncio.Future[RemotingCommand]] = []
            try:
                await client.connection(peer.addr)
                waiting += [
                    asyncio.ensure_future(client.invoke(peer.addr, request(i, 2 * MB), 30_000)) for i in range(30)
                ]
                await asyncio.sleep(0.5)
                conn = _conn(client, peer.addr)
                assert conn._out_bytes <= 8 * MB + 1024
                failed = [t for t in waiting if t.done()]
                assert failed and all(isinstance(t.exception(), RemotingSendRequestError) for t in failed)
                assert "not reading" in str(failed[0].exception())
                with pytest.raises(RemotingSendRequestError, match="max_write_queue"):
                    for i in range(100):  # oneway frames are bounded by the same queue
                        await client.invoke_oneway(peer.addr, request(100 + i, 2 * MB))
                assert conn._out_bytes <= 8 * MB
            finally:
                for t in waiting:
                    t.cancel()
                await asyncio.gather(*waiting, return_exceptions=True)
                stalled.release.set()
                await client.close()

        asyncio.run(main())


def test_sync_timeouts_leave_nothing_buffered() -> None:
    stalled = Stalled()
    with FakePeer(stalled) as peer, RemotingClient() as client:
        try:
            for i in range(15):  # 15 x 3.9 MB, each reported failed
                with pytest.raises(RemotingTimeoutError):
                    client.invoke(peer.addr, request(i, 3_900_000), 300)
            conn = client.async_client._conns[peer.addr]
            assert conn._out_bytes == 0
        finally:
            stalled.release.set()
        client.invoke(peer.addr, request(99), 10_000)
        assert stalled.seen[-1] == 99 and len(stalled.seen) - 1 <= 4, stalled.seen


def test_a_peer_flooding_requests_without_reading_gets_closed(caplog: pytest.LogCaptureFixture) -> None:
    outcome: dict[str, object] = {}
    connected = threading.Event()

    def flood(conn: PeerConn) -> None:
        connected.set()
        frame = build_frame(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, 0, 0)
        sent = 0
        try:
            for opaque in range(200_000):
                conn.send(build_frame(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, opaque, 0) if opaque % 1000 else frame)
                sent += 1
        except OSError as e:  # the client closed the connection
            outcome["error"] = e
        outcome["sent"] = sent

    with FakePeer(flood, rcvbuf=4096) as peer:  # a peer that reads nothing and buffers little

        async def main() -> None:
            client = AsyncRemotingClient(max_write_queue=1 * MB)
            try:
                conn = await client.connection(peer.addr)
                for _ in range(600):
                    if "sent" in outcome:
                        break
                    await asyncio.sleep(0.05)
                assert not client.connected(peer.addr)
                assert conn._out_bytes == 0 and not conn._out  # requests read after the closing answer: unanswered
            finally:
                await client.close()

        with caplog.at_level(logging.WARNING, logger="rocketroute.net"):
            asyncio.run(main())
    assert "error" in outcome and outcome["sent"] < 200_000, outcome
    assert any("does not read the responses" in r.getMessage() for r in caplog.records)


def test_responses_still_flow_through_a_busy_queue() -> None:
    """The queue is only a waiting room: with a peer that reads, many large requests at once all complete."""
    with FakePeer() as peer:

        async def main() -> None:
            client = AsyncRemotingClient()
            try:
                resps = await asyncio.gather(*(client.invoke(peer.addr, request(i, MB), 30_000) for i in range(40)))
                assert [r.ext_fields["i"] for r in resps] == [str(i) for i in range(40)]
            finally:
                await client.close()

        asyncio.run(main())
