"""Print native against reference from a pytest-benchmark JSON file, one row per operation.

    python benches/ratios.py out/bench/results.json

Each benchmark group is one operation; the ``lib`` parameter says which backend ran it (``reference``,
``native``, or ``numpy`` for the vectorised NumPy version of a batch function). The ratio is reference median /
native median: how many times faster the native backend is (medians, so one slow round from a noisy neighbour
does not move a row). The tables are Markdown.

Two tables:

- per call: every group whose benchmarks do not say how many keys or operations one call handles; the median
  time of one call (the original table; a ``size`` column is added when a benchmark sets
  ``extra_info["size"]``).
- per key / op: every group whose benchmarks set ``extra_info["keys"]`` (a batch call over that many keys)
  or ``extra_info["ops"]`` (that many calls from many threads in one round). Backends may run different
  sizes (the reference runs 100k keys where native runs 10M), so time is compared per key: ns per key and
  millions of keys per second, and the ratios of those. ``extra_info["variant"]`` (e.g. "2 threads") makes
  separate rows of one group; each later variant is compared with the group's first
  (``native 1.8x vs 1 thread``).

With ``--before OLD.json`` (an earlier run of the same benches, e.g. of the previous commit's build) a third
table compares each library's per-call (or per-key) median with its median in OLD: after / before, so 0.90 is
10% faster and 1.10 is 10% slower, and ``--max-slower 0.10`` makes the script exit 1 when a native row is
slower than that."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Any

BACKENDS = ("reference", "native")
LIBRARIES = (*BACKENDS, "numpy")
"""Every ``lib`` a table shows; ``numpy`` only appears in the per-key table, and only when present."""


@dataclass
class Row:
    """One operation (a group, or one variant of a group): the median of each library and what it covers."""

    group: str
    variant: str | None = None
    median_ns: dict[str, float] = field(default_factory=dict)
    items: dict[str, int] = field(default_factory=dict)  # lib -> keys (or ops) per call, per-key rows only
    unit: str | None = None  # "key" or "op" for per-key rows, None for per-call rows
    size: str | None = None

    @property
    def label(self) -> str:
        return self.group if self.variant is None else f"{self.group} [{self.variant}]"

    def per_item(self, lib: str) -> float | None:
        """ns per key / op (per-key rows), or the median per call."""
        median = self.median_ns.get(lib)
        if median is None:
            return None
        if self.unit is None:
            return median
        return median / self.items[lib]


def _backend(bench: dict[str, Any]) -> str | None:
    params = bench.get("params") or {}
    lib = params.get("lib") or bench.get("param")
    return lib if lib in LIBRARIES else None


def load_rows(path: str) -> tuple[list[Row], dict[str, Any]]:
    """The rows in the order their groups first appear, and the machine info."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows: dict[tuple[str, str | None], Row] = {}
    for bench in data.get("benchmarks", []):
        lib = _backend(bench)
        extra = bench.get("extra_info") or {}
        if lib is None or "server" in extra:  # a real broker's benchmark: the producer / consumer tables show it
            continue
        group = bench.get("group") or bench.get("name", "?").split("[")[0]
        variant = extra.get("variant")
        row = rows.setdefault((group, None if variant is None else str(variant)), Row(group, variant))
        row.median_ns[lib] = bench["stats"]["median"] * 1e9
        for unit, key in (("key", "keys"), ("op", "ops")):
            if extra.get(key):
                row.unit = unit
                row.items[lib] = int(extra[key])
        size = extra.get("size")
        if size and (lib == "native" or row.size is None):
            row.size = str(size)
    return list(rows.values()), data.get("machine_info") or {}


def load(path: str) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """``{group: {backend: median in ns}}`` of the per-call groups (native and reference) in the order the groups
    first appear, and the machine info."""
    rows, machine = load_rows(path)
    medians: dict[str, dict[str, float]] = {}
    for row in rows:
        if row.unit is None:
            medians.setdefault(row.label, {}).update({b: m for b, m in row.median_ns.items() if b in BACKENDS})
    return {g: m for g, m in medians.items() if m}, machine


