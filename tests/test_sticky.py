"""``AllocateMessageQueueSticky`` on both backends: the global assignment partitions the queues, is balanced and
keeps the most queues any balanced assignment can (against a brute-force optimum); members agree whatever the
order of ``previous``; over join / leave sequences it moves fewer queues than AVG and AVG_BY_CIRCLE; bad input
raises what the Java strategies raise."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError, NullPointerError

from .test_allocate import CID_POOL, QUEUE_POOL, assert_allocate_all_matches, assert_illegal, key, mqs_of

queue_specs = st.lists(st.sampled_from(QUEUE_POOL), min_size=1, max_size=64, unique=True)
unique_cids = st.lists(st.sampled_from(CID_POOL), min_size=1, max_size=10, unique=True)


@st.composite
def scenario(draw, max_queues=64, max_cids=10):
    """Queues, consumers, and a previous assignment that also names queues and consumers gone since (and may
    give a queue to two consumers)."""
    specs = draw(st.lists(st.sampled_from(QUEUE_POOL), min_size=1, max_size=max_queues, unique=True))
    cids = draw(st.lists(st.sampled_from(CID_POOL), min_size=1, max_size=max_cids, unique=True))
    known = specs + draw(st.lists(st.sampled_from(QUEUE_POOL), max_size=4))
    owners = cids + draw(st.lists(st.sampled_from(CID_POOL), max_size=3))
    previous = draw(
        st.dictionaries(
            st.sampled_from(owners),
            st.one_of(st.none(), st.lists(st.sampled_from(known), max_size=len(known))),
            max_size=len(owners),
        )
    )
    return specs, cids, previous


def build_previous(backend, previous):
    return {c: None if qs is None else [backend.MessageQueue(*q) for q in qs] for c, qs in previous.items()}


def sizes_are_balanced(sizes, n_mq):
    base, extra = divmod(n_mq, len(sizes))
    return all(s in (base, base + 1) for s in sizes) and sum(s == base + 1 for s in sizes) == extra


def previous_owner(previous, mqs, cids):
    """Each queue's previous owner: the first consumer of ``cid_all`` that ``previous`` gives it to."""
    present = set(mqs)
    owner = {}
    for c in cids:
        for q in previous.get(c) or ():
            if q in present:
                owner.setdefault(q, c)
    return owner


def kept(previous, assignment, mqs, cids):
    owner = previous_owner(previous, mqs, cids)
    return sum(1 for c, qs in assignment.items() for q in qs if owner.get(q) == c)


def brute_force_kept(previous, mqs, cids):
    """The most queues any balanced assignment keeps with their previous owner, by trying them all."""
    owner = previous_owner(previous, mqs, cids)
    best = 0
    for choice in itertools.product(range(len(cids)), repeat=len(mqs)):
        sizes = Counter(choice)
        if sizes_are_balanced([sizes[i] for i in range(len(cids))], len(mqs)):
            best = max(best, sum(1 for q, i in zip(mqs, choice, strict=True) if owner.get(q) == cids[i]))
    return best


def owners_of(assignment):
    return {q: c for c, qs in assignment.items() for q in qs}


def moved(before, after):
    """Queues whose owner changed (the queue set stays the same here)."""
    ob, oa = owners_of(before), owners_of(after)
    return sum(1 for q, c in oa.items() if q in ob and ob[q] != c)


# ---------------------------------------------------------------------------------------------- basics


def test_name_previous_and_repr(backend):
    s = backend.AllocateMessageQueueSticky()
    assert s.name == "STICKY"
    assert s.previous == {}
    assert repr(s) == "AllocateMessageQueueSticky(previous=0 consumers)"
    mqs = mqs_of(backend, [("T", "b", q) for q in range(3)])
    s2 = s.with_previous({"a": mqs[:2], "b": iter(mqs[2:]), "c": None})
    assert type(s2) is type(s) and s2 is not s
    assert s2.previous == {"a": tuple(mqs[:2]), "b": (mqs[2],), "c": ()}
    assert s.previous == {}  # the original is unchanged
    assert repr(s2) == "AllocateMessageQueueSticky(previous=3 consumers)"
    # the property is a copy
    s2.previous["d"] = ()
    assert "d" not in s2.previous
    assert backend.AllocateMessageQueueSticky(None).previous == {}


