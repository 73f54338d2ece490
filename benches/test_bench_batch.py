"""Batch entry points over millions of keys: native against the reference and against a vectorised NumPy
version of the Java hash (a third "library" row, ``numpy``), one benchmark group per operation and size.

The reference is far too slow for millions of keys: it runs at ``REFERENCE_KEYS`` (100k) keys in every group,
and every row records ``extra_info["keys"]`` so that ``benches/ratios.py`` compares time per key. The NumPy row
hashes fixed-width 16-byte ASCII keys (an ``S16`` array viewed as a uint8 matrix, uint32 Horner over the 16
columns): the best case for NumPy, which cannot hash variable-length or non-ASCII keys this way.

Also here: per-call ``SelectMessageQueueByHash.select`` with short (4-char) and long (64-char) string keys and
int / long keys (``test_bench_producer.py`` has the 16-char string key), the per-key cost a batch call replaces.

With ``--benchmark-disable`` (``make test``) every size shrinks to a few thousand keys: a smoke test."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import rocketroute
import rocketroute.reference as ref

KEY_WIDTH = 16
NUM_QUEUES = 16
FULL_SIZES = {"100k": 100_000, "1M": 1_000_000, "10M": 10_000_000}
SMOKE_SIZES = {"100k": 500, "1M": 2_000, "10M": 3_000}
REFERENCE_SIZE = "100k"
CHECKED_KEYS = 1_000  # how many keys of each result are checked against the reference's per-call answers


def smoke(config: pytest.Config) -> bool:
    return bool(config.getoption("benchmark_disable"))


def key_count(config: pytest.Config, size: str) -> int:
    return (SMOKE_SIZES if smoke(config) else FULL_SIZES)[size]


# --- keys --------------------------------------------------------------------------------------------------


@functools.cache
def ascii_keys(n: int, width: int = KEY_WIDTH) -> np.ndarray:
    """``n`` random ASCII keys of exactly ``width`` printable characters (``'0'`` to ``'o'``), as ``S{width}``."""
    rng = np.random.default_rng(20240101 + n)
    codes = np.frombuffer(rng.bytes(n * width), dtype=np.uint8) & np.uint8(63)
    codes = codes + np.uint8(48)
    return codes.view(f"S{width}").reshape(n)


def arrow_strings(keys: np.ndarray, large: bool = False) -> pa.Array:
    """A pyarrow string array over the bytes of a fixed-width ``S`` array, without copying them."""
    n, width = len(keys), keys.dtype.itemsize
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int64 if large else np.int32)
    typ = pa.large_string() if large else pa.string()
    return pa.Array.from_buffers(typ, n, [None, pa.py_buffer(offsets), pa.py_buffer(keys)])


@functools.cache
def string_input(container: str, n: int) -> Any:
    keys = ascii_keys(n)
    if container == "pyarrow string":
        return arrow_strings(keys)
    if container == "numpy unicode":
        return keys.astype(f"U{KEY_WIDTH}")
    if container == "list":
        return arrow_strings(keys).to_pylist()
    raise AssertionError(container)


@functools.cache
def int64_keys(n: int) -> np.ndarray:
    return np.random.default_rng(7 + n).integers(-(2**63), 2**63 - 1, size=n, dtype=np.int64)


def first_keys(keys: Any, k: int = CHECKED_KEYS) -> list[Any]:
    head = keys[:k]
    if hasattr(head, "to_pylist"):
        return head.to_pylist()
    if isinstance(head, np.ndarray):
        return [v.decode("ascii") if isinstance(v, bytes) else v for v in head.tolist()]
    return list(head)


# --- the NumPy row -----------------------------------------------------------------------------------------


NUMPY_BLOCK = 1 << 15
"""Keys per block of the NumPy hash: the 16 column passes over a block stay in the CPU cache (about 3x
faster at 10M keys than 16 passes over the whole array)."""


def numpy_java_string_hashes(keys: np.ndarray) -> np.ndarray:
    """``String.hashCode`` of fixed-width ASCII keys (``S{w}``, every key exactly ``w`` bytes, none NUL):
    ``h = 31 * h + byte`` in uint32 over the ``w`` byte columns, block by block."""
    n, width = len(keys), keys.dtype.itemsize
    cols = np.frombuffer(keys, dtype=np.uint8).reshape(n, width)  # zero-copy
    out = np.zeros(n, dtype=np.uint32)
    for start in range(0, n, NUMPY_BLOCK):
        h, block = out[start : start + NUMPY_BLOCK], cols[start : start + NUMPY_BLOCK]
        for j in range(width):
            h *= np.uint32(31)
            h += block[:, j]
    return out.view(np.int32)


def numpy_java_long_hashes(keys: np.ndarray) -> np.ndarray:
    """``Long.hashCode``: ``(int)(v ^ (v >>> 32))``."""
    u = keys.view(np.uint64)
    return (u ^ (u >> np.uint64(32))).astype(np.uint32).view(np.int32)


def numpy_select(hashes: np.ndarray, num_queues: int) -> np.ndarray:
    """``Math.abs(h % n)`` with Java's truncated remainder (``np.fmod``)."""
    return np.abs(np.fmod(hashes, np.int32(num_queues)))


