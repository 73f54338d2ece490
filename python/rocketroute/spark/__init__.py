"""The rocketroute pipeline on Spark (PySpark): route, plan, replay and report, exactly as the Java client routes.

Never imported by :mod:`rocketroute` itself; needs the ``spark`` extra (pyspark, pyarrow, numpy; matplotlib
for the report).
``local[*]`` is the default master; point ``--master`` (or spark-submit) at a cluster for more data.
"""

from __future__ import annotations

from .jobs.plan import PlanResult, parse_consumers, plan, resize_risk
from .jobs.replay import ReplayResult, replay
from .jobs.route import QueueSpec, RouteResult, queue_spec, route
from .report import render_report, write_report
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
    "render_report",
    "replay",
    "resize_risk",
    "route",
    "write_report",
]
