"""``make bench-instructions``: the CPU instructions one message costs rocketroute's client, counted, not timed.

The shared 2-core machines these benchmarks run on drift by a fifth from one minute to the next, and Python slows
in some phases where Java barely does: a change worth a few per cent of a send cannot be seen in seconds. Valgrind's
callgrind counts the instructions a process runs, which depend on the code and its inputs, not on what else the
machine does. Each path runs twice under callgrind, the instant peer outside it, with ``--small`` and ``--large``
messages after the same warm-up; the difference of the two totals over the difference of the counts is the cost of
one message, start-up and imports cancelled out. Two runs of the same code agree to about 0.3 % for sends and 1 %
for ``aio-consume`` (how the peer's answers fall into reads varies a little), 4 % for ``consume`` (how the pool
threads' wake-ups fall as well).

Paths:

- ``aio-send``: ``await rr.aio.Producer.send(msg)`` of 1 KiB messages from ``--in-flight`` coroutines (64);
- ``send-async``: the threaded producer's ``send_async`` awaited the same way (it runs on the caller's loop);
- ``send``: the threaded producer's sync ``send(msg)`` from one thread (the direct path);
- ``batch``: the threaded producer's sync ``send_batch`` of 32 messages from one thread, counted per message;
- ``aio-consume``: ``async for msgs in rr.aio.Consumer.batches()``, one message per call, of the peer's canned
  1 KiB messages;
- ``consume``: the threaded ``rr.Consumer``'s listener called on its consume pool, one message per call, of the
  same messages.

    python benches/count_instructions.py [--paths aio-send,aio-consume] [--small 1000] [--large 4000] [--json FILE]
    python benches/count_instructions.py --pythonpath OLD_TREE/python ...   # another built tree, same peer

``--pythonpath`` replaces ``PYTHONPATH``: the other tree's ``rocketroute`` is imported with the native extension
built into it (``_native.abi3.so`` beside its ``__init__.py``), so its Rust is counted as well as its Python.

Callgrind counts every thread of the process: the client's timers (heartbeats, offset persisting, rebalance) run
more often in the larger run, which lasts longer under valgrind, so a little of their work lands in the figure
(part of the consumer's 1 %). Instructions are not time: a cache miss costs one instruction here and a hundred
cycles on the machine. Use the
counts to compare two versions of the code, and the timed benchmarks (``make bench-clients``) for what a user sees.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PATHS = ("aio-send", "send-async", "send", "batch", "aio-consume", "consume")
BATCH = 32
"""Messages per ``send_batch`` on the ``batch`` path."""
WARMUP = 500
"""Messages each run sends or reads before the counted ones (routes, connections, the first calls' caches)."""
QUEUES = 8
TOPIC = "CountTopic"
CONSUMER_TOPIC = "BenchConsume"


# -- the child: one path under callgrind -------------------------------------------------------------------------


def child(addr: str, path: str, count: int, in_flight: int) -> None:
    """``WARMUP`` then ``count`` messages along ``path`` (run under callgrind by :func:`instructions`)."""
    import rocketroute as rr
    from rocketroute.client import Message

    payload = b"z" * 1024

    async def send(n: int, send_one: Any) -> None:
        numbers = iter(range(n))

        async def sender() -> None:
            for _ in numbers:
                await send_one(Message(TOPIC, payload))

        await asyncio.gather(*(sender() for _ in range(in_flight)))

    if path == "consume":
        consume(addr, count)
        return
    if path in ("send", "batch"):
        with rr.Producer(addr, f"count-{path}", send_msg_timeout=600_000) as sync:
            for n in (WARMUP, count):
                if path == "send":
                    for _ in range(n):
                        sync.send(Message(TOPIC, payload))
                    continue
                for start in range(0, n, BATCH):  # exactly n messages: the last batch holds what is left
                    sync.send_batch([Message(TOPIC, payload) for _ in range(min(BATCH, n - start))])
        return

    async def main() -> None:
        if path == "aio-send":
            async with rr.aio.Producer(addr, "count-aio", send_msg_timeout=600_000) as producer:
                await send(WARMUP, producer.send)
                await send(count, producer.send)
        elif path == "send-async":
            with rr.Producer(addr, "count-threaded", send_msg_timeout=600_000) as threaded:
                await send(WARMUP, threaded.send_async)
                await send(count, threaded.send_async)
        else:
            group = f"count-consume-{time.monotonic_ns()}"
            seen, settings = 0, {"consume_from_where": "CONSUME_FROM_FIRST_OFFSET", "consume_message_batch_max_size": 1}
            async with rr.aio.Consumer(addr, group, [CONSUMER_TOPIC], **settings) as consumer:  # type: ignore[arg-type]
                async for msgs in consumer.batches():
                    seen += len(msgs)
                    if seen >= WARMUP + count:
                        consumer.ack()
                        break

    asyncio.run(main())


def consume(addr: str, count: int) -> None:
    """The ``consume`` path: a listener that counts the messages on the threaded consumer's pool."""
    import threading

    from rocketroute.client import ConsumeConcurrentlyStatus, Consumer

    lock, seen, done = threading.Lock(), [0], threading.Event()

    def listener(msgs: list[Any], context: Any) -> ConsumeConcurrentlyStatus:
        n = len(msgs)  # no call under the lock: a pool thread switched out holding it would have the others queue
        with lock:  # on it (see OffsetStore.update_offset), and the count would be of that convoy
            seen[0] = total = seen[0] + n
        if total >= WARMUP + count:
            done.set()
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    group = f"count-consume-{time.monotonic_ns()}"
    settings = {"consume_from_where": "CONSUME_FROM_FIRST_OFFSET", "consume_message_batch_max_size": 1}
    with Consumer(addr, group, [CONSUMER_TOPIC], listener=listener, **settings):  # type: ignore[arg-type]
        if not done.wait(1500):
            raise RuntimeError(f"consumed {seen[0]} of {WARMUP + count}")


# -- the counts --------------------------------------------------------------------------------------------------


def _valgrind() -> str:
    found = shutil.which("valgrind")
    if found is None:
        raise RuntimeError(
            "valgrind not found: the counts run under valgrind --tool=callgrind (apt-get install valgrind)"
        )
    return found


def instructions(addr: str, path: str, count: int, in_flight: int, pythonpath: str | None) -> int:
    """The instructions (callgrind's ``Ir``) of a whole child run of ``count`` messages."""
    cmd = [_valgrind(), "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, str(Path(__file__))]
    cmd += ["child", addr, path, str(count), str(in_flight)]
    env = {**os.environ, "ROCKETROUTE_BACKEND": "native"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800, cwd=ROOT)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"the {path} run under callgrind failed ({done.returncode}): {done.stderr[-2000:]}")
    return int(found.group(1))


def count_path(path: str, small: int, large: int, in_flight: int, pythonpath: str | None) -> dict[str, Any]:
    """One path's instructions per message: the two runs' totals and their difference over ``large - small``."""
    sys.path.insert(0, str(ROOT))
    from tests._instant_peer import instant_peer

    stock = -(-(WARMUP + large) // QUEUES) + 100  # per queue, for the consumer's reads from the first offset
    with instant_peer("--queues", str(QUEUES), "--messages-per-queue", str(stock)) as addr:
        totals = [instructions(addr, path, n, in_flight, pythonpath) for n in (small, large)]
    return {
        "path": path,
        "small": small,
        "large": large,
        "totals": totals,
        "per_message": (totals[1] - totals[0]) / (large - small),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["child"]:
        child(argv[1], argv[2], int(argv[3]), int(argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", default=",".join(PATHS), help=f"comma-separated, of {', '.join(PATHS)}")
    parser.add_argument("--small", type=int, default=1000, help="messages of the first run (default 1000)")
    parser.add_argument("--large", type=int, default=4000, help="messages of the second run (default 4000)")
    parser.add_argument("--in-flight", type=int, default=64, help="sends in flight on the send paths (default 64)")
    parser.add_argument("--pythonpath", help="PYTHONPATH of the runs: count another tree's rocketroute")
    parser.add_argument("--json", metavar="FILE", help="write the counts here")
    args = parser.parse_args(argv)
    paths = args.paths.split(",")
    if unknown := [p for p in paths if p not in PATHS]:
        parser.error(f"unknown path(s) {', '.join(unknown)}; known: {', '.join(PATHS)}")
    if not 0 < args.small < args.large:
        parser.error(f"--small and --large must be 0 < small < large, not {args.small} and {args.large}")
    if args.in_flight < 1:
        parser.error(f"--in-flight must be at least 1, not {args.in_flight}")
    _valgrind()
    runs = [count_path(p, args.small, args.large, args.in_flight, args.pythonpath) for p in paths]
    for r in runs:
        print(f"{r['path']}: {r['per_message']:,.0f} instructions per message")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
