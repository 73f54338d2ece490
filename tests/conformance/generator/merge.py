#!/usr/bin/env python3
"""Merges the per-version raw files of the generators into the committed NAME.jsonl.gz files.

A case id present for both 4.9.8 and 5.3.3 with identical content becomes one line with both versions;
otherwise each version gets its own line, id suffixed with @4.9.8 / @5.3.3. Output: compact JSON, ASCII only,
gzip -n (no name, no timestamp) so the bytes are reproducible.
"""

import gzip
import json
import sys
from pathlib import Path

raw, out = Path(sys.argv[1]), Path(sys.argv[2])
VERSIONS = ["4.9.8", "5.3.3"]
CLIENTS = "clients-java-5.2.1"


def load(path):
    cases = {}
    order = []
    for line in path.read_text(encoding="ascii").splitlines():
        c = json.loads(line)
        if c["id"] in cases:
            raise SystemExit(f"duplicate id {c['id']} in {path}")
        cases[c["id"]] = c
        order.append(c["id"])
    return cases, order


def dump(case):
    return json.dumps(case, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def line(case, versions, suffix=None):
    rest = {k: v for k, v in case.items() if k not in ("id", "kind")}
    head = {"id": case["id"] + (f"@{suffix}" if suffix else ""), "versions": versions, "kind": case["kind"]}
    return dump({**head, **rest})


def write(name, lines):
    data = ("\n".join(lines) + "\n").encode("ascii")
    target = out / f"{name}.jsonl.gz"
    with open(target, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as g:
            g.write(data)
    print(f"{target.name}: {len(lines)} lines, {target.stat().st_size} bytes")


for name in ["producer", "fault_tables", "route_data", "static_topic", "acl_signature"]:
    (a, order_a), (b, order_b) = (load(raw / f"{name}.{v}.jsonl") for v in VERSIONS)
    ids = list(order_a)
    pos = {i: n for n, i in enumerate(ids)}
    # ids only in 5.3.3 go right after the previous 5.3.3 id
    prev = None
    for i in order_b:
        if i not in pos:
            at = ids.index(prev) + 1 if prev is not None else 0
            ids.insert(at, i)
            pos = {x: n for n, x in enumerate(ids)}
        prev = i
    lines = []
    for i in ids:
        ca, cb = a.get(i), b.get(i)
        if ca is not None and cb is not None and dump(ca) == dump(cb):
            lines.append(line(ca, VERSIONS))
        elif ca is not None and cb is not None:
            lines.append(line(ca, ["4.9.8"], "4.9.8"))
            lines.append(line(cb, ["5.3.3"], "5.3.3"))
        elif ca is not None:
            lines.append(line(ca, ["4.9.8"]))
        else:
            lines.append(line(cb, ["5.3.3"]))
    write(name, lines)

grpc = raw / f"grpc_balancer.{CLIENTS}.jsonl"
if grpc.exists():
    c, order = load(grpc)
    write("grpc_balancer", [line(c[i], [CLIENTS]) for i in order])