def numpy_hash_select_indices(keys: np.ndarray, num_queues: int, key_type: str = "string") -> np.ndarray:
    hashes = numpy_java_string_hashes(keys) if key_type == "string" else numpy_java_long_hashes(keys)
    return numpy_select(hashes, num_queues)


NUMPY = SimpleNamespace(java_string_hashes=numpy_java_string_hashes, hash_select_indices=numpy_hash_select_indices)

BATCH_LIBS = ["native", "reference", "numpy"]


def batch_lib(name: str) -> Any:
    """The batch functions of ``name``: ``rocketroute.batch``, ``rocketroute.reference.batch`` or NumPy."""
    if name == "numpy":
        return NUMPY
    if name == "reference":
        return importlib.import_module("rocketroute.reference.batch")
    if rocketroute.BACKEND != "native":
        pytest.skip(f"native backend not available (rocketroute.BACKEND == {rocketroute.BACKEND!r}); run `make build`")
    return importlib.import_module("rocketroute.batch")


def run(benchmark: Any, lib: str, n: int, fn: Callable[..., Any], *args: Any) -> Any:
    """Few rounds: one call already takes milliseconds to a second."""
    rounds = 3 if lib == "reference" or n >= 5_000_000 else 7
    return benchmark.pedantic(fn, args=args, rounds=rounds, iterations=1, warmup_rounds=1)


def record(benchmark: Any, n: int, size: str, container: str) -> None:
    benchmark.extra_info.update({"keys": n, "size": f"{size} keys", "input": container})


STRING_INPUTS = [("1M", "pyarrow string"), ("10M", "pyarrow string"), ("1M", "list"), ("1M", "numpy unicode")]
STRING_CASES = [
    pytest.param(size, container, lib, id=f"{size}-{container}-{lib}")
    for size, container in STRING_INPUTS
    for lib in BATCH_LIBS
    if not (lib == "numpy" and container == "list")  # the NumPy row needs an array
]


def _string_case(request: pytest.FixtureRequest, lib: str, size: str, container: str) -> tuple[int, Any]:
    n = key_count(request.config, REFERENCE_SIZE if lib == "reference" else size)
    # The NumPy row reads the same key bytes as an S16 array, however the group's input is held.
    keys = ascii_keys(n) if lib == "numpy" else string_input(container, n)
    return n, keys


@pytest.mark.parametrize(("size", "container", "lib"), STRING_CASES)
def test_java_string_hashes(
    benchmark: Any, request: pytest.FixtureRequest, lib: str, size: str, container: str
) -> None:
    benchmark.group = f"batch java_string_hashes ({size} 16-char keys, {container})"
    n, keys = _string_case(request, lib, size, container)
    out = run(benchmark, lib, n, batch_lib(lib).java_string_hashes, keys)
    record(benchmark, n, size, container)
    assert out.dtype == np.int32 and out.shape == (n,)
    assert out[:CHECKED_KEYS].tolist() == [ref.java_string_hash(k) for k in first_keys(keys)]


@pytest.mark.parametrize(("size", "container", "lib"), STRING_CASES)
def test_hash_select_indices(
    benchmark: Any, request: pytest.FixtureRequest, lib: str, size: str, container: str
) -> None:
    benchmark.group = f"batch hash_select_indices ({size} 16-char keys, {container}, {NUM_QUEUES} queues)"
    n, keys = _string_case(request, lib, size, container)
    out = run(benchmark, lib, n, batch_lib(lib).hash_select_indices, keys, NUM_QUEUES, "string")
    record(benchmark, n, size, container)
    assert out.dtype == np.int32 and out.shape == (n,)
    selector = ref.SelectMessageQueueByHash()
    assert out[:CHECKED_KEYS].tolist() == [selector.select_index(k, NUM_QUEUES) for k in first_keys(keys)]


@pytest.mark.parametrize("lib", BATCH_LIBS)
def test_hash_select_indices_int64(benchmark: Any, request: pytest.FixtureRequest, lib: str) -> None:
    size = "1M"
    benchmark.group = f"batch hash_select_indices ({size} int64 keys, key_type long, {NUM_QUEUES} queues)"
    n = key_count(request.config, REFERENCE_SIZE if lib == "reference" else size)
    keys = int64_keys(n)
    out = run(benchmark, lib, n, batch_lib(lib).hash_select_indices, keys, NUM_QUEUES, "long")
    record(benchmark, n, size, "numpy int64")
    assert out.dtype == np.int32 and out.shape == (n,)
    selector = ref.SelectMessageQueueByHash("long")
    assert out[:CHECKED_KEYS].tolist() == [selector.select_index(k, NUM_QUEUES) for k in keys[:CHECKED_KEYS].tolist()]


