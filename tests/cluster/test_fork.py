"""A client used in the child of ``os.fork()``, on Apache RocketMQ 5.5.0, both backends (issue 52, item 8): the
producer (and consumer) made before the fork raise a ``RuntimeError`` that names the fix, stopping them returns at
once, nothing of them is closed in the child (the parent's connections go on), and a producer made in the child
works. The child reports through a pipe and is killed if it runs past its bound: a hang fails the test."""

from __future__ import annotations

import json
import os
import select
import signal
import time
from typing import Any

import pytest

from rocketroute.client import Consumer, Message, Producer


def _in_child(body: Any, timeout_s: float = 30) -> dict[str, Any]:
    """Fork; run ``body()`` in the child and bring back the dict it returns (JSON), or fail on a hang or a crash."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        try:
            os.close(read_end)
            out = json.dumps(body()).encode()
        except BaseException as e:
            out = json.dumps({"child_failed": repr(e)}).encode()
            code = 1
        try:
            os.write(write_end, out)
        finally:
            os._exit(code)
    os.close(write_end)
    chunks = []
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"the forked child did not finish within {timeout_s} s")
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
        pid = 0
    finally:
        os.close(read_end)
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    result: dict[str, Any] = json.loads(b"".join(chunks) or b"{}")
    assert "child_failed" not in result, result["child_failed"]
    assert os.waitstatus_to_exitcode(status) == 0, status
    return result


@pytest.mark.servers("apache-5.5.0")
def test_a_client_made_before_fork_raises_in_the_child_and_a_new_one_works(cluster, fresh_topic, backend):
    topic = fresh_topic(queues=2, brokers=["broker-a"])
    with (
        Producer(cluster.namesrv_addrs, "pg-fork", backend=backend) as p,
        Consumer(cluster.namesrv_addrs, f"cg_fork_{backend.BACKEND}", [topic], listener=lambda m, c: None) as c,
    ):
        p.send(Message(topic, b"before"))  # connections open (the direct one too, on the native backend)
        p.submit(Message(topic, b"before, async")).result(10)

        def child() -> dict[str, Any]:
            said: dict[str, Any] = {}
            for name, call in (
                ("send", lambda: p.send(Message(topic, b"child"))),
                ("submit", lambda: p.submit(Message(topic, b"child"))),
                ("flush", p.flush),
                ("consumer_ids", lambda: c.consumer_ids(topic)),
            ):
                begin = time.monotonic()
                try:
                    call()
                    said[name] = "no error"
                except RuntimeError as e:
                    said[name] = str(e)
                said[name + "_s"] = time.monotonic() - begin
            begin = time.monotonic()
            p.shutdown()
            c.shutdown()
            said["shutdown_s"] = time.monotonic() - begin
            with Producer(cluster.namesrv_addrs, "pg-fork-child", backend=backend) as fresh:
                said["fresh"] = fresh.send(Message(topic, b"from the child")).send_status.name
            return said

        said = _in_child(child)
        for name in ("send", "submit", "flush", "consumer_ids"):
            assert "before os.fork()" in said[name] and "after the fork" in said[name], (name, said[name])
            assert said[name + "_s"] < 1.0, (name, said)
        assert said["shutdown_s"] < 1.0 and said["fresh"] == "SEND_OK"
        # the parent's clients were not touched by the child: the same connections send on
        assert p.send(Message(topic, b"after")).send_status.name == "SEND_OK"
        assert p.submit(Message(topic, b"after, async")).result(10).send_status.name == "SEND_OK"
        assert c.consumer_ids(topic)
