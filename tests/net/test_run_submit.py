"""The runtime's two cross-thread calls: ``submit`` (start a coroutine on the client's loop, from any thread) and
``run`` (start it and wait, bounded), with no peer."""

from __future__ import annotations

import asyncio
import threading

import pytest

from rocketroute.net import RemotingClient


def test_run_returns_the_result_computed_on_the_loop_thread() -> None:
    async def where() -> str:
        await asyncio.sleep(0)
        return threading.current_thread().name

    with RemotingClient() as client:
        assert client.run(where()) == "rocketroute-remoting"
        assert client.submit(where()).result(5) == "rocketroute-remoting"


def test_run_raises_what_the_coroutine_raised() -> None:
    async def fails() -> None:
        raise KeyError("k")

    with RemotingClient() as client, pytest.raises(KeyError):
        client.run(fails())


def test_run_past_its_bound_cancels_the_coroutine_and_raises_timeout_error() -> None:
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with RemotingClient() as client:
        with pytest.raises(TimeoutError):
            client.run(forever(), 0.05)
        assert cancelled.wait(5)


def test_run_on_the_loop_thread_is_refused_at_once_and_the_coroutine_closed() -> None:
    outcome: list[BaseException] = []

    async def inner() -> None:
        return None

    async def on_loop(client: RemotingClient) -> None:
        coro = inner()
        try:
            client.run(coro, 5)
        except RuntimeError as e:
            outcome.append(e)
        assert coro.cr_frame is None  # closed: no "coroutine was never awaited" warning

    with RemotingClient() as client:
        client.submit(on_loop(client)).result(5)
    assert outcome and "event loop" in str(outcome[0])