def fmt_ns(v: float | None) -> str:
    if v is None:
        return "n/a"
    return f"{v:,.1f}" if v < 1000 else f"{v:,.0f}"


def fmt_ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:,.1f}x" if a is not None and b else "n/a"


def fmt_count(n: int | None) -> str:
    if n is None:
        return "n/a"
    for div, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= div and n % (div // 10) == 0:
            return f"{n / div:g}{suffix}"
    return f"{n:,}"


def markdown(header: tuple[str, ...], rows: list[tuple[str, ...]], align: str) -> list[str]:
    """A Markdown table; ``align`` has one letter per column: ``l`` (left) or ``r`` (right)."""
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(cells, widths, align, strict=True)]
        return "| " + " | ".join(parts) + " |"

    sep = "|" + "|".join("-" * (w + 2) if a == "l" else "-" * (w + 1) + ":" for w, a in zip(widths, align, strict=True))
    return [line(header), sep + "|", *(line(row) for row in rows)]


def table(medians: dict[str, dict[str, float]], sizes: dict[str, str] | None = None) -> list[str]:
    """The per-call table: operation, [size,] reference median, native median, ratio."""
    with_size = bool(sizes)
    header: tuple[str, ...] = ("operation", "reference median (ns)", "native median (ns)", "ratio (reference/native)")
    if with_size:
        header = (header[0], "size", *header[1:])
    rows = []
    for group, by_backend in medians.items():
        r, n = by_backend.get("reference"), by_backend.get("native")
        cells: tuple[str, ...] = (group, fmt_ns(r), fmt_ns(n), fmt_ratio(r, n))
        if with_size:
            cells = (group, (sizes or {}).get(group, ""), *cells[1:])
        rows.append(cells)
    return markdown(header, rows, align=("ll" if with_size else "l") + "rrr")


def per_item_table(rows: list[Row]) -> list[str]:
    """The per-key / per-op table."""
    with_numpy = any("numpy" in row.median_ns for row in rows)
    header: tuple[str, ...] = ("operation", "unit", "size (reference / native)", "reference ns", "native ns")
    if with_numpy:
        header += ("numpy ns",)
    header += ("ratio (reference/native)",)
    if with_numpy:
        header += ("ratio (numpy/native)",)
    header += ("native M/s", "notes")
    firsts: dict[str, Row] = {}
    out = []
    for row in rows:
        first = firsts.setdefault(row.group, row)
        r, n, np_ = row.per_item("reference"), row.per_item("native"), row.per_item("numpy")
        size = f"{fmt_count(row.items.get('reference'))} / {fmt_count(row.items.get('native'))}"
        cells: tuple[str, ...] = (row.label, str(row.unit), size, fmt_ns(r), fmt_ns(n))
        if with_numpy:
            cells += (fmt_ns(np_),)
        cells += (fmt_ratio(r, n),)
        if with_numpy:
            cells += (fmt_ratio(np_, n),)
        cells += (f"{1e3 / n:,.1f}" if n else "n/a",)
        notes = []
        if first is not row:  # a later variant against the group's first
            for lib in LIBRARIES:
                mine, base = row.per_item(lib), first.per_item(lib)
                if mine and base:
                    notes.append(f"{lib} {base / mine:.2f}x vs {first.variant}")
        cells += ("; ".join(notes),)
        out.append(cells)
    return markdown(header, out, align="ll" + "r" * (len(header) - 3) + "l")


