"""The request bodies rocketroute writes, byte for byte against the real Java client's classes (the live oracle:
``tests/peers/java/LockBodies.java``, compiled against each release a compat profile speaks for): LOCK_BATCH_MQ and
UNLOCK_BATCH_MQ, whose ``LockBatchRequestBody`` fastjson writes with its properties in name order, and whose 5.x
class has ``onlyThisBroker``, which 4.9's has not."""

from __future__ import annotations

import subprocess

import pytest

import rocketroute as rr
from rocketroute.protocol.headers import LockBatchMqRequest, UnlockBatchMqRequest

from .._java_peers import JavaPeer

RELEASES = [("4.9", "4.9.8"), ("5.3", "5.3.3"), ("5.3", "5.5.0")]
"""Each compat profile and the Java clients it speaks for."""
BODIES = (LockBatchMqRequest, UnlockBatchMqRequest)


@pytest.mark.parametrize(("compat", "release"), RELEASES)
def test_the_lock_bodies_are_the_java_client_s_bytes(
    compat: str, release: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    peer = JavaPeer("LockBodies", release, tmp_path_factory)
    home = tmp_path_factory.mktemp("java-home")
    queue = ("Topic-A", "broker-a", "3")
    command = peer.command(home, "group-1", "10.0.0.7@inst#1", *queue)
    java = subprocess.run(command, check=True, capture_output=True, env=JavaPeer.env(), timeout=120).stdout
    mq = rr.MessageQueue(queue[0], queue[1], int(queue[2]))
    ours = [cls.of("group-1", "10.0.0.7@inst#1", [mq]).request(compat).body for cls in BODIES]
    assert java.splitlines() == ours
