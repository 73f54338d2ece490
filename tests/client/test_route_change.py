"""The ordering risk of a route change: the share of keys SelectMessageQueueByHash puts on another queue."""

from __future__ import annotations

import random

import pytest

from rocketroute.client.producer.route_change import key_move_share, route_change


def _queues(backend, spec):
    return [backend.MessageQueue("T", b, i) for b, n in spec for i in range(n)]


def _empirical(backend, old, new, keys):
    select = backend.SelectMessageQueueByHash()
    moved = sum(1 for k in keys if select.select(old, None, k) != select.select(new, None, k))
    return moved / len(keys)


@pytest.mark.parametrize(
    ("old_spec", "new_spec"),
    [
        ([("broker-a", 8)], [("broker-a", 12)]),  # a topic grown from 8 to 12 queues
        ([("broker-a", 4), ("broker-b", 4)], [("broker-b", 4)]),  # a broker gone
        ([("broker-a", 4), ("broker-b", 4)], [("broker-a", 4), ("broker-b", 4), ("broker-c", 4)]),
        ([("broker-a", 3)], [("broker-a", 3)]),
    ],
)
def test_the_share_matches_what_the_hash_selector_does_to_random_keys(backend, old_spec, new_spec):
    old, new = _queues(backend, old_spec), _queues(backend, new_spec)
    rng = random.Random(7)
    keys = [f"order-{rng.getrandbits(64):x}" for _ in range(40_000)]
    computed = key_move_share(old, new)
    assert abs(_empirical(backend, old, new, keys) - computed) < 0.012
    if old_spec == new_spec:
        assert computed == 0.0


def test_exact_values_and_edges(backend):
    a8, a12 = _queues(backend, [("broker-a", 8)]), _queues(backend, [("broker-a", 12)])
    # residues mod 24: the key keeps its queue when r % 8 == r % 12, i.e. r in 0..7 -> 8 of 24 stay
    assert key_move_share(a8, a12) == pytest.approx(16 / 24)
    assert key_move_share([], []) == 0.0
    assert key_move_share(a8, []) == 1.0
    # a huge lcm is estimated, still close to 1 - (shared prefix share)
    big_old = _queues(backend, [("broker-a", 1021)])
    big_new = _queues(backend, [("broker-a", 1019)])
    assert 0.99 < key_move_share(big_old, big_new) < 1.0


def test_route_change_lists_what_moved(backend):
    old = _queues(backend, [("broker-a", 4), ("broker-b", 4)])
    new = _queues(backend, [("broker-b", 6)])
    change = route_change("T", old, new)
    assert change is not None
    assert change.brokers_gone == ("broker-a",) and change.brokers_added == ()
    assert [(q.broker_name, q.queue_id) for q in change.added] == [("broker-b", 4), ("broker-b", 5)]
    assert len(change.removed) == 4
    assert change.key_move_share == key_move_share(old, new)
    assert "brokers gone: broker-a" in change.describe()
    assert route_change("T", old, list(old)) is None
