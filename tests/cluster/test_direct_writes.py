"""Direct connections on Apache RocketMQ 5.5.0 (issue 52, item 2): a write whose deadline passes before its first
byte fails only its own request; the connection stays open for the others. Timeouts under 1 ms are refused where
they are given.

Before the fix, every write error closed the connection: ``invoke(timeout_ms=0)`` failed the 8 requests in flight
beside it, and 40 threads on 1 ms budgets beside 4 threads writing 600 KB frames closed it within 7-57 rounds."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.net import RemotingClient
from rocketroute.protocol import RemotingCommand, RequestCode
from rocketroute.protocol.command import SerializeType
from rocketroute.protocol.errors import RemotingTimeoutError
from rocketroute.protocol.frame import decode_frame, encode_frame


def _frame(topic: str, body: bytes = b"") -> tuple[int, bytes]:
    cmd = RemotingCommand.request(RequestCode.GET_MAX_OFFSET, {"topic": topic, "queueId": 0})
    if body:
        cmd.body = body
    return cmd.opaque, encode_frame(cmd)


@pytest.mark.servers("apache-5.5.0")
def test_writes_out_of_time_fail_alone_and_the_connection_stays_open(cluster, fresh_topic):
    topic = fresh_topic(queues=1, brokers=["broker-a"])
    addr = cluster.broker_addr("broker-a")
    host, port = addr.rsplit(":", 1)
    conn = rr._native._DirectConnection(
        addr, host, int(port), connect_timeout_ms=3000, max_frame_size=16 << 20, language="PYTHON",
        command=RemotingCommand, serialize_type=SerializeType.JSON, decode=decode_frame,
    )  # fmt: skip
    big = b"\x07" * 600_000
    failures: list[str] = []
    timeouts = [0]
    lock = threading.Lock()

    def big_writer() -> None:
        for _ in range(25):
            opaque, frame = _frame(topic, big)
            try:
                conn.invoke(opaque, frame, 10_000, RequestCode.GET_MAX_OFFSET)
            except Exception as e:
                with lock:
                    failures.append(f"600 KB request: {e!r}")

    def tiny_budget() -> None:
        for _ in range(60):
            opaque, frame = _frame(topic)
            try:
                conn.invoke(opaque, frame, 1, RequestCode.GET_MAX_OFFSET)
            except RemotingTimeoutError:
                with lock:
                    timeouts[0] += 1
            except Exception as e:
                with lock:
                    failures.append(f"1 ms request: {e!r}")

    threads = [threading.Thread(target=big_writer) for _ in range(4)]
    threads += [threading.Thread(target=tiny_budget) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    try:
        assert not failures, failures[:3]
        assert not conn.closed
        assert timeouts[0] > 0  # the 1 ms budgets did run out: what they met was handled alone
        # a request with no time at all before its first byte: fails alone, nothing closes
        for _ in range(8):
            opaque, frame = _frame(topic)
            with pytest.raises(RemotingTimeoutError):
                conn.invoke(opaque, frame, 0, RequestCode.GET_MAX_OFFSET)
        assert not conn.closed
        opaque, frame = _frame(topic)
        assert conn.invoke(opaque, frame, 3000, RequestCode.GET_MAX_OFFSET)
    finally:
        conn.close("the test is over")


@pytest.mark.servers("apache-5.5.0")
def test_timeouts_under_one_ms_are_refused_where_they_are_given(cluster, fresh_topic, backend):
    topic = fresh_topic(queues=1, brokers=["broker-a"])
    addr = cluster.broker_addr("broker-a")
    for bad in (0, -5):
        with pytest.raises(ValueError, match="connect_timeout_ms must be at least 1"):
            RemotingClient(connect_timeout_ms=bad)
    with pytest.raises(TypeError, match="connect_timeout_ms must be an int"):
        RemotingClient(connect_timeout_ms=1.5)  # type: ignore[arg-type]
    direct: Any = rr._native._DirectConnection if backend.BACKEND == "native" else None
    with RemotingClient(direct=direct) as client:

        def request() -> RemotingCommand:
            return RemotingCommand.request(RequestCode.GET_MAX_OFFSET, {"topic": topic, "queueId": 0})

        for bad in (0, -1):
            with pytest.raises(ValueError, match="timeout_ms must be at least 1"):
                client.invoke(addr, request(), bad, direct=True)
            with pytest.raises(ValueError, match="timeout_ms must be at least 1"):
                on_loop = client.async_client.invoke(addr, request(), bad)
                asyncio.run_coroutine_threadsafe(on_loop, client.loop).result(5)
        # the client is not harmed: the same request with time to answer, direct and through the loop
        assert client.invoke(addr, request(), 3000, direct=True).code == 0
        assert client.invoke(addr, request(), 3000).code == 0