def producer_table(path: str) -> list[str]:
    """The producer on a real broker (benchmarks with ``extra_info["p50_ms"]``): per server, variant and backend,
    msgs/s (ops / median round time), the per-message p50/p99 of the last round, the share of the raw pipelined
    sender's msgs/s (the ``raw`` variant on the same server, same backend run), and for the sync sends the routing
    core's share of a send's client CPU."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    found = []
    for bench in data.get("benchmarks", []):
        extra = bench.get("extra_info") or {}
        if "p50_ms" not in extra or not extra.get("ops"):
            continue
        rate = extra["ops"] / bench["stats"]["median"]
        found.append((str(extra.get("server", "?")), str(extra.get("variant")), _backend(bench) or "?", rate, extra))
    if not found:
        return []
    found.sort(key=lambda f: f[0])  # stable: each server's rows together, in run order
    limit = {(server, lib): rate for server, variant, lib, rate, _ in found if variant.startswith("raw")}
    rows = []
    for server, variant, lib, rate, extra in found:
        share = f"{rate / limit[server, lib]:.0%}" if (server, lib) in limit else "n/a"
        routing = f"{extra['routing_share']:.2%}" if "routing_share" in extra else ""
        rows.append(
            (server, variant, lib, f"{rate:,.0f}", f"{extra['p50_ms']:.2f}", f"{extra['p99_ms']:.2f}", share, routing)
        )
    header = (
        "server",
        "variant",
        "backend",
        "msgs/s",
        "p50 ms",
        "p99 ms",
        "share of raw limit",
        "routing share of CPU",
    )
    return markdown(header, rows, align="lllrrrrr")


def consumer_table(path: str) -> list[str]:
    """The consumer on a real broker (benchmarks with ``extra_info["consumer_variant"]``): per server, variant and
    backend, msgs/s consumed (ops / median round time), or for the join benchmark the fastest time from a member
    joining to the group having rebalanced."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = []
    for bench in data.get("benchmarks", []):
        extra = bench.get("extra_info") or {}
        variant = extra.get("consumer_variant")
        if variant is None:
            continue
        lib = _backend(bench) or "?"
        server = str(extra.get("server", "?"))
        if extra.get("ops"):
            rows.append((server, variant, lib, f"{extra['ops'] / bench['stats']['median']:,.0f} msgs/s"))
        elif "join_s" in extra:
            rows.append((server, variant, lib, f"{extra['join_s'] * 1000:,.0f} ms"))
    if not rows:
        return []
    rows.sort(key=lambda r: r[0])
    return markdown(("server", "variant", "backend", "result"), rows, align="lllr")


def compare_rows(after: list[Row], before: list[Row]) -> list[tuple[str, str, float, float]]:
    """(operation, library, before, after) for every row and library found in both runs: ns per call, or per
    key / op for the per-key rows."""
    old = {row.label: row for row in before}
    out = []
    for row in after:
        prior = old.get(row.label)
        if prior is None or prior.unit != row.unit:
            continue
        for lib in LIBRARIES:
            now, then = row.per_item(lib), prior.per_item(lib)
            if now and then:
                out.append((row.label, lib, then, now))
    return out


def compare_table(pairs: list[tuple[str, str, float, float]]) -> list[str]:
    """The before / after table: operation, library, both medians and after / before."""
    rows = [(label, lib, fmt_ns(then), fmt_ns(now), f"{now / then:.2f}") for label, lib, then, now in pairs]
    header = ("operation", "lib", "before median (ns)", "after median (ns)", "after / before")
    return markdown(header, rows, align="llrrr")


def client_tables(path: str) -> list[str]:
    """The producer and consumer tables of one run (the real-broker benchmarks), with their titles."""
    out: list[str] = []
    for title, lines in (
        ("The producer on one local broker (1 KiB messages):", producer_table(path)),
        ("The consumer on one local broker (1 KiB messages):", consumer_table(path)),
    ):
        if lines:
            out += ["", title, "", *lines]
    return out


