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
CLUSTER_MARKER = "<!-- bench-cluster-tables -->"
CLIENTS_MARKER = "<!-- bench-clients-table -->"
SCALING_MARKER = "<!-- bench-scaling-plot -->"
ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "bench" / "results.json"
CLUSTER_RESULTS = ROOT / "docs" / "bench" / "cluster.json"
"""The producer and consumer on real brokers, from a run of their own (``make bench-cluster-docs``)."""
CLIENTS_RESULTS = ROOT / "docs" / "bench" / "clients.json"
"""rr.Producer against the Java client (``make bench-clients-docs``, benches/bench_clients.py)."""
SCALING_RESULTS = ROOT / "docs" / "bench" / "scaling.json"
"""The same clients from 1 to 16 threads and 1 to 4096 sends in flight (``make bench-scaling-docs``,
benches/bench_scaling.py): drawn as an SVG, its table beneath."""


def _bench_module(name: str) -> Any:
    if str(ROOT / "benches") not in sys.path:
        sys.path.insert(0, str(ROOT / "benches"))  # bench_scaling imports bench_clients as the benches do
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", ROOT / "benches" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    ratios = _bench_module("ratios")
    lines = ratios.render(str(RESULTS), clients=False)
    markdown = markdown.replace(MARKER, "\n".join([_head(RESULTS, lines[0]), *lines[1:]]))
    if CLUSTER_MARKER in markdown:
        machine = ratios.render(str(CLUSTER_RESULTS), clients=False)[0]
        lines = ratios.client_tables(str(CLUSTER_RESULTS))
        markdown = markdown.replace(CLUSTER_MARKER, "\n".join([_head(CLUSTER_RESULTS, machine), *lines]))
    if CLIENTS_MARKER in markdown:
        table = _bench_module("bench_clients").table(json.loads(CLIENTS_RESULTS.read_text(encoding="utf-8")))
        markdown = markdown.replace(CLIENTS_MARKER, "\n".join(table))
    if SCALING_MARKER in markdown:
        run = json.loads(SCALING_RESULTS.read_text(encoding="utf-8"))
        svg = _bench_module("bench_scaling").plot(run)
        table = _bench_module("bench_clients").table(run)
        plot = f'<div class="bench-plot">\n{svg}\n</div>'  # a block of raw HTML: Markdown leaves it as it is
        markdown = markdown.replace(SCALING_MARKER, "\n".join([plot, "", *table]))
    return markdown


def _head(path: Path, machine: str) -> str:
    run = json.loads(path.read_text(encoding="utf-8"))
    when = (run.get("datetime") or "?")[:10]
    commit = (run.get("commit") or "?")[:7]
    return f"The run of {when} (commit `{commit}`): {machine}, {run['machine_info']['cpu'].get('count')} cores."
