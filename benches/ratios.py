"""Print native against reference from a pytest-benchmark JSON file, one row per operation.

    python benches/ratios.py out/bench/results.json

Each benchmark group is one operation; the ``lib`` parameter says which backend ran it. The ratio is
reference mean / native mean: how many times faster the native backend is. The table is Markdown."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

BACKENDS = ("reference", "native")


def load(path: str) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """``{group: {backend: mean in ns}}`` in the order the groups first appear, and the machine info."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    means: dict[str, dict[str, float]] = {}
    for bench in data.get("benchmarks", []):
        backend = (bench.get("params") or {}).get("lib") or bench.get("param")
        if backend not in BACKENDS:
            continue
        group = bench.get("group") or bench.get("name", "?").split("[")[0]
        means.setdefault(group, {})[backend] = bench["stats"]["mean"] * 1e9
    return means, data.get("machine_info") or {}


def fmt_ns(v: float | None) -> str:
    if v is None:
        return "n/a"
    return f"{v:,.1f}" if v < 1000 else f"{v:,.0f}"


def table(means: dict[str, dict[str, float]]) -> list[str]:
    header = ("operation", "reference mean (ns)", "native mean (ns)", "ratio (reference/native)")
    rows = []
    for group, by_backend in means.items():
        r, n = by_backend.get("reference"), by_backend.get("native")
        ratio = f"{r / n:,.1f}x" if r is not None and n else "n/a"
        rows.append((group, fmt_ns(r), fmt_ns(n), ratio))
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        parts = [cells[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "| " + " | ".join(parts) + " |"

    sep = "|" + "|".join(["-" * (widths[0] + 2)] + ["-" * (w + 1) + ":" for w in widths[1:]]) + "|"
    return [line(header), sep, *(line(row) for row in rows)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="the file written by pytest --benchmark-json")
    args = parser.parse_args(argv)
    means, machine = load(args.json)
    if not means:
        print(f"no native/reference benchmarks in {args.json}", file=sys.stderr)
        return 1
    cpu = (machine.get("cpu") or {}).get("brand_raw") or machine.get("processor") or "unknown CPU"
    print(f"{machine.get('python_implementation', 'Python')} {machine.get('python_version', '?')}, {cpu}")
    print()
    print("\n".join(table(means)))
    if any("native" not in v for v in means.values()):
        print("\nnative: n/a = the native backend was not built or not in use (see rocketroute.BACKEND)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
