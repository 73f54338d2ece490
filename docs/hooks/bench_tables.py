"""MkDocs hook: the benchmark page's tables are made from a ``make bench`` run (``docs/bench/results.json``, kept
by ``make bench-docs``) by ``benches/ratios.py``, the script that prints them after ``make bench``, so the page
shows what a run measured and cannot drift from it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

MARKER = "<!-- bench-tables -->"
ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "bench" / "results.json"


def _ratios() -> Any:
    spec = importlib.util.spec_from_file_location("_bench_ratios", ROOT / "benches" / "ratios.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    run = json.loads(RESULTS.read_text(encoding="utf-8"))
    when = (run.get("datetime") or "?")[:10]
    commit = (run.get("commit") or "?")[:7]
    lines = _ratios().render(str(RESULTS))
    head = f"The run of {when} (commit `{commit}`): {lines[0]}, {run['machine_info']['cpu'].get('count')} cores."
    return markdown.replace(MARKER, "\n".join([head, *lines[1:]]))
