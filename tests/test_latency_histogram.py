"""The fixed-size latency histogram of ``bench-producer``: percentiles within 1 % of the exact ones (nearest rank on
the sorted values), exact count, mean, minimum and maximum, and the same memory however many values it holds."""

from __future__ import annotations

import math
import random
import tracemalloc

import pytest

from rocketroute.latency_histogram import LatencyHistogram

QUANTILES = (0.0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0)


def _exact(sorted_values: list[float], q: float) -> float:
    """Nearest rank: the ``ceil(q * n)``-th smallest value (the smallest for q = 0)."""
    return sorted_values[max(1, math.ceil(q * len(sorted_values))) - 1]


def _distributions() -> dict[str, list[float]]:
    rng = random.Random(20240527)
    n = 50_000
    return {
        "lognormal": [rng.lognormvariate(0.0, 1.5) for _ in range(n)],  # ms: 0.01 .. 1000
        "uniform 1-5 ms": [rng.uniform(1.0, 5.0) for _ in range(n)],
        "exponential": [rng.expovariate(1 / 3) for _ in range(n)],
        "sub-microsecond and up": [rng.choice((0.0004, 0.0123, 0.5, 7.25, 3_000.0)) for _ in range(n)],
        "bimodal with a slow tail": [
            rng.gauss(0.8, 0.05) if rng.random() < 0.98 else rng.uniform(3_000, 3_100) for _ in range(n)
        ],
        "constant": [2.5] * 1000,
    }


@pytest.mark.parametrize("name", list(_distributions()))
def test_percentiles_are_within_one_percent_of_the_exact_ones(name):
    values = _distributions()[name]
    h = LatencyHistogram()
    for v in values:
        h.record(v)
    s = sorted(values)
    for q in QUANTILES:
        exact = _exact(s, q)
        got = h.percentile(q)
        # half a bucket (1/256 of the value) and the rounding to whole nanoseconds: well within 1 %
        assert abs(got - exact) <= exact / 256 + 1e-6, (name, q, exact, got)
    assert h.count == len(values)
    assert h.min == min(values) and h.max == max(values)
    assert h.mean == pytest.approx(sum(values) / len(values), rel=1e-9)
    assert h.percentile(1.0) == max(values)


def test_a_value_recorded_n_times_counts_n_times():
    a, b = LatencyHistogram(), LatencyHistogram()
    a.record(1.0, 99)
    a.record(100.0)
    for _ in range(99):
        b.record(1.0)
    b.record(100.0)
    for q in QUANTILES:
        assert a.percentile(q) == b.percentile(q)
    assert a.count == b.count == 100 and a.percentile(0.99) == pytest.approx(1.0, rel=0.004)
    assert a.percentile(0.995) == 100.0


def test_merge_and_reset():
    rng = random.Random(7)
    xs = [rng.lognormvariate(0, 1) for _ in range(5000)]
    ys = [rng.lognormvariate(2, 1) for _ in range(5000)]
    whole, part = LatencyHistogram(), LatencyHistogram()
    for v in xs + ys:
        whole.record(v)
    for v in xs:
        part.record(v)
    other = LatencyHistogram()
    for v in ys:
        other.record(v)
    part.merge(other)
    assert [part.percentile(q) for q in QUANTILES] == [whole.percentile(q) for q in QUANTILES]
    assert (part.count, part.min, part.max) == (whole.count, whole.min, whole.max)
    part.reset()
    assert part.count == 0 and part.percentile(0.99) == 0.0 and part.mean == 0.0 and part.max == 0.0
    part.record(3.0)
    assert part.percentile(0.5) == 3.0


def test_an_empty_histogram_and_bad_input():
    h = LatencyHistogram()
    assert h.percentile(0.5) == 0.0 and h.mean == 0.0 and h.max == 0.0
    for bad in (-1.0, math.nan):
        with pytest.raises(ValueError):
            h.record(bad)
    with pytest.raises(ValueError):
        h.percentile(1.5)
    h.record(1e12)  # ~32 years in ms: counted in the last bucket, the maximum exact
    assert h.count == 1 and h.percentile(0.5) == 1e12


def test_memory_does_not_grow_with_the_number_of_values():
    h = LatencyHistogram()
    size = h.size_bytes
    rng = random.Random(1)
    values = [rng.lognormvariate(0, 2) for _ in range(1000)]
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for _ in range(500):  # 500,000 values
            for v in values:
                h.record(v)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert grown < 16 * 1024, grown  # a list of the values would have grown by 4 MB
    assert h.size_bytes == size < 64 * 1024
    assert h.count == 500_000
