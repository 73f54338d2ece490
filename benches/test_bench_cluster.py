"""The producer against one real local broker, Apache RocketMQ 5.5.0's and RocketMQ-Rust 1.0.0's in turn (started as
in tests/cluster): sync sends from 1 and 8 threads, async sends with 256 in flight and batches of 32, 1 KiB
messages, and the limit of the same broker in the same run, a raw sender that pipelines pre-encoded
SEND_MESSAGE_V2 frames on one connection. Each round sends ``extra_info["ops"]`` messages; ratios.py prints, per
server, msgs/s, per-message p50/p99, each variant's share of the raw limit, and the routing core's share of a sync
send's client CPU."""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from tests.cluster.harness import Cluster

from rocketroute.client import Message, SendStatus
from rocketroute.client.producer import Producer
from rocketroute.protocol import RemotingCommand, RequestCode, encode_frame
from rocketroute.protocol.headers import send_header_v2

GROUP = "send 1 KiB to one local broker"
BODY = b"x" * 1024
QUEUES = 8
RAW_N = 4000
ASYNC_N = 4000
BATCH_N = 2048
BATCH_SIZE = 32
SYNC_N = 400
THREADS = 8
WINDOW = 256
SERVERS = ["apache-5.5.0", "rust-1.0.0"]


@pytest.fixture(scope="module", params=SERVERS)
def broker(request: pytest.FixtureRequest) -> Iterator[tuple[Cluster, str]]:
    cluster = Cluster(namesrvs=1, brokers=1, impl=request.param, full_jit=True)
    cluster.start()
    try:
        topic = "BenchTopic"
        cluster.create_topic(topic, QUEUES)
        yield cluster, topic
    finally:
        cluster.close()


def _percentiles(latencies_s: list[float]) -> dict[str, float]:
    qs = statistics.quantiles(latencies_s, n=100, method="inclusive")
    return {"p50_ms": qs[49] * 1e3, "p99_ms": qs[98] * 1e3}


def _record(benchmark: Any, cluster: Cluster, variant: str, ops: int, latencies: list[float]) -> None:
    benchmark.group = GROUP
    benchmark.extra_info.update(
        {"server": cluster.impl.name, "variant": variant, "ops": ops, **_percentiles(latencies)}
    )


def _raw_frames(topic: str, n: int) -> list[bytes]:
    born = int(time.time() * 1000)
    return [
        encode_frame(
            RemotingCommand.request(
                RequestCode.SEND_MESSAGE_V2,
                send_header_v2(
                    producer_group="bench", topic=topic, queue_id=i % QUEUES, born_timestamp=born,
                    properties="WAIT\x01true\x02",
                ),
                BODY,
            )
        )
        for i in range(n)
    ]  # fmt: skip


async def _raw_round(addr: str, frames: list[bytes]) -> list[float]:
    """Write every frame at once on one connection, read every response; per-message latency: from the write of
    the batch to its response (a pipelined sender's view)."""
    host, port = addr.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    start = time.perf_counter()
    writer.write(b"".join(frames))
    latencies = []
    for _ in frames:
        head = await reader.readexactly(4)
        await reader.readexactly(int.from_bytes(head, "big"))
        latencies.append(time.perf_counter() - start)
    writer.close()
    await writer.wait_closed()
    return latencies


def test_raw_pipelined_sender(benchmark: Any, lib: ModuleType, broker: tuple[Cluster, str]) -> None:
    cluster, topic = broker
    addr = cluster.broker_addr("broker-a")
    latencies: list[float] = []

    def run() -> None:
        latencies[:] = asyncio.run(_raw_round(addr, _raw_frames(topic, RAW_N)))

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    _record(benchmark, cluster, "raw pipelined (limit)", RAW_N, latencies)


@pytest.fixture
def producer(lib: ModuleType, broker: tuple[Cluster, str]) -> Iterator[Producer]:
    cluster, topic = broker
    with Producer(cluster.namesrv_addrs, "bench", backend=lib) as p:
        p.publish_info(topic)
        yield p


def test_async_sends(benchmark: Any, lib: ModuleType, broker: tuple[Cluster, str], producer: Producer) -> None:
    cluster, topic = broker
    latencies: list[float] = []

    async def one(sem: asyncio.Semaphore) -> None:
        async with sem:
            t = time.perf_counter()
            r = await producer.send_async(Message(topic, BODY))
            latencies.append(time.perf_counter() - t)
            assert r.send_status is SendStatus.SEND_OK

    async def round_() -> None:
        sem = asyncio.Semaphore(WINDOW)
        await asyncio.gather(*(one(sem) for _ in range(ASYNC_N)))

    def run() -> None:
        latencies.clear()
        asyncio.run(round_())

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    _record(benchmark, cluster, f"async ({WINDOW} in flight)", ASYNC_N, latencies)


def test_batch_sends(benchmark: Any, lib: ModuleType, broker: tuple[Cluster, str], producer: Producer) -> None:
    cluster, topic = broker
    latencies: list[float] = []
    msgs = [Message(topic, BODY) for _ in range(BATCH_SIZE)]

    def run() -> None:
        latencies.clear()
        for _ in range(BATCH_N // BATCH_SIZE):
            t = time.perf_counter()
            producer.send_batch(msgs)
            latencies.append(time.perf_counter() - t)

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    _record(benchmark, cluster, f"sync batches of {BATCH_SIZE}", BATCH_N, latencies)


def test_sync_sends_from_8_threads(
    benchmark: Any, lib: ModuleType, broker: tuple[Cluster, str], producer: Producer
) -> None:
    cluster, topic = broker
    latencies: list[float] = []
    lock = threading.Lock()

    def worker() -> None:
        mine = []
        for _ in range(SYNC_N // THREADS * 2):
            t = time.perf_counter()
            producer.send(Message(topic, BODY))
            mine.append(time.perf_counter() - t)
        with lock:
            latencies.extend(mine)

    def run() -> None:
        latencies.clear()
        threads = [threading.Thread(target=worker) for _ in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    _record(benchmark, cluster, f"sync, {THREADS} threads", SYNC_N * 2, latencies)


def test_sync_sends(benchmark: Any, lib: ModuleType, broker: tuple[Cluster, str], producer: Producer) -> None:
    cluster, topic = broker
    latencies: list[float] = []
    cpu: list[float] = []

    def run() -> None:
        latencies.clear()
        c0 = time.process_time()
        for _ in range(SYNC_N):
            t = time.perf_counter()
            producer.send(Message(topic, BODY))
            latencies.append(time.perf_counter() - t)
        cpu.append((time.process_time() - c0) / SYNC_N)

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    _record(benchmark, cluster, "sync, 1 thread", SYNC_N, latencies)
    # The routing core's part of a send: the queue selection and the fault-item update sendDefaultImpl makes,
    # timed alone, against the client CPU of a whole send (process time: both threads of the producer)
    info, strategy = producer.publish_info(topic), producer.strategy
    reps = 20_000
    c0 = time.process_time()
    for _ in range(reps):
        mq = strategy.select_one_message_queue(info, None, False)
        strategy.update_fault_item(mq.broker_name, 1, False, True)
    routing = (time.process_time() - c0) / reps
    benchmark.extra_info["client_cpu_us"] = min(cpu) * 1e6
    benchmark.extra_info["routing_cpu_us"] = routing * 1e6
    benchmark.extra_info["routing_share"] = routing / min(cpu)