def render(path: str, *, clients: bool = True) -> list[str]:
    """Every table of one run, as Markdown lines (the ``make bench`` output, and the docs' benchmark page);
    ``clients=False`` leaves the real-broker tables out (the docs keep those from a run of their own)."""
    rows, machine = load_rows(path)
    medians, _ = load(path)
    keyed = [row for row in rows if row.unit is not None]
    cpu = (machine.get("cpu") or {}).get("brand_raw") or machine.get("processor") or "unknown CPU"
    out = [f"{machine.get('python_implementation') or 'Python'} {machine.get('python_version') or '?'}, {cpu}"]
    if medians:
        sizes = {row.label: row.size for row in rows if row.unit is None and row.size}
        out += ["", *table(medians, sizes)]
    if keyed:
        out += ["", "Per key (batch calls) or per op (calls from many threads); sizes may differ per backend:", ""]
        out += per_item_table(keyed)
    if clients:
        out += client_tables(path)
    if any("native" not in row.median_ns for row in rows):
        out += ["", "native: n/a = the native backend was not built or not in use (see rocketroute.BACKEND)"]
    return out


def keep(path: str, dest: str) -> None:
    """Writes the part of a run that :func:`render` reads (groups, parameters, extra info, medians, the machine,
    the commit) to ``dest``: the docs' benchmark page is made from that file, a few dozen kB instead of the
    full pytest-benchmark output."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    machine = data.get("machine_info") or {}
    kept = {
        "datetime": data.get("datetime"),
        "commit": (data.get("commit_info") or {}).get("id"),
        "machine_info": {
            "python_implementation": machine.get("python_implementation"),
            "python_version": machine.get("python_version"),
            "cpu": {
                "brand_raw": (machine.get("cpu") or {}).get("brand_raw"),
                "count": (machine.get("cpu") or {}).get("count"),
            },
        },
        "benchmarks": [
            {
                "group": b.get("group"),
                "name": b.get("name"),
                "param": b.get("param"),
                "params": b.get("params"),
                "extra_info": b.get("extra_info"),
                "stats": {k: b["stats"][k] for k in ("median", "iqr", "rounds")},
            }
            for b in data.get("benchmarks", [])
        ],
    }
    with open(dest, "w", encoding="utf-8") as f:
        json.dump(kept, f, indent=1, sort_keys=True)
        f.write("\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="the file written by pytest --benchmark-json")
    parser.add_argument("--before", metavar="OLD.json", help="an earlier run to compare with (after / before)")
    parser.add_argument(
        "--max-slower",
        type=float,
        metavar="SHARE",
        help="with --before: exit 1 when a native row's after / before exceeds 1 + SHARE (e.g. 0.10)",
    )
    parser.add_argument("--keep", metavar="DEST.json", help="also write the part the docs' page reads to DEST")
    args = parser.parse_args(argv)
    rows, _ = load_rows(args.json)
    if not rows and client_tables(args.json):  # a run of the real-broker benchmarks alone (make bench-cluster)
        print("\n".join(client_tables(args.json)).lstrip("\n"))
        if args.keep:
            keep(args.json, args.keep)
            print(f"\nkept for the docs: {args.keep}")
        return 0
    if not any(BACKENDS[0] in r.median_ns or BACKENDS[1] in r.median_ns for r in rows):
        print(f"no native/reference benchmarks in {args.json}", file=sys.stderr)
        return 1
    print("\n".join(render(args.json)))
    if args.keep:
        keep(args.json, args.keep)
        print(f"\nkept for the docs: {args.keep}")
    if not args.before:
        return 0
    pairs = compare_rows(rows, load_rows(args.before)[0])
    print(f"\nAgainst {args.before} (medians; after / before below 1 is faster):\n")
    print("\n".join(compare_table(pairs)))
    if args.max_slower is not None:
        slower = [
            (label, now / then)
            for label, lib, then, now in pairs
            if lib == "native" and now / then > 1 + args.max_slower
        ]
        for label, ratio in slower:
            print(f"native slower by more than {args.max_slower:.0%}: {label} ({ratio:.2f})", file=sys.stderr)
        return 1 if slower else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