def test_round_robin_indices(benchmark: Any, request: pytest.FixtureRequest, lib: ModuleType) -> None:
    size = "1M"
    benchmark.group = f"batch round_robin_indices ({size} picks, {NUM_QUEUES} queues)"
    name = lib.BACKEND
    n = key_count(request.config, REFERENCE_SIZE if name == "reference" else size)
    counter = lib.SendWhichQueue("5.3", start=0)
    rounds = []

    def picks() -> Any:
        rounds.append(n)
        return batch_lib(name).round_robin_indices(counter, n, NUM_QUEUES)

    out = run(benchmark, name, n, picks)
    record(benchmark, n, size, "SendWhichQueue")
    assert out.dtype == np.int32 and out.shape == (n,)
    assert counter.get() == sum(rounds)  # every round advanced the counter by exactly n


ROUTER_NODES = [f"10.0.{i // 250}.{i % 250}@{4000 + i}" for i in range(100)]


def test_route_nodes(benchmark: Any, request: pytest.FixtureRequest, lib: ModuleType) -> None:
    size = "1M"
    benchmark.group = f"batch route_nodes ({size} 16-char keys, pyarrow string, 100 nodes x 10 virtual nodes)"
    name = lib.BACKEND
    n = key_count(request.config, REFERENCE_SIZE if name == "reference" else size)
    keys = string_input("pyarrow string", n)
    router = lib.ConsistentHashRouter(ROUTER_NODES, 10)
    out = run(benchmark, name, n, batch_lib(name).route_nodes, router, keys)
    record(benchmark, n, size, "pyarrow string")
    assert len(out) == n
    ref_router = ref.ConsistentHashRouter(ROUTER_NODES, 10)
    assert out[:CHECKED_KEYS] == [ref_router.route_node(k) for k in first_keys(keys)]


# --- small batches: the fixed cost of one batch call ------------------------------------------------------

SMALL = 16


@pytest.mark.benchmark(warmup=True, min_time=0.00005)
def test_java_string_hashes_small(benchmark: Any, lib: ModuleType) -> None:
    benchmark.group = f"batch java_string_hashes ({SMALL} 16-char keys, list): the fixed cost of a call"
    keys = string_input("list", SMALL)
    out = benchmark(batch_lib(lib.BACKEND).java_string_hashes, keys)
    benchmark.extra_info.update({"keys": SMALL, "size": f"{SMALL} keys", "input": "list"})
    assert out.tolist() == [ref.java_string_hash(k) for k in keys]


@pytest.mark.benchmark(warmup=True, min_time=0.00005)
def test_round_robin_indices_small(benchmark: Any, lib: ModuleType) -> None:
    benchmark.group = f"batch round_robin_indices ({SMALL} picks, {NUM_QUEUES} queues): the fixed cost of a call"
    counter = lib.SendWhichQueue("5.3", start=0)
    out = benchmark(batch_lib(lib.BACKEND).round_robin_indices, counter, SMALL, NUM_QUEUES)
    benchmark.extra_info.update({"keys": SMALL, "size": f"{SMALL} picks"})
    assert out.shape == (SMALL,) and counter.get() % SMALL == 0


# --- per-call hash select by key shape ---------------------------------------------------------------------

KEY_SHAPES = [
    ("4-char str key", "k042", None),
    ("64-char str key", "orderId:2024-01-01T00:00:00Z/customer-000042/line-0007/sku-12345", None),
    ("int key", 123_456_789, "int"),
    ("long key", 2**40 + 12_345, "long"),
]


@pytest.mark.benchmark(warmup=True, min_time=0.00005)  # as test_bench_floor.py: ~1000 calls per timed round
@pytest.mark.parametrize(("label", "key", "key_type"), KEY_SHAPES, ids=[s[0].split()[0] for s in KEY_SHAPES])
def test_select_by_hash_key_shapes(benchmark: Any, lib: ModuleType, label: str, key: Any, key_type: Any) -> None:
    benchmark.group = f"SelectMessageQueueByHash.select ({label}, {NUM_QUEUES} queues)"
    assert not isinstance(key, str) or len(key) == int(label.split("-")[0])
    mqs = [lib.MessageQueue("TopicTest", f"broker-{i // 4}", i % 4) for i in range(NUM_QUEUES)]
    selector = lib.SelectMessageQueueByHash(key_type)
    mq = benchmark(selector.select, mqs, None, key)
    want = ref.SelectMessageQueueByHash(key_type).select_index(key, NUM_QUEUES)
    assert (mq.broker_name, mq.queue_id) == (f"broker-{want // 4}", want % 4)
