"""``make bench-clients`` (benches/bench_clients.py) as a smoke test: every client (the Java and the Go client
included: their drivers are built here, so ``make test`` needs a JDK and Go) sends a few hundred messages in a few
shapes to the instant peer and the table has each one's row with its ratios to the Java client. The figures of such
short runs mean nothing; the full run is ``make bench-clients``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import bench_clients
import pytest

SHAPES = ("sync 1 thread", "async 64 in flight", "batch 32")


def test_every_client_sends_every_shape_to_the_instant_peer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "clients.json"
    assert (
        bench_clients.main(["--quick", "--servers", "instant", "--shapes", ";".join(SHAPES), "--json", str(out)]) == 0
    )
    run = json.loads(out.read_text())
    rows = {(r["shape"], r["client"]): r for r in run["rows"]}
    expected = {(s, c) for s in SHAPES for c in bench_clients.CLIENTS if c != "aio" or s.startswith("async")}
    assert set(rows) == expected
    for (shape, client), r in rows.items():
        expected = next(bench_clients.quick(s) for s in bench_clients.SHAPES if s.name == shape)
        assert r["msgs"] == expected.count, (shape, client)
        assert r["msgs_per_s"] > 0 and r["cpu_s"] >= 0 and 0 < r["p50_ms"] <= r["p99_ms"], (shape, client, r)
    assert run["ceilings"]["instant"]["msgs"] == 2_000
    table = capsys.readouterr().out
    for shape in SHAPES:
        for client in ("java", "go", "native"):
            assert f"| instant | {shape} | {client} | " in table, (shape, client)


def test_rounds_keep_each_client_s_median_run_and_every_round_s_figures(tmp_path: Path) -> None:
    out = tmp_path / "clients.json"
    args = ["--quick", "--servers", "instant", "--shapes", "sync 1 thread", "--clients", "java,native"]
    assert bench_clients.main([*args, "--rounds", "3", "--memory", "0", "--json", str(out)]) == 0
    run = json.loads(out.read_text())
    assert run["rounds"] == 3
    assert [(r["shape"], r["client"]) for r in run["rows"]] == [("sync 1 thread", "java"), ("sync 1 thread", "native")]
    for r in run["rows"]:
        rates = sorted(x["msgs_per_s"] for x in r["rounds"])
        assert len(rates) == 3 and r["msgs_per_s"] == rates[1], r
        assert r["cpu_s"] / r["msgs"] * 1e6 == pytest.approx(
            next(x["cpu_us"] for x in r["rounds"] if x["msgs_per_s"] == r["msgs_per_s"])
        ), r


def test_the_median_run_is_one_run_s_figures() -> None:
    runs = [
        {"msgs": 10, "msgs_per_s": 300.0, "cpu_s": 0.3, "p50_ms": 3.0},
        {"msgs": 10, "msgs_per_s": 100.0, "cpu_s": 0.1, "p50_ms": 1.0},
        {"msgs": 10, "msgs_per_s": 200.0, "cpu_s": 0.2, "p50_ms": 2.0},
        {"msgs": 10, "msgs_per_s": 400.0, "cpu_s": 0.4, "p50_ms": 4.0},
    ]
    row = bench_clients.median_run(runs)
    assert (row["msgs_per_s"], row["cpu_s"], row["p50_ms"]) == (200.0, 0.2, 2.0)  # the lower middle of four
    assert [r["msgs_per_s"] for r in row["rounds"]] == [300.0, 100.0, 200.0, 400.0]  # in the order they ran
    assert "rounds" not in bench_clients.median_run(runs[:1])


def test_rounds_below_one_are_refused() -> None:
    with pytest.raises(SystemExit):
        bench_clients.main(["--rounds", "0"])


def test_the_consumers_read_a_filled_topic_on_apache_s_broker(tmp_path: Path) -> None:
    out = tmp_path / "clients.json"
    clients = ("java", "go", "native")
    args = ["--quick", "--servers", "apache-5.5.0", "--shapes", "consume, 32 per call", "--clients", ",".join(clients)]
    assert bench_clients.main([*args, "--memory", "0", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["shape"], r["client"]) for r in rows] == [("consume, 32 per call", c) for c in clients]
    assert all(r["msgs"] == 200 and r["msgs_per_s"] > 0 for r in rows), rows


def test_the_consumers_read_the_instant_peer_s_canned_queues(tmp_path: Path) -> None:
    out = tmp_path / "clients.json"
    clients = ("java", "go", "native", "aio")  # aio: rr.aio.Consumer read with async for
    args = ["--quick", "--servers", "instant", "--shapes", "consume, 1 per call", "--clients", ",".join(clients)]
    assert bench_clients.main([*args, "--memory", "0", "--json", str(out)]) == 0
    run = json.loads(out.read_text())
    assert [(r["shape"], r["client"]) for r in run["rows"]] == [("consume, 1 per call", c) for c in clients]
    # the peer holds exactly the 250 (warm-up and measured) messages a quick shape reads, rounded up to 8 queues;
    # 200 messages read in about a millisecond may register no CPU time (the table shows no ratio then), as in the
    # producers' smoke test
    assert all(r["msgs"] == 200 and r["msgs_per_s"] > 0 and r["cpu_s"] >= 0 for r in run["rows"]), run["rows"]
    assert run["pull_ceilings"]["instant"]["msgs"] >= 2_000 and run["pull_ceilings"]["instant"]["msgs_per_s"] > 0


def test_the_lite_pull_consumers_poll_the_instant_peer_s_canned_queues(tmp_path: Path) -> None:
    out = tmp_path / "clients.json"
    clients = ("java", "go", "native", "reference", "aio")  # go: no lite pull consumer, so no row
    args = ["--quick", "--servers", "instant", "--shapes", "lite pull, 32 per poll", "--clients", ",".join(clients)]
    assert bench_clients.main([*args, "--memory", "0", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["shape"], r["client"]) for r in rows] == [("lite pull, 32 per poll", c) for c in clients if c != "go"]
    assert all(r["msgs"] == 200 and r["msgs_per_s"] > 0 and r["cpu_s"] >= 0 for r in rows), rows


def test_without_go_the_go_client_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_clients.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match=r"go not found.*leave go out of --clients"):
        bench_clients.GoClient(tmp_path)


def test_an_unknown_server_name_is_refused() -> None:
    with pytest.raises(SystemExit):
        bench_clients.main(["--servers", "instanty"])


def test_the_docs_table_comes_from_a_kept_full_run() -> None:
    root = Path(__file__).resolve().parent.parent
    assert "<!-- bench-clients-table -->" in (root / "docs" / "benchmarks.md").read_text()
    run = json.loads((root / "docs" / "bench" / "clients.json").read_text())
    rows = {(r["server"], r["shape"], r["client"]) for r in run["rows"]}
    expected = {
        (v, s.name, c)
        for v in bench_clients.SERVERS
        for s in bench_clients.SHAPES
        for c in bench_clients.DOCS_CLIENTS
        if c != "aio" or s.mode == "async"
    }
    expected |= {
        (v, s.name, c)
        for v in bench_clients.SERVERS
        for s in bench_clients.CONSUMER_SHAPES
        for c in bench_clients.DOCS_CLIENTS
    }
    assert rows == expected
    assert set(run["pull_ceilings"]) == set(bench_clients.SERVERS), "each broker's pull ceiling beside its send ceiling"
    assert all(r["msgs"] >= 5_000 for r in run["rows"]), "the kept run is a full one, not --quick"
    lines = bench_clients.table(run)
    threaded = [c for c in bench_clients.DOCS_CLIENTS if c != "aio"]  # aio has no sync shape
    assert sum(line.startswith("| instant | sync 1 thread | ") for line in lines) == len(threaded)
    on, off = run["memory"]  # the back-pressure's memory run: a million submits, flat
    assert (on["back_pressure"], on["count"], on["failed"], off["back_pressure"]) == (True, 1_000_000, 0, False)
    assert max(on["rss_mib"]) - min(on["rss_mib"]) < 0.1 * min(on["rss_mib"])


def test_the_java_client_runs_as_production_runs_it_and_the_test_jvm_is_a_labelled_variant(tmp_path: Path) -> None:
    """Issue 52, item 10: the ``java`` rows use the JVM's defaults (G1, its default heap, C2); the tests' small JVM
    (256 MiB, the serial GC, C1 only) is only the ``java-test-jvm`` variant's."""
    import sys

    sys.path.insert(0, str(Path(bench_clients.ROOT)))
    from tests._java_peers import TEST_JVM, JavaPeer

    class Dirs:
        @staticmethod
        def mktemp(name: str) -> Path:
            return tmp_path / name

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    peer = JavaPeer.__new__(JavaPeer)
    peer.main, peer.lib, peer.classes = "ProducerBench", tmp_path / "a", tmp_path / "b"
    production = peer.command(tmp_path, "x", production=True)
    assert not set(TEST_JVM) & set(production)
    assert not any(o.startswith(("-Xmx", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel")) for o in production)
    assert set(TEST_JVM) <= set(peer.command(tmp_path, "x"))
    assert "G1" in bench_clients.java_jvm()


def test_warm_up_runs_until_three_windows_agree() -> None:
    assert not bench_clients.steady([100.0, 200.0])
    assert not bench_clients.steady([50.0, 100.0, 104.0, 140.0])
    assert bench_clients.steady([50.0, 100.0, 102.0, 104.0])
    rates = iter([10.0, 50.0, 100.0, 101.0, 102.0, 500.0])
    calls = []

    def run(n: int) -> list[float]:
        calls.append(n)
        rate = next(rates)
        time.sleep(n / rate / 1000)  # a millisecond's scale, to keep the test short
        return [0.0] * n

    warm = bench_clients.warm_up(run, 20, 1, 60.0)
    assert warm["steady"] and len(warm["warmup_rates"]) == 5 and len(calls) == 5


def test_rounds_turn_the_clients_order_and_read_the_machine_s_load(tmp_path: Path) -> None:
    out = tmp_path / "clients.json"
    args = ["--quick", "--servers", "instant", "--shapes", "sync 1 thread", "--clients", "java,native,go"]
    assert bench_clients.main([*args, "--rounds", "3", "--memory", "0", "--json", str(out)]) == 0
    run = json.loads(out.read_text())
    assert "others_cores_max" in run and "load_max" in run and "G1" in run["machine"]
    for r in run["rows"]:
        assert {"load_before", "load_after", "others_cores", "order"} <= set(r)
    # over three rounds each client ran first once, second once and last once: the order turned
    for r in run["rows"]:
        assert sorted(x["order"] for x in r["rounds"]) == [0, 1, 2], r
    java = next(r for r in run["rows"] if r["client"] == "java")
    assert "jit_ms" in java and "gc_ms" in java and "warmup_s" in java and "steady" in java


def test_a_run_on_a_busy_machine_is_not_kept_for_the_docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_clients, "OTHERS_MAX", -1.0)  # any other process's CPU is too much
    out, kept = tmp_path / "clients.json", tmp_path / "kept.json"
    args = ["--quick", "--servers", "instant", "--shapes", "sync 1 thread", "--clients", "native", "--memory", "0"]
    assert bench_clients.main([*args, "--json", str(out), "--keep", str(kept)]) == 2
    assert out.is_file() and not kept.is_file()
