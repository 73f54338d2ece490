"""Large inputs where Java's own code is linear (or hashes a name once) must stay so in rocketroute, on both
backends: each case below took from 3 to 60 seconds before (a broker's address map rebuilt per address, the
broker data looked up per queue data, a 1 MB broker name hashed once per queue, rooms grouped by scanning all
queues per room). The results are checked exactly; the work runs in a child process whose time limit turns a
path gone quadratic into a failure instead of a stalled suite (what the paths cost is shown by ``make bench``,
not asserted here)."""

from __future__ import annotations

from ._child import run_on_backend

SCRIPT = r"""
import {module} as rr

# BrokerData.java (4.9.8 / 5.3.3): brokerAddrs is a HashMap; a later address of an id replaces the earlier one
addrs = {{i: f"10.0.{{i // 250}}.{{i % 250}}:10911" for i in range(200_000)}}
bd = rr.BrokerData("c", "b", addrs)
assert len(bd.broker_addrs) == 200_000 and bd.broker_addrs[199_999] == "10.0.799.249:10911"

# MQClientInstance.topicRouteData2TopicPublishInfo: per queue data, the first broker data of that name
n = 50_000
route = rr.TopicRouteData(
    [rr.QueueData(f"b{{i:05d}}", 4, 4, 6) for i in reversed(range(n))],
    [rr.BrokerData("c", f"b{{i:05d}}", {{0: "127.0.0.1:1"}}) for i in range(n)]
    + [rr.BrokerData("c", "b00000", {{1: "127.0.0.1:2"}})],  # a later one of the same name is not used
)
tp = rr.TopicPublishInfo.from_route("T", route)
mqs = tp.message_queues
assert len(mqs) == 4 * n and mqs[0].broker_name == "b00000" and mqs[-1] == rr.MessageQueue("T", f"b{{n - 1:05d}}", 3)
assert len(route.subscribe_queues("T")) == 4 * n

# MessageQueue.hashCode over String.hashCode, which Java caches in the String: a 1 MB name, 8192 queues
big = "x" * 1_000_000
route = rr.TopicRouteData([rr.QueueData(big, 8192, 8192, 6)], [rr.BrokerData("c", big, {{0: "127.0.0.1:1"}})])
tp = rr.TopicPublishInfo.from_route("T", route)
h = rr.java_string_hash(big)
def java_int(v):
    return (v + 2**31) % 2**32 - 2**31

for mq in tp.message_queues[::1000]:
    assert mq.java_hash_code() == java_int(31 * (31 * (31 + h) + mq.queue_id) + rr.java_string_hash("T"))
assert sorted(route.subscribe_queues("T"), key=lambda q: q.queue_id)[-1].queue_id == 8191

# AllocateMachineRoomNearby.java: queues and consumers grouped by room in one pass each
rooms = 40_000
mqs = [rr.MessageQueue("T", f"room{{i}}-b", 0) for i in range(rooms)]
cids = [f"room{{i}}-c" for i in range(20)]
nearby = rr.AllocateMachineRoomNearby(
    rr.AllocateMessageQueueAveragely(),
    broker_deploy_in=lambda mq: mq.broker_name.split("-")[0],
    consumer_deploy_in=lambda c: c.split("-")[0],
)
owned = rr.allocate_all(nearby, mqs, cids)
assert sorted(q for qs in owned.values() for q in qs) == sorted(mqs)
assert mqs[3] in owned["room3-c"]
print("done")
"""


def test_large_routes_and_room_maps_stay_linear(backend):
    out = run_on_backend(SCRIPT, backend, timeout=180, what="the large inputs (a path is no longer linear)")
    assert out.strip() == "done"
