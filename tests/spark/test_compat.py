"""``route --compare-profiles`` on a real local SparkSession: every pair's counts equal the per-key answers of
the reference profiles, the table and summary are written, and the report shows the comparison."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

import rocketroute.reference.profiles as ref
from rocketroute.errors import IllegalArgumentError
from rocketroute.spark.compat import compare_profiles, parse_profiles

pytestmark = pytest.mark.spark

KEYS = ["order-1", "order-1", "order-2", "", " ", "\u00a0", "键", "😀 x", *[f"k{i % 37}" for i in range(300)], None]


def _expected(keys, n, profiles):
    weights = Counter(k for k in keys if k is not None)
    placed = {p: {k: _index(k, n, p) for k in weights} for p in profiles}
    rows = {}
    for a in profiles:
        for b in profiles:
            both = [k for k in weights if placed[a][k] is not None and placed[b][k] is not None]
            same = [k for k in both if placed[a][k] == placed[b][k]]
            rows[(a, b)] = (len(both), len(same), sum(weights[k] for k in both), sum(weights[k] for k in same))
    return rows


def _index(key, n, profile):
    try:
        return ref.profile_select_index(key, n, profile)
    except IllegalArgumentError:
        return None


def test_compare_profiles_counts_every_pair_by_keys_and_messages(spark):
    df = spark.createDataFrame([(k,) for k in KEYS], "key string").repartition(3)
    rows = compare_profiles(df, "key", 7, ref.PROFILES)
    expected = _expected(KEYS, 7, ref.PROFILES)
    assert len(rows) == len(ref.PROFILES) ** 2
    for r in rows:
        counts = (r["keys_both"], r["keys_same"], r["messages_both"], r["messages_same"])
        assert counts == expected[(r["a"], r["b"])], (r["a"], r["b"])
        assert r["key_share"] == pytest.approx(r["keys_same"] / r["keys_both"])
        if r["a"] == r["b"]:
            assert r["key_share"] == 1.0


def test_parse_profiles():
    assert parse_profiles("all") == ref.PROFILES
    assert parse_profiles("go4-fnv32a, java-hashcode,go4-fnv32a") == ("go4-fnv32a", "java-hashcode")
    with pytest.raises(IllegalArgumentError, match="unknown routing profile 'java'"):
        parse_profiles("java,go4-fnv32a")
    with pytest.raises(IllegalArgumentError, match="two profiles or more"):
        parse_profiles("go4-fnv32a")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_cli_route_compares_profiles_and_the_report_shows_them(tmp_path, cli):
    src = tmp_path / "msgs.csv"
    src.write_text("key\n" + "".join(f"group-{i % 41}\n" for i in range(400)))
    out = tmp_path / "out"
    done = cli(
        "route", "--input", str(src), "--topic", "T", "--queues", "broker-a:4,broker-b:4",
        "--compare-profiles", "java-hashcode,python5-sha256,go4-fnv32a", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "keys on the same queue, per pair of client routing profiles (8 queues)" in done.stdout
    summary = json.loads((out / "summary" / "summary.json").read_text())
    names = ("java-hashcode", "python5-sha256", "go4-fnv32a")
    assert summary["compat"]["profiles"] == list(names)
    keys = [f"group-{i % 41}" for i in range(400)]
    expected = _expected(keys, 8, names)
    got = {(r["a"], r["b"]): r for r in summary["compat"]["pairs"]}
    for pair, counts in expected.items():
        r = got[pair]
        assert (r["keys_both"], r["keys_same"], r["messages_both"], r["messages_same"]) == counts
    csv_rows = (out / "compat" / "compat.csv").read_text().splitlines()
    assert csv_rows[0] == "a,b,keys_both,keys_same,messages_both,messages_same,key_share,message_share"
    assert len(csv_rows) == 1 + len(names) ** 2

    from rocketroute.spark.report import render_report

    page = render_report(route_dir=out)
    assert "Other clients on the same keys" in page
    assert "python5-sha256" in page and "data:image/png;base64" in page


def test_cli_compare_profiles_errors(tmp_path):
    src = tmp_path / "m.csv"
    src.write_text("key\na\n")
    base = ["route", "--input", str(src), "--topic", "T", "--queues", "b:2", "--out", str(tmp_path / "o")]
    bad = _cli(*base, "--compare-profiles", "java-hashcode,nodejs")
    assert bad.returncode == 2 and "unknown routing profile 'nodejs'" in bad.stderr
    ints = _cli(*base, "--compare-profiles", "all", "--key-type", "long")
    assert ints.returncode == 2 and "compares string keys" in ints.stderr
