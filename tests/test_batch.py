"""Batch entry points (``rocketroute.batch`` and ``rocketroute.reference.batch``) against their per-call
counterparts, for every input kind: Python list and tuple, NumPy arrays (unicode, object, int32, int64), and
pyarrow arrays (string, large_string, int32, int64; plain, sliced with an offset, chunked with an empty chunk).

Every check compares a batch call with the per-call method of the same backend (``java_string_hash``,
``SelectMessageQueueByHash.select_index``, ``SendWhichQueue.increment_and_get``, ``route_node``) on the
golden vectors' inputs and on random ones, and checks the result's type, dtype, length and null mask."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError, JavaArithmeticError, NullPointerError

from ._java import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, java_ints, java_longs, java_rem, java_text, string_hash, to_int
from .conformance._support import load_cases, vectors_dir

BATCH_NAMES = ("java_string_hashes", "hash_select_indices", "round_robin_indices", "route_nodes")
KEY_TYPES = ("string", "int", "long")
POSITIVE_MASK = 0x7FFFFFFF


@pytest.fixture(scope="session")
def batch(backend):
    """The batch module of the backend under test: ``rocketroute.batch`` or ``rocketroute.reference.batch``."""
    return importlib.import_module(backend.__name__ + ".batch")


# --- input kinds ------------------------------------------------------------------------------------------


def _always(values: Sequence[Any]) -> bool:
    return True


def _no_nulls(values: Sequence[Any]) -> bool:
    return all(v is not None for v in values)


def _in_range(lo: int, hi: int) -> Callable[[Sequence[Any]], bool]:
    def fits(values: Sequence[Any]) -> bool:
        return all(v is None or lo <= v <= hi for v in values)

    return fits


def _both(*checks: Callable[[Sequence[Any]], bool]) -> Callable[[Sequence[Any]], bool]:
    return lambda values: all(check(values) for check in checks)


@dataclass(frozen=True)
class Kind:
    """One way to hand a column of keys to a batch function."""

    name: str
    make: Callable[[list[Any]], Any]
    accepts: Callable[[Sequence[Any]], bool] = field(default=_always)
    """Whether this container can hold these values at all (nulls, integer range)."""
    seen: Callable[[list[Any]], list[Any]] = field(default=list)
    """The keys as the container holds them (NumPy's unicode dtype drops trailing NULs)."""

    def __repr__(self) -> str:
        return self.name


# Padding around the slice of an offset array: a null and non-ASCII / extreme values that must not leak in.
STR_PAD_HEAD = ["pad-head", None, "\U0001f600\u00e9"]
STR_PAD_TAIL = [None, "pad-tail"]
INT_PAD_HEAD = [7, None, INT_MIN]
INT_PAD_TAIL = [None, INT_MAX]


def _arrow(typ: pa.DataType) -> Callable[[list[Any]], pa.Array]:
    return lambda values: pa.array(values, type=typ)


def _arrow_offset(typ: pa.DataType, head: list[Any], tail: list[Any]) -> Callable[[list[Any]], pa.Array]:
    """``values`` as a slice (non-zero offset) of a longer array; the padding holds nulls."""

    def make(values: list[Any]) -> pa.Array:
        arr = pa.array(head + values + tail, type=typ).slice(len(head), len(values))
        assert arr.offset == len(head)
        return arr

    return make


def _arrow_chunked(typ: pa.DataType, head: list[Any], tail: list[Any]) -> Callable[[list[Any]], pa.ChunkedArray]:
    """``values`` in four chunks: a plain one, an empty one, a slice with an offset, a plain one."""

    def make(values: list[Any]) -> pa.ChunkedArray:
        a, b = len(values) // 3, 2 * len(values) // 3
        chunks = [
            pa.array(values[:a], type=typ),
            pa.array([], type=typ),
            _arrow_offset(typ, head, tail)(values[a:b]),
            pa.array(values[b:], type=typ),
        ]
        arr = pa.chunked_array(chunks, type=typ)
        assert arr.num_chunks == 4
        return arr

    return make


def _numpy_unicode(values: list[Any]) -> np.ndarray:
    arr = np.array(values) if values else np.array([], dtype=str)
    assert arr.dtype.kind == "U", arr.dtype
    return arr


def _numpy_object(values: list[Any]) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _strip_nul(values: list[Any]) -> list[Any]:
    # NumPy's fixed-width unicode dtype pads with NUL and drops trailing NULs on the way out.
    return [v.rstrip("\x00") for v in values]


STR_KINDS = [
    Kind("list", list),
    Kind("tuple", tuple),
    Kind("numpy-unicode", _numpy_unicode, _no_nulls, _strip_nul),
    Kind("numpy-object", _numpy_object),
    Kind("arrow-string", _arrow(pa.string())),
    Kind("arrow-large_string", _arrow(pa.large_string())),
    Kind("arrow-string-offset", _arrow_offset(pa.string(), STR_PAD_HEAD, STR_PAD_TAIL)),
    Kind("arrow-large_string-offset", _arrow_offset(pa.large_string(), STR_PAD_HEAD, STR_PAD_TAIL)),
    Kind("arrow-string-chunked", _arrow_chunked(pa.string(), STR_PAD_HEAD, STR_PAD_TAIL)),
    Kind("arrow-large_string-chunked", _arrow_chunked(pa.large_string(), STR_PAD_HEAD, STR_PAD_TAIL)),
]

_int32 = _in_range(INT_MIN, INT_MAX)
_int64 = _in_range(LONG_MIN, LONG_MAX)

INT_KINDS = [
    Kind("list", list),
    Kind("tuple", tuple),
    Kind("numpy-object", _numpy_object),
    Kind("numpy-int32", lambda v: np.array(v, dtype=np.int32), _both(_no_nulls, _int32)),
    Kind("numpy-int64", lambda v: np.array(v, dtype=np.int64), _both(_no_nulls, _int64)),
    Kind("arrow-int32", _arrow(pa.int32()), _int32),
    Kind("arrow-int64", _arrow(pa.int64()), _int64),
    Kind("arrow-int32-offset", _arrow_offset(pa.int32(), INT_PAD_HEAD, INT_PAD_TAIL), _int32),
    Kind("arrow-int64-offset", _arrow_offset(pa.int64(), INT_PAD_HEAD, INT_PAD_TAIL), _int64),
    Kind("arrow-int32-chunked", _arrow_chunked(pa.int32(), INT_PAD_HEAD, INT_PAD_TAIL), _int32),
    Kind("arrow-int64-chunked", _arrow_chunked(pa.int64(), INT_PAD_HEAD, INT_PAD_TAIL), _int64),
]

NULLABLE_STR_KINDS = [k for k in STR_KINDS if k.accepts([None])]
NULLABLE_INT_KINDS = [k for k in INT_KINDS if k.accepts([None])]


def kinds_for(key_type: str) -> list[Kind]:
    return STR_KINDS if key_type == "string" else INT_KINDS


# --- checking a batch result against per-call answers -------------------------------------------------------


def assert_int32_result(got: Any, want: list[int | None], *, masked: bool, where: str) -> None:
    """``got`` is the int32 array of ``want`` (``None`` = a null key): a plain ndarray, or with
    ``masked`` a MaskedArray masking exactly the nulls, whose data there is 0 (as documented)."""
    null_at = [w is None for w in want]
    if masked:
        assert isinstance(got, np.ma.MaskedArray), f"{where}: nulls='mask' returned {type(got).__name__}"
        assert np.ma.getmaskarray(got).tolist() == null_at, f"{where}: mask"
        data = np.ma.getdata(got)
    else:
        assert isinstance(got, np.ndarray), f"{where}: returned {type(got).__name__}"
        assert not isinstance(got, np.ma.MaskedArray), f"{where}: a MaskedArray without nulls='mask'"
        data = got
    assert got.dtype == np.int32, f"{where}: dtype {got.dtype}"
    assert got.shape == (len(want),), f"{where}: shape {got.shape}, want ({len(want)},)"
    assert data.tolist() == [0 if w is None else w for w in want], where


def assert_nodes_result(got: Any, want: list[str | None], *, masked: bool, where: str) -> None:
    assert isinstance(got, list), f"{where}: route_nodes returned {type(got).__name__}, want a list"
    assert got == want, where


def check_against_per_call(
    call: Callable[..., Any],
    per_call: Callable[[Any], Any],
    keys: list[Any],
    kinds: Sequence[Kind],
    check: Callable[..., None] = assert_int32_result,
) -> int:
    """``call(container)`` for every kind that can hold ``keys`` equals ``per_call`` of every key; with a null
    key the default raises NullPointerError and ``nulls="mask"`` masks exactly the nulls. Returns how many
    kinds were checked."""
    checked = 0
    for kind in kinds:
        if not kind.accepts(keys):
            continue
        checked += 1
        seen = kind.seen(keys)
        want = [None if k is None else per_call(k) for k in seen]
        where = f"{kind.name} of {len(keys)} keys {keys[:8]!r}"
        container = kind.make(keys)
        if None in seen:
            with pytest.raises(NullPointerError):
                call(container)
            with pytest.raises(NullPointerError):
                call(container, nulls="raise")
        else:
            check(call(container), want, masked=False, where=where)
            check(call(container, nulls="raise"), want, masked=False, where=where)
        check(call(container, nulls="mask"), want, masked=True, where=where)
    return checked


def hashes_call(batch: Any) -> Callable[..., Any]:
    return batch.java_string_hashes


def select_call(batch: Any, num_queues: int, key_type: str) -> Callable[..., Any]:
    return lambda keys, **kw: batch.hash_select_indices(keys, num_queues, key_type, **kw)


def select_per_call(backend: Any, num_queues: int, key_type: str) -> Callable[[Any], int]:
    selector = backend.SelectMessageQueueByHash(key_type=key_type)
    return lambda key: selector.select_index(key, num_queues)


def route_call(batch: Any, router: Any) -> Callable[..., Any]:
    return lambda keys, **kw: batch.route_nodes(router, keys, **kw)


def with_nulls(keys: list[Any], every: int = 5) -> list[Any]:
    """``keys`` with a null first, last and every ``every``-th position."""
    out: list[Any] = [None]
    for i, k in enumerate(keys):
        out.append(None if i % every == every - 1 else k)
    out.append(None)
    return out


# --- the module --------------------------------------------------------------------------------------------


def test_batch_module_exports(batch):
    for name in BATCH_NAMES:
        assert callable(getattr(batch, name)), name
    assert tuple(batch.KEY_TYPES) == KEY_TYPES


# --- conformance inputs (tests/conformance/vectors) -----------------------------------------------------------


def _unique_cases(config: pytest.Config, name: str) -> list[dict[str, Any]]:
    by_id: dict[str, dict[str, Any]] = {}
    for case in load_cases(vectors_dir(config), name):
        assert case.problem is None, case.problem
        by_id.setdefault(case.id, case.data)
    return list(by_id.values())


@pytest.fixture(scope="session")
def java_hash_cases(pytestconfig) -> list[dict[str, Any]]:
    return _unique_cases(pytestconfig, "java_hash")


@pytest.fixture(scope="session")
def route_cases(pytestconfig) -> list[dict[str, Any]]:
    return [c for c in _unique_cases(pytestconfig, "consistent_hash") if c["kind"] == "route"]


@pytest.fixture(scope="session")
def vector_strings(java_hash_cases) -> list[tuple[str, int]]:
    """Every string the java_hash vectors hash, with its hash: the string_hash inputs and the string keys of
    the select_by_hash cases."""
    out = [(c["input"], c["hash"]) for c in java_hash_cases if c["kind"] == "string_hash"]
    out += [
        (c["arg"], c["arg_hash"])
        for c in java_hash_cases
        if c["kind"] == "select_by_hash" and c["arg_type"] == "string"
    ]
    assert len(out) > 500
    return out


@pytest.fixture(scope="session")
def vector_ints(java_hash_cases) -> dict[str, list[int]]:
    """The int / long inputs of the java_hash vectors by key type (an int input is a valid long too)."""
    ints = [c["input"] for c in java_hash_cases if c["kind"] == "int_hash"]
    ints += [c["arg"] for c in java_hash_cases if c["kind"] == "select_by_hash" and c["arg_type"] == "int"]
    longs = [c["input"] for c in java_hash_cases if c["kind"] == "long_hash"]
    longs += [c["arg"] for c in java_hash_cases if c["kind"] == "select_by_hash" and c["arg_type"] == "long"]
    return {"int": ints, "long": longs + ints}


@pytest.mark.parametrize("kind", STR_KINDS, ids=str)
def test_java_string_hashes_vectors(batch, backend, vector_strings, kind):
    keys = [s for s, _ in vector_strings]
    assert check_against_per_call(hashes_call(batch), backend.java_string_hash, keys, [kind]) == 1
    if kind.seen(keys) == keys:  # and the vectors' own hashes
        assert batch.java_string_hashes(kind.make(keys)).tolist() == [h for _, h in vector_strings]
    if kind.accepts([None]):
        check_against_per_call(hashes_call(batch), backend.java_string_hash, with_nulls(keys), [kind])


CONFORMANCE_QUEUE_COUNTS = (1, 2, 3, 7, 16, 31, 1024, INT_MAX - 1, INT_MAX)


@pytest.mark.parametrize("kind", STR_KINDS, ids=str)
def test_hash_select_string_keys_vectors(batch, backend, vector_strings, kind):
    keys = [s for s, _ in vector_strings]
    for n in CONFORMANCE_QUEUE_COUNTS:
        call, per_call = select_call(batch, n, "string"), select_per_call(backend, n, "string")
        check_against_per_call(call, per_call, keys, [kind])
        # independent oracle: |hashCode % n|, Java remainder
        if kind.seen(keys) == keys:
            want = [abs(java_rem(h, n)) for _, h in vector_strings]
            assert call(kind.make(keys)).tolist() == want, n
    check_against_per_call(
        select_call(batch, 5, "string"), select_per_call(backend, 5, "string"), with_nulls(keys), [kind]
    )


@pytest.mark.parametrize("key_type", ["int", "long"])
@pytest.mark.parametrize("kind", INT_KINDS, ids=str)
def test_hash_select_int_keys_vectors(batch, backend, vector_ints, kind, key_type):
    keys = vector_ints[key_type]
    for n in CONFORMANCE_QUEUE_COUNTS:
        check_against_per_call(select_call(batch, n, key_type), select_per_call(backend, n, key_type), keys, [kind])
    call, per_call = select_call(batch, 3, key_type), select_per_call(backend, 3, key_type)
    check_against_per_call(call, per_call, with_nulls(keys), [kind])


def test_hash_select_vector_cases(batch, backend, java_hash_cases):
    """Every select_by_hash case, grouped by (key type, queue count) into one batch call per input kind."""
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for c in java_hash_cases:
        if c["kind"] == "select_by_hash":
            groups.setdefault((c["arg_type"], c["num_queues"]), []).append(c)
    assert len(groups) > 100
    for (key_type, n), cases in groups.items():
        keys = [c["arg"] for c in cases]
        call = select_call(batch, n, key_type)
        for kind in kinds_for(key_type):
            if not kind.accepts(keys) or kind.seen(keys) != keys:
                continue
            where = f"{key_type} keys, {n} queues, {kind.name}"
            if any("exception" in c for c in cases):
                assert n == 0 and all(c["exception"]["class"] == "java.lang.ArithmeticException" for c in cases)
                with pytest.raises(JavaArithmeticError, match=r"^/ by zero$"):
                    call(kind.make(keys))
                continue
            want = [c["selected_index"] for c in cases]
            assert call(kind.make(keys)).tolist() == want, where
            assert [select_per_call(backend, n, key_type)(k) for k in keys] == want, where


def test_route_nodes_vectors(batch, backend, route_cases):
    assert len(route_cases) > 50
    for c in route_cases:
        router = backend.ConsistentHashRouter(c["nodes"], c["virtual_node_cnt"])
        keys = [k for k, _ in c["routes"]]
        want = [w for _, w in c["routes"]]
        for kind in STR_KINDS:
            where = f"{c['id']} {kind.name}"
            assert batch.route_nodes(router, kind.make(keys)) == want, where
        check_against_per_call(route_call(batch, router), router.route_node, keys, STR_KINDS, assert_nodes_result)
        check_against_per_call(
            route_call(batch, router), router.route_node, with_nulls(keys), NULLABLE_STR_KINDS, assert_nodes_result
        )


# --- random inputs ------------------------------------------------------------------------------------------

INT_EDGES = [INT_MIN, INT_MIN + 1, -1, 0, 1, INT_MAX - 1, INT_MAX]
LONG_EDGES = [*INT_EDGES, LONG_MIN, LONG_MIN + 1, INT_MIN - 1, INT_MAX + 1, 2**32, -(2**32), LONG_MAX - 1, LONG_MAX]

str_key = st.one_of(java_text, st.just(""), st.sampled_from(["\U0001f600", "\u00e9t\u00e9", "polygenelubricants"]))
str_keys = st.lists(str_key, max_size=24)
nullable_str_keys = st.one_of(str_keys, st.lists(st.one_of(st.none(), str_key), max_size=24))
int_key = st.one_of(st.sampled_from(INT_EDGES), java_ints)
long_key = st.one_of(st.sampled_from(LONG_EDGES), java_longs, int_key)


def nullable_lists(key: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.one_of(st.lists(key, max_size=24), st.lists(st.one_of(st.none(), key), max_size=24))


queue_counts = st.one_of(
    st.integers(1, 130), st.sampled_from([1, 2, 3, 16, 1024, INT_MAX - 1, INT_MAX]), st.integers(1, INT_MAX)
)


@given(keys=nullable_str_keys)
def test_java_string_hashes_random(batch, backend, keys):
    assert check_against_per_call(hashes_call(batch), backend.java_string_hash, keys, STR_KINDS) >= 1
    if None not in keys:
        assert batch.java_string_hashes(keys).tolist() == [string_hash(k) for k in keys]


@given(keys=nullable_str_keys, n=queue_counts)
def test_hash_select_string_keys_random(batch, backend, keys, n):
    check_against_per_call(select_call(batch, n, "string"), select_per_call(backend, n, "string"), keys, STR_KINDS)


@given(keys=nullable_lists(int_key), n=queue_counts)
def test_hash_select_int_keys_random(batch, backend, keys, n):
    check_against_per_call(select_call(batch, n, "int"), select_per_call(backend, n, "int"), keys, INT_KINDS)


@given(keys=nullable_lists(long_key), n=queue_counts)
def test_hash_select_long_keys_random(batch, backend, keys, n):
    check_against_per_call(select_call(batch, n, "long"), select_per_call(backend, n, "long"), keys, INT_KINDS)


_ROUTERS: dict[str, Any] = {}


def _router(backend: Any) -> Any:
    if backend.__name__ not in _ROUTERS:
        _ROUTERS[backend.__name__] = backend.ConsistentHashRouter([f"10.0.0.{i}@{9000 + i}" for i in range(7)], 10)
    return _ROUTERS[backend.__name__]


@given(keys=nullable_str_keys)
def test_route_nodes_random(batch, backend, keys):
    router = _router(backend)
    check_against_per_call(route_call(batch, router), router.route_node, keys, STR_KINDS, assert_nodes_result)


# --- nulls ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", NULLABLE_STR_KINDS, ids=str)
def test_string_nulls(batch, backend, kind):
    keys = [None, "a", "", None, "\U0001f600", "order-0001", None]
    check_against_per_call(hashes_call(batch), backend.java_string_hash, keys, [kind])
    check_against_per_call(select_call(batch, 3, "string"), select_per_call(backend, 3, "string"), keys, [kind])
    router = _router(backend)
    check_against_per_call(route_call(batch, router), router.route_node, keys, [kind], assert_nodes_result)
    got = batch.java_string_hashes(kind.make(keys), nulls="mask")
    assert got.mask.tolist() == [True, False, False, True, False, False, True]
    assert got.compressed().tolist() == [backend.java_string_hash(k) for k in keys if k is not None]
    assert batch.route_nodes(router, kind.make(keys), nulls="mask")[0] is None


@pytest.mark.parametrize("key_type", ["int", "long"])
@pytest.mark.parametrize("kind", NULLABLE_INT_KINDS, ids=str)
def test_int_nulls(batch, backend, kind, key_type):
    keys = [None, 0, INT_MIN, None, INT_MAX, -1, None]
    check_against_per_call(select_call(batch, 7, key_type), select_per_call(backend, 7, key_type), keys, [kind])


@pytest.mark.parametrize("kind", NULLABLE_STR_KINDS, ids=str)
def test_all_nulls(batch, backend, kind):
    keys = [None] * 5
    for fn in (batch.java_string_hashes, lambda k, **kw: batch.hash_select_indices(k, 4, **kw)):
        with pytest.raises(NullPointerError):
            fn(kind.make(keys))
        got = fn(kind.make(keys), nulls="mask")
        assert_int32_result(got, [None] * 5, masked=True, where=kind.name)
        assert got.count() == 0
    assert batch.route_nodes(_router(backend), kind.make(keys), nulls="mask") == [None] * 5


@pytest.mark.parametrize("kind", STR_KINDS, ids=str)
def test_mask_without_nulls(batch, kind):
    got = batch.java_string_hashes(kind.make(["a", "b"]), nulls="mask")
    assert isinstance(got, np.ma.MaskedArray)
    assert not np.ma.getmaskarray(got).any()
    assert got.tolist() == [97, 98]


# --- empty inputs -----------------------------------------------------------------------------------------------


def _empty_inputs(kinds: Sequence[Kind], typ: pa.DataType) -> list[tuple[str, Any]]:
    out = [(k.name, k.make([])) for k in kinds]
    out.append(("arrow-chunked-no-chunks", pa.chunked_array([], type=typ)))
    return out


@pytest.mark.parametrize("nulls", ["raise", "mask"])
def test_empty_inputs(batch, backend, nulls):
    router = _router(backend)
    for name, keys in _empty_inputs(STR_KINDS, pa.string()):
        assert_int32_result(batch.java_string_hashes(keys, nulls=nulls), [], masked=nulls == "mask", where=name)
        for n in (1, 16):
            got = batch.hash_select_indices(keys, n, "string", nulls=nulls)
            assert_int32_result(got, [], masked=nulls == "mask", where=name)
        assert batch.route_nodes(router, keys, nulls=nulls) == []
    for key_type in ("int", "long"):
        for name, keys in _empty_inputs(INT_KINDS, pa.int64()):
            got = batch.hash_select_indices(keys, 16, key_type, nulls=nulls)
            assert_int32_result(got, [], masked=nulls == "mask", where=name)


def test_empty_ring_routes_nowhere(batch, backend):
    router = backend.ConsistentHashRouter([], 10)
    keys = ["a", "b", ""]
    for kind in STR_KINDS:
        assert batch.route_nodes(router, kind.make(keys)) == [None, None, None]
    assert batch.route_nodes(router, pa.array(["a", None]), nulls="mask") == [None, None]
    with pytest.raises(NullPointerError):
        batch.route_nodes(router, pa.array(["a", None]))


# --- ConsistentHashRouter.route_nodes takes the same inputs ----------------------------------------------------


def test_router_route_nodes_method(backend):
    router = _router(backend)
    keys = ["a", "", "\U0001f600", "MessageQueue [topic=T, brokerName=b, queueId=1]", "order-0001"] * 3
    check_against_per_call(router.route_nodes, router.route_node, keys, STR_KINDS, assert_nodes_result)
    check_against_per_call(router.route_nodes, router.route_node, with_nulls(keys), STR_KINDS, assert_nodes_result)


def test_router_route_nodes_method_null(backend):
    with pytest.raises(NullPointerError):
        _router(backend).route_nodes(["a", None])


# --- round_robin_indices ----------------------------------------------------------------------------------------


def _round_robin(batch: Any, counter: Any, count: int, num_queues: int | None) -> Any:
    if num_queues is None:
        return batch.round_robin_indices(counter, count)
    return batch.round_robin_indices(counter, count, num_queues)


def check_round_robin(batch, backend, compat, start, count, num_queues):
    counter = backend.SendWhichQueue(compat, start=start)
    twin = backend.SendWhichQueue(compat, start=start)
    got = _round_robin(batch, counter, count, num_queues)
    want = [twin.increment_and_get() for _ in range(count)]
    if num_queues is not None:
        want = [v % num_queues for v in want]
    assert_int32_result(got, want, masked=False, where=f"{compat} start={start} count={count} n={num_queues}")
    assert counter.get() == twin.get() == to_int(start + count)
    # the next per-call value carries on where the batch stopped
    assert counter.increment_and_get() == twin.increment_and_get()


@pytest.mark.parametrize("num_queues", [None, 1, 3, 16, 1024, INT_MAX])
@pytest.mark.parametrize("start", [0, 1, 41, INT_MAX - 5, INT_MAX, INT_MIN, INT_MIN + 3, -7, -1])
@pytest.mark.parametrize("compat", ["4.9", "5.3"])
def test_round_robin_matches_increment_and_get(batch, backend, compat, start, num_queues):
    check_round_robin(batch, backend, compat, start, 20, num_queues)


def test_round_robin_wraps_around_integer_max(batch, backend):
    counter = backend.SendWhichQueue("5.3", start=INT_MAX - 2)
    got = batch.round_robin_indices(counter, 5)
    # stored: MAX-1, MAX, MIN, MIN+1, MIN+2; returned: each & 0x7FFFFFFF
    assert got.tolist() == [INT_MAX - 1, INT_MAX, 0, 1, 2]
    assert counter.get() == INT_MIN + 2


@given(
    compat=st.sampled_from(["4.9", "5.3"]),
    start=st.one_of(java_ints, st.sampled_from(INT_EDGES)),
    count=st.integers(0, 300),
    num_queues=st.one_of(st.none(), queue_counts),
)
def test_round_robin_random(batch, backend, compat, start, count, num_queues):
    check_round_robin(batch, backend, compat, start, count, num_queues)


@pytest.mark.parametrize("compat", ["4.9", "5.3"])
@pytest.mark.parametrize("seed", [0, 1, -42, 2**40 + 7])
def test_round_robin_first_draw(batch, backend, compat, seed):
    """An unset counter draws its start from its random source, as the first increment_and_get would."""
    counter = backend.SendWhichQueue(compat, random=backend.JavaRandom(seed))
    twin = backend.SendWhichQueue(compat, random=backend.JavaRandom(seed))
    assert batch.round_robin_indices(counter, 10, 4).tolist() == [twin.increment_and_get() % 4 for _ in range(10)]
    assert counter.get() == twin.get()


@pytest.mark.parametrize("compat", ["4.9", "5.3"])
def test_round_robin_positions_are_publish_info_picks(batch, backend, compat):
    mqs = [backend.MessageQueue("TopicTest", f"broker-{i % 3}", i) for i in range(7)]
    tp, twin = (backend.TopicPublishInfo(mqs, compat=compat) for _ in range(2))
    for start in (5, INT_MAX - 10):
        tp.send_which_queue.set(start)
        twin.send_which_queue.set(start)
        positions = batch.round_robin_indices(tp.send_which_queue, 30, len(mqs))
        assert [tp.message_queues[p] for p in positions.tolist()] == [
            twin.select_one_message_queue() for _ in range(30)
        ]
        assert tp.send_which_queue.get() == twin.send_which_queue.get()


@pytest.mark.parametrize("num_queues", [None, 5])
def test_round_robin_count_zero(batch, backend, num_queues):
    counter = backend.SendWhichQueue("5.3", start=12)
    assert_int32_result(_round_robin(batch, counter, 0, num_queues), [], masked=False, where="count 0")
    assert counter.get() == 12
    unset = backend.SendWhichQueue("5.3")
    assert _round_robin(batch, unset, 0, num_queues).shape == (0,)
    assert unset.get() is None  # no increment, so no first draw


def test_round_robin_keyword_num_queues(batch, backend):
    counter = backend.SendWhichQueue("5.3", start=0)
    assert batch.round_robin_indices(counter, 4, num_queues=3).tolist() == [1, 2, 0, 1]
    assert batch.round_robin_indices(counter, count=2, num_queues=None).tolist() == [5, 6]


@pytest.mark.parametrize("count", [0, 3])
def test_round_robin_zero_queues(batch, backend, count):
    counter = backend.SendWhichQueue("5.3", start=12)
    with pytest.raises(JavaArithmeticError, match=r"^/ by zero$"):
        batch.round_robin_indices(counter, count, 0)
    assert counter.get() == 12  # refused before any increment


@pytest.mark.parametrize("num_queues", [-1, INT_MIN])
def test_round_robin_negative_queues(batch, backend, num_queues):
    counter = backend.SendWhichQueue("5.3", start=12)
    with pytest.raises(IllegalArgumentError):
        batch.round_robin_indices(counter, 3, num_queues)
    assert counter.get() == 12


def test_round_robin_bad_count(batch, backend):
    counter = backend.SendWhichQueue("5.3", start=12)
    with pytest.raises(IllegalArgumentError):
        batch.round_robin_indices(counter, -1)
    with pytest.raises(TypeError):
        batch.round_robin_indices(counter, 2.0)
    with pytest.raises(TypeError):
        batch.round_robin_indices(counter, "3")
    assert counter.get() == 12


# --- bad input -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key_type", ["short", "String", "", "INT", "str"])
def test_unknown_key_type(batch, key_type):
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices(["a"], 3, key_type)
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices([1], 3, key_type=key_type)


INT_CONTAINERS = {
    "list": [1, 2],
    "numpy-int32": np.array([1, 2], dtype=np.int32),
    "numpy-int64": np.array([1, 2], dtype=np.int64),
    "numpy-object": _numpy_object([1, 2]),
    "arrow-int32": pa.array([1, 2], type=pa.int32()),
    "arrow-int64": pa.array([1, 2], type=pa.int64()),
    "arrow-int64-chunked": pa.chunked_array([[1], [2]], type=pa.int64()),
}
STR_CONTAINERS = {
    "list": ["a", "b"],
    "numpy-unicode": np.array(["a", "b"]),
    "numpy-object": _numpy_object(["a", "b"]),
    "arrow-string": pa.array(["a", "b"]),
    "arrow-large_string": pa.array(["a", "b"], type=pa.large_string()),
    "arrow-string-chunked": pa.chunked_array([["a"], ["b"]]),
}


@pytest.mark.parametrize("name", list(INT_CONTAINERS))
def test_int_keys_are_not_strings(batch, name):
    keys = INT_CONTAINERS[name]
    with pytest.raises(TypeError) as info:
        batch.java_string_hashes(keys)
    assert not isinstance(info.value, NullPointerError)
    with pytest.raises(TypeError):
        batch.hash_select_indices(keys, 3, "string")
    with pytest.raises(TypeError):
        batch.hash_select_indices(keys, 3)  # "string" is the default key type


@pytest.mark.parametrize("key_type", ["int", "long"])
@pytest.mark.parametrize("name", list(STR_CONTAINERS))
def test_string_keys_are_not_ints(batch, name, key_type):
    with pytest.raises(TypeError) as info:
        batch.hash_select_indices(STR_CONTAINERS[name], 3, key_type)
    assert not isinstance(info.value, NullPointerError)


@pytest.mark.parametrize("key_type", KEY_TYPES)
def test_mixed_keys(batch, key_type):
    with pytest.raises(TypeError):
        batch.hash_select_indices(["a", 1], 3, key_type)
    with pytest.raises(TypeError):
        batch.hash_select_indices(_numpy_object([1, "a"]), 3, key_type)


def test_route_nodes_int_keys(batch, backend):
    with pytest.raises(TypeError):
        batch.route_nodes(_router(backend), [1, 2])
    with pytest.raises(TypeError):
        batch.route_nodes(_router(backend), pa.array([1, 2]))


@pytest.mark.parametrize(
    "keys",
    [
        [INT_MAX + 1],
        [INT_MIN - 1],
        [0, 2**40],
        np.array([0, INT_MAX + 1], dtype=np.int64),
        np.array([INT_MIN - 1], dtype=np.int64),
        _numpy_object([1, LONG_MAX]),
        pa.array([1, INT_MAX + 1], type=pa.int64()),
        pa.array([None, INT_MIN - 1], type=pa.int64()),
        pa.chunked_array([[1], [INT_MAX + 1]], type=pa.int64()),
        pa.array([2, INT_MAX + 1, 3], type=pa.int64()).slice(1, 1),
    ],
    ids=lambda k: type(k).__name__,
)
def test_int_key_out_of_int_range(batch, backend, keys):
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices(keys, 3, "int", nulls="mask")
    # the same values are fine as Java longs
    got = batch.hash_select_indices(keys, 3, "long", nulls="mask")
    seen = keys.to_pylist() if hasattr(keys, "to_pylist") else list(keys)
    per_call = select_per_call(backend, 3, "long")
    assert_int32_result(got, [None if k is None else per_call(int(k)) for k in seen], masked=True, where=str(seen))


@pytest.mark.parametrize("keys", [[LONG_MAX + 1], [LONG_MIN - 1], _numpy_object([0, 2**64])], ids=str)
def test_long_key_out_of_long_range(batch, keys):
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices(keys, 3, "long")
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices(keys, 3, "int")


def test_bool_keys_match_per_call(batch, backend):
    """``True`` is no Java Integer: whatever the per-call selector does with it, the batch does too."""
    for key_type in ("int", "long"):
        try:
            want = select_per_call(backend, 3, key_type)(True)
        except TypeError:
            with pytest.raises(TypeError):
                batch.hash_select_indices([True], 3, key_type)
        else:
            assert batch.hash_select_indices([True], 3, key_type).tolist() == [want]


@pytest.mark.parametrize(
    "keys",
    [
        np.array([["a", "b"], ["c", "d"]]),
        np.zeros((2, 2), dtype=np.int64),
        np.zeros((1, 3), dtype=np.int32),
        np.empty((0, 2), dtype=object),
        np.array("abc"),
        np.array(5, dtype=np.int64),
    ],
    ids=lambda a: f"{a.dtype}-{a.ndim}d",
)
def test_not_one_dimensional(batch, backend, keys):
    key_type = "string" if keys.dtype.kind in "UO" else "int"
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices(keys, 3, key_type)
    if key_type == "string":
        with pytest.raises(IllegalArgumentError):
            batch.java_string_hashes(keys)
        with pytest.raises(IllegalArgumentError):
            batch.route_nodes(_router(backend), keys)


@pytest.mark.parametrize(
    ("keys", "key_type"),
    [
        (["a"], "string"),
        (np.array(["a", "b"]), "string"),
        (pa.array(["a", None]), "string"),
        (pa.chunked_array([[], ["a"]], type=pa.string()), "string"),
        ([5], "int"),
        (np.array([5], dtype=np.int32), "int"),
        (pa.array([5, 6], type=pa.int64()), "long"),
    ],
    ids=lambda v: type(v).__name__,
)
def test_zero_queues_divides_by_zero(batch, keys, key_type):
    for nulls in ("raise", "mask"):
        if nulls == "raise" and isinstance(keys, pa.Array) and keys.null_count:
            continue
        with pytest.raises(JavaArithmeticError, match=r"^/ by zero$"):
            batch.hash_select_indices(keys, 0, key_type, nulls=nulls)


def test_zero_queues_without_keys(batch):
    """With no key to select for, nothing divides by zero, as with no per-call select at all."""
    assert_int32_result(batch.hash_select_indices([], 0), [], masked=False, where="empty")
    assert_int32_result(batch.hash_select_indices(pa.array([], type=pa.int32()), 0, "int"), [], masked=False, where="")
    got = batch.hash_select_indices(pa.array([None, None], type=pa.string()), 0, nulls="mask")
    assert_int32_result(got, [None, None], masked=True, where="all null")


@pytest.mark.parametrize("num_queues", [-1, -16, INT_MIN, INT_MAX + 1, 2**40])
def test_num_queues_out_of_range(batch, num_queues):
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices(["a", "b"], num_queues)
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices(np.array([1, 2]), num_queues, "long")


@pytest.mark.parametrize("num_queues", [3.0, "3", None])
def test_num_queues_not_an_int(batch, num_queues):
    with pytest.raises(TypeError):
        batch.hash_select_indices(["a", "b"], num_queues)


@pytest.mark.parametrize("nulls", ["drop", "", "MASK", 1, b"mask", "\ud800"])
def test_unknown_nulls_mode(batch, backend, nulls):
    message = f"nulls must be one of ('raise', 'mask'), not {nulls!r}"
    with pytest.raises(IllegalArgumentError) as e:
        batch.java_string_hashes(["a"], nulls=nulls)
    assert str(e.value) == message
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices(["a"], 3, nulls=nulls)
    with pytest.raises(IllegalArgumentError):
        batch.route_nodes(_router(backend), ["a"], nulls=nulls)


def test_none_nulls_and_key_type_are_the_defaults(batch, backend):
    # None means "left out", as for compat, clocks and virtual node counts
    with pytest.raises(NullPointerError):
        batch.java_string_hashes(["a", None], nulls=None)
    assert batch.hash_select_indices(["a", "b"], 3, None, nulls=None).tolist() == (
        batch.hash_select_indices(["a", "b"], 3).tolist()
    )
    with pytest.raises(NullPointerError):
        batch.route_nodes(_router(backend), ["a", None], nulls=None)


def test_unknown_nulls_mode_is_illegal_argument(batch, backend):
    with pytest.raises(IllegalArgumentError):
        batch.java_string_hashes(["a"], nulls="drop")
    with pytest.raises(IllegalArgumentError):
        batch.hash_select_indices([1], 3, "int", nulls="drop")
    with pytest.raises(IllegalArgumentError):
        batch.route_nodes(_router(backend), ["a"], nulls="drop")


def test_keys_none_or_a_single_string(batch, backend):
    router = _router(backend)
    with pytest.raises(NullPointerError):
        batch.java_string_hashes(None)
    with pytest.raises(NullPointerError):
        batch.hash_select_indices(None, 3)
    with pytest.raises(NullPointerError):
        batch.route_nodes(router, None)
    for fn in (
        batch.java_string_hashes,
        lambda k: batch.hash_select_indices(k, 3),
        lambda k: batch.route_nodes(router, k),
    ):
        with pytest.raises(TypeError):
            fn("abc")
