"""``analyse_views``: queues owned twice or by nobody while a group's members see different things."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rocketroute.views import analyse_views


def _strategies(backend):
    return [
        backend.AllocateMessageQueueAveragely(),
        backend.AllocateMessageQueueAveragelyByCircle(),
        backend.AllocateMessageQueueConsistentHash(5),
    ]


def _mqs(backend, n, broker="broker-a"):
    return [backend.MessageQueue("T", broker, i) for i in range(n)]


def test_shared_views_are_consistent_for_every_strategy(backend):
    mqs = _mqs(backend, 8) + _mqs(backend, 5, "broker-b")
    cids = [f"c{i}" for i in range(4)]
    for strategy in _strategies(backend):
        report = analyse_views(strategy, {c: (mqs, cids) for c in cids})
        assert report.consistent, strategy
        assert sorted(mq for qs in report.claims.values() for mq in qs) == sorted(mqs)
        assert all(len(owners) == 1 for owners in report.owners.values())


def test_a_member_that_has_not_seen_the_newcomer_takes_a_queue_twice(backend):
    mqs = _mqs(backend, 8)
    old, new = ["c1", "c2"], ["c1", "c2", "c3"]
    report = analyse_views(
        backend.AllocateMessageQueueAveragely(), {"c1": (mqs, old), "c2": (mqs, new), "c3": (mqs, new)}
    )
    # c1 on two consumers takes 0..3; c2 on three takes 3..5; c3 takes 6..7
    assert report.claims["c1"] == tuple(mqs[0:4])
    assert report.claims["c2"] == tuple(mqs[3:6])
    assert report.duplicated == {mqs[3]: ("c1", "c2")}
    assert report.orphaned == () and not report.consistent


def test_a_member_that_still_counts_a_leaver_orphans_queues(backend):
    mqs = _mqs(backend, 6)
    report = analyse_views(
        backend.AllocateMessageQueueAveragely(), {"c1": (mqs, ["c1", "c2", "gone"]), "c2": (mqs, ["c1", "c2"])}
    )
    # c1 on three consumers takes 0..1; c2 on two takes 3..5: queue 2 has no owner
    assert report.orphaned == (mqs[2],)
    assert report.duplicated == {}


def test_stale_queues_and_failed_allocations_are_reported(backend):
    mqs = _mqs(backend, 4)
    extra = backend.MessageQueue("T", "broker-gone", 0)
    report = analyse_views(
        backend.AllocateMessageQueueAveragely(),
        {"c1": ([*mqs, extra], ["c1"]), "c2": ([], ["c1", "c2"])},
        mq_all=mqs,
    )
    assert report.stray == {extra: ("c1",)}
    assert report.errors == {"c2": "IllegalArgumentError: mqAll is null or mqAll empty"}
    assert report.claims["c2"] == ()


@given(
    n=st.integers(1, 24),
    views=st.lists(st.tuples(st.integers(1, 24), st.sets(st.integers(0, 6), min_size=1)), min_size=1, max_size=6),
)
def test_report_accounts_for_every_claim(backend, n, views):
    mqs_all = _mqs(backend, n)
    given_views = {}
    for i, (seen, members) in enumerate(views):
        cid = f"c{i}"
        given_views[cid] = (mqs_all[: min(seen, n)], sorted({cid, *(f"c{m}" for m in members)}))
    report = analyse_views(backend.AllocateMessageQueueAveragely(), given_views, mq_all=mqs_all)
    for mq, owners in report.owners.items():
        assert owners == tuple(c for c in given_views if mq in report.claims[c])
    assert set(report.duplicated) == {mq for mq, o in report.owners.items() if len(o) > 1}
    assert set(report.orphaned) == {mq for mq, o in report.owners.items() if not o}
    if all(v == next(iter(given_views.values())) for v in given_views.values()) and set(
        next(iter(given_views.values()))[1]
    ) == set(given_views):
        assert not report.duplicated
