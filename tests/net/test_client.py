"""AsyncRemotingClient against fake peers: real TCP on 127.0.0.1, the peer scripted by each test.

A bad frame must give its own clear error at once, never a hang: the invoke timeouts in those tests are long
(30 s) and the peer keeps the connection open, so only the client's frame check can end the call, and a
RemotingTimeoutError would mean the error was missed."""

from __future__ import annotations

import asyncio
import random
import struct
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from rocketroute.net import AsyncRemotingClient, connection, transport
from rocketroute.protocol import (
    FrameError,
    RemotingCommand,
    RemotingCommandError,
    RemotingConnectError,
    RemotingError,
    RemotingSendRequestError,
    RemotingTimeoutError,
    RequestCode,
    ResponseCode,
)

from ._peer import FakePeer, PeerConn, build_frame, free_port

LONG_MS = 30_000


@pytest.fixture(autouse=True, params=["response future of the backend", "asyncio.Future"])
def response_future(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test twice: with the backend's response future (the native backend's ``_EagerFuture``, which wakes a
    task as its response is read) and with ``asyncio.Future``, the reference backend's."""
    if request.param == "asyncio.Future":
        monkeypatch.setattr(connection, "EagerFuture", None)
        monkeypatch.setattr(transport, "response_future", connection.loop_future)


def run(test: Callable[[AsyncRemotingClient], Awaitable[Any]], **kwargs: Any) -> Any:
    async def main() -> Any:
        client = AsyncRemotingClient(**kwargs)
        try:
            return await test(client)
        finally:
            await client.close()

    return asyncio.run(main())


def request(i: int = 0, body: bytes | None = None) -> RemotingCommand:
    return RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {"i": i}, body)


def test_invoke_returns_the_matching_response() -> None:
    with FakePeer() as peer:

        async def test(client: AsyncRemotingClient) -> None:
            req = request(7, b"hello")
            resp = await client.invoke(peer.addr, req, LONG_MS)
            assert resp.is_response and resp.opaque == req.opaque
            assert resp.code == 0 and resp.ext_fields == {"i": "7"} and resp.body == b"hello"
            assert resp.language == "JAVA" and resp.version == 479

        run(test)
        assert peer.received[0]["language"] == "PYTHON" and peer.received[0]["serializeTypeCurrentRPC"] == "JSON"


def test_the_connection_is_reused() -> None:
    with FakePeer() as peer:

        async def test(client: AsyncRemotingClient) -> None:
            for i in range(5):
                assert (await client.invoke(peer.addr, request(i), LONG_MS)).ext_fields["i"] == str(i)
            assert client.connected(peer.addr)

        run(test)
        assert peer.connections == 1


def test_200_concurrent_requests_answered_out_of_order() -> None:
    def shuffled(conn: PeerConn) -> None:
        requests = [conn.read_request() for _ in range(200)]
        random.Random(13).shuffle(requests)
        for r in requests:
            conn.answer(r, seen=r["extFields"]["i"])
        conn.echo_forever()

    with FakePeer(shuffled) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            # all 200 start before any connection exists: they must share one connect
            reqs = [request(i) for i in range(200)]
            resps = await asyncio.gather(*(client.invoke(peer.addr, r, LONG_MS) for r in reqs))
            for i, (req, resp) in enumerate(zip(reqs, resps, strict=True)):
                assert resp.opaque == req.opaque
                assert resp.ext_fields == {"i": str(i), "seen": str(i)}

        run(test)
        assert peer.connections == 1
        order = [int(r["extFields"]["i"]) for r in peer.received]
        assert sorted(order) == list(range(200))


def test_timeout_then_the_late_response_is_dropped() -> None:
    release = threading.Event()

    def late(conn: PeerConn) -> None:
        first = conn.read_request()
        release.wait(LONG_MS / 1000)
        conn.answer(first, late="yes")  # after the client gave up on it
        conn.echo_forever()

    with FakePeer(late) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            req = request(1)
            with pytest.raises(RemotingTimeoutError) as info:
                await client.invoke(peer.addr, req, 200)
            error = info.value
            assert (error.addr, error.timeout_ms, error.code) == (peer.addr, 200, RequestCode.SEND_MESSAGE_V2)
            assert isinstance(error, TimeoutError)
            assert f"<{peer.addr}> timeout, 200(ms)" in str(error)
            release.set()
            # the late response reaches the client first on this connection and matches nothing
            nxt = request(2)
            resp = await client.invoke(peer.addr, nxt, LONG_MS)
            assert resp.opaque == nxt.opaque and resp.ext_fields == {"i": "2"}

        run(test)
        assert peer.connections == 1