def test_rules(backend):
    mqs = mqs_of(backend, [("T", "b", q) for q in range(7)])
    q = mqs
    # c2 owned five queues: it gets the larger share, four, and keeps the first four in mq_all order
    s = backend.AllocateMessageQueueSticky({"c1": [q[6]], "c2": [q[5], q[1], q[3], q[2], q[4]], "gone": [q[0]]})
    assert s.allocate_all(mqs, ["c1", "c2"]) == {"c1": [q[0], q[5], q[6]], "c2": [q[1], q[2], q[3], q[4]]}
    # equal claims: the larger share goes to the earlier consumer in cid_all
    s = backend.AllocateMessageQueueSticky({"c1": [q[6]], "c2": [q[0]]})
    assert s.allocate_all(mqs, ["c1", "c2"]) == {"c1": [q[1], q[2], q[3], q[6]], "c2": [q[0], q[4], q[5]]}
    assert s.allocate_all(mqs, ["c2", "c1"]) == {"c2": [q[0], q[1], q[2], q[3]], "c1": [q[4], q[5], q[6]]}
    # a queue given to two consumers stays with the earlier of them in cid_all
    s = backend.AllocateMessageQueueSticky({"c2": [q[0]], "c1": [q[0]]})
    assert s.allocate_all(mqs[:2], ["c1", "c2"]) == {"c1": [q[0]], "c2": [q[1]]}
    assert s.allocate_all(mqs[:2], ["c2", "c1"]) == {"c2": [q[0]], "c1": [q[1]]}
    # fewer queues than consumers: the previous owners keep theirs, the others get nothing
    s = backend.AllocateMessageQueueSticky({"c3": [q[1]], "c4": [q[0]]})
    assert s.allocate_all(mqs[:2], ["c1", "c2", "c3", "c4"]) == {"c1": [], "c2": [], "c3": [q[1]], "c4": [q[0]]}


def test_join_and_leave(backend):
    mqs = mqs_of(backend, [("T", f"b{b}", q) for b in range(2) for q in range(4)])
    s = backend.AllocateMessageQueueSticky()
    two = s.allocate_all(mqs, ["a", "c"])
    assert two == {"a": mqs[:4], "c": mqs[4:]}
    # b joins between them: it takes one queue from each, a and c keep three
    three = s.with_previous(two).allocate_all(mqs, ["a", "b", "c"])
    assert three == {"a": mqs[:3], "b": [mqs[3], mqs[7]], "c": mqs[4:7]}
    assert moved(two, three) == 2
    # a leaves: only its three queues move
    after = s.with_previous(three).allocate_all(mqs, ["b", "c"])
    assert moved(three, after) == 3
    assert set(three["b"]) <= set(after["b"]) and set(three["c"]) <= set(after["c"])


def test_duplicates_count_once(backend):
    mqs = mqs_of(backend, [("T", "b", q) for q in range(5)])
    dup_mqs = [mqs[0], *mqs, mqs[3]]
    s = backend.AllocateMessageQueueSticky({"b": [mqs[4]]})
    got = s.allocate_all(dup_mqs, ["a", "b", "a"])
    assert list(got) == ["a", "b"]
    assert got == s.allocate_all(mqs, ["a", "b"]) == {"a": mqs[:2], "b": mqs[2:]}
    assert s.allocate("G", "a", dup_mqs, ["a", "b", "a"]) == got["a"]


def test_works_with_rebalance(backend):
    mqs = mqs_of(backend, [("T", "b", q) for q in range(6)])
    s = backend.AllocateMessageQueueSticky({"a": mqs[3:], "b": mqs[:3]})
    step = backend.rebalance(s, "G", "a", reversed(mqs), ["b", "a"], owned=mqs[3:])
    assert step.assigned == tuple(mqs[3:]) and step.added == () and step.dropped == ()


# ---------------------------------------------------------------------------------------------- properties


@given(specs=queue_specs, cids=unique_cids)
def test_without_previous_it_is_averagely(backend, specs, cids):
    mqs = mqs_of(backend, specs)
    got = backend.AllocateMessageQueueSticky().allocate_all(mqs, cids)
    assert got == backend.allocate_all(backend.AllocateMessageQueueAveragely(), mqs, cids)


