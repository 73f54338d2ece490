"""`rocketroute route` on a real standalone Spark cluster (a Master and a Worker started from pyspark's own
``spark-class``, all on 127.0.0.1): the job runs in separate executor JVMs whose Python workers import the
native extension themselves, and every routed row still equals the library's per-call answer.

The test session already holds a local SparkContext (one per process), so the CLI runs as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import rocketroute
from rocketroute.spark.jvm import jar_path

TOPIC = "TopicTest"
QUEUES = (("broker-a", 4), ("broker-b", 3), ("broker-c", 5))
ROWS = 5000
NULL_IDS = frozenset({17, 1234, 2500, 4999})
START_TIMEOUT_S = 90.0


def _env() -> dict[str, str]:
    # JAVA_TOOL_OPTIONS (C1 and the serial GC, set by conftest.py for every Spark test) is in os.environ and
    # reaches the master, the worker and, through the worker's env, its executors
    return {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}


@dataclass
class Cluster:
    url: str
    master_log: Path
    worker_log: Path
    work_dir: Path

    def apps(self) -> set[str]:
        return {p.name for p in self.work_dir.glob("app-*")}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError as e:
        return f"<cannot read {path}: {e}>"


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)  # the whole group: a worker's executors too
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    from pyspark.find_spark_home import _find_spark_home

    spark_class = Path(_find_spark_home()) / "bin" / "spark-class"
    if not spark_class.is_file():
        pytest.fail(f"pyspark's spark-class script is missing: {spark_class}")
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        pytest.fail("a standalone Spark cluster needs Java: no JAVA_HOME and no `java` on PATH")

    tmp = tmp_path_factory.mktemp("standalone")
    work_dir = tmp / "work"
    work_dir.mkdir()
    port, master_ui, worker_ui = _free_port(), _free_port(), _free_port()
    url = f"spark://127.0.0.1:{port}"
    env = {**_env(), "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false"}  # no fixed port 6066
    c = Cluster(url, tmp / "master.log", tmp / "worker.log", work_dir)

    def launch(log: Path, *args: str) -> subprocess.Popen[bytes]:
        with log.open("wb") as f:
            return subprocess.Popen(
                ["bash", str(spark_class), *args],
                stdout=f,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=tmp,
                start_new_session=True,
            )

    procs: list[subprocess.Popen[bytes]] = []
    deadline = time.monotonic() + START_TIMEOUT_S

    def wait_for(ready: Callable[[], bool], what: str) -> None:
        while not ready():
            dead = [p.args[2] for p in procs if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                why = f"{dead} exited" if dead else f"{what} within {START_TIMEOUT_S:.0f} s"
                pytest.fail(
                    f"standalone cluster did not start: {why}\n"
                    f"--- master log ---\n{_tail(c.master_log)}\n--- worker log ---\n{_tail(c.worker_log)}"
                )
            time.sleep(0.1)

    def accepts() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False

    try:
        master_args = ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(master_ui)]
        procs.append(launch(c.master_log, "org.apache.spark.deploy.master.Master", *master_args))
        # a worker that finds no master retries only after ~5-15 s: start it once the master listens
        wait_for(accepts, "the master accepted no connection")
        worker_args = ["--host", "127.0.0.1", "--cores", "2", "--memory", "1g"]
        worker_args += ["--webui-port", str(worker_ui), "--work-dir", str(work_dir)]
        procs.append(launch(c.worker_log, "org.apache.spark.deploy.worker.Worker", url, *worker_args))
        wait_for(
            lambda: "Successfully registered with master" in c.worker_log.read_text(errors="replace"),
            "no worker registered",
        )
        yield c
    finally:
        for p in reversed(procs):
            _stop(p)


def _key(i: int) -> str | None:
    if i in NULL_IDS:
        return None
    return ("order-ü-{}", "键-{}", "\U0001f680-{}", "order-{}", "{}")[i % 5].format(i % 1777)


@pytest.fixture(scope="module")
def messages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("input") / "messages.parquet"
    table = pa.table({"id": pa.array(range(ROWS), pa.int64()), "key": pa.array([_key(i) for i in range(ROWS)])})
    pq.write_table(table, path, row_group_size=1000)
    return path


@pytest.mark.parametrize("hash_path", ["arrow", "jvm"])
def test_cli_route_on_a_standalone_cluster(cluster: Cluster, messages: Path, tmp_path: Path, hash_path: str) -> None:
    import pyarrow.parquet as pq

    apps_before = cluster.apps()
    out = tmp_path / "out"
    queues = ",".join(f"{b}:{n}" for b, n in QUEUES)
    cmd = [sys.executable, "-m", "rocketroute.cli", "route", "--input", str(messages), "--topic", TOPIC]
    cmd += ["--queues", queues, "--key", "key", "--hash-path", hash_path, "--master", cluster.url, "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=240, check=False)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n--- worker log ---\n{_tail(cluster.worker_log)}"

    # it ran on the cluster: a new application with its executor in the worker's work dir
    new_apps = cluster.apps() - apps_before
    assert len(new_apps) == 1, (new_apps, _tail(cluster.master_log))
    assert any((cluster.work_dir / new_apps.pop()).iterdir()), "the worker launched no executor"
    assert "Registering app " in cluster.master_log.read_text(errors="replace")

    mqs = [rocketroute.MessageQueue(TOPIC, b, q) for b, n in QUEUES for q in range(n)]
    selector = rocketroute.SelectMessageQueueByHash()
    routed = pq.read_table(out / "routed").to_pylist()
    rejected = pq.read_table(out / "rejected").to_pylist()
    assert len(routed) + len(rejected) == ROWS
    assert sorted(r["id"] for r in rejected) == sorted(NULL_IDS)
    assert all(r["key"] is None and r["reason"] == "null key" for r in rejected)
    assert sorted(r["id"] for r in routed) == [i for i in range(ROWS) if i not in NULL_IDS]
    for r in routed:
        assert r["key"] == _key(r["id"])
        mq = selector.select(mqs, None, r["key"])
        assert (r["broker"], r["queue_id"], r["queue_index"]) == (mq.broker_name, mq.queue_id, mqs.index(mq)), r

    summary = json.loads((out / "summary" / "summary.json").read_text())
    assert (summary["input_rows"], summary["routed_rows"], summary["rejected_rows"]) == (ROWS, ROWS - 4, 4)
    # the JVM UDFs' jar reached the executors (spark.jars) where it is built
    assert summary["hash_path"] == (hash_path if hash_path == "arrow" else "jvm-udf" if jar_path() else "jvm-reflect")