def silent(conn: PeerConn) -> None:
    conn.wait_closed()


def test_a_short_timeout_is_not_held_behind_a_long_one() -> None:
    with FakePeer(silent) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            long = asyncio.ensure_future(client.invoke(peer.addr, request(1), 600_000))
            with pytest.raises(RemotingTimeoutError) as info:
                await client.invoke(peer.addr, request(2), 100)
            assert info.value.timeout_ms == 100
            assert not long.done()  # had the short one waited for the long one's deadline, both would be over
            long.cancel()

        run(test)


class _AheadLoop(asyncio.SelectorEventLoop):
    """A loop whose clock runs an hour ahead of ``time.monotonic()`` (as a loop with a clock of its own may)."""

    def time(self) -> float:
        return super().time() + 3600.0


def test_deadlines_are_on_the_loops_own_clock() -> None:
    """A request's deadline is read on its loop's clock, which a loop class may redefine: on a clock an hour ahead
    a 30 s request is still answered, and a 200 ms one to a silent peer times out after about 200 ms, not at
    once (a deadline taken from ``time.monotonic()`` would be an hour in that loop's past)."""
    with FakePeer() as peer, FakePeer(silent) as quiet:

        async def test(client: AsyncRemotingClient) -> None:
            loop = asyncio.get_running_loop()
            assert isinstance(loop, _AheadLoop)
            resp = await client.invoke(peer.addr, request(3), LONG_MS)
            assert resp.ext_fields == {"i": "3"}
            await client.connection(quiet.addr)
            begin = loop.time()
            with pytest.raises(RemotingTimeoutError):
                await client.invoke(quiet.addr, request(4), 200)
            assert loop.time() - begin >= 0.19

        async def main() -> None:
            client = AsyncRemotingClient()
            try:
                await test(client)
            finally:
                await client.close()

        with asyncio.Runner(loop_factory=_AheadLoop) as runner:
            runner.run(main())


def test_many_timeouts_on_one_connection() -> None:
    with FakePeer(silent) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            results = await asyncio.gather(
                *(client.invoke(peer.addr, request(i), 50 + 10 * (i % 3)) for i in range(60)), return_exceptions=True
            )
            assert all(isinstance(r, RemotingTimeoutError) for r in results)
            assert [r.timeout_ms for r in results] == [50 + 10 * (i % 3) for i in range(60)]
            assert client._conns[peer.addr].pending == {}
            assert client.connected(peer.addr)  # a timeout leaves the connection open, as Java does

        run(test)


def test_oneway_sets_the_flag_and_waits_for_nothing() -> None:
    with FakePeer() as peer:

        async def test(client: AsyncRemotingClient) -> None:
            one = request(1)
            assert await client.invoke_oneway(peer.addr, one) is None
            assert one.is_oneway
            two = request(2)
            resp = await client.invoke(peer.addr, two, LONG_MS)  # the peer answers only this one
            assert resp.opaque == two.opaque

        run(test)
        assert [r["flag"] for r in peer.received] == [2, 0]


def test_connect_refused() -> None:
    addr = f"127.0.0.1:{free_port()}"

    async def test(client: AsyncRemotingClient) -> None:
        with pytest.raises(RemotingConnectError) as info:
            await client.invoke(addr, request(), LONG_MS)
        assert isinstance(info.value, ConnectionError)
        assert str(info.value).startswith(f"connect to {addr} failed")
        assert info.value.addr == addr
        assert not client.connected(addr)

    run(test)


def test_concurrent_calls_to_a_refusing_address_each_get_an_error() -> None:
    addr = f"127.0.0.1:{free_port()}"

    async def test(client: AsyncRemotingClient) -> None:
        results = await asyncio.gather(
            *(client.invoke(addr, request(i), LONG_MS) for i in range(5)), return_exceptions=True
        )
        assert all(isinstance(r, RemotingConnectError) for r in results)
        assert len({id(r) for r in results}) == 5

    run(test)


# -- a misbehaving peer: each case gives its error, and the next call reconnects -------------------------------------


def garbage(conn: PeerConn) -> None:
    conn.read_request()
    conn.send(b"HTTP/1.1 400 Bad Request\r\n\r\n")
    conn.wait_closed()


def two_gib_length(conn: PeerConn) -> None:
    conn.read_request()
    conn.send(struct.pack(">I", 0x7FFFFFFF))
    conn.wait_closed()


def negative_length(conn: PeerConn) -> None:
    conn.read_request()
    conn.send(struct.pack(">I", 0x80000000))
    conn.wait_closed()


