"""Direct connections (``rocketroute.net.direct``): ``RemotingClient.invoke(..., direct=True)`` from a blocking
thread on the native core's connection, against fake peers: the same responses and errors as the event loop's
path, on a connection of its own, made again after it breaks, closed with the client.

The class is the native backend's; with the reference backend the client has no direct connections and
``direct=True`` goes through the loop (the last test), so the rest of the suite runs that path on both."""

from __future__ import annotations

import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import rocketroute
from rocketroute.net import RemotingClient
from rocketroute.net.direct import DIRECT_MAX_BODY, direct_connection_class
from rocketroute.protocol import (
    FrameError,
    RemotingCommand,
    RemotingConnectError,
    RemotingError,
    RemotingSendRequestError,
    RemotingTimeoutError,
    RequestCode,
    ResponseCode,
)
from rocketroute.protocol.acl import Credentials

from ._peer import FakePeer, PeerConn, build_frame, free_port

pytestmark = pytest.mark.skipif(rocketroute.BACKEND != "native", reason="direct connections are the native core's")

LONG_MS = 30_000


def request(i: int = 0, body: bytes | None = None) -> RemotingCommand:
    return RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {"i": i}, body)


def direct_client(**kwargs: object) -> RemotingClient:
    return RemotingClient(direct=direct_connection_class(rocketroute), **kwargs)  # type: ignore[arg-type]


def test_a_direct_request_gets_the_response_the_loop_gets_on_a_connection_of_its_own() -> None:
    with FakePeer() as peer, direct_client() as client:
        through_loop = client.invoke(peer.addr, request(3, b"b"), LONG_MS)
        direct = client.invoke(peer.addr, request(3, b"b"), LONG_MS, direct=True)
        assert (direct.code, direct.ext_fields, direct.body, direct.flag & 1) == (0, {"i": "3"}, b"b", 1)
        assert (direct.language, direct.version) == (through_loop.language, through_loop.version)
        assert peer.connections == 2  # the loop's, then the direct one
        for i in range(5):  # kept and reused
            assert client.invoke(peer.addr, request(i), LONG_MS, direct=True).ext_fields == {"i": str(i)}
        assert peer.connections == 2
        assert client._direct is not None and client._direct.connected(peer.addr)


def test_from_8_threads_at_once_each_gets_its_own_response() -> None:
    with FakePeer() as peer, direct_client() as client:

        def worker(t: int) -> list[tuple[str, str]]:
            out = []
            for k in range(200):
                i = t * 1000 + k
                resp = client.invoke(peer.addr, request(i, str(i).encode()), LONG_MS, direct=True)
                out.append((resp.ext_fields["i"], resp.body.decode()))
            return out

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(worker, range(8)))
        for t, pairs in enumerate(results):
            assert pairs == [(str(t * 1000 + k), str(t * 1000 + k)) for k in range(200)]
    assert peer.connections == 1  # no request went through the loop


def test_timeout_sends_the_address_through_the_loop_until_the_loop_gets_an_answer() -> None:
    release = threading.Event()
    on_direct: list[str] = []

    def silent_first(conn: PeerConn) -> None:
        first = conn.read_request()
        assert first is not None
        release.wait(LONG_MS / 1000)
        conn.answer(first)  # late: dropped by the client
        while (request := conn.read_request()) is not None:
            on_direct.append(request["extFields"]["i"])
            conn.answer(request)

    with FakePeer(silent_first) as peer, direct_client() as client:
        started = time.monotonic()
        with pytest.raises(RemotingTimeoutError) as info:
            client.invoke(peer.addr, request(1), 150, direct=True)
        assert time.monotonic() - started >= 0.15
        error = info.value
        assert (error.addr, error.timeout_ms, error.code) == (peer.addr, 150, RequestCode.SEND_MESSAGE_V2)
        release.set()
        # a broker that stopped answering gets no more frames written straight into its socket: the next request
        # goes through the loop (its own connection), and once that is answered the direct connection is used again
        assert client.invoke(peer.addr, request(2), LONG_MS, direct=True).ext_fields == {"i": "2"}
        assert peer.connections == 2 and on_direct == []
        assert client.invoke(peer.addr, request(3), LONG_MS, direct=True).ext_fields == {"i": "3"}
        assert peer.connections == 2 and on_direct == ["3"]


def test_a_body_over_1_mib_goes_through_the_loop() -> None:
    with FakePeer() as peer, direct_client() as client:
        big = b"x" * (DIRECT_MAX_BODY + 1)
        assert client.invoke(peer.addr, request(1, big), LONG_MS, direct=True).body == big
        assert client._direct is not None and not client._direct.connected(peer.addr)
        assert client.invoke(peer.addr, request(2, big[:-1]), LONG_MS, direct=True).body == big[:-1]
        assert client._direct.connected(peer.addr) and peer.connections == 2


