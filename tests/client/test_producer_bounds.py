"""The producer's bounds without a cluster (issue 27): a send whose route lookup meets a stalled name server ends
within its own budget with SendFailedError (item 8), blocking calls on the client's loop thread fail at once instead
of deadlocking (item 3), and a producer dropped without shutdown() releases its threads and sockets (item 13)."""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
import warnings

import pytest

from rocketroute.client import Message, Producer
from rocketroute.errors import SendFailedError

from ..net._peer import FakePeer, PeerConn


def silent(conn: PeerConn) -> None:
    """A name server that reads every request and answers none."""
    while conn.read_request() is not None:
        pass


@pytest.fixture
def stalled_namesrv():
    with FakePeer(*[silent] * 10) as peer:
        yield peer


def test_a_send_is_bounded_by_its_budget_while_the_name_server_stalls(stalled_namesrv) -> None:
    with Producer(stalled_namesrv.addr, "PG", send_msg_timeout=500) as producer:
        begin = time.monotonic()
        with pytest.raises(
            SendFailedError, match=r"No route info of this topic: T.*within send_msg_timeout \(500 ms\)"
        ):
            producer.send(Message("T", b"x"))
        took = time.monotonic() - begin
        # the name server's own timeout (mq_client_api_timeout, 3000 ms) is not waited for
        assert took < 2.0, took
        begin = time.monotonic()
        with pytest.raises(SendFailedError, match="within send_msg_timeout"):
            producer.send(Message("T", b"x"), timeout_ms=300)
        assert time.monotonic() - begin < 2.0


def test_an_async_send_is_bounded_by_its_budget_while_the_name_server_stalls(stalled_namesrv) -> None:
    with Producer(stalled_namesrv.addr, "PG", send_msg_timeout=500) as producer:

        async def main() -> float:
            begin = time.monotonic()
            with pytest.raises(SendFailedError, match="within send_msg_timeout"):
                await producer.send_async(Message("T", b"x"))
            return time.monotonic() - begin

        assert asyncio.run(main()) < 2.0


def test_blocking_calls_on_the_loop_thread_fail_at_once(stalled_namesrv) -> None:
    with Producer(stalled_namesrv.addr, "PG") as producer:
        outcome: list[BaseException] = []
        done = threading.Event()

        def on_loop() -> None:
            try:
                producer.publish_info("T")
            except BaseException as e:
                outcome.append(e)
            done.set()

        producer._life.remoting.loop.call_soon_threadsafe(on_loop)
        assert done.wait(5)
        assert isinstance(outcome[0], RuntimeError) and "event-loop thread" in str(outcome[0])


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_dropped_producers_are_collected_and_closed(stalled_namesrv) -> None:
    gc.collect()
    threads, fds = threading.active_count(), _fds()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(20):
            Producer(stalled_namesrv.addr, "PG", poll_name_server_interval=50).start()
        gc.collect()
        deadline = time.monotonic() + 10
        while threading.active_count() > threads and time.monotonic() < deadline:
            time.sleep(0.05)
    assert threading.active_count() <= threads, [t.name for t in threading.enumerate()]
    assert _fds() <= fds + 2
    unclosed = [w for w in caught if issubclass(w.category, ResourceWarning) and "unclosed <Producer" in str(w.message)]
    assert len(unclosed) == 20


def test_a_producer_shut_down_is_not_warned_about(stalled_namesrv) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Producer(stalled_namesrv.addr, "PG").start().shutdown()
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]


def test_a_connect_in_flight_at_shutdown_is_ended_not_leaked(stalled_namesrv) -> None:
    """A producer fetches create_topic_key's route at start; shut down at once, that connect (or request) is still
    under way: closing the client cancels it and waits for it to end, so its socket is closed rather than left to
    the garbage collector (it was, in about 2 of 3 quick start/shutdown pairs)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(30):
            Producer(stalled_namesrv.addr, "PG").start().shutdown()
        gc.collect()
    assert not [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