def header_longer_than_frame(conn: PeerConn) -> None:
    conn.read_request()
    conn.send(struct.pack(">ii", 100, 500) + b"{")
    conn.wait_closed()


def undecodable_header(conn: PeerConn) -> None:
    conn.read_request()
    conn.send(struct.pack(">ii", 4 + 5, 5) + b"{nope")
    conn.wait_closed()


@pytest.mark.parametrize(
    ("handler", "message"),
    [
        (garbage, "over the maximum frame size"),  # "HTTP" read as a length
        (two_gib_length, "frame of 2147483651 bytes"),
        (negative_length, "less than 4"),
        (header_longer_than_frame, "bad header length 500"),
        (undecodable_header, "undecodable JSON header"),
    ],
)
def test_malformed_frame_fails_the_request_and_the_client_recovers(handler: Any, message: str) -> None:
    with FakePeer(handler) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            with pytest.raises(FrameError) as info:
                await client.invoke(peer.addr, request(1), LONG_MS)
            assert message in str(info.value)
            assert f"malformed frame from <{peer.addr}>" in str(info.value)
            assert info.value.addr == peer.addr
            assert not client.connected(peer.addr)
            resp = await client.invoke(peer.addr, request(2), LONG_MS)  # a new connection
            assert resp.ext_fields == {"i": "2"}

        run(test)
        assert peer.connections == 2


def test_all_requests_in_flight_fail_on_a_bad_frame() -> None:
    def bad_after_three(conn: PeerConn) -> None:
        for _ in range(3):
            conn.read_request()
        conn.send(struct.pack(">I", 0xFFFFFFFF))
        conn.wait_closed()

    with FakePeer(bad_after_three) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            results = await asyncio.gather(
                *(client.invoke(peer.addr, request(i), LONG_MS) for i in range(3)), return_exceptions=True
            )
            assert all(isinstance(r, FrameError) for r in results), results

        run(test)


def test_good_responses_before_a_bad_frame_are_delivered() -> None:
    def good_then_bad(conn: PeerConn) -> None:
        first = conn.read_request()
        conn.read_request()
        good = build_frame(0, first["opaque"], ext={"ok": "1"})
        conn.send(good + b"\x00\x00\x00\x01")  # one chunk: a good frame, then a length of 1
        conn.wait_closed()

    with FakePeer(good_then_bad) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            a, b = await asyncio.gather(
                client.invoke(peer.addr, request(1), LONG_MS),
                client.invoke(peer.addr, request(2), LONG_MS),
                return_exceptions=True,
            )
            assert isinstance(a, RemotingCommand) and a.ext_fields == {"ok": "1"}
            assert isinstance(b, FrameError)

        run(test)


def test_truncated_frame_then_close() -> None:
    def truncated(conn: PeerConn) -> None:
        req = conn.read_request()
        conn.send(build_frame(0, req["opaque"], body=b"x" * 100)[:-30])

    with FakePeer(truncated) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            with pytest.raises(RemotingSendRequestError) as info:
                await client.invoke(peer.addr, request(1), LONG_MS)
            assert "in the middle of a frame" in str(info.value)
            assert str(info.value).startswith(f"send request to <{peer.addr}> failed")
            assert isinstance(info.value, ConnectionError)
            resp = await client.invoke(peer.addr, request(2), LONG_MS)
            assert resp.ext_fields == {"i": "2"}

        run(test)
        assert peer.connections == 2


def test_peer_closes_with_requests_in_flight() -> None:
    def close_after_two(conn: PeerConn) -> None:
        conn.read_request()
        conn.read_request()

    with FakePeer(close_after_two) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            results = await asyncio.gather(
                *(client.invoke(peer.addr, request(i), LONG_MS) for i in range(2)), return_exceptions=True
            )
            assert all(isinstance(r, RemotingSendRequestError) for r in results), results
            assert "closed by the peer" in str(results[0])
            assert (await client.invoke(peer.addr, request(3), LONG_MS)).ext_fields == {"i": "3"}

        run(test)
        assert peer.connections == 2


def test_frame_over_max_frame_size_from_the_peer() -> None:
    with FakePeer() as peer:

        async def test(client: AsyncRemotingClient) -> None:
            assert (await client.invoke(peer.addr, request(1, b"s" * 100), LONG_MS)).body == b"s" * 100
            with pytest.raises(FrameError, match="over the maximum frame size 1024"):
                await client.invoke(peer.addr, request(2, b"b" * 2000), LONG_MS)  # echoed back too big

        run(test, max_frame_size=1024)


