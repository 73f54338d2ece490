"""Golden vectors of ``allocate.jsonl``: the six AllocateMessageQueueStrategy classes, every consumer of every
line (members and the probes: a non-member, ``""``, ``None``), and ``allocate_all`` against the members.

Strategies are built from ``strategy`` + ``params``; ``MACHINE_ROOM_NEARBY`` gets a resolver that looks the
rooms up in the line's ``broker_rooms`` / ``consumer_rooms`` tables (and a second, equal strategy built with
the two-callables form). A name missing from those tables is a lookup Java never made, so the resolver raises
:class:`UnexpectedResolve` and the item fails.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from .._java import utf16_units
from ._support import Fields, expect_java_exception, mq_list, parametrize_vectors, run_case, show

VECTOR_FILE = "allocate"

NO_ARG_CONSTRUCTOR = "no-arg (default 10)"
RESOLVER = "split_dash_prefix"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


class UnexpectedResolve(LookupError):
    """The strategy asked the resolver about a name Java's resolver was never asked about."""


class TableResolver:
    """``MachineRoomResolver`` from the vector's lookup tables (``broker_rooms``, ``consumer_rooms``)."""

    def __init__(self, broker_rooms: dict[str, str], consumer_rooms: dict[str, str], where: str) -> None:
        self.broker_rooms = broker_rooms
        self.consumer_rooms = consumer_rooms
        self.where = where

    def broker_deploy_in(self, mq: Any) -> str:
        name = mq.broker_name
        if name not in self.broker_rooms:
            raise UnexpectedResolve(f"{self.where}: broker_deploy_in({mq}) is not in broker_rooms")
        return self.broker_rooms[name]

    def consumer_deploy_in(self, cid: str) -> str:
        if cid not in self.consumer_rooms:
            raise UnexpectedResolve(f"{self.where}: consumer_deploy_in({cid!r}) is not in consumer_rooms")
        return self.consumer_rooms[cid]


def split_dash_prefix(name: str) -> str:
    """The resolver of the README: ``name.split("-")[0]`` (Java drops trailing empty strings, which never
    changes element 0 of a non-degenerate name)."""
    return name.split("-")[0]


def build_strategy(rr: Any, kind: Any, params: Fields, *, callables: bool = False) -> Any:
    """The strategy ``kind`` configured with ``params``. ``callables``: ``MACHINE_ROOM_NEARBY`` gets its
    resolver as ``broker_deploy_in=`` / ``consumer_deploy_in=`` instead of an object."""
    if kind == "AVG":
        return rr.AllocateMessageQueueAveragely()
    if kind == "AVG_BY_CIRCLE":
        return rr.AllocateMessageQueueAveragelyByCircle()
    if kind == "CONFIG":
        encoded = params["message_queue_list"]
        return rr.AllocateMessageQueueByConfig(None if encoded is None else mq_list(rr, encoded))
    if kind == "MACHINE_ROOM":
        return rr.AllocateMessageQueueByMachineRoom(params["consumer_idcs"])
    if kind == "CONSISTENT_HASH":
        count = params["virtual_node_cnt"]
        if "constructor" in params:
            assert params["constructor"] == NO_ARG_CONSTRUCTOR, f"{params.where}: unknown constructor"
            assert count == 10, f"{params.where}: the no-arg constructor has 10 virtual nodes"
            return rr.AllocateMessageQueueConsistentHash()
        return rr.AllocateMessageQueueConsistentHash(count)
    if kind == "MACHINE_ROOM_NEARBY":
        inner_spec = Fields(params["inner_strategy"], f"{params.where}.inner_strategy")
        inner_params = Fields(inner_spec["params"], f"{inner_spec.where}.params")
        inner = build_strategy(rr, inner_spec["strategy"], inner_params, callables=callables)
        assert inner.name == inner_spec["strategy_name"], inner_spec.where
        inner_params.assert_all_read()
        inner_spec.assert_all_read()
        assert params["resolver"] == RESOLVER, f"{params.where}: unknown resolver"
        broker_rooms = params["broker_rooms"]
        consumer_rooms = params["consumer_rooms"]
        for name, room in [*broker_rooms.items(), *consumer_rooms.items()]:
            assert split_dash_prefix(name) == room, f"{params.where}: the table disagrees with {RESOLVER}"
        resolver = TableResolver(broker_rooms, consumer_rooms, params.where)
        if callables:
            return rr.AllocateMachineRoomNearby(
                inner,
                broker_deploy_in=resolver.broker_deploy_in,
                consumer_deploy_in=resolver.consumer_deploy_in,
            )
        return rr.AllocateMachineRoomNearby(inner, resolver)
    pytest.fail(f"{params.where}: unknown strategy {kind!r}", pytrace=False)


