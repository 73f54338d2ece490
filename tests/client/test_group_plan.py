"""plan_group on snapshots built by hand: the consensus is the view most sources give, the plan is allocate_all
on it, and the members whose queues depend on the view they hold are flagged with the queues that may be consumed
twice or not at all. Checked by brute force: every way of handing the observed views to the members."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from rocketroute.client.group_plan import GroupSnapshot, plan_group

TOPIC = "T"
GROUP = "G"


def route(backend: Any, queues: dict[str, int]) -> Any:
    return backend.TopicRouteData(
        [backend.QueueData(b, n, n) for b, n in queues.items()],
        [backend.BrokerData("c", b, {0: f"10.0.0.{i}:10911"}) for i, b in enumerate(queues)],
    )


def snapshot(routes: dict[str, Any], members: dict[str, tuple[str, ...]], **kw: Any) -> GroupSnapshot:
    return GroupSnapshot(TOPIC, GROUP, "5.3", routes, members, **kw)


def mqs(backend: Any, queues: dict[str, int]) -> list[Any]:
    return sorted(backend.MessageQueue(TOPIC, b, i) for b, n in queues.items() for i in range(n))


def brute_force(plan: Any, strategy: Any) -> tuple[set[Any], set[Any]]:
    """Every assignment of the plan's views to the members: the queues some assignment gives to more members than
    the consensus does, and those some assignment leaves to nobody although the consensus gives them an owner."""
    members = sorted(plan.claims)
    dup: set[Any] = set()
    orphan: set[Any] = set()
    base = plan.report.owners
    for choice in itertools.product(range(len(plan.views)), repeat=len(members)):
        owners: dict[Any, set[str]] = {}
        for cid, i in zip(members, choice, strict=True):
            for mq in plan.claims[cid][i]:
                owners.setdefault(mq, set()).add(cid)
        for mq in base:
            n = len(owners.get(mq, ()))
            if n > 1 and n > len(base[mq]):
                dup.add(mq)
            if n == 0 and base[mq]:
                orphan.add(mq)
    return dup, orphan


def test_agreeing_sources_give_one_view_and_the_allocate_all_plan(backend):
    r = route(backend, {"broker-a": 4, "broker-b": 4})
    members = ("10.0.0.1@a", "10.0.0.2@b", "10.0.0.3@c")
    snap = snapshot({"ns1:9876": r, "ns2:9876": r}, {"broker-a": members, "broker-b": members[::-1]})
    strategy = backend.AllocateMessageQueueAveragely()
    plan = plan_group(snap, strategy, strategy_name="AVG")
    assert plan.consistent and len(plan.views) == 1
    assert plan.consensus.route_from == ("ns1:9876", "ns2:9876")
    assert plan.consensus.members_from == ("broker-a", "broker-b")
    want = backend.allocate_all(strategy, mqs(backend, {"broker-a": 4, "broker-b": 4}), sorted(members), GROUP)
    assert plan.plan == {cid: tuple(q) for cid, q in want.items()}
    assert not plan.flagged and not plan.may_duplicate and not plan.may_orphan
    assert plan.to_dict()["consistent"] is True


def test_a_member_missing_from_one_broker_is_flagged_with_the_queues_at_risk(backend):
    r = route(backend, {"broker-a": 4, "broker-b": 4})
    full = ("10.0.0.1@a", "10.0.0.2@b", "10.0.0.3@c")
    snap = snapshot(
        {"ns1:9876": r},
        {"broker-a": full, "broker-b": full[:2], "broker-c": full},
        broker_addrs={"broker-a": "x", "broker-b": "y", "broker-c": "z"},
    )
    strategy = backend.AllocateMessageQueueAveragely()
    plan = plan_group(snap, strategy)
    assert not plan.consistent
    assert plan.consensus.members == full and plan.consensus.members_from == ("broker-a", "broker-c")
    assert [v.members_from for v in plan.views] == [("broker-a", "broker-c"), ("broker-b",)]
    assert "not in the member list of broker-b" in plan.flagged["10.0.0.3@c"]
    # with two members the others' halves differ from their thirds: every member is flagged
    assert set(plan.flagged) == set(full)
    dup, orphan = brute_force(plan, strategy)
    assert set(plan.may_duplicate) == dup and dup
    assert set(plan.may_orphan) == orphan and orphan
    for mq, owners in plan.may_duplicate.items():
        assert all(any(mq in claim for claim in plan.claims[c]) for c in owners)


def test_a_route_known_to_one_name_server_only(backend):
    old = route(backend, {"broker-a": 4})
    new = route(backend, {"broker-a": 4, "broker-b": 4})
    members = ("10.0.0.1@a", "10.0.0.2@b")
    snap = snapshot({"ns1:9876": old, "ns2:9876": new, "ns3:9876": old}, {"broker-a": members})
    strategy = backend.AllocateMessageQueueAveragelyByCircle()
    plan = plan_group(snap, strategy, strategy_name="AVG_BY_CIRCLE")
    assert plan.consensus.route_from == ("ns1:9876", "ns3:9876")
    assert len(plan.consensus.queues) == 4
    # broker-b's queues exist (ns2 knows them) but the consensus gives them to nobody
    assert set(plan.report.orphaned) == set(mqs(backend, {"broker-b": 4}))
    dup, orphan = brute_force(plan, strategy)
    assert set(plan.may_duplicate) == dup and set(plan.may_orphan) == orphan
    assert set(plan.flagged) == set(members)


def test_empty_lists_and_failed_sources_are_reported_not_planned(backend):
    r = route(backend, {"broker-a": 2, "broker-b": 2})
    members = ("10.0.0.1@a", "10.0.0.2@b")
    snap = snapshot(
        {"ns1:9876": r},
        {"broker-a": members, "broker-b": ()},
        route_errors={"ns2:9876": "RemotingConnectError: refused"},
    )
    plan = plan_group(snap, backend.AllocateMessageQueueAveragely())
    assert len(plan.views) == 1 and not plan.flagged
    assert not plan.consistent
    assert any("ns2:9876" in e for e in plan.errors)
    assert any("broker-b lists no member" in e for e in plan.errors)


def test_no_route_or_no_member_is_a_clear_error(backend):
    r = route(backend, {"broker-a": 2})
    with pytest.raises(ValueError, match="no name server gave a route"):
        plan_group(
            snapshot({}, {"broker-a": ("x@a",)}, route_errors={"ns": "down"}), backend.AllocateMessageQueueAveragely()
        )
    with pytest.raises(ValueError, match="no broker lists a member of 'G'"):
        plan_group(snapshot({"ns": r}, {"broker-a": ()}), backend.AllocateMessageQueueAveragely())


@pytest.mark.parametrize("seed", range(30))
def test_risks_match_brute_force_on_random_disagreements(backend, seed):
    import random

    rng = random.Random(seed)
    pool = [f"10.0.0.{i}@m{i}" for i in range(5)]
    routes = {
        f"ns{i}:9876": route(backend, {"broker-a": rng.randint(1, 4), "broker-b": rng.choice([0, 2, 4]) or 1})
        for i in range(rng.randint(1, 3))
    }
    members = {f"broker-{c}": tuple(rng.sample(pool, rng.randint(1, 5))) for c in "ab"}
    name = rng.choice(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"])
    strategy = {
        "AVG": backend.AllocateMessageQueueAveragely,
        "AVG_BY_CIRCLE": backend.AllocateMessageQueueAveragelyByCircle,
        "CONSISTENT_HASH": backend.AllocateMessageQueueConsistentHash,
    }[name]()
    plan = plan_group(snapshot(routes, members), strategy, strategy_name=name)
    dup, orphan = brute_force(plan, strategy)
    assert set(plan.may_duplicate) == dup
    assert set(plan.may_orphan) == orphan
    # a member is flagged exactly when some list lacks it or its queues change with the view
    for cid, claims in plan.claims.items():
        differs = len(set(claims)) > 1 or any(cid not in m for m in members.values())
        assert (cid in plan.flagged) == differs, cid