def test_the_peer_closing_fails_the_request_and_a_later_one_connects_again() -> None:
    def close_at_first(conn: PeerConn) -> None:
        conn.read_request()

    with FakePeer(close_at_first) as peer, direct_client() as client:
        with pytest.raises(RemotingSendRequestError) as info:
            client.invoke(peer.addr, request(1), LONG_MS, direct=True)
        assert info.value.addr == peer.addr and "connection closed by the peer" in str(info.value)
        assert client.invoke(peer.addr, request(2), LONG_MS, direct=True).ext_fields == {"i": "2"}
        assert peer.connections == 2  # through the loop's connection: the address stalled
        assert client.invoke(peer.addr, request(3), LONG_MS, direct=True).ext_fields == {"i": "3"}
        assert peer.connections == 3 and client._direct is not None and client._direct.connected(peer.addr)


def test_nothing_listening_is_a_connect_error() -> None:
    addr = f"127.0.0.1:{free_port()}"
    with direct_client(connect_timeout_ms=1000) as client, pytest.raises(RemotingConnectError) as info:
        client.invoke(addr, request(), LONG_MS, direct=True)
    assert info.value.addr == addr and not isinstance(info.value, RemotingSendRequestError)


def test_a_frame_over_the_maximum_is_a_frame_error_and_closes_the_connection() -> None:
    def huge(conn: PeerConn) -> None:
        conn.read_request()
        conn.send(struct.pack(">i", 10_000_000))
        conn.wait_closed()

    with FakePeer(huge) as peer, direct_client(max_frame_size=1 << 20) as client:
        with pytest.raises(FrameError) as info:
            client.invoke(peer.addr, request(), LONG_MS, direct=True)
        assert info.value.addr == peer.addr and "over the maximum frame size 1048576" in str(info.value)
        assert client.invoke(peer.addr, request(2), LONG_MS, direct=True).ext_fields == {"i": "2"}


def test_a_request_from_the_peer_is_answered_request_code_not_supported() -> None:
    answered: list[dict[str, object]] = []

    def asks_first(conn: PeerConn) -> None:
        first = conn.read_request()
        assert first is not None
        conn.send(build_frame(RequestCode.CHECK_TRANSACTION_STATE, 77, 0))
        answer = conn.read_request()
        assert answer is not None
        answered.append(answer)
        conn.answer(first)
        conn.echo_forever()

    with FakePeer(asks_first) as peer, direct_client(language="GO") as client:
        assert client.invoke(peer.addr, request(1), LONG_MS, direct=True).ext_fields == {"i": "1"}
    [answer] = answered
    assert (answer["code"], answer["opaque"], answer["flag"], answer["language"]) == (
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        77,
        1,
        "GO",
    )
    assert answer["remark"] == f" request type {RequestCode.CHECK_TRANSACTION_STATE} not supported"


def test_the_request_is_signed_and_carries_the_clients_language() -> None:
    creds = Credentials("ak", "sk")
    with FakePeer() as peer, direct_client(credentials=creds, language="GO") as client:
        client.invoke(peer.addr, request(1), LONG_MS, direct=True)
    [sent] = peer.received
    assert sent["language"] == "GO"
    assert sent["extFields"]["AccessKey"] == "ak" and sent["extFields"]["Signature"]


def test_oneway_is_written_by_the_caller_with_the_oneway_flag() -> None:
    with FakePeer() as peer, direct_client() as client:
        one = request(1)
        assert client.invoke_oneway(peer.addr, one, direct=True) is None
        assert client.invoke(peer.addr, request(2), LONG_MS, direct=True).ext_fields == {"i": "2"}
    assert [r["flag"] & 2 for r in peer.received] == [2, 0]
    assert peer.connections == 1


def test_closing_the_client_fails_a_waiting_request_and_refuses_new_ones() -> None:
    def silent(conn: PeerConn) -> None:
        conn.wait_closed()

    with FakePeer(silent) as peer:
        client = direct_client()
        outcome: list[BaseException] = []

        def wait() -> None:
            try:
                client.invoke(peer.addr, request(), LONG_MS, direct=True)
            except BaseException as e:
                outcome.append(e)

        waiting = threading.Thread(target=wait)
        waiting.start()
        while not (client._direct is not None and client._direct.connected(peer.addr)):
            time.sleep(0.01)
        time.sleep(0.05)
        client.close()
        waiting.join(10)
        [error] = outcome
        assert isinstance(error, RemotingSendRequestError) and "the remoting client was closed" in str(error)
        with pytest.raises(RemotingError, match="closed"):
            client.invoke(peer.addr, request(), LONG_MS, direct=True)


def test_no_direct_connections_with_tls() -> None:
    client = direct_client(tls=True)
    try:
        assert client._direct is None
    finally:
        client.close()


def test_the_reference_backend_has_no_direct_connections() -> None:
    assert direct_connection_class(rocketroute.reference) is None
    with FakePeer() as peer, RemotingClient(direct=direct_connection_class(rocketroute.reference)) as client:
        assert client.invoke(peer.addr, request(1), LONG_MS, direct=True).ext_fields == {"i": "1"}
    assert peer.connections == 1  # through the loop's connection