def test_requests_from_the_peer_are_answered_not_supported() -> None:
    answer: dict[str, Any] = {}

    def asks(conn: PeerConn) -> None:
        req = conn.read_request()
        conn.send(build_frame(RequestCode.CHECK_TRANSACTION_STATE, 777, flag=2))  # oneway: no answer
        conn.send(build_frame(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, 778, flag=0))
        answer.update(conn.read_request())
        conn.answer(req)
        conn.echo_forever()

    with FakePeer(asks) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            assert (await client.invoke(peer.addr, request(1), LONG_MS)).ext_fields == {"i": "1"}

        run(test)
    assert answer["opaque"] == 778 and answer["flag"] == 1
    assert answer["code"] == ResponseCode.REQUEST_CODE_NOT_SUPPORTED
    assert answer["remark"] == f" request type {RequestCode.NOTIFY_CONSUMER_IDS_CHANGED} not supported"


def test_registered_processors_answer_the_peers_requests() -> None:
    answers: list[dict[str, Any]] = []
    seen: list[tuple[int, int, str, dict[str, str]]] = []

    def asks(conn: PeerConn) -> None:
        req = conn.read_request()
        ext = {"consumerGroup": "G"}
        conn.send(build_frame(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, 901, flag=2, ext=ext))  # oneway
        conn.send(build_frame(RequestCode.GET_CONSUMER_RUNNING_INFO, 902, flag=0, ext=ext))  # answered
        conn.send(build_frame(RequestCode.CONSUME_MESSAGE_DIRECTLY, 903, flag=0))  # the processor raises
        answers.append(conn.read_request())
        answers.append(conn.read_request())
        conn.answer(req)
        conn.echo_forever()

    def processor(cmd: RemotingCommand, addr: str) -> RemotingCommand | None:
        seen.append((cmd.code, cmd.opaque, addr, cmd.ext_fields))
        if cmd.code == RequestCode.CONSUME_MESSAGE_DIRECTLY:
            raise RuntimeError("listener broke")
        return RemotingCommand.request(ResponseCode.SUCCESS, {"ok": "yes"}, remark="fine")

    with FakePeer(asks) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            for code in (
                RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
                RequestCode.GET_CONSUMER_RUNNING_INFO,
                RequestCode.CONSUME_MESSAGE_DIRECTLY,
            ):
                client.register_processor(code, processor)
            assert (await client.invoke(peer.addr, request(1), LONG_MS)).ext_fields == {"i": "1"}

        run(test)
    assert [(code, opaque) for code, opaque, _, _ in seen] == [(40, 901), (307, 902), (309, 903)]
    assert seen[0][2] == peer.addr and seen[0][3] == {"consumerGroup": "G"}
    ok, failed = answers
    assert (ok["opaque"], ok["flag"], ok["code"], ok["remark"], ok["extFields"]) == (902, 1, 0, "fine", {"ok": "yes"})
    assert (failed["opaque"], failed["flag"], failed["code"]) == (903, 1, ResponseCode.SYSTEM_ERROR)
    assert failed["remark"] == "RuntimeError: listener broke"


def test_a_processor_may_answer_later_and_the_loop_goes_on_meanwhile() -> None:
    """A processor that returns an awaitable (it waits for a listener on another thread) is answered when that
    completes; other requests and responses go on meanwhile; one that fails later gets SYSTEM_ERROR."""
    answers: list[dict[str, Any]] = []

    def asks(conn: PeerConn) -> None:
        req = conn.read_request()
        conn.send(build_frame(RequestCode.CONSUME_MESSAGE_DIRECTLY, 950, flag=0))  # answered after the echo
        conn.send(build_frame(RequestCode.GET_CONSUMER_RUNNING_INFO, 951, flag=0))  # fails later
        conn.answer(req)
        while len(answers) < 2:  # our two answers, and our next request whenever it comes
            frame = conn.read_request()
            assert frame is not None
            if frame["flag"] & 1:
                answers.append(frame)
            else:
                conn.answer(frame)
        conn.echo_forever()

    release: list[asyncio.Future[None]] = []

    def processor(cmd: RemotingCommand, addr: str) -> Any:
        gate = asyncio.get_running_loop().create_future()
        release.append(gate)

        async def later() -> RemotingCommand:
            await gate
            if cmd.code == RequestCode.GET_CONSUMER_RUNNING_INFO:
                raise ValueError("gone")
            return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, remark="later")

        return later()

    with FakePeer(asks) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            client.register_processor(RequestCode.CONSUME_MESSAGE_DIRECTLY, processor)
            client.register_processor(RequestCode.GET_CONSUMER_RUNNING_INFO, processor)
            # the peer answers our request while its two requests to us wait
            assert (await client.invoke(peer.addr, request(1), LONG_MS)).ext_fields == {"i": "1"}
            assert len(release) == 2 and not answers
            for gate in release:
                gate.set_result(None)
            assert (await client.invoke(peer.addr, request(2), LONG_MS)).ext_fields == {"i": "2"}

        run(test)
    # both gates open in one pass of the loop: the two answers may be written in either order
    later, failed = sorted(answers, key=lambda a: a["opaque"])
    assert (later["opaque"], later["flag"], later["code"], later["remark"]) == (950, 1, 0, "later")
    assert (failed["opaque"], failed["code"], failed["remark"]) == (951, ResponseCode.SYSTEM_ERROR, "ValueError: gone")


