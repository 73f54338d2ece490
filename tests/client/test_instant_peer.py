"""Our producer against the instant peer (the far end of ``make bench-clients``): the peer answers as a broker
would, so the benchmark measures real sends. The Java client's side is benches/test_bench_clients.py."""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict

import pytest

from rocketroute.client import Message, SendStatus
from rocketroute.client.producer import Producer
from rocketroute.remoting import RemotingClient, RemotingCommand, RequestCode, ResponseCode

from .._instant_peer import BINARY, instant_peer


def test_sends_are_answered_with_offsets_counted_per_queue() -> None:
    with instant_peer("--queues", "4") as addr, Producer(addr, "pg-instant") as producer:
        results = [producer.send(Message("AnyTopic", b"x" * 100)) for _ in range(40)]
    assert {r.send_status for r in results} == {SendStatus.SEND_OK}
    per_queue = defaultdict(list)
    for r in results:
        per_queue[r.queue.queue_id].append(r.queue_offset)
        assert r.queue.broker_name == "broker-a" and len(r.offset_msg_id or "") == 32
    assert sorted(per_queue) == [0, 1, 2, 3]
    assert all(offsets == list(range(len(offsets))) for offsets in per_queue.values()), per_queue


def test_a_batch_gets_one_id_and_one_offset_per_message() -> None:
    with instant_peer("--queues", "1") as addr, Producer(addr, "pg-instant") as producer:
        first = producer.send_batch([Message("T", b"a"), Message("T", b"b"), Message("T", b"c")])
        second = producer.send(Message("T", b"d"))
    assert len((first.offset_msg_id or "").split(",")) == 3 and len((first.msg_id or "").split(",")) == 3
    assert (first.queue_offset, second.queue_offset) == (0, 3)


def test_a_request_it_does_not_answer_is_refused_not_dropped() -> None:
    with instant_peer() as addr, RemotingClient() as client:
        response = client.invoke(addr, RemotingCommand.request(RequestCode.PULL_MESSAGE, {}), 3000)
    assert response.code == ResponseCode.REQUEST_CODE_NOT_SUPPORTED
    assert "not answered by the instant peer" in (response.remark or "")


def test_the_raw_sender_measures_the_peer_s_ceiling() -> None:
    with instant_peer() as addr:
        done = subprocess.run(
            [str(BINARY), "raw-send", "--addr", addr, "--count", "5000", "--window", "64"],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
    figures = json.loads(done.stdout)
    assert figures["msgs"] == 5000 and figures["msgs_per_s"] > 0


@pytest.mark.parametrize("args", [["--queues", "0"], ["--port", "x"], ["--colour", "red"]])
def test_bad_options_are_refused(args: list[str]) -> None:
    done = subprocess.run([str(BINARY), "serve", *args], capture_output=True, text=True, timeout=10)
    assert done.returncode == 2 and "rocketroute-instant-peer:" in done.stderr
