"""``rocketroute plan --namesrv --group``: the live plan of a consumer group (no Spark: works without the spark
extra). It asks every name server for the topic's route and every broker for the group's members, plans each
strategy on the consensus view and names the members whose view differs. The ``plan`` command's options are
parsed by :mod:`rocketroute.spark.cli.plan`, which hands ``--namesrv`` runs here; the options both modes read are
:mod:`.plan_options`'.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..errors import RocketRouteError
from .args import credentials_from_args, log, tls_from_args
from .plan_options import plan_params

__all__ = ["cmd_plan_live"]

_SPARK_ONLY = {"load": None, "out": None, "resize": None, "input": None, "consumers": "2..8", "rooms": None,
               "consumer_rooms": None, "cid_pattern": "consumer-{i}", "master": None, "overwrite": False}  # fmt: skip


def cmd_plan_live(args: argparse.Namespace) -> int:
    """``plan --namesrv --group``: every name server's route and every broker's member list, the plan of each
    strategy on the consensus view, and the members whose view differs (no Spark)."""
    from ..client.group_plan import describe_group_plan, plan_group, snapshot_group
    from ..protocol import RemotingError
    from ..spark.jobs.plan import strategy_for

    if not args.group:
        raise RocketRouteError("the live plan (--namesrv) needs --group")
    given = [f"--{k.replace('_', '-')}" for k, default in _SPARK_ONLY.items() if getattr(args, k, default) != default]
    if given:
        raise RocketRouteError(f"{', '.join(given)}: only for the Spark plan (--load), not with --namesrv")
    if args.compat not in ("5.3", "4.9"):
        raise RocketRouteError(f"--compat is 5.3 or 4.9, not {args.compat!r}")
    if args.timeout_ms <= 0:
        raise RocketRouteError("--timeout-ms must be positive")
    names = [s.strip().upper() for s in (args.strategies or "AVG").split(",") if s.strip()]
    params = plan_params(args)
    config = None
    if params["config"]:
        import rocketroute as rr

        config = [rr.MessageQueue(args.topic, b, q) for b, q in params["config"]]
    strategies = []
    for name in names:
        if name.startswith("MACHINE_ROOM_NEARBY"):
            raise RocketRouteError(
                "MACHINE_ROOM_NEARBY needs each consumer's room, which a live member list does not carry; "
                "plan it offline with --load, --rooms and --consumer-rooms"
            )
        strategies.append(
            (
                name,
                strategy_for(
                    name, vnodes=args.vnodes, load_factor=args.load_factor, idcs=params["idcs"], config=config
                ),
            )
        )
    log(f"asking {args.namesrv} for the route of {args.topic} and its brokers for the members of {args.group}")
    try:
        snapshot = snapshot_group(
            args.namesrv,
            args.group,
            args.topic,
            compat=args.compat,
            timeout_ms=args.timeout_ms,
            credentials=credentials_from_args(args),
            tls=tls_from_args(args),
        )
        plans = [plan_group(snapshot, strategy, strategy_name=name) for name, strategy in strategies]
    except (RemotingError, ValueError) as e:
        raise RocketRouteError(str(e)) from None
    print(describe_group_plan(plans, snapshot))
    if args.json:
        doc = {"plans": [p.to_dict() for p in plans], "sources": _snapshot_sources(snapshot)}
        try:
            Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
        except OSError as e:
            raise RocketRouteError(f"cannot write --json {args.json!r}: {e.strerror}") from None
    if args.check and not all(p.consistent for p in plans):
        return 3
    return 0


def _snapshot_sources(snapshot: Any) -> dict[str, Any]:
    return {
        "name_servers": {
            **{a: {"queue_datas": len(r.queue_datas or ())} for a, r in snapshot.routes.items()},
            **{a: {"error": e} for a, e in snapshot.route_errors.items()},
        },
        "brokers": {
            **{b: {"addr": snapshot.broker_addrs.get(b), "members": list(m)} for b, m in snapshot.members.items()},
            **{b: {"addr": snapshot.broker_addrs.get(b), "error": e} for b, e in snapshot.member_errors.items()},
        },
    }