@given(s=scenario())
def test_global_assignment_is_a_balanced_partition(backend, s):
    specs, cids, previous = s
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueSticky(build_previous(backend, previous))
    got = strategy.allocate_all(mqs, cids)
    assert list(got) == cids
    union = [key(q) for qs in got.values() for q in qs]
    assert Counter(union) == Counter(key(q) for q in mqs), "not every queue exactly once"
    assert sizes_are_balanced([len(qs) for qs in got.values()], len(mqs))
    position = {q: i for i, q in enumerate(mqs)}
    for qs in got.values():
        assert [position[q] for q in qs] == sorted(position[q] for q in qs), "not in mq_all order"
    # the closed form of the optimum: min(owned, quota), the larger quotas to those owning most
    owned = sorted(Counter(previous_owner(strategy.previous, mqs, cids).values()).values(), reverse=True)
    owned += [0] * (len(cids) - len(owned))
    base, extra = divmod(len(mqs), len(cids))
    best = sum(min(k, base + (i < extra)) for i, k in enumerate(owned))
    assert kept(strategy.previous, got, mqs, cids) == best


@given(s=scenario(), stranger=st.sampled_from(["zz", "c-99"]))
def test_each_member_allocates_its_part(backend, s, stranger):
    specs, cids, previous = s
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueSticky(build_previous(backend, previous))
    everyone = strategy.allocate_all(mqs, cids)
    for cid in cids:
        assert strategy.allocate("G", cid, mqs, cids) == everyone[cid]
    assert backend.allocate_all(strategy, mqs, cids, "G") == everyone
    assert strategy.allocate("G", stranger, mqs, cids) == []
    assert_allocate_all_matches(backend, strategy, mqs, cids)


@given(s=scenario(), data=st.data())
def test_the_order_of_previous_does_not_matter(backend, s, data):
    specs, cids, previous = s
    mqs = mqs_of(backend, specs)
    want = backend.AllocateMessageQueueSticky(build_previous(backend, previous)).allocate_all(mqs, cids)
    order = data.draw(st.permutations(list(previous)))
    shuffled = {c: None if previous[c] is None else data.draw(st.permutations(previous[c])) for c in order}
    got = backend.AllocateMessageQueueSticky(build_previous(backend, shuffled)).allocate_all(mqs, cids)
    assert got == want


@given(s=scenario(max_queues=6, max_cids=4))
def test_keeps_the_most_any_balanced_assignment_can(backend, s):
    specs, cids, previous = s
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueSticky(build_previous(backend, previous))
    got = strategy.allocate_all(mqs, cids)
    assert kept(strategy.previous, got, mqs, cids) == brute_force_kept(strategy.previous, mqs, cids)


@given(s=scenario())
def test_a_second_round_moves_nothing(backend, s):
    specs, cids, previous = s
    mqs = mqs_of(backend, specs)
    once = backend.AllocateMessageQueueSticky(build_previous(backend, previous)).allocate_all(mqs, cids)
    assert backend.AllocateMessageQueueSticky(once).allocate_all(mqs, cids) == once


# ---------------------------------------------------------------------------------------------- churn

POOL = [f"10.0.0.{i}@{i}" for i in range(12)]


def membership_steps(rng_or_draw, n_steps):
    """Consumer sets, each one join or one leave away from the one before (ids sorted, as Java sorts them)."""
    members = set(rng_or_draw.sample(POOL, rng_or_draw.randint(1, 4)))
    steps = [sorted(members)]
    for _ in range(n_steps):
        if len(members) > 1 and rng_or_draw.random() < 0.5:
            members.remove(rng_or_draw.choice(sorted(members)))
        else:
            members.add(rng_or_draw.choice(POOL))
        steps.append(sorted(members))
    return steps


