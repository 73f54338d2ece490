"""The vector generator stays in the project and still makes the committed files: ``generator/build.sh``, compiled
against the released ``rocketmq-client`` 4.9.8 and 5.3.3 jars from Maven Central (``make clients``), writes
``producer``, ``fault_tables``, ``route_data``, ``static_topic`` and (with ``rocketmq-acl`` 4.9.8 for 4.9's hook)
``acl_signature`` byte for byte as committed, and from the released
gRPC client ``rocketmq-client-java`` 5.2.0 ``grpc_balancer`` as made from the 5.2.1 sources. Built from the
5.5.0 jar instead, the routing files are the same bytes, and ``producer`` differs only where 5.5.0's producer
does (two new response codes and one default), which is why ``compat="5.5"`` is an alias of ``"5.3"`` for routing."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .._java_peers import client_lib, clients_dir
from ._support import DEFAULT_VECTORS

BUILD = Path(__file__).parent / "generator" / "build.sh"
ROUTING_FILES = ("fault_tables", "route_data", "static_topic")
SAME_FROM_5_5 = (*ROUTING_FILES, "acl_signature")
"""What the 5.5.0 jar makes byte for byte as the committed files (the routing, and AclClientRPCHook's signing)."""


def _build(out: Path, client_5: str, grpc_jar: str = "") -> Path:
    assert shutil.which("javac"), "javac (JDK 17) is needed to build the generator"
    for version in ("4.9.8", client_5):
        client_lib(version)  # fails with "run make clients" when missing
    client_lib("4.9.8", "rocketmq-acl")  # 4.9's AclClientRPCHook
    if grpc_jar:
        client_lib(grpc_jar, "rocketmq-client-java")
    env = {
        **os.environ,
        "ROCKETROUTE_CLIENTS_DIR": str(clients_dir()),
        "GENERATOR_CLIENT_5": client_5,
        "GENERATOR_GRPC_JAR": grpc_jar,
    }
    env = {k: v for k, v in env.items() if not k.startswith(("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"))}
    done = subprocess.run(["bash", str(BUILD), str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return out


def _cases(path: Path) -> dict[str, dict]:
    with gzip.open(path, "rt", encoding="ascii") as f:
        return {case["id"]: case for case in map(json.loads, f)}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("vectors"), "5.3.3", grpc_jar="5.2.0")


@pytest.mark.parametrize("name", ["producer", *ROUTING_FILES, "acl_signature", "grpc_balancer"])
def test_the_generator_makes_the_committed_vectors_from_the_released_jars(built, name):
    assert (built / f"{name}.jsonl.gz").read_bytes() == (DEFAULT_VECTORS / f"{name}.jsonl.gz").read_bytes()


def test_the_5_5_jar_makes_the_same_routing_and_signing_vectors(tmp_path):
    built = _build(tmp_path, "5.5.0")
    for name in SAME_FROM_5_5:
        assert (built / f"{name}.jsonl.gz").read_bytes() == (DEFAULT_VECTORS / f"{name}.jsonl.gz").read_bytes(), name
    new, old = _cases(built / "producer.jsonl.gz"), _cases(DEFAULT_VECTORS / "producer.jsonl.gz")
    differ = sorted(k for k in new.keys() | old.keys() if new.get(k) != old.get(k))
    # 4.9.8's lines are built from the 4.9.8 jar both times; 5.5.0 adds two response codes and one default
    assert differ == [
        "producer-defaults@5.3.3",
        "rc-ResponseCode-LITE_SUBSCRIPTION_QUOTA_EXCEEDED",
        "rc-ResponseCode-LMQ_QUOTA_EXCEEDED",
    ], differ
    assert {
        new["rc-ResponseCode-LMQ_QUOTA_EXCEEDED"]["code"],
        new["rc-ResponseCode-LITE_SUBSCRIPTION_QUOTA_EXCEEDED"]["code"],
    } == {2017, 2018}
    values_new, values_old = new["producer-defaults@5.3.3"]["values"], old["producer-defaults@5.3.3"]["values"]
    changed = {
        k: (values_old.get(k), values_new.get(k))
        for k in values_new.keys() | values_old.keys()
        if values_new.get(k) != values_old.get(k)
    }
    assert changed == {"BackPressureForAsyncSendNum": (10000, 1024)}
