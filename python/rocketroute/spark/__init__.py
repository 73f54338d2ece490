"""The rocketroute pipeline on Spark (PySpark): route a message dataset exactly as the Java client would.

Never imported by :mod:`rocketroute` itself; needs the ``spark`` extra (pyspark, pyarrow, numpy).
``local[*]`` is the default master; point ``--master`` (or spark-submit) at a cluster for more data.
"""

from __future__ import annotations

from .plan import PlanResult, parse_consumers, plan, resize_risk
from .replay import ReplayResult, replay
from .route import QueueSpec, RouteResult, queue_spec, route
from .session import local_session

__all__ = [
    "PlanResult",
    "QueueSpec",
    "ReplayResult",
    "RouteResult",
    "local_session",
    "parse_consumers",
    "plan",
    "queue_spec",
    "replay",
    "resize_risk",
    "route",
]
