"""``RemotingClient.caller_loops`` (``rocketroute.net.caller_loops``): another loop than the client's gets an
``AsyncRemotingClient`` of its own, on connections of its own, closed when that loop ends (``asyncio.run``) or when
the threaded client closes; against fake peers."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import AsyncGenerator

import pytest

from rocketroute.net import AsyncRemotingClient, RemotingClient
from rocketroute.protocol import RemotingCommand, RemotingError, RequestCode

from .._loop_thread import loop_in_thread, until_closed
from ._peer import FakePeer, PeerConn

LONG_MS = 30_000


def request(i: int) -> RemotingCommand:
    return RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {"i": str(i)}, b"body")


def test_another_loop_gets_a_client_of_its_own_on_a_connection_of_its_own() -> None:
    with FakePeer() as peer, RemotingClient() as client:

        async def main() -> tuple[AsyncRemotingClient, asyncio.AbstractEventLoop, list[str]]:
            here = client.caller_loops.here()
            assert here is not client.async_client and here is client.caller_loops.here()
            answers = await asyncio.gather(*(here.invoke(peer.addr, request(i), LONG_MS) for i in range(20)))
            assert here.connected(peer.addr)
            return here, asyncio.get_running_loop(), [a.ext_fields["i"] for a in answers]

        first, loop, answered = asyncio.run(main())
        assert answered == [str(i) for i in range(20)]
        assert peer.connections == 1 and not client.connected(peer.addr)  # this loop's, not the client's own
        assert client.invoke(peer.addr, request(99), LONG_MS).ext_fields["i"] == "99"
        assert peer.connections == 2  # the client's own loop connects for its own caller
        second, _, _ = asyncio.run(main())
        assert second is not first and peer.connections == 3  # a new loop, a new client
        del loop


def test_the_loop_ending_closes_its_client_and_its_connections() -> None:
    closed = threading.Event()

    def until_closed(conn: PeerConn) -> None:
        conn.echo_forever()  # returns when the client closes the connection
        closed.set()

    with FakePeer(until_closed) as peer, RemotingClient() as client:

        async def main() -> AsyncRemotingClient:
            here = client.caller_loops.here()
            await here.invoke(peer.addr, request(1), LONG_MS)
            return here

        here = asyncio.run(main())
        gc.collect()
        assert here.closed and closed.wait(10)
        assert client.caller_loops.clients() == {}  # forgotten with its loop


def test_closing_the_threaded_client_closes_the_other_loops_clients() -> None:
    with loop_in_thread() as loop, FakePeer() as peer:
        client = RemotingClient()

        async def send() -> AsyncRemotingClient:
            here = client.caller_loops.here()
            await here.invoke(peer.addr, request(1), LONG_MS)
            return here

        here = asyncio.run_coroutine_threadsafe(send(), loop).result(10)
        assert here.connected(peer.addr)
        client.close()  # from this thread: closed on its loop

        async def after() -> bool:
            closed = await until_closed(here, peer.addr)
            with pytest.raises(RemotingError, match="closed"):
                client.caller_loops.here()
            return closed

        assert asyncio.run_coroutine_threadsafe(after(), loop).result(10)


def test_a_loop_closed_by_hand_is_let_go_when_another_loop_comes() -> None:
    with FakePeer() as peer, RemotingClient() as client:

        async def main() -> AsyncRemotingClient:
            here = client.caller_loops.here()
            await here.invoke(peer.addr, request(1), LONG_MS)
            return here

        loop = asyncio.new_event_loop()
        here = loop.run_until_complete(main())
        for conn in list(here._conns.values()):  # what the loop's owner would close before closing it
            conn.transport.close()  # type: ignore[union-attr]
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()  # no shutdown_asyncgens: nothing closed the client
        assert list(client.caller_loops.clients().values()) == [here] and not here.closed
        later = asyncio.run(main())
        assert list(client.caller_loops.clients().values()) == [] and later is not here
        assert here.closed


def test_a_loop_ending_its_async_generators_gets_no_new_client() -> None:
    with RemotingClient() as client:
        refused: list[BaseException] = []

        async def cleanup() -> AsyncGenerator[None, None]:
            try:
                yield
            finally:  # runs in loop.shutdown_asyncgens(), after asyncio.run's main returned
                try:
                    client.caller_loops.here()
                except RemotingError as e:
                    refused.append(e)

        async def main() -> AsyncGenerator[None, None]:
            gen = cleanup()
            await gen.asend(None)  # parked: closed by the loop as it ends
            return gen

        held = asyncio.run(main())
        assert [str(e) for e in refused] == ["the event loop is ending: it takes no new connections"]
        assert client.caller_loops.clients() == {}
        del held