def encode(queues: Any) -> Any:
    """A result in the vectors' encoding (``None`` stays ``None``)."""
    return None if queues is None else [show(q) for q in queues]


def assert_result(rr: Any, got: Any, want: Any, where: str) -> None:
    if want is None:
        assert got is None, f"{where}: got {encode(got)}, want null"
        return
    assert isinstance(got, list), f"{where}: allocate returned {type(got).__name__}, not a list"
    assert encode(got) == want, where
    assert got == mq_list(rr, want), where


def check_allocate(rr, f, compat):
    kind = f["strategy"]
    params = Fields(f["params"], f"{f.where}.params")
    group = f["consumer_group"]
    mq_encoded = f["mq_all"]
    cid_all = f["cid_all"]
    mq_all = None if mq_encoded is None else mq_list(rr, mq_encoded)

    if f["presorted"]:
        # RebalanceImpl's order: MessageQueue.compareTo and String.compareTo (UTF-16 code units)
        assert mq_all is None or mq_all == sorted(mq_all), f"{f.where}: presorted mq_all is not sorted"
        assert cid_all is None or cid_all == sorted(cid_all, key=utf16_units), f"{f.where}: cid_all not sorted"

    if "constructor_exception" in f:
        assert "results" not in f, f"{f.where}: a line whose constructor threw has no results"
        expect_java_exception(lambda: build_strategy(rr, kind, params), f["constructor_exception"], f.where)
        assert f["strategy_name"] is None
        params.assert_all_read()
        return

    strategies = [build_strategy(rr, kind, params)]
    if kind == "MACHINE_ROOM_NEARBY":
        strategies.append(build_strategy(rr, kind, params, callables=True))
    params.assert_all_read()
    for strategy in strategies:
        assert strategy.name == f["strategy_name"], f.where

    mq_before = None if mq_all is None else list(mq_all)
    cid_before = None if cid_all is None else list(cid_all)
    members: list[tuple[str, Fields]] = []
    for entry in f.each("results"):
        cid = entry["current_cid"]
        in_cid_all = entry["in_cid_all"]
        assert in_cid_all is (cid_all is not None and cid in cid_all), f"{entry.where}: in_cid_all"
        if in_cid_all:
            members.append((cid, entry))
        for n, strategy in enumerate(strategies):
            where = f"{entry.where} ({'callables' if n else 'resolver'}) allocate({cid!r})"
            call = lambda s=strategy, c=cid: s.allocate(group, c, mq_all, cid_all)  # noqa: E731
            if "exception" in entry:
                expect_java_exception(call, entry["exception"], where)
            else:
                assert_result(rr, call(), entry["result"], where)
    # the inputs are not modified
    assert mq_all == mq_before and cid_all == cid_before, f"{f.where}: allocate changed its arguments"
    # one entry per distinct member, in first-occurrence order
    assert [cid for cid, _ in members] == list(dict.fromkeys(cid_all or ())), f"{f.where}: member entries"

    if members:
        check_allocate_all(rr, strategies, members, group, mq_all, cid_all, f.where)

    union_is_partition = f["union_is_partition"]
    if union_is_partition is not None:
        assert all("result" in entry for _, entry in members), f"{f.where}: a partition needs every result"
        union = Counter(tuple(q) for _, entry in members for q in entry["result"] or ())
        assert (union == Counter(tuple(q) for q in mq_encoded or ())) is union_is_partition, f.where


def check_allocate_all(rr, strategies, members, group, mq_all, cid_all, where):
    """``allocate_all`` is ``{cid: allocate(cid)}`` over the members, or the first member's exception."""
    first_exception = next((entry["exception"] for _, entry in members if "exception" in entry), None)
    for n, strategy in enumerate(strategies):
        w = f"{where} ({'callables' if n else 'resolver'}) allocate_all"
        if first_exception is not None:
            expect_java_exception(lambda s=strategy: rr.allocate_all(s, mq_all, cid_all, group), first_exception, w)
            continue
        got = rr.allocate_all(strategy, mq_all, cid_all, group)
        assert list(got) == [cid for cid, _ in members], f"{w}: keys"
        for cid, entry in members:
            assert_result(rr, got[cid], entry["result"], f"{w}[{cid!r}]")


CHECKS = {"allocate": check_allocate}


def test_allocate_vector(case, backend):
    run_case(case, backend, CHECKS)
