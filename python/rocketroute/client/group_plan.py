"""A consumer group's plan from the live servers, and the members whose view of the group differs.

A clustering consumer allocates from two lists: the topic's queues, from the route its name server gave, and the
group's members, from one broker of the topic (Java picks the broker at random at every rebalance). When the name
servers or the brokers disagree - a broker registered with one name server only, a member whose heartbeat has not
reached every broker yet, a member gone from one broker's list and not another's - two members can allocate from
different lists, and a queue is consumed twice or by nobody until the lists agree again.

:func:`snapshot_group` asks every name server for the route and every broker of the topic for the member list.
:func:`plan_group` takes the view most sources agree on (the consensus), plans it with ``allocate_all``, and runs
the view analyser over every view a member could hold (any route it was given x any broker's member list): the
members whose queues depend on the view they hold are flagged, with the queues that may then be consumed twice or
not at all. ``rocketroute plan --namesrv`` prints it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .._plural import counted, noun
from ..errors import AccessDeniedError
from ..net.runtime import RemotingClient
from ..net.tls import TLS
from ..protocol import RemotingError
from ..protocol.acl import Credentials
from ..views import ViewReport, analyse_views
from .api import BrokerAPI
from .namesrv import NameServerClient, TopicNotExistError, master_or_first, parse_namesrv_addrs

T = TypeVar("T")

__all__ = ["GroupPlan", "GroupSnapshot", "View", "fetch_group_snapshot", "plan_group", "snapshot_group"]


@dataclass(frozen=True)
class GroupSnapshot:
    """What each source said, at one moment: the route each name server gave (``routes``, by name server
    address), the member list each broker of the topic gave (``members``, by broker name; ``broker_addrs``: the
    address asked), and why a source gave nothing (``route_errors``, ``member_errors``)."""

    topic: str
    group: str
    compat: str
    routes: Mapping[str, Any]
    members: Mapping[str, tuple[str, ...]]
    broker_addrs: Mapping[str, str] = field(default_factory=dict)
    route_errors: Mapping[str, str] = field(default_factory=dict)
    member_errors: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class View:
    """One view a member can hold: the queues of a route (``route_from``: the name servers that gave that
    route) and a member list (``members_from``: the brokers that gave that list)."""

    queues: tuple[Any, ...]
    members: tuple[str, ...]
    route_from: tuple[str, ...]
    members_from: tuple[str, ...]

    def describe(self, *, route: bool = True, members: bool = True) -> str:
        """``route of ns1, ns2 + member list of broker-b``; ``route`` / ``members``: name that part (leave out
        what every view shares)."""
        parts = [f"route of {', '.join(self.route_from)}"] if route else []
        parts += [f"member list of {', '.join(self.members_from)}"] if members else []
        return " + ".join(parts)


@dataclass(frozen=True)
class GroupPlan:
    """The plan of a group on the consensus view, and what the other views would change.

    - ``consensus``: the route most name servers gave and the member list most brokers gave (a tie goes to the
      longer list, then to the first source); ``plan``: ``allocate_all`` on it (every member's queues).
    - ``views``: every view a member could hold, the consensus first; ``claims[cid][i]``: the queues ``cid``
      takes when it holds ``views[i]`` (a member takes nothing from a list that lacks it, as Java).
    - ``flagged``: member -> why its view may differ (a list lacks it, or its queues change with the view).
    - ``may_duplicate``: queues two or more members may claim at once while views differ (with those members);
      ``may_orphan``: queues every member may leave at once. Both exclude what the consensus itself does.
    - ``report``: the view analyser on everyone holding the consensus, against every queue some name server
      knows (queues only some name servers know show as orphaned there).
    """

    topic: str
    group: str
    strategy: str
    consensus: View
    plan: Mapping[str, tuple[Any, ...]]
    views: tuple[View, ...]
    claims: Mapping[str, tuple[tuple[Any, ...], ...]]
    flagged: Mapping[str, tuple[str, ...]]
    may_duplicate: Mapping[Any, tuple[str, ...]]
    may_orphan: tuple[Any, ...]
    report: ViewReport
    errors: tuple[str, ...] = ()

    @property
    def consistent(self) -> bool:
        """Every source answered and all agree, so no member is flagged (what the strategy itself does on the
        consensus, e.g. ``CONFIG`` giving a queue to every member, is in ``report``)."""
        return len(self.views) == 1 and not self.flagged and not self.errors

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (queues as ``broker:queue_id``)."""

        def q(mq: Any) -> str:
            return f"{mq.broker_name}:{mq.queue_id}"

        def view(v: View) -> dict[str, Any]:
            return {
                "route_from": list(v.route_from),
                "members_from": list(v.members_from),
                "queues": [q(m) for m in v.queues],
                "members": list(v.members),
            }

        return {
            "topic": self.topic,
            "group": self.group,
            "strategy": self.strategy,
            "consistent": self.consistent,
            "consensus": view(self.consensus),
            "plan": {cid: [q(m) for m in mqs] for cid, mqs in self.plan.items()},
            "views": [view(v) for v in self.views],
            "flagged": {cid: list(reasons) for cid, reasons in self.flagged.items()},
            "may_duplicate": {q(m): list(c) for m, c in self.may_duplicate.items()},
            "may_orphan": [q(m) for m in self.may_orphan],
            "consensus_report": {
                "duplicated": {q(m): list(c) for m, c in self.report.duplicated.items()},
                "orphaned": [q(m) for m in self.report.orphaned],
                "errors": dict(self.report.errors),
            },
            "errors": list(self.errors),
        }


def _failure(e: BaseException) -> str | None:
    """Why a source did not answer, in words; ``None`` for anything else (a bug, raised as it is)."""
    if isinstance(e, TopicNotExistError):
        return "no route for the topic (TOPIC_NOT_EXIST)"
    if isinstance(e, (RemotingError, AccessDeniedError, ValueError)):  # a refused source too: the others count
        return f"{type(e).__name__}: {e}"
    return None


async def _ask_each(keys: Sequence[str], ask: Callable[[str], Awaitable[T]]) -> tuple[dict[str, T], dict[str, str]]:
    """``ask(key)`` for every key at once: the answers, and the reason of each source that failed (one failed
    source does not stop the others)."""
    answers: dict[str, T] = {}
    failed: dict[str, str] = {}
    for key, got in zip(keys, await asyncio.gather(*(ask(k) for k in keys), return_exceptions=True), strict=True):
        if isinstance(got, BaseException):
            reason = _failure(got)
            if reason is None:
                raise got
            failed[key] = reason
        else:
            answers[key] = got
    return answers, failed


async def fetch_group_snapshot(
    remoting: Any,
    namesrv: str | Sequence[str],
    group: str,
    topic: str,
    *,
    compat: str = "5.3",
    timeout_ms: int = 3000,
    backend: Any = None,
) -> GroupSnapshot:
    """Ask each name server for ``topic``'s route (GET_ROUTEINFO_BY_TOPIC) and each broker the routes name for
    ``group``'s members (GET_CONSUMER_LIST_BY_GROUP), all at once, on ``remoting`` (an
    :class:`~rocketroute.net.AsyncRemotingClient`, from its loop). A source that fails is recorded with
    the reason; it does not stop the others."""
    addrs = parse_namesrv_addrs(namesrv)
    if not group:
        raise ValueError("the consumer group is empty")
    if not topic:
        raise ValueError("the topic is empty")

    async def route_of(addr: str) -> Any:
        names = NameServerClient([addr], remoting, timeout_ms=timeout_ms, compat=compat, backend=backend)
        return await names.get_route(topic)

    routes, route_errors = await _ask_each(addrs, route_of)

    broker_addrs: dict[str, str] = {}
    for route in routes.values():
        for b in route.broker_datas or ():
            addr = master_or_first(b.broker_addrs)
            if addr is not None:
                broker_addrs.setdefault(b.broker_name, addr)

    api = BrokerAPI(remoting, compat)

    async def members_of(addr: str) -> tuple[str, ...]:
        return tuple(await api.consumer_ids(addr, group, timeout_ms))

    members, member_errors = await _ask_each(sorted(broker_addrs), lambda name: members_of(broker_addrs[name]))
    return GroupSnapshot(topic, group, compat, routes, members, broker_addrs, route_errors, member_errors)


def snapshot_group(
    namesrv: str | Sequence[str],
    group: str,
    topic: str,
    *,
    compat: str = "5.3",
    timeout_ms: int = 3000,
    backend: Any = None,
    credentials: Credentials | None = None,
    tls: TLS = None,
) -> GroupSnapshot:
    """:func:`fetch_group_snapshot` from a caller without an event loop (a remoting client of its own, its
    requests signed with ``credentials``, its connections TLS with ``tls``)."""
    addrs = parse_namesrv_addrs(namesrv)
    with RemotingClient(connect_timeout_ms=timeout_ms, credentials=credentials, tls=tls) as client:
        coro = fetch_group_snapshot(
            client.async_client, addrs, group, topic, compat=compat, timeout_ms=timeout_ms, backend=backend
        )
        return client.run(coro)


def _variants(answers: Mapping[str, tuple[Any, ...]]) -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
    """Distinct answers with their sources, the consensus first: most sources, then the longest, then the
    first source."""
    order = list(answers)
    by_answer: dict[tuple[Any, ...], list[str]] = {}
    for source in order:
        by_answer.setdefault(answers[source], []).append(source)
    ranked = sorted(by_answer.items(), key=lambda kv: (-len(kv[1]), -len(kv[0]), order.index(kv[1][0])))
    return [(answer, tuple(sources)) for answer, sources in ranked]


def _q(mq: Any) -> str:
    return f"{mq.broker_name}:{mq.queue_id}"


def _queues_text(mqs: Iterable[Any]) -> str:
    return " ".join(_q(m) for m in mqs) or "nothing"


def plan_group(snapshot: GroupSnapshot, strategy: Any, *, strategy_name: str | None = None) -> GroupPlan:
    """The consensus plan of ``snapshot`` under ``strategy`` and the analysis of every other view (see
    :class:`GroupPlan`). Raises ``ValueError`` when no name server gave a route or no broker a member list."""
    errors = [f"name server {a}: {e}" for a, e in snapshot.route_errors.items()]
    errors += [f"broker {b}: {e}" for b, e in snapshot.member_errors.items()]
    if not snapshot.routes:
        raise ValueError(f"no name server gave a route for {snapshot.topic!r}: " + "; ".join(errors))
    if not any(snapshot.members.values()):
        why = "; ".join(errors) or "every broker's list is empty"
        raise ValueError(f"no broker lists a member of {snapshot.group!r}: {why}")
    route_queues = {
        addr: tuple(sorted(set(route.subscribe_queues(snapshot.topic, snapshot.compat))))
        for addr, route in snapshot.routes.items()
    }
    # a broker that lists nobody (just restarted, or no heartbeat yet): Java's allocation then fails and the member
    # asking it keeps the queues it has, so that list is no view of its own, only a disagreement to report
    member_lists = {name: tuple(sorted(set(cids))) for name, cids in snapshot.members.items() if cids}
    errors += [
        f"broker {name} lists no member of {snapshot.group} (a member that asks it keeps its queues)"
        for name, cids in snapshot.members.items()
        if not cids
    ]
    routes = _variants(route_queues)
    lists = _variants(member_lists)
    views = tuple(View(q, m, rs, ms) for q, rs in routes for m, ms in lists)

    def label(v: View) -> str:
        return v.describe(route=len(routes) > 1, members=len(lists) > 1)

    consensus = views[0]
    everyone = sorted({cid for cids in member_lists.values() for cid in cids})
    truth = sorted({mq for qs in route_queues.values() for mq in qs})

    # the view analyser, once per view with every member holding it: each member's claim under each view
    reports = [
        analyse_views(strategy, {cid: (v.queues, v.members) for cid in everyone}, consumer_group=snapshot.group)
        for v in views
    ]
    claims = {cid: tuple(tuple(r.claims[cid]) for r in reports) for cid in everyone}
    report = analyse_views(
        strategy, {cid: (consensus.queues, consensus.members) for cid in everyone}, mq_all=truth,
        consumer_group=snapshot.group,
    )  # fmt: skip
    plan = {cid: claims[cid][0] for cid in consensus.members}  # allocate_all on the consensus, member by member

    flagged: dict[str, list[str]] = {}
    for cid in everyone:
        reasons = flagged.setdefault(cid, [])
        lacking = [name for name, cids in member_lists.items() if cid not in cids]
        if lacking:
            reasons.append(f"not in the member list of {', '.join(lacking)}")
        for v, claim in zip(views[1:], claims[cid][1:], strict=True):
            if claim != claims[cid][0]:
                reasons.append(
                    f"takes {_queues_text(claim)} instead of {_queues_text(claims[cid][0])} "
                    f"when it holds the {label(v)}"
                )
        for i, r in enumerate(reports):
            if cid in r.errors:
                reasons.append(f"its allocation fails with the {label(views[i])}: {r.errors[cid]}")
    flagged_out = {cid: tuple(r) for cid, r in flagged.items() if r}

    consensus_owners = report.owners
    may_duplicate: dict[Any, tuple[str, ...]] = {}
    may_orphan: list[Any] = []
    for mq in truth:
        possible = tuple(cid for cid in everyone if any(mq in c for c in claims[cid]))
        if len(possible) > 1 and len(possible) > len(consensus_owners.get(mq, ())):
            may_duplicate[mq] = possible
        leavers = all(any(mq not in c for c in claims[cid]) for cid in everyone)
        if leavers and consensus_owners.get(mq):
            may_orphan.append(mq)
    return GroupPlan(
        topic=snapshot.topic,
        group=snapshot.group,
        strategy=strategy_name or type(strategy).__name__,
        consensus=consensus,
        plan=plan,
        views=views,
        claims=claims,
        flagged=flagged_out,
        may_duplicate=may_duplicate,
        may_orphan=tuple(may_orphan),
        report=report,
        errors=tuple(errors),
    )


def describe_group_plan(plans: Sequence[GroupPlan], snapshot: GroupSnapshot) -> str:
    """The text ``rocketroute plan --namesrv`` prints: the sources, then per strategy the plan, the flagged members
    and the queues at risk."""
    lines = [f"group {snapshot.group} on topic {snapshot.topic} (compat {snapshot.compat})", "name servers:"]
    first = plans[0]
    route_of = {addr: i for i, (_, sources) in enumerate(_route_variants(first)) for addr in sources}
    for addr in list(snapshot.routes) + list(snapshot.route_errors):
        if addr in snapshot.route_errors:
            lines.append(f"  {addr:<24} error: {snapshot.route_errors[addr]}")
            continue
        queues = _route_variants(first)[route_of[addr]][0]
        same = "consensus" if route_of[addr] == 0 else "DIFFERS from the consensus"
        lines.append(f"  {addr:<24} {counted(len(queues), 'queue')} to read ({_per_broker(queues)}), {same}")
    lines.append("brokers (members each one lists):")
    consensus = set(first.consensus.members)
    for name in sorted(set(snapshot.members) | set(snapshot.member_errors)):
        addr = snapshot.broker_addrs.get(name, "?")
        if name in snapshot.member_errors:
            lines.append(f"  {name:<12} {addr:<22} error: {snapshot.member_errors[name]}")
            continue
        listed = set(snapshot.members[name])
        diff = []
        if consensus - listed:
            diff.append("lacks " + ", ".join(sorted(consensus - listed)))
        if listed - consensus:
            diff.append("also lists " + ", ".join(sorted(listed - consensus)))
        lines.append(
            f"  {name:<12} {addr:<22} {counted(len(listed), 'member')}" + (f" ({'; '.join(diff)})" if diff else "")
        )
    name_servers = len(snapshot.routes) + len(snapshot.route_errors)
    brokers = len(snapshot.members) + len(snapshot.member_errors)
    lines.append(
        f"consensus: {counted(len(first.consensus.queues), 'queue')}, "
        f"{counted(len(first.consensus.members), 'member')} "
        f"(route of {len(first.consensus.route_from)}/{counted(name_servers, 'name server')}, member list of "
        f"{len(first.consensus.members_from)}/{counted(brokers, 'broker')})"
    )
    for plan in plans:
        lines.append("")
        lines.append(f"== {plan.strategy}: allocate_all on the consensus")
        width = max((len(c) for c in plan.plan), default=8)
        for cid, mqs in plan.plan.items():
            lines.append(f"  {cid:<{width}} {len(mqs):>3} {noun(len(mqs), 'queue'):<6}  {_queues_text(mqs)}")
        r = plan.report
        if r.duplicated:
            lines.append("  taken by several members on the consensus: " + _owners_text(r.duplicated))
        if r.orphaned:
            lines.append("  taken by nobody on the consensus: " + _queues_text(r.orphaned))
        for cid, why in r.errors.items():
            lines.append(f"  allocation of {cid} fails: {why}")
        if plan.consistent:
            lines.append("  every source agrees: no member's view differs")
            continue
        lines.append(f"  views a member may hold: {len(plan.views)}")
        for cid, reasons in plan.flagged.items():
            lines.append(f"  FLAGGED {cid}")
            lines.extend(f"    - {reason}" for reason in reasons)
        if plan.may_duplicate:
            lines.append("  may be consumed twice while the views differ: " + _owners_text(plan.may_duplicate))
        if plan.may_orphan:
            lines.append("  may be consumed by nobody while the views differ: " + _queues_text(plan.may_orphan))
    errors = plans[0].errors
    if errors:
        lines.append("")
        lines.append("sources that disagree or failed:")
        lines.extend(f"  - {e}" for e in errors)
    return "\n".join(lines)


def _route_variants(plan: GroupPlan) -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
    seen: dict[tuple[str, ...], tuple[Any, ...]] = {}
    for v in plan.views:
        seen.setdefault(v.route_from, v.queues)
    return [(queues, sources) for sources, queues in seen.items()]


def _per_broker(mqs: Iterable[Any]) -> str:
    counts = Counter(m.broker_name for m in mqs)
    return ", ".join(f"{b} {n}" for b, n in sorted(counts.items())) or "none"


def _owners_text(owners: Mapping[Any, Sequence[str]]) -> str:
    return "; ".join(f"{_q(mq)} ({', '.join(c)})" for mq, c in owners.items())
