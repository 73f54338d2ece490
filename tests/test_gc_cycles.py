"""Native objects that hold the user's callables let the garbage collector see them (``__traverse__``): a cycle
through one (an object keeping a strategy whose resolver is one of its own methods, a closure over it) is
collected as it is with the reference backend's plain Python objects, not kept for the life of the process."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest


class _Owner:
    """What a service would be: it keeps the routing object, whose callable refers back to it."""

    held: Any = None

    def broker_deploy_in(self, mq: Any) -> str | None:
        return None

    def consumer_deploy_in(self, cid: str) -> str | None:
        return None

    def resolve(self, name: str) -> str | None:
        return None

    def detect(self, addr: str, timeout_ms: int) -> bool:
        return True

    def hash(self, key: str) -> int:
        return len(key)


_MAKERS: dict[str, Callable[[Any, _Owner], Any]] = {
    "fault table resolver": lambda rr, o: rr.LatencyFaultTolerance(resolver=o.resolve),
    "fault table detector": lambda rr, o: rr.LatencyFaultTolerance(detector=o.detect),
    "fault strategy's table": lambda rr, o: rr.MQFaultStrategy(resolver=o.resolve, detector=o.detect),
    "fault strategy given a table": lambda rr, o: rr.MQFaultStrategy(
        latency_fault_tolerance=rr.LatencyFaultTolerance(resolver=o.resolve)
    ),
    "hash ring": lambda rr, o: rr.ConsistentHashRouter(["a", "b"], hash_function=o.hash),
    "consistent hash strategy": lambda rr, o: rr.AllocateMessageQueueConsistentHash(hash_function=o.hash),
    "bounded consistent hash strategy": lambda rr, o: rr.AllocateMessageQueueConsistentHashBounded(
        hash_function=o.hash
    ),
    "machine room nearby, resolver": lambda rr, o: rr.AllocateMachineRoomNearby(rr.AllocateMessageQueueAveragely(), o),
    "machine room nearby, functions": lambda rr, o: rr.AllocateMachineRoomNearby(
        rr.AllocateMessageQueueConsistentHash(hash_function=o.hash),
        broker_deploy_in=o.broker_deploy_in,
        consumer_deploy_in=o.consumer_deploy_in,
    ),
}


@pytest.mark.parametrize("what", sorted(_MAKERS))
def test_a_cycle_through_a_user_callable_is_collected(backend, what):
    owner = _Owner()
    owner.held = _MAKERS[what](backend, owner)
    gone = weakref.ref(owner)
    del owner
    gc.collect()
    assert gone() is None, f"the {what} kept its owner alive through a cycle the collector could not see"