def churn_run(backend, n_queues, steps, check=None):
    """Each strategy's churn at each step, each fed its own last assignment (sticky through
    ``with_previous``)."""
    mqs = sorted(mqs_of(backend, [("T", f"broker-{i % 3}", i // 3) for i in range(n_queues)]))
    avg, circle = backend.AllocateMessageQueueAveragely(), backend.AllocateMessageQueueAveragelyByCircle()
    sticky = backend.AllocateMessageQueueSticky()
    last = None
    out = []
    for i, cids in enumerate(steps):
        now = {
            "sticky": sticky.allocate_all(mqs, cids),
            "avg": backend.allocate_all(avg, mqs, cids),
            "circle": backend.allocate_all(circle, mqs, cids),
        }
        if last is not None:
            out.append({k: moved(last[k], now[k]) for k in now})
            if check is not None:
                check(last, now, out[-1], steps[i - 1], cids)
        sticky = sticky.with_previous(now["sticky"])
        last = now
    return out


@given(n_queues=st.integers(1, 64), n_steps=st.integers(1, 12), seed=st.integers(0, 2**32))
def test_sticky_churns_no_more_than_avg_and_circle(backend, n_queues, n_steps, seed):
    steps = membership_steps(random.Random(seed), n_steps)

    def check(last, now, churn, before, cids):
        # from the same previous assignment, no balanced assignment (AVG's, AVG_BY_CIRCLE's) keeps more
        for other in ("avg", "circle"):
            assert churn["sticky"] <= moved(last["sticky"], now[other])
        if len(cids) > len(before):
            # a join moves only the newcomer's share, the least any balanced strategy moves
            assert churn["sticky"] == n_queues // len(cids)
            assert churn["sticky"] <= min(churn["avg"], churn["circle"])
        else:
            # a leave moves only the leaver's queues; they may be one more than under AVG, whose leaver
            # may have held the smaller share
            gone = set(before) - set(cids)
            assert churn["sticky"] == sum(len(last["sticky"][c]) for c in gone)
            assert churn["sticky"] <= min(churn["avg"], churn["circle"]) + 1

    churn = churn_run(backend, n_queues, steps, check)
    for i in range(1, len(churn) + 1):
        # over the sequence so far, never more in total
        total = Counter()
        for c in churn[:i]:
            total.update(c)
        assert total["sticky"] <= total["avg"] and total["sticky"] <= total["circle"], churn[:i]


def test_sticky_churns_less_on_average(backend):
    rng = random.Random(20240611)
    total = Counter()
    for _ in range(60):
        for step in churn_run(backend, rng.randint(1, 64), membership_steps(rng, rng.randint(2, 10))):
            total.update(step)
    assert total["sticky"] < total["avg"] and total["sticky"] < total["circle"], total


# ---------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("mq_all", [[], None])
def test_empty_lists_and_ids_like_java(backend, mq_all):
    s = backend.AllocateMessageQueueSticky()
    mqs = mqs_of(backend, [("T", "b", 0)])
    assert_illegal(lambda: s.allocate("G", "c", mq_all, ["c"]), "mqAll is null or mqAll empty")
    assert_illegal(lambda: s.allocate_all(mq_all, ["c"]), "mqAll is null or mqAll empty")
    assert_illegal(lambda: backend.allocate_all(s, mq_all, ["c"]), "mqAll is null or mqAll empty")
    assert_illegal(lambda: s.allocate("G", "c", mqs, mq_all), "cidAll is null or cidAll empty")
    assert_illegal(lambda: s.allocate("G", "", mqs, ["c"]), "currentCID is empty")
    assert_illegal(lambda: s.allocate("G", None, [], []), "currentCID is empty")
    assert_illegal(lambda: s.allocate_all(mqs, ["c", ""]), "currentCID is empty")
    assert s.allocate_all(mqs, mq_all) == {}
    with pytest.raises(NullPointerError):
        s.allocate("G", "c", mqs, ["c", None])
    with pytest.raises(TypeError, match=r"mq_all'?:? must hold MessageQueue, not str"):
        s.allocate("G", "c", ["q"], ["c"])


@pytest.mark.parametrize(
    ("previous", "error", "message"),
    [
        ([], TypeError, "must be a mapping of consumer id to queues, not list"),
        ("c", TypeError, "must be a mapping of consumer id to queues, not str"),
        ({None: []}, NullPointerError, "previous holds a None consumer id"),
        ({1: []}, TypeError, "a consumer id must be a str, not int"),
        ({"c\ud800": []}, IllegalArgumentError, "previous contains a lone surrogate, which UTF-8 cannot carry"),
        ({"c": ["q"]}, TypeError, "a queue must be a MessageQueue, not str"),
        ({"c": [None]}, TypeError, "a queue must be a MessageQueue, not NoneType"),
        ({"c": 5}, TypeError, "'int' object is not iterable"),
    ],
)
def test_bad_previous(backend, previous, error, message):
    """Java's exceptions word for word; a TypeError says what is wrong (the native one after PyO3's
    ``argument 'previous': ``)."""

    def check(e: BaseException) -> None:
        if error is TypeError:
            assert str(e).endswith(message), str(e)
        else:
            assert str(e) == message

    with pytest.raises(error) as ei:
        backend.AllocateMessageQueueSticky(previous)
    check(ei.value)
    with pytest.raises(error) as ei:
        backend.AllocateMessageQueueSticky().with_previous(previous)
    check(ei.value)