def test_unregistered_processor_falls_back_to_not_supported() -> None:
    client = AsyncRemotingClient()
    client.register_processor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, lambda cmd, addr: None)
    client.register_processor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, None)
    assert client._processors == {}


def test_invoke_checked() -> None:
    def error_code(conn: PeerConn) -> None:
        req = conn.read_request()
        conn.answer(req, ResponseCode.TOPIC_NOT_EXIST, remark="Topic route was not found")
        conn.echo_forever()

    with FakePeer(error_code) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            with pytest.raises(RemotingCommandError) as info:
                await client.invoke_checked(peer.addr, request(1), LONG_MS)
            assert (info.value.code, info.value.remark, info.value.addr) == (17, "Topic route was not found", peer.addr)
            assert (await client.invoke_checked(peer.addr, request(2), LONG_MS)).code == 0

        run(test)


def test_invoke_returns_error_responses_as_they_are() -> None:
    def error_code(conn: PeerConn) -> None:
        conn.answer(conn.read_request(), ResponseCode.SYSTEM_BUSY, remark="busy")

    with FakePeer(error_code) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            resp = await client.invoke(peer.addr, request(1), LONG_MS)
            assert (resp.code, resp.remark) == (ResponseCode.SYSTEM_BUSY, "busy")

        run(test)


def test_megabytes_in_flight_past_the_write_high_water_mark() -> None:
    with FakePeer() as peer:

        async def test(client: AsyncRemotingClient) -> None:
            body = bytes(range(256)) * 4096  # 1 MiB, 32 of them, over the 4 MiB high-water mark
            await client.invoke(peer.addr, request(-1), LONG_MS)  # connected: the waves below are not held by it

            async def one(i: int) -> RemotingCommand:
                if i % 2:  # a second wave finds the transport paused and waits for it to drain
                    await asyncio.sleep(0)
                return await client.invoke(peer.addr, request(i, body), LONG_MS)

            resps = await asyncio.gather(*(one(i) for i in range(32)))
            assert all(r.body == body and r.ext_fields == {"i": str(i)} for i, r in enumerate(resps))

        run(test)


def test_the_same_opaque_twice_in_flight_is_refused() -> None:
    release = threading.Event()

    def slow(conn: PeerConn) -> None:
        req = conn.read_request()
        release.wait(LONG_MS / 1000)
        conn.answer(req)
        conn.echo_forever()

    with FakePeer(slow) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            req = request(1)
            first = asyncio.ensure_future(client.invoke(peer.addr, req, LONG_MS))
            while not client.connected(peer.addr) or not peer.received:
                await asyncio.sleep(0.01)
            with pytest.raises(ValueError, match="already in flight"):
                await client.invoke(peer.addr, req, LONG_MS)
            release.set()
            assert (await first).opaque == req.opaque

        run(test)


def test_cancelled_invoke_forgets_its_request() -> None:
    def drop_first(conn: PeerConn) -> None:
        conn.read_request()
        conn.echo_forever()

    with FakePeer(drop_first) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            task = asyncio.ensure_future(client.invoke(peer.addr, request(1), LONG_MS))
            while not peer.received:
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert client._conns[peer.addr].pending == {}
            assert (await client.invoke(peer.addr, request(2), LONG_MS)).ext_fields == {"i": "2"}

        run(test)


def test_close_fails_requests_in_flight_and_later_calls() -> None:
    def read_one(conn: PeerConn) -> None:
        conn.read_request()
        conn.wait_closed()

    with FakePeer(read_one) as peer:

        async def test(client: AsyncRemotingClient) -> None:
            task = asyncio.ensure_future(client.invoke(peer.addr, request(1), LONG_MS))
            while not peer.received:
                await asyncio.sleep(0.01)
            await client.close()
            with pytest.raises(RemotingSendRequestError, match="client was closed"):
                await task
            with pytest.raises(RemotingError, match="closed"):
                await client.invoke(peer.addr, request(2), LONG_MS)

        run(test)
