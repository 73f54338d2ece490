"""``benches/ratios.py``, the table ``make bench`` prints and the docs' benchmark page is made from: medians (not
means), ``--before`` (after / before per library) and ``--max-slower`` (exit 1 past the share)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ratios() -> Any:
    spec = importlib.util.spec_from_file_location("_ratios_under_test", ROOT / "benches" / "ratios.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _run(path: Path, medians: dict[str, float], mean_factor: float = 3.0) -> Path:
    """A pytest-benchmark JSON with one group ``op`` per backend; each mean is ``mean_factor`` x its median (one
    slow outlier round), so a table that read means would show other numbers."""
    benches = [
        {
            "group": "op",
            "name": f"test_op[{lib}]",
            "param": lib,
            "params": {"lib": lib},
            "extra_info": {},
            "stats": {"median": m * 1e-9, "mean": m * mean_factor * 1e-9, "iqr": 0.0, "rounds": 5},
        }
        for lib, m in medians.items()
    ]
    path.write_text(json.dumps({"machine_info": {"python_version": "3.11"}, "benchmarks": benches}))
    return path


def test_the_table_shows_medians(ratios, tmp_path, capsys):
    run = _run(tmp_path / "run.json", {"reference": 1000.0, "native": 100.0})
    assert ratios.main([str(run)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| op "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["op", "1,000", "100.0", "10.0x"]


def test_before_compares_each_library_and_max_slower_fails_past_the_share(ratios, tmp_path, capsys):
    before = _run(tmp_path / "before.json", {"reference": 1000.0, "native": 100.0})
    after = _run(tmp_path / "after.json", {"reference": 1000.0, "native": 115.0}, mean_factor=1.0)
    assert ratios.main([str(after), "--before", str(before)]) == 0
    out = capsys.readouterr().out
    native = next(line for line in out.splitlines() if line.startswith("| op ") and "| native " in line)
    assert native.rstrip(" |").endswith("1.15")
    assert ratios.main([str(after), "--before", str(before), "--max-slower", "0.10"]) == 1
    assert "native slower by more than 10%: op (1.15)" in capsys.readouterr().err
    assert ratios.main([str(after), "--before", str(before), "--max-slower", "0.20"]) == 0


def test_keep_writes_what_render_reads(ratios, tmp_path):
    run = _run(tmp_path / "run.json", {"reference": 1000.0, "native": 100.0})
    kept = tmp_path / "kept.json"
    ratios.keep(str(run), str(kept))
    assert ratios.render(str(kept)) == ratios.render(str(run))
    assert set(json.loads(kept.read_text())["benchmarks"][0]["stats"]) == {"median", "iqr", "rounds"}


def test_the_docs_page_tables_come_from_the_kept_run(ratios):
    kept = ROOT / "docs" / "bench" / "results.json"
    lines = ratios.render(str(kept))
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    assert "<!-- bench-tables -->" in page
    assert any(line.startswith("| allocate AVG (16 queues, 4 consumers)") for line in lines)
    assert "n/a = the native backend was not built" not in "\n".join(lines), "the kept run must have native rows"


def test_the_producer_table_puts_each_server_beside_its_own_raw_limit(ratios, tmp_path, capsys):
    """A run of the real-broker benchmarks alone: one row per server, variant and backend; each variant's share
    is of the raw limit measured on the same server (not the other one's)."""

    def bench(server: str, variant: str, lib: str, seconds: float) -> dict[str, Any]:
        return {
            "group": "send 1 KiB to one local broker",
            "name": f"test_x[{lib}-{server}]",
            "param": f"{lib}-{server}",
            "params": {"lib": lib},
            "extra_info": {"server": server, "variant": variant, "ops": 1000, "p50_ms": 1.0, "p99_ms": 2.0},
            "stats": {"median": seconds, "mean": seconds, "iqr": 0.0, "rounds": 3},
        }

    benches = [
        bench("apache-5.5.0", "raw pipelined (limit)", "native", 0.1),  # 10,000 msgs/s
        bench("apache-5.5.0", "sync, 1 thread", "native", 0.4),  # 2,500 msgs/s: 25% of 10,000
        bench("rust-1.0.0", "raw pipelined (limit)", "native", 1.0),  # 1,000 msgs/s
        bench("rust-1.0.0", "sync, 1 thread", "native", 2.0),  # 500 msgs/s: 50% of 1,000
    ]
    run = tmp_path / "cluster.json"
    run.write_text(json.dumps({"machine_info": {}, "benchmarks": benches}))
    assert ratios.main([str(run)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "sync, 1 thread" in line]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    assert [(c[0], c[3], c[6]) for c in cells] == [("apache-5.5.0", "2,500", "25%"), ("rust-1.0.0", "500", "50%")]
