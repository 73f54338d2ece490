"""``make bench-clients``: rocketroute's producer and consumer against the Java client's, on the same brokers.

Clients: the real Java ``DefaultMQProducer`` (the 5.5.0 jar ``make clients`` resolves; ``tests/peers/java/
ProducerBench.java`` drives it), the real Go client (``github.com/apache/rocketmq-client-go/v2`` as pinned in
``tests/peers/go/go.mod``; ``tests/peers/go/bench`` drives it, built once per run with ``go build``), and
``rr.Producer`` on the native and on the reference backend. Each run is a process of its own, so its CPU time
(user + system, every thread) is the client's alone.

Consumers (the consumer shapes): the Java ``DefaultMQPushConsumer`` (``tests/peers/java/ConsumerBench.java``) and
``rr.Consumer`` on both backends read one topic from its first offset, each as a new group; in the lite pull shape,
Java's ``DefaultLitePullConsumer`` (the same driver) and ``rr.LitePullConsumer`` are polled on one thread, and
``rr.aio.LitePullConsumer`` read with ``async for msgs in consumer.batches()`` (the Go client has no lite pull
consumer).

Brokers: the instant peer (``rust/peer``: a name server and broker in one that answers every request at once from
canned responses and stores nothing, so the client's own ceiling shows: every send is SEND_OK, every pull finds
messages the peer makes up, ``--messages-per-queue`` per queue) and Apache RocketMQ 5.5.0's name server and broker
(small heap, this machine), whose consumer topic :func:`fill` fills beforehand. Each broker's own ceilings are
measured in the same run by the peer's ``raw-send`` (pre-encoded SEND_MESSAGE_V2 frames pipelined on one
connection, 256 unanswered) and ``raw-pull`` (pre-encoded PULL_MESSAGE frames of 32 messages, 16 unanswered).

Figures per shape: messages/s, p50 / p99 latency of a send (of a batch for ``batch32``), and client CPU per
message, each beside the Java client's as a ratio. ``--rounds N`` runs each client N times, round after round (a
slow phase of a shared machine is spread over the clients and the rounds, not laid on one client's only run), and
keeps the run of the median msgs/s, which leaves out the run a slow phase hit hardest.
``--json`` keeps the run; ``--keep`` writes the docs' copy.

What makes the comparison fair (issue 52, item 10):

- The Java client runs as production runs it: the JVM's own defaults (G1, a heap of a quarter of the machine's
  memory, C2), never the tests' small JVM; that one is the labelled ``java-test-jvm`` variant, run only when
  ``--clients`` names it.
- Every client warms up until its throughput is steady: windows of about a second until three in a row are within
  5 % of their mean msgs/s (:data:`MAX_WARMUP_S` at most), the same rule in the Java driver, the Python runs and
  the Java consumer (whose warm-up passes are groups of their own reading the topic's first messages). The warm-up's
  length, whether it became steady, and the JIT's compilation time and the GC's time inside the measured part are
  reported beside the figures. The Go client is compiled ahead of time and warms up by its ``warmup`` messages.
- The clients' order turns each round, so none always runs first or after the same other one.
- Around each client's run the 1-minute load average and the cores used by processes outside the benchmark (the
  machine's busy time less this process tree's) are read; a run in which the others used more than
  :data:`OTHERS_MAX` cores is not written to ``--keep`` (the docs' copy), and the command exits 2.

    python benches/bench_clients.py [--quick] [--rounds 3] [--servers instant,apache-5.5.0] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOPIC = "BenchTopic"
QUEUES = 8
JAVA_CLIENT = "5.5.0"
CLIENTS = ("java", "go", "native", "reference", "aio")
DOCS_CLIENTS = ("java", "go", "native", "aio")
"""The clients of the docs' table (``make bench-clients-docs``): those that make a claim beside Java's. The
``reference`` backend (pure Python, the native backend's twin) is in ``make bench-clients`` and left out there: a
full three-round run without it fits a quiet hour of this machine."""
VARIANTS = ("java-test-jvm",)
"""Clients a run takes only when ``--clients`` names them: ``java-test-jvm`` is the Java client in the JVM the tests
give their peers (a 256 MiB heap, the serial GC, C1 only), a labelled second variant beside ``java``, which runs as
production does (the JVM's defaults: G1, a quarter of the memory as heap, C2)."""
MAX_WARMUP_S = 30.0
"""The longest a client warms up before its measured part (``--quick``: one window)."""
STEADY = 0.05
"""Warm when three windows (about 1 s each) in a row are within this share of their mean msgs/s."""
"""``go`` is the Go client in every shape, each expressed with its own API: ``SendSync`` from that many goroutines,
``SendAsync`` under a semaphore of ``in_flight``, ``SendSync`` of 32 messages (its batch), keyed through
``NewHashQueueSelector`` (fnv32a of the sharding key, where Java hashes with ``String.hashCode``: the same keys, other
queues), its push consumer with ``ConsumeMessageBatchMaxSize``; retries off. ``aio`` is ``rr.aio.Producer`` (native
backend) on the sender's own loop, for the async shapes, and ``rr.aio.Consumer`` read with ``async for`` (a
batch at a time) for the consumer shapes."""
SERVERS = ("instant", "apache-5.5.0")


@dataclass(frozen=True)
class Shape:
    """One way of sending: ``mode`` sync (``threads`` senders), async (``in_flight`` unanswered) or batch (sync
    batches of ``in_flight``); ``count`` messages measured after ``warmup``."""

    name: str
    mode: str
    threads: int = 1
    in_flight: int = 1
    body: int = 1024
    keyed: bool = False
    count: int = 20_000
    warmup: int = 5_000


SHAPES = (
    Shape("sync 1 thread", "sync", count=10_000, warmup=3_000),
    Shape("sync 8 threads", "sync", threads=8, count=20_000),
    Shape("async 1 in flight", "async", count=10_000, warmup=3_000),
    Shape("async 64 in flight", "async", in_flight=64, count=50_000, warmup=10_000),
    Shape("async 1024 in flight", "async", in_flight=1024, count=50_000, warmup=10_000),
    Shape("batch 32", "batch", in_flight=32, count=64_000, warmup=16_000),
    Shape("sync 1 thread, 16 KiB", "sync", body=16 * 1024, count=5_000, warmup=2_000),
    Shape("async 64 in flight, 16 KiB", "async", in_flight=64, body=16 * 1024, count=20_000, warmup=5_000),
    Shape("sync 1 thread, keyed", "sync", keyed=True, count=10_000, warmup=3_000),
    Shape("async 64 in flight, keyed", "async", in_flight=64, keyed=True, count=50_000, warmup=10_000),
)


@dataclass(frozen=True)
class ConsumerShape:
    """A push consumer reading a topic filled beforehand, from its first offset, ``batch`` messages per listener
    call (``consume_message_batch_max_size``) to a listener that only counts; ``count`` messages measured after
    ``warmup``. On the instant peer the topic is filled by the peer's ``--messages-per-queue`` (every pull answered
    at once from canned messages of the same 1 KiB bodies), on a real broker by :func:`fill` beforehand."""

    name: str
    batch: int
    count: int = 40_000
    warmup: int = 8_000
    mode: str = "consume"
    kind: str = "push"
    """``push`` (``DefaultMQPushConsumer`` / ``rr.Consumer``) or ``lite`` (``DefaultLitePullConsumer`` /
    ``rr.LitePullConsumer`` polled on one thread, ``batch`` its ``pull_batch_size``: the most messages a poll
    returns)."""


CONSUMER_SHAPES = (ConsumerShape("consume, 1 per call", 1), ConsumerShape("consume, 32 per call", 32))
LITE_PULL_SHAPES = (ConsumerShape("lite pull, 32 per poll", 32, kind="lite"),)
"""The lite pull consumers (Java's and ours; the Go client has none). Not in the docs' kept run yet: it predates
them (``make bench-clients-docs`` adds them)."""
CONSUMER_TOPIC = "BenchConsume"


def quick(shape: Any) -> Any:
    """The shape with a few hundred messages: the CI smoke run (every client, every shape, figures meaningless)."""
    per = shape.in_flight if shape.mode == "batch" else 1
    return type(shape)(**{**asdict(shape), "count": 200 * per, "warmup": 50 * per})


def body(size: int) -> bytes:
    """Printable bytes that compress as text does (both clients compress bodies over 4 KiB); the Java driver makes
    the same ones."""
    out = bytearray(size)
    x = 12345
    for i in range(size):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out[i] = ord("a") + (x >> 16) % 26
    return bytes(out)


# -- one client run, in a process of its own -------------------------------------------------------------------


def run_aio(namesrv: str, shape: Shape, max_warmup_s: float = MAX_WARMUP_S) -> dict[str, Any]:
    """``rr.aio.Producer`` sends an async ``shape`` from ``in_flight`` coroutines on its own loop."""
    import rocketroute as rr
    from rocketroute.client import Message, SendStatus

    payload = body(shape.body)
    selector = rr.SelectMessageQueueByHash() if shape.keyed else None

    async def main() -> tuple[list[float], float, float, dict[str, Any]]:
        async with rr.aio.Producer(namesrv, "bench-aio", send_msg_timeout=10_000) as producer:

            async def run(n: int) -> list[float]:
                lat = [0.0] * n
                counter = iter(range(n))

                async def sender() -> None:
                    for i in counter:
                        t0 = time.perf_counter()
                        msg = Message(TOPIC, payload)
                        r = await (producer.send(msg, selector, f"k{i % 1000}") if selector else producer.send(msg))
                        lat[i] = time.perf_counter() - t0
                        if r.send_status is not SendStatus.SEND_OK:
                            raise RuntimeError(f"send status {r.send_status}")

                await asyncio.gather(*(sender() for _ in range(shape.in_flight)))
                return lat

            warm = await warm_up_async(run, shape.warmup, max_warmup_s)
            cpu0, t0 = time.process_time(), time.perf_counter()
            lat = await run(shape.count)
            return lat, time.perf_counter() - t0, time.process_time() - cpu0, warm

    lat, wall, cpu, warm = asyncio.run(main())
    return {**_figures(lat, shape.count, wall, cpu), **warm}


def _figures(lat: list[float], msgs: int, wall: float, cpu: float) -> dict[str, Any]:
    lat = sorted(lat)
    return {
        "msgs": msgs,
        "seconds": wall,
        "msgs_per_s": msgs / wall,
        "p50_ms": lat[int(len(lat) * 0.5)] * 1e3,
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e3,
        "cpu_s": cpu,
    }


def steady(rates: list[float]) -> bool:
    """Whether the last three windows' msgs/s are within :data:`STEADY` of their mean (the drivers' rule)."""
    if len(rates) < 3:
        return False
    last = rates[-3:]
    return max(last) - min(last) <= STEADY * sum(last) / 3


def warm_up(run: Callable[[int], list[float]], first: int, per_call: int, max_s: float) -> dict[str, Any]:
    """Run windows of about a second (``first`` messages, then a second's worth) until :func:`steady`, at most
    ``max_s``: the Java drivers' warm-up, the same for every client. ``per_call``: messages per latency sample."""
    rates: list[float] = []
    begin = time.perf_counter()
    n = first
    while True:
        t0 = time.perf_counter()
        lat = run(n)
        rates.append(len(lat) * per_call / (time.perf_counter() - t0))
        if steady(rates) or time.perf_counter() - begin >= max_s:
            break
        n = max(per_call if per_call > 1 else 50, int(rates[-1]))
        if per_call > 1:
            n -= n % per_call
    return {"warmup_s": time.perf_counter() - begin, "steady": steady(rates), "warmup_rates": rates}


async def warm_up_async(run: Callable[[int], Any], first: int, max_s: float) -> dict[str, Any]:
    """:func:`warm_up` of a coroutine ``run(n)``."""
    rates: list[float] = []
    begin = time.perf_counter()
    n = first
    while True:
        t0 = time.perf_counter()
        await run(n)
        rates.append(n / (time.perf_counter() - t0))
        if steady(rates) or time.perf_counter() - begin >= max_s:
            break
        n = max(50, int(rates[-1]))
    return {"warmup_s": time.perf_counter() - begin, "steady": steady(rates), "warmup_rates": rates}


def run_python(namesrv: str, shape: Shape, max_warmup_s: float = MAX_WARMUP_S) -> dict[str, Any]:
    """``rr.Producer`` (the backend ``ROCKETROUTE_BACKEND`` chose) sends ``shape``; the figures as the Java driver
    writes them."""
    import rocketroute as rr
    from rocketroute.client import Message, SendStatus
    from rocketroute.client.producer import Producer

    payload = body(shape.body)
    selector = rr.SelectMessageQueueByHash() if shape.keyed else None
    with Producer(namesrv, "bench-python", send_msg_timeout=10_000) as producer:

        def check(result: Any) -> None:
            if result.send_status is not SendStatus.SEND_OK:
                raise RuntimeError(f"send status {result.send_status}")

        def sync(n: int) -> list[float]:
            lat = [0.0] * n
            lock = threading.Lock()
            counter = iter(range(n))
            errors: list[BaseException] = []

            def sender() -> None:
                try:
                    while True:
                        with lock:
                            i = next(counter, None)
                        if i is None:
                            return
                        t0 = time.perf_counter()
                        msg = Message(TOPIC, payload)
                        r = producer.send(msg, selector, f"k{i % 1000}") if selector else producer.send(msg)
                        lat[i] = time.perf_counter() - t0
                        check(r)
                except BaseException as e:
                    errors.append(e)

            workers = [threading.Thread(target=sender) for _ in range(shape.threads)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            if errors:
                raise errors[0]
            return lat

        def run_async(n: int) -> list[float]:
            lat = [0.0] * n

            async def main() -> None:
                counter = iter(range(n))

                async def sender() -> None:
                    for i in counter:
                        t0 = time.perf_counter()
                        msg = Message(TOPIC, payload)
                        if selector:
                            r = await producer.send_async(msg, selector, f"k{i % 1000}")
                        else:
                            r = await producer.send_async(msg)
                        lat[i] = time.perf_counter() - t0
                        check(r)

                await asyncio.gather(*(sender() for _ in range(shape.in_flight)))

            asyncio.run(main())
            return lat

        def batch(n: int) -> list[float]:
            lat = []
            for _ in range(n // shape.in_flight):
                msgs = [Message(TOPIC, payload) for _ in range(shape.in_flight)]
                t0 = time.perf_counter()
                check(producer.send_batch(msgs))
                lat.append(time.perf_counter() - t0)
            return lat

        run = {"sync": sync, "async": run_async, "batch": batch}[shape.mode]
        warm = warm_up(run, shape.warmup, shape.in_flight if shape.mode == "batch" else 1, max_warmup_s)
        cpu0, t0 = time.process_time(), time.perf_counter()
        lat = run(shape.count)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    msgs = len(lat) * shape.in_flight if shape.mode == "batch" else shape.count
    return {**_figures(lat, msgs, wall, cpu), **warm}


def rss_mib() -> float:
    """This process's resident memory now (Linux ``VmRSS``)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def run_memory(namesrv: str, count: int, back_pressure: bool) -> dict[str, Any]:
    """``count`` calls of ``Producer.submit`` as fast as they return, to a broker slower than that; the resident
    memory after each tenth of them, then the wait for every answer."""
    from rocketroute.client import Message
    from rocketroute.client.producer import Producer

    payload = body(1024)
    settings: dict[str, Any] = {"send_msg_timeout": 600_000}
    if back_pressure:
        settings.update(enable_backpressure_for_async_mode=True, back_pressure_for_async_send_num=1024)
    samples: list[float] = []
    answered = threading.Semaphore(0)
    failures: list[BaseException] = []

    def done(future: Any) -> None:  # the callback: nothing of the send is kept here once it is answered
        if future.exception() is not None:
            failures.append(future.exception())
        answered.release()

    with Producer(namesrv, "bench-memory", **settings) as producer:
        producer.send(Message(TOPIC, payload))
        t0 = time.perf_counter()
        step = max(1, count // 10)
        for i in range(count):
            producer.submit(Message(TOPIC, payload)).add_done_callback(done)
            if (i + 1) % step == 0:
                samples.append(round(rss_mib(), 1))
        submitted_s = time.perf_counter() - t0
        for _ in range(count):
            answered.acquire()
    failed = len(failures)
    return {
        "count": count,
        "back_pressure": back_pressure,
        "rss_mib": samples,
        "submit_s": submitted_s,
        "total_s": time.perf_counter() - t0,
        "failed": failed,
    }


def run_consumer(namesrv: str, shape: ConsumerShape, group: str) -> dict[str, Any]:
    """``rr.Consumer`` (the backend ``ROCKETROUTE_BACKEND`` chose) reads ``shape``; the Java driver's figures."""
    from rocketroute.client import ConsumeConcurrentlyStatus, Consumer

    lock = threading.Lock()
    seen = [0]
    marks: list[float] = []
    done = threading.Event()
    total = shape.warmup + shape.count

    def listener(msgs: list[Any], context: Any) -> ConsumeConcurrentlyStatus:
        n = len(msgs)  # no call under the lock but at the two marks: a pool thread switched out holding it would
        with lock:  # have the others queue on it (see OffsetStore.update_offset)
            before = seen[0]
            seen[0] = after = before + n
            if before < shape.warmup <= after:
                marks.extend((time.perf_counter(), time.process_time()))
            if before < total <= after:
                marks.extend((time.perf_counter(), time.process_time()))
                done.set()
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    with Consumer(
        namesrv,
        group,
        [CONSUMER_TOPIC],
        listener=listener,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        consume_message_batch_max_size=shape.batch,
    ):
        if not done.wait(300):
            raise RuntimeError(f"consumed {seen[0]} of {total} in 300 s")
    wall, cpu = marks[2] - marks[0], marks[3] - marks[1]
    return {"msgs": shape.count, "seconds": wall, "msgs_per_s": shape.count / wall, "cpu_s": cpu}


def run_lite_consumer(namesrv: str, shape: ConsumerShape, group: str) -> dict[str, Any]:
    """``rr.LitePullConsumer`` (the backend ``ROCKETROUTE_BACKEND`` chose) polled on this thread, ``pull_batch_size``
    the shape's batch: the Java driver's figures."""
    from rocketroute.client import LitePullConsumer

    total = shape.warmup + shape.count
    marks: list[float] = []
    seen = 0
    deadline = time.monotonic() + 300
    with LitePullConsumer(
        namesrv,
        group,
        [CONSUMER_TOPIC],
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        pull_batch_size=shape.batch,
    ) as consumer:
        while seen < total:
            if time.monotonic() > deadline:
                raise RuntimeError(f"polled {seen} of {total} in 300 s")
            before = seen
            seen += len(consumer.poll(1000))
            if before < shape.warmup <= seen:
                marks.extend((time.perf_counter(), time.process_time()))
            if before < total <= seen:
                marks.extend((time.perf_counter(), time.process_time()))
    wall, cpu = marks[2] - marks[0], marks[3] - marks[1]
    return {"msgs": shape.count, "seconds": wall, "msgs_per_s": shape.count / wall, "cpu_s": cpu}


def run_aio_consumer(namesrv: str, shape: ConsumerShape, group: str) -> dict[str, Any]:
    """``rr.aio.Consumer`` (native backend) read with ``async for msgs in consumer.batches()``, a listener call's
    messages at a time (``consume_message_batch_max_size`` = the shape's batch), or in the lite pull shape
    ``rr.aio.LitePullConsumer``'s ``batches()``, a poll at a time (``pull_batch_size`` = the shape's batch): the Java
    driver's figures."""
    import rocketroute as rr

    total = shape.warmup + shape.count
    marks: list[float] = []
    lite = shape.kind == "lite"

    async def main() -> None:
        seen = 0
        where = {"consume_from_where": "CONSUME_FROM_FIRST_OFFSET"}
        consumer: rr.aio.Consumer | rr.aio.LitePullConsumer
        if lite:
            consumer = rr.aio.LitePullConsumer(namesrv, group, [CONSUMER_TOPIC], pull_batch_size=shape.batch, **where)
        else:
            consumer = rr.aio.Consumer(
                namesrv, group, [CONSUMER_TOPIC], consume_message_batch_max_size=shape.batch, **where
            )
        async with consumer:
            async for msgs in consumer.batches():
                before, seen = seen, seen + len(msgs)
                if before < shape.warmup <= seen:
                    marks.extend((time.perf_counter(), time.process_time()))
                if seen >= total:
                    marks.extend((time.perf_counter(), time.process_time()))
                    if isinstance(consumer, rr.aio.Consumer):
                        consumer.ack()  # the lite pull consumer commits what it handed out at its stop
                    break

    asyncio.run(asyncio.wait_for(main(), 300))
    wall, cpu = marks[2] - marks[0], marks[3] - marks[1]
    return {"msgs": shape.count, "seconds": wall, "msgs_per_s": shape.count / wall, "cpu_s": cpu}


def fill(namesrv: str, count: int, stored: Callable[[], int]) -> None:
    """``count`` 1 KiB messages into the consumer benchmark's topic, in batches of 32; returns once ``stored`` (the
    sum of the topic's max offsets) counts them all. A send is answered once the commit log holds it, and the consume
    queues that a pull reads are built from it a little later, so a pull right after the fill could find a queue
    still empty (NO_MESSAGE_IN_QUEUE)."""
    from rocketroute.client import Message
    from rocketroute.client.producer import Producer

    payload = body(1024)
    with Producer(namesrv, "bench-fill") as producer:
        for start in range(0, count, 32):
            producer.send_batch([Message(CONSUMER_TOPIC, payload) for _ in range(min(32, count - start))])
    deadline = time.monotonic() + 60
    while (seen := stored()) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the broker's consume queues hold {seen} of the {count} messages filled after 60 s")
        time.sleep(0.05)


class JavaConsumer:
    """``ConsumerBench.java`` compiled once against the Java client's jars."""

    def __init__(self, workdir: Path, peer_class: Any, dirs: Any, max_warmup_s: float) -> None:
        self.workdir = workdir
        self.peer = peer_class("ConsumerBench", JAVA_CLIENT, dirs)
        self.max_warmup_s = max_warmup_s

    def run(self, namesrv: str, shape: ConsumerShape, group: str, *, production: bool = True) -> dict[str, Any]:
        out = Path(tempfile.mkstemp(dir=self.workdir, suffix=".json")[1])
        args = (
            namesrv, CONSUMER_TOPIC, group, shape.batch, shape.warmup, shape.count, out, self.max_warmup_s, shape.kind
        )  # fmt: skip
        cmd = self.peer.command(self.workdir, *map(str, args), production=production)
        done = subprocess.run(cmd, env=self.peer.env(), capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not out.read_text().strip():
            raise RuntimeError(f"the Java consumer failed ({done.returncode}): {done.stderr[-2000:]}")
        return dict(json.loads(out.read_text()))


class JavaProducer:
    """``ProducerBench.java`` compiled once against the Java client's jars."""

    def __init__(self, workdir: Path, max_warmup_s: float = MAX_WARMUP_S) -> None:
        sys.path.insert(0, str(ROOT))
        from tests._java_peers import JavaPeer

        class _Dirs:  # what JavaPeer asks of pytest's tmp_path_factory
            @staticmethod
            def mktemp(name: str) -> Path:
                return Path(tempfile.mkdtemp(prefix=name, dir=workdir))

        self.workdir = workdir
        self.max_warmup_s = max_warmup_s
        self.peer = JavaPeer("ProducerBench", JAVA_CLIENT, _Dirs())  # type: ignore[arg-type]
        self.consumer = JavaConsumer(workdir, JavaPeer, _Dirs(), max_warmup_s)

    def run(self, namesrv: str, shape: Shape, *, production: bool = True) -> dict[str, Any]:
        out = Path(tempfile.mkstemp(dir=self.workdir, suffix=".json")[1])
        args = (namesrv, TOPIC, shape.mode, shape.threads, shape.in_flight, shape.warmup, shape.count, shape.body)
        args += (str(shape.keyed).lower(), str(out), self.max_warmup_s)
        cmd = self.peer.command(self.workdir, *map(str, args), production=production)
        done = subprocess.run(cmd, env=self.peer.env(), capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not out.read_text().strip():
            raise RuntimeError(f"the Java producer failed ({done.returncode}): {done.stderr[-2000:]}")
        return dict(json.loads(out.read_text()))


GO_SOURCE = ROOT / "tests" / "peers" / "go"
"""The Go module of our Go peers (``go.mod`` pins the Go client); the bench's driver is its ``bench`` package."""


def java_jvm() -> str:
    """The JVM the ``java`` client runs on, and how: its version and its default collector and heap."""
    java = shutil.which("java")
    if java is None:
        return "no java"
    done = subprocess.run(
        [java, "-XX:+PrintFlagsFinal", "-version"], capture_output=True, text=True, timeout=60, check=False
    )
    flags = {}
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[1] in ("UseG1GC", "UseSerialGC", "UseParallelGC", "MaxHeapSize"):
            flags[parts[1]] = parts[3]
    version = next((ln for ln in done.stderr.splitlines() if "version" in ln), "java").strip()
    gc = next((g[3:-2] for g in ("UseG1GC", "UseParallelGC", "UseSerialGC") if flags.get(g) == "true"), "?")
    heap = int(flags.get("MaxHeapSize", "0")) >> 20
    return f"{version}; its defaults: {gc} GC, a {heap:,} MiB heap, C2"


def go_binary() -> str:
    """The ``go`` command, or a clear error: the go client's driver is built from source."""
    go = shutil.which("go")
    if go is None:
        raise RuntimeError(
            "go not found: the go client's driver (tests/peers/go/bench) is built with `go build`; "
            "install Go 1.22+ (https://go.dev/dl/) or leave go out of --clients"
        )
    return go


def go_client() -> str:
    """The Go client's version as ``tests/peers/go/go.mod`` pins it."""
    for line in (GO_SOURCE / "go.mod").read_text(encoding="utf-8").splitlines():
        if line.startswith("require github.com/apache/rocketmq-client-go/v2 "):
            return line.split()[-1]
    raise RuntimeError(f"no rocketmq-client-go/v2 requirement in {GO_SOURCE / 'go.mod'}")


class GoClient:
    """``tests/peers/go/bench`` (the Go client's producer and push consumer, as ``ProducerBench.java`` and
    ``ConsumerBench.java`` drive Java's: same arguments, same JSON line) built once into the run's workdir, as the
    Go peer's test builds its own (``-mod=readonly``: ``go.mod`` and ``go.sum`` as committed; ``make clients``
    downloads the modules beforehand)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.exe = workdir / "go-bench"
        cmd = [go_binary(), "build", "-o", str(self.exe), "./bench"]
        env = {**os.environ, "GOFLAGS": "-buildvcs=false -mod=readonly"}
        done = subprocess.run(cmd, cwd=GO_SOURCE, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise RuntimeError(f"go build of {GO_SOURCE / 'bench'} failed ({done.returncode}): {done.stderr[-2000:]}")

    def run(self, namesrv: str, shape: Shape | ConsumerShape, group: str) -> dict[str, Any]:
        out = Path(tempfile.mkstemp(dir=self.workdir, suffix=".json")[1])
        if isinstance(shape, ConsumerShape):
            args: tuple[Any, ...] = ("consumer", namesrv, CONSUMER_TOPIC, group, shape.batch, shape.warmup, shape.count)
        else:
            args = ("producer", namesrv, TOPIC, shape.mode, shape.threads, shape.in_flight, shape.warmup, shape.count)
            args += (shape.body, str(shape.keyed).lower())
        done = subprocess.run([str(self.exe), *map(str, args), str(out)], capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not out.read_text().strip():
            raise RuntimeError(f"the Go {args[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
        return dict(json.loads(out.read_text()))


_GROUPS = iter(range(1 << 30))

OTHERS_MAX = 0.25
"""A run is refused for the docs (``--keep``) when processes outside the benchmark used more than this many cores
on average while one of its clients ran."""


def _busy_ticks() -> int:
    """The machine's busy CPU time since boot, in clock ticks (``/proc/stat``: all but idle and iowait)."""
    with open("/proc/stat", encoding="ascii") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4]


def _tree_ticks() -> int:
    """CPU time of this process and every process under it (the client runs, the brokers), waited-for children
    included, in clock ticks."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                rest = f.read().rpartition(")")[2].split()
        except OSError:  # gone meanwhile
            continue
        pid = int(entry)
        parents[pid] = int(rest[1])
        ticks[pid] = sum(int(x) for x in rest[11:15])  # utime, stime, cutime, cstime
    me = os.getpid()
    total = 0
    for pid, t in ticks.items():
        p = pid
        while p not in (me, 0, 1) and p in parents:
            p = parents[p]
        if p == me:
            total += t
    return total


@contextmanager
def machine_load(figures: dict[str, Any]) -> Iterator[None]:
    """Around one client run: the 1-minute load average before and after, and the cores that processes outside
    the benchmark used meanwhile (``others_cores``: the machine's busy time less this process tree's, per second),
    put into ``figures``."""
    hz = os.sysconf("SC_CLK_TCK")
    load0, busy0, tree0, t0 = os.getloadavg()[0], _busy_ticks(), _tree_ticks(), time.monotonic()
    yield
    wall = max(time.monotonic() - t0, 1e-9)
    others = max(0, (_busy_ticks() - busy0) - (_tree_ticks() - tree0)) / hz / wall
    figures.update(load_before=load0, load_after=os.getloadavg()[0], others_cores=round(others, 3))


def run_client(
    client: str, namesrv: str, shape: Shape | ConsumerShape, java: JavaProducer, go: GoClient | None = None
) -> dict[str, Any]:
    consumer = isinstance(shape, ConsumerShape)
    group = f"bench-consume-{client}-{next(_GROUPS)}-{time.monotonic_ns()}"  # a new group reads from the first offset
    if client in ("java", "java-test-jvm"):
        production = client == "java"
        if consumer:
            return java.consumer.run(namesrv, shape, group, production=production)  # type: ignore[arg-type]
        return java.run(namesrv, shape, production=production)  # type: ignore[arg-type]
    if client == "go":
        assert go is not None, "run_all builds the Go driver when go is among the clients"
        return go.run(namesrv, shape, group)
    env = {**os.environ, "ROCKETROUTE_BACKEND": "native" if client == "aio" else client}
    if consumer:
        lite = shape.kind == "lite"  # type: ignore[union-attr]
        child = "aio-consumer-child" if client == "aio" else ("lite-child" if lite else "consumer-child")
    else:
        child = "aio-child" if client == "aio" else "child"
    cmd = [sys.executable, str(Path(__file__)), child, namesrv, json.dumps(asdict(shape))]
    cmd.append(group if consumer else str(java.max_warmup_s))
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"the {client} producer failed ({done.returncode}): {done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# -- the brokers -------------------------------------------------------------------------------------------------


def instant_peer(*args: str) -> Any:
    """The instant peer (the tests' launcher, ``tests/_instant_peer.py``) with the benchmark's queues: a context
    manager that yields its address (name server and broker)."""
    sys.path.insert(0, str(ROOT))
    from tests._instant_peer import instant_peer as launch

    return launch("--queues", str(QUEUES), *args)


def _peer_binary() -> str:
    sys.path.insert(0, str(ROOT))
    from tests._instant_peer import BINARY

    return str(BINARY)


@contextmanager
def apache_broker(impl: str) -> Iterator[tuple[str, str, Callable[[], int]]]:
    """One Apache name server and broker (the cluster tests' harness) with the benchmark's topics; yields the name
    server's and the broker's addresses, and a function that counts the consumer topic's stored messages."""
    sys.path.insert(0, str(ROOT))
    from tests.cluster.harness import Cluster

    cluster = Cluster(namesrvs=1, brokers=1, impl=impl, full_jit=True)
    cluster.start()
    try:
        cluster.create_topic(TOPIC, QUEUES)
        cluster.create_topic(CONSUMER_TOPIC, QUEUES)  # as many queues as the instant peer's (auto-creation makes 4)

        def stored() -> int:
            return sum(cluster.max_offset("broker-a", CONSUMER_TOPIC, q) for q in range(QUEUES))

        yield cluster.namesrv_addrs[0], cluster.broker_addr("broker-a"), stored
    finally:
        cluster.close()


def raw_ceiling(broker_addr: str, count: int) -> dict[str, Any]:
    """The broker's own msgs/s: ``raw-send`` pipelining 1 KiB SEND_MESSAGE_V2 frames, 256 unanswered."""
    cmd = [_peer_binary(), "raw-send", "--addr", broker_addr, "--count", str(count), "--window", "256"]
    cmd += ["--topic", TOPIC, "--queues", str(QUEUES), "--body-size", "1024"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


RAW_PULL_WINDOW = 16
"""Pulls in flight in ``raw-pull`` (32 messages each): two per queue, where a push consumer keeps one."""


def raw_pull_ceiling(broker_addr: str, count: int) -> dict[str, Any]:
    """The broker's own pulled msgs/s: ``raw-pull`` pipelining PULL_MESSAGE frames (32 messages each, offset 0 of
    the consumer topic's queues in turn, ``RAW_PULL_WINDOW`` unanswered) until ``count`` messages came back."""
    cmd = [_peer_binary(), "raw-pull", "--addr", broker_addr, "--count", str(count), "--window", str(RAW_PULL_WINDOW)]
    cmd += ["--topic", CONSUMER_TOPIC, "--queues", str(QUEUES), "--batch", "32"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"raw-pull failed ({done.returncode}): {done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# -- the run and its table ---------------------------------------------------------------------------------------


SLOW_DELAY_US = 200
"""The slow broker of the memory runs: the instant peer waiting 200 µs before each answer (at most 5k msgs/s; about
3.5k with the sleeps' overshoot), slower than ``submit`` returns."""


def memory_runs(count: int) -> list[dict[str, Any]]:
    """``count`` submits with the back-pressure on, and a fifth of them with it off, each to a slow broker."""
    runs = []
    for n, mode in ((count, "on"), (max(1, count // 5), "off")):
        with instant_peer("--delay-us", str(SLOW_DELAY_US)) as addr:
            cmd = [sys.executable, str(Path(__file__)), "memory-child", addr, str(n), mode]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=ROOT)
        if done.returncode != 0:
            raise RuntimeError(f"the memory run failed ({done.returncode}): {done.stderr[-2000:]}")
        runs.append(dict(json.loads(done.stdout.strip().splitlines()[-1])))
        print(f"memory, back-pressure {mode}: {runs[-1]['rss_mib']} MiB", file=sys.stderr)
    return runs


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the run with the median msgs/s (the lower middle one of an even count), so a row's msgs/s,
    latencies and CPU come from one run; with more than one run, ``rounds`` lists each run's msgs/s and CPU µs per
    message in the order they ran."""
    ranked = sorted(runs, key=lambda r: r["msgs_per_s"])
    row = dict(ranked[(len(ranked) - 1) // 2])
    if len(runs) > 1:
        row["rounds"] = [
            {
                "msgs_per_s": r["msgs_per_s"],
                "cpu_us": r["cpu_s"] / r["msgs"] * 1e6,
                "jit_ms": r.get("jit_ms"),
                "order": r.get("order"),
            }
            for r in runs
        ]
    return row


def run_all(
    servers: list[str],
    shapes: list[Any],
    clients: list[str],
    workdir: Path,
    rounds: int = 1,
    max_warmup_s: float = MAX_WARMUP_S,
) -> dict[str, Any]:
    java = JavaProducer(workdir, max_warmup_s)
    go = GoClient(workdir) if "go" in clients else None
    rows: list[dict[str, Any]] = []
    runs_all: list[list[dict[str, Any]]] = []
    ceilings: dict[str, Any] = {}
    pull_ceilings: dict[str, Any] = {}
    raw_count = 2_000 if shapes and shapes[0].count < 1_000 else 200_000
    consumer_shapes = [s for s in shapes if isinstance(s, ConsumerShape)]
    stock = max((s.warmup + s.count for s in consumer_shapes), default=0)  # every consumer reads from the first offset
    for server in servers:
        if server == "instant":
            ctx: Any = instant_peer("--messages-per-queue", str(-(-stock // QUEUES)))
        else:
            ctx = apache_broker(server)
        with ctx as addrs:
            namesrv, broker, stored = (addrs, addrs, None) if server == "instant" else addrs
            ceilings[server] = raw_ceiling(broker, raw_count)
            print(f"{server}: raw ceiling {ceilings[server]['msgs_per_s']:,.0f} msgs/s", file=sys.stderr)
            if consumer_shapes:
                if stored is not None:
                    fill(namesrv, stock, stored)
                pull_ceilings[server] = raw_pull_ceiling(broker, raw_count)
                print(f"{server}: raw pull ceiling {pull_ceilings[server]['msgs_per_s']:,.0f} msgs/s", file=sys.stderr)
            runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for n in range(rounds):  # round after round: a slow phase of the machine is spread over the clients
                # the clients' order turns each round: none always runs first (on a cold machine) or right after
                # the same other client
                order = clients[n % len(clients) :] + clients[: n % len(clients)]
                for shape in shapes:
                    for client in order:
                        if client == "aio" and isinstance(shape, Shape) and shape.mode != "async":
                            continue
                        if client == "go" and isinstance(shape, ConsumerShape) and shape.kind == "lite":
                            continue  # the Go client has no lite pull consumer
                        load: dict[str, Any] = {}
                        with machine_load(load):
                            figures = run_client(client, namesrv, shape, java, go)
                        figures.update(load, order=order.index(client))
                        runs.setdefault((shape.name, client), []).append(figures)
                        done = f"{figures['msgs_per_s']:,.0f} msgs/s"
                        print(f"{server} | {shape.name} | {client} | round {n + 1}/{rounds}: {done}", file=sys.stderr)
            rows += [{"server": server, "shape": sh, "client": c, **median_run(r)} for (sh, c), r in runs.items()]
            runs_all.extend(runs.values())
    every = [r for rs in runs_all for r in rs]
    return {
        "datetime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, Java client {JAVA_CLIENT} ({java_jvm()})"
        + (f", Go client {go_client()}" if go else ""),
        "rounds": rounds,
        "max_warmup_s": max_warmup_s,
        "others_cores_max": max((r.get("others_cores", 0.0) for r in every), default=0.0),
        "load_max": max((max(r.get("load_before", 0.0), r.get("load_after", 0.0)) for r in every), default=0.0),
        "ceilings": ceilings,
        **({"pull_ceilings": pull_ceilings} if pull_ceilings else {}),
        "rows": rows,
    }


def table(run: dict[str, Any]) -> list[str]:
    """Markdown: per server and shape, each client's figures and the ratio to the Java client's (msgs/s: higher is
    better; CPU per message: lower is better)."""
    java = {(r["server"], r["shape"]): r for r in run["rows"] if r["client"] == "java"}
    header = (
        "server", "shape", "client", "msgs/s", "p50 ms", "p99 ms", "CPU µs/msg", "msgs/s vs Java", "CPU/msg vs Java",
        "warm-up s (steady)", "JIT ms in window",
    )  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * 3 + ["--:"] * 8) + "|"]
    for r in run["rows"]:
        cpu = r["cpu_s"] / r["msgs"] * 1e6
        ref = java.get((r["server"], r["shape"]))
        rate = f"{r['msgs_per_s'] / ref['msgs_per_s']:.2f}" if ref else "n/a"
        # a smoke run may be too short for a CPU time to register: no ratio then, not a division by zero
        per = f"{cpu / (ref['cpu_s'] / ref['msgs'] * 1e6):.2f}" if ref and ref["cpu_s"] > 0 else "n/a"
        p50, p99 = (f"{r[k]:.3f}" if k in r else "n/a" for k in ("p50_ms", "p99_ms"))
        warm = f"{r['warmup_s']:.1f} ({'yes' if r.get('steady') else 'no'})" if r.get("warmup_s") is not None else "n/a"
        jit = f"{r['jit_ms']:,}" if r.get("jit_ms") is not None else "n/a"
        cells = (
            r["server"], r["shape"], r["client"], f"{r['msgs_per_s']:,.0f}", p50, p99, f"{cpu:.1f}", rate, per, warm,
            jit,
        )  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    ceilings = ", ".join(f"{s} {c['msgs_per_s']:,.0f} msgs/s" for s, c in run["ceilings"].items())
    rounds = run.get("rounds", 1)
    each = f"; each row the median of {rounds} runs (by msgs/s), the clients taking turns" if rounds > 1 else ""
    load = ""
    if "others_cores_max" in run:
        load = (
            f"; other processes used at most {run['others_cores_max']:.2f} cores during a client's run (1-minute load "
            f"average at most {run.get('load_max', 0):.1f})"
        )
    out = [
        f"{run['machine']}; {run['datetime']}{each}{load}",
        "",
        *lines,
        "",
        f"Raw ceilings (1 KiB, 256 in flight): {ceilings}",
    ]
    if run.get("pull_ceilings"):
        pulls = ", ".join(f"{s} {c['msgs_per_s']:,.0f} msgs/s" for s, c in run["pull_ceilings"].items())
        out += ["", f"Raw pull ceilings (1 KiB, 32 per pull, {RAW_PULL_WINDOW} pulls in flight): {pulls}"]
    if run.get("memory"):
        out += ["", f"Memory of `submit` to a broker answering one send per {SLOW_DELAY_US} µs (1 KiB bodies):", ""]
        out += ["| back-pressure | submits | resident MiB after each tenth | submits took s | all answered s |"]
        out += ["|---|--:|---|--:|--:|"]
        for m in run["memory"]:
            mode = "on (1024 sends)" if m["back_pressure"] else "off"
            rss = ", ".join(f"{v:.0f}" for v in m["rss_mib"])
            out.append(f"| {mode} | {m['count']:,} | {rss} | {m['submit_s']:.1f} | {m['total_s']:.1f} |")
    return out


def write_run(run: dict[str, Any], json_path: str | None, keep: str | None) -> bool:
    """Write ``run`` to ``json_path`` and to ``keep`` (the docs' copy), unless processes outside the benchmark used
    more than :data:`OTHERS_MAX` cores while a client ran: then not to ``keep`` (said on stderr). Whether it was
    kept."""
    others = run.get("others_cores_max", 0.0)
    if keep and others > OTHERS_MAX:
        print(
            f"not kept for the docs: processes outside the benchmark used up to {others:.2f} cores while a client ran "
            f"(more than {OTHERS_MAX}); run it again on a quiet machine",
            file=sys.stderr,
        )
        keep = None
    for dest in filter(None, (json_path, keep)):
        Path(dest).parent.mkdir(parents=True, exist_ok=True)
        Path(dest).write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    return keep is not None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["child"]:  # one Python client run: the figures as one JSON line
        shape = Shape(**json.loads(argv[2]))
        print(json.dumps(run_python(argv[1], shape, float(argv[3]))))
        return 0
    if argv[:1] == ["consumer-child"]:
        print(json.dumps(run_consumer(argv[1], ConsumerShape(**json.loads(argv[2])), argv[3])))
        return 0
    if argv[:1] == ["aio-consumer-child"]:
        print(json.dumps(run_aio_consumer(argv[1], ConsumerShape(**json.loads(argv[2])), argv[3])))
        return 0
    if argv[:1] == ["lite-child"]:
        print(json.dumps(run_lite_consumer(argv[1], ConsumerShape(**json.loads(argv[2])), argv[3])))
        return 0
    if argv[:1] == ["aio-child"]:
        print(json.dumps(run_aio(argv[1], Shape(**json.loads(argv[2])), float(argv[3]))))
        return 0
    if argv[:1] == ["memory-child"]:
        print(json.dumps(run_memory(argv[1], int(argv[2]), argv[3] == "on")))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few hundred messages per run (a smoke test)")
    parser.add_argument("--servers", default=",".join(SERVERS), help=f"comma-separated, of {', '.join(SERVERS)}")
    parser.add_argument("--clients", default=",".join(CLIENTS), help=f"comma-separated, of {', '.join(CLIENTS)}")
    parser.add_argument("--shapes", help="semicolon-separated shape names (default: all)")
    parser.add_argument(
        "--memory", type=int, metavar="N", help="submits of the memory run (default 1,000,000; --quick 2,000; 0: none)"
    )
    parser.add_argument(
        "--memory-only", action="store_true", help="only the memory run, put into the --json file's run (if any)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        metavar="N",
        help="run every client in every shape N times, the clients "
        "taking turns, and keep each one's median run (default 1)",
    )
    parser.add_argument("--json", metavar="FILE", help="write the run here")
    parser.add_argument("--keep", metavar="FILE", help="also write it here (the docs' copy)")
    args = parser.parse_args(argv)
    every: list[Any] = [*SHAPES, *CONSUMER_SHAPES, *LITE_PULL_SHAPES]
    shapes = [s for s in every if not args.shapes or s.name in args.shapes.split(";")]
    if args.quick:
        shapes = [quick(s) for s in shapes]
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {args.rounds}")
    servers, clients = args.servers.split(","), args.clients.split(",")
    for name, given, known in (("server", servers, SERVERS), ("client", clients, CLIENTS + VARIANTS)):
        if unknown := [g for g in given if g not in known]:
            parser.error(f"unknown {name}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    if args.memory_only:
        kept = Path(args.json) if args.json else None
        run = json.loads(kept.read_text()) if kept and kept.is_file() else {"machine": "", "rows": [], "ceilings": {}}
        run.setdefault("datetime", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    else:
        with tempfile.TemporaryDirectory(prefix="bench-clients-") as tmp:
            run = run_all(servers, shapes, clients, Path(tmp), args.rounds, 0.0 if args.quick else MAX_WARMUP_S)
    memory = args.memory if args.memory is not None else (2_000 if args.quick else 1_000_000)
    if memory:
        run["memory"] = memory_runs(memory)
    print("\n".join(table(run)))
    kept = write_run(run, args.json, args.keep)
    return 2 if args.keep and not kept else 0


if __name__ == "__main__":
    sys.exit(main())
