"""The Go client live: ``github.com/apache/rocketmq-client-go/v2`` (from the Go module proxy) with its hash queue
selector sends 1,000 sharding keys to a topic of 8 + 8 queues, through a small Go program of ours
(``tests/peers/go``, built here with ``go build``). Every key must land where the ``go4-fnv32a`` profile says,
over the queue list ``TopicPublishInfo.from_route`` builds (Java's order), and the brokers' offsets must count
exactly what the send results name; ``rr.Producer`` with ``ProfileSelector("go4-fnv32a")`` puts every key on
the Go client's queue. The Go client sends an empty sharding key to a random queue and has no lone
surrogates (its strings are bytes), so the keys here are non-empty UTF-8.

Apache's servers only: against RocketMQ-Rust 1.0.0's name server the Go client never gets a route ("connect to
namesrv failed", then "route info not found" for every send), a difference of that server noted in servers.md."""

from __future__ import annotations

import collections
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

import rocketroute as rr
from rocketroute import profiles
from rocketroute.client import Message, Producer

SOURCE = Path(__file__).parents[1] / "peers" / "go"


def go_keys() -> list[str]:
    rng = random.Random(4)
    fixed = ["a", "order-42", "x" * 300, "键" * 300, "😀" * 150, "顺序消息", " "]
    alphabet = "abcXYZ019 -_:/" + "中文键值顺序" + "😀🚀" + "éß"
    out = list(fixed)
    while len(out) < 1000:
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 48))))
    return out


@pytest.fixture(scope="module")
def go_sender(tmp_path_factory: pytest.TempPathFactory) -> Path:
    go = shutil.which("go")
    assert go, "go is needed to build the Go peer (make test's machines have Go)"
    exe = tmp_path_factory.mktemp("go") / "keyed_sender"
    env = dict(os.environ, GOFLAGS="-buildvcs=false -mod=readonly")
    done = subprocess.run(
        [go, "build", "-o", str(exe), "."], cwd=SOURCE, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return exe


@pytest.mark.servers("apache-5.5.0", "apache-4.9.7")
def test_the_go_client_puts_every_key_where_the_go4_profile_says(cluster, fresh_topic, go_sender, tmp_path):
    topic = fresh_topic(queues=8)  # 8 queues on each of the two brokers
    keys = go_keys()
    out = tmp_path / "placements.txt"
    done = subprocess.run(
        [str(go_sender), ";".join(cluster.namesrv_addrs), topic, "go_peer_pg", str(out)],
        input="".join(k.encode().hex() + "\n" for k in keys),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = out.read_text().splitlines()
    assert len(lines) == len(keys)
    errors = [line for line in lines if line.startswith("ERROR")]
    assert not errors, errors[:5]
    go_at = [(b, int(q)) for b, q, _ in (line.split() for line in lines)]

    queues = rr.TopicPublishInfo.from_route(topic, cluster.route(topic)).message_queues
    assert len(queues) == 16
    predicted = [queues[profiles.profile_select_index(k, len(queues), "go4-fnv32a")] for k in keys]
    predicted_at = [(q.broker_name, q.queue_id) for q in predicted]
    differ = [(k, g, p) for k, g, p in zip(keys, go_at, predicted_at, strict=True) if g != p]
    assert not differ, f"{len(differ)} of {len(keys)} keys placed elsewhere than go4-fnv32a says, e.g. {differ[:3]}"
    assert len(set(go_at)) == 16

    # a Python producer that shares keys with Go producers: the profile as its selector puts each key beside Go's
    selector = profiles.ProfileSelector("go4-fnv32a")
    with Producer(cluster.namesrv_addrs, "rr_go_peer_pg", compat=cluster.compat) as producer:
        ours = [producer.send(Message(topic, b"rr:" + k.encode()), selector, k) for k in keys]
    assert [(r.queue.broker_name, r.queue.queue_id) for r in ours] == go_at

    for broker in cluster.broker_names:
        cluster.wait_dispatched(broker)
    for (broker, queue_id), count in collections.Counter(go_at).items():
        assert cluster.max_offset(broker, topic, queue_id) == 2 * count, (broker, queue_id)
