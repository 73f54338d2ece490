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
