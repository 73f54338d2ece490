"""The topic route the demo, the benchmarks and the tests route on, built in one place.

:func:`sample_route` is a ``TopicRouteData`` in the JSON shape a name server returns (``queueDatas``,
``brokerDatas``): every broker with the same number of read and write queues, read-write (perm 6), its master at
``10.0.0.N:10911``. Feed it to ``TopicRouteData.from_json`` (a ``dict`` or its ``json.dumps``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["SAMPLE_BROKERS", "sample_route"]

SAMPLE_BROKERS = ("broker-a", "broker-b", "broker-c", "broker-d")


def sample_route(brokers: Sequence[str] = SAMPLE_BROKERS, queues_per_broker: int = 4) -> dict[str, Any]:
    """A route of ``brokers`` (in that order) with ``queues_per_broker`` read and write queues each."""
    return {
        "orderTopicConf": None,
        "queueDatas": [
            {
                "brokerName": b,
                "readQueueNums": queues_per_broker,
                "writeQueueNums": queues_per_broker,
                "perm": 6,
                "topicSysFlag": 0,
            }
            for b in brokers
        ],
        "brokerDatas": [
            {"cluster": "DefaultCluster", "brokerName": b, "brokerAddrs": {"0": f"10.0.0.{i + 1}:10911"}}
            for i, b in enumerate(brokers)
        ],
    }
