"""The ``plan`` command's options both of its modes read: the rooms, idcs and configured queues of the strategies
that need them. The Spark plan (:mod:`rocketroute.spark.cli.plan`) and the live plan (:mod:`.plan_live`) each
import this module; neither imports the other's options, so the two modes have no import cycle."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import RocketRouteError

__all__ = ["plan_params"]


def plan_params(args: argparse.Namespace) -> dict[str, Any]:
    """The room / idc / config parameters of the strategies that need them."""
    from ..spark.jobs.plan import Rooms, parse_rooms  # no Spark: the plan's pure-Python half

    rooms = None
    if args.rooms:
        consumer_rooms = tuple(r.strip() for r in (args.consumer_rooms or "").split(",") if r.strip())
        rooms = Rooms(parse_rooms(args.rooms), consumer_rooms)
    elif args.consumer_rooms:
        raise RocketRouteError("--consumer-rooms needs --rooms (each broker's room)")
    idcs = [x.strip() for x in args.idcs.split(",") if x.strip()] if args.idcs else None
    config = None
    if args.config_queues:
        config = []
        for part in (p.strip() for p in args.config_queues.split(",") if p.strip()):
            broker, _, qid = part.rpartition(":")
            try:
                config.append((broker, int(qid)))
            except ValueError:
                raise RocketRouteError(f"--config-queues takes broker:queue_id,..., not {part!r}") from None
            if not broker:
                raise RocketRouteError(f"--config-queues takes broker:queue_id,..., not {part!r}")
    return {"rooms": rooms, "idcs": idcs, "config": config}
