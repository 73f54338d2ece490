"""The "Get started" page (docs/guide/quickstart.md) as a new user follows it: its shell blocks fetch-path,
configure and start Apache RocketMQ 5.5.0's name server and broker with ``java``, exactly as written except for
the ports (free ones instead of 9876 / 10911) and the home (a temp dir instead of /tmp/rmq), then its Python
block sends ten messages and consumes them. README.md's quick start is the same code."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ..test_docs import ROOT, python_blocks
from .harness import _free_ports
from .impls import servers_dir

PAGE = ROOT / "docs" / "guide" / "quickstart.md"
BOOTED = 120.0
"""Seconds the two JVMs may take to print ``boot success`` on a loaded 2-core machine."""


def _sh_blocks(path: Path) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", path.read_text(), flags=re.S | re.M)


def _wait_for(log: Path, text: str, proc_pids: list[int]) -> None:
    deadline = time.monotonic() + BOOTED
    while time.monotonic() < deadline:
        if log.is_file() and text in log.read_text(errors="replace"):
            return
        for pid in proc_pids:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                pytest.fail(f"a server exited before {text!r} in {log.name}:\n{log.read_text(errors='replace')}")
        time.sleep(0.2)
    pytest.fail(f"no {text!r} in {log} within {BOOTED} s:\n{log.read_text(errors='replace')[-4000:]}")


def _stop(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 30
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_the_readme_quick_start_is_the_get_started_page():
    (page,) = python_blocks(PAGE, "quickstart")
    (readme,) = python_blocks(ROOT / "README.md", "quickstart")
    assert readme == page, "README.md's quick start and docs/guide/quickstart.md's differ"


def test_the_get_started_page_runs_as_written(tmp_path, capsys):
    install, fetch, configure, start = _sh_blocks(PAGE)
    assert install.startswith("pip install .")  # the suite runs on the checkout's build
    make, *exports = fetch.splitlines()
    assert make.split("#")[0].split() == ["make", "servers-apache", "APACHE_VERSIONS=5.5.0"]  # `make servers` did
    lib = servers_dir() / "apache-5.5.0" / "lib"
    assert lib.is_dir(), f"{lib}: run make servers"

    namesrv_port = _free_ports([0])
    broker_port = _free_ports([-2, 0, 1])
    script = "\n".join(["set -e", *exports, configure, start, "jobs -p > $ROCKETMQ_HOME/server.pids"])
    for text, ours in [
        ("~/.cache/rocketroute/servers", str(servers_dir())),
        ("/tmp/rmq", str(tmp_path)),
        ("9876", str(namesrv_port)),
        ("10911", str(broker_port)),
    ]:
        assert text in script
        script = script.replace(text, ours)
    subprocess.run(["bash", "-c", script], check=True, timeout=30, start_new_session=True)
    pids = [int(p) for p in (tmp_path / "server.pids").read_text().split()]
    assert len(pids) == 2
    try:
        _wait_for(tmp_path / "namesrv.log", "boot success", pids)
        _wait_for(tmp_path / "broker.log", "boot success", pids)
        # the page's next step: the broker registered (stop 62's CI sent 2 s after boot success, before it had)
        registered = ("logs/rocketmqlogs/broker_default.log", "new broker registered")
        assert all(text in PAGE.read_text() for text in registered)
        _wait_for(tmp_path / registered[0], registered[1], pids)
        (code,) = python_blocks(PAGE, "quickstart")
        code = code.replace("127.0.0.1:9876", f"127.0.0.1:{namesrv_port}")
        exec(compile(code, "the Get started page's Python block", "exec"), {"__name__": "quickstart"})
    finally:
        _stop(pids)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 11, lines
    assert all(re.fullmatch(r"SEND_OK [0-3] \d+", line) for line in lines[:10]), lines
    assert lines[10] == repr(sorted(f"hello {i}".encode() for i in range(10)))
