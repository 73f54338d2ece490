"""The live Java oracles (``tests/peers/java/oracle``): one JVM per ``rocketmq-client`` release (``Oracle``), and
one for the 5.x gRPC client ``rocketmq-client-java`` (``GrpcOracle``), asked over JSON lines. Each answer is a
golden-vector case, which the conformance checkers verify on a backend."""

from __future__ import annotations

import json
import select
import subprocess
import time
from typing import Any

import pytest

from .._java_peers import J_WRITER, PEERS, JavaPeer

GENERATOR = J_WRITER.parent.parent
"""The vector generator's sources (tests/conformance/generator/src): the oracles share its spec builders."""

LABELS = {"4.9.8": "4.9", "5.3.3": "5.3", "5.5.0": "5.3"}
"""rocketmq-client release -> the compat profile that must reproduce it (5.5.0 routes as 5.3.3: ``compat="5.5"``
is an alias of ``"5.3"``)."""

GRPC_LABEL = "clients-java-5.2.0"
"""The gRPC client's oracle: ``rocketmq-client-java`` 5.2.0 (5.2.1, the label of ``grpc_balancer.jsonl``, is not
on Maven Central; the generator shows 5.2.0 writes that file byte for byte). No ``compat`` profile stands for it."""

ANSWER_TIMEOUT_S = 60.0


class OracleError(AssertionError):
    """The oracle could not answer (a bad request or a driver fault): a test failure, never a skip."""


class LiveOracle:
    """A running oracle JVM: ``Oracle`` for a ``rocketmq-client`` release (a key of ``LABELS``), or ``GrpcOracle``
    for ``GRPC_LABEL``."""

    def __init__(self, label: str, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.label = label
        oracle = PEERS / "oracle"
        common = (oracle / "Serve.java", oracle / "JsonIn.java", J_WRITER)
        if label == GRPC_LABEL:
            version = label.rsplit("-", 1)[1]
            extra = (*common, GENERATOR / "clients" / "GrpcSpecs.java")
            peer = JavaPeer(
                "GrpcOracle",
                version,
                tmp_path_factory,
                *extra,
                artifact="rocketmq-client-java",
                source=oracle / "GrpcOracle.java",
            )
        else:
            v4 = label.startswith("4.")
            sources = tmp_path_factory.mktemp(f"oracle-src-{label}")
            route_pkg = "org.apache.rocketmq." + ("common" if v4 else "remoting") + ".protocol.route"
            routes = (oracle / "Routes.java.in").read_text().replace("@ROUTE_PKG@", route_pkg)
            (sources / "Routes.java").write_text(routes)
            compat = [oracle / ("v4" if v4 else "v5") / "Compat.java"]
            if not v4:
                compat.append(
                    GENERATOR / "v5" / "Mappings.java"
                )  # the static-topic mapping, as the generator builds it
            peer = JavaPeer("Oracle", label, tmp_path_factory, sources / "Routes.java", *compat, *common)
        home = tmp_path_factory.mktemp(f"oracle-home-{label}")
        self._stderr = (home / "stderr.log").open("wb")
        self.proc = subprocess.Popen(
            peer.command(home, label),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=peer.env(),
        )
        self.stderr_path = home / "stderr.log"
        ready = self._read_line()
        assert ready == {"ready": label}, ready
        self.asked = 0

    def _read_line(self) -> Any:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + ANSWER_TIMEOUT_S
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise OracleError(f"the {self.label} oracle did not answer in {ANSWER_TIMEOUT_S} s")
            line = self.proc.stdout.readline()
            if not line:
                raise OracleError(f"the {self.label} oracle exited: {self.stderr_path.read_text()[-2000:]}")
            return json.loads(line)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """The case the real classes give for ``request`` (``kind`` and the kind's inputs)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"id": f"live-{self.asked}", **request}, ensure_ascii=True).encode() + b"\n")
        self.proc.stdin.flush()
        self.asked += 1
        answer = self._read_line()
        if "oracle_error" in answer:
            raise OracleError(f"the {self.label} oracle could not answer {request}: {answer['oracle_error']}")
        return answer

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._stderr.close()
