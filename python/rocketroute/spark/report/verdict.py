"""The verdict: the report's conclusions in a few sentences, each computed from the loaded outputs with its
numbers, and only for the outputs given.

The rules (the docs' report section states them too):

- **strategy** (``plan``), at the focus consumer count: the *most even* strategy has the lowest max/mean
  load; a strategy's *churn* is the mean share of queues that move when one consumer joins and when one
  leaves. The pick is the strategy with the least churn among those whose max/mean is within
  :data:`BALANCED_WITHIN` (10%) of the most even one: its busiest consumer carries at most 10% more than the
  most even strategy's busiest. Ties go to the lower max/mean, then to plan's order.
- **fault tolerance** (``replay``): max delay, p99, failures and the share of sends to a degraded broker,
  on against off. Keep it on when it is no worse on any of them and better on one; otherwise the sentence
  names what it made better and what worse.
- **resize** (``plan --resize``): the share of keys and of messages whose queue changes; those keys lose
  their per-key order while the old queues drain. None moved: no ordering risk.
- **clients** (``route --compare-profiles``): every pair of client profiles that puts fewer than all keys
  placed by both on the same queue splits those keys across queues, worst first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._plural import counted, noun
from ...errors import RocketRouteError
from .load import MODE_ORDER, PlanData, ReplayData, RouteData

__all__ = [
    "BALANCED_WITHIN",
    "Verdict",
    "compat_verdict",
    "focus_count",
    "plan_verdict",
    "replay_verdict",
    "resize_verdict",
    "verdict",
]

BALANCED_WITHIN = 0.10
"""A strategy is balanced enough when its max/mean is at most this much above the most even strategy's."""

_SHOWN_PAIRS = 4
"""The splitting client pairs named one by one; the others are counted."""


@dataclass(frozen=True)
class Verdict:
    """One topic of the verdict: its name (``strategy``, ``fault tolerance``, ``resize``, ``clients``) and its
    sentences, plain text."""

    topic: str
    sentences: list[str]


def share(v: float) -> str:
    """A share as a percentage: no decimal from 10% up, one below (``0.5%``), two under 1% (``0.25%``)."""
    if v >= 0.1 or v == 0 or v == 1:
        return f"{v:.0%}"
    return f"{v:.1%}" if v >= 0.01 else f"{v:.2%}"


def duration(ms: float) -> str:
    """``59.6 s`` from a second up, ``41 ms`` below."""
    return f"{ms / 1000:,.1f} s" if ms >= 1000 else f"{ms:,.0f} ms"


def focus_count(plan: PlanData, wanted: int | None = None) -> int | None:
    """The consumer count the verdict and the per-consumer plot are about: ``wanted`` when plan has it (else
    a :class:`~rocketroute.errors.RocketRouteError` listing plan's counts), by default the largest count plan
    was run with; ``None`` when plan wrote no rows."""
    counts = plan_counts(plan)
    if wanted is not None:
        if wanted not in counts:
            have = ", ".join(map(str, counts)) or "none"
            raise RocketRouteError(f"plan has no rows for {wanted} consumers (its consumer counts: {have})")
        return wanted
    return counts[-1] if counts else None


def plan_counts(plan: PlanData) -> list[int]:
    """The consumer counts with rows in plan's imbalance or per-consumer table, ascending."""
    return sorted({r["consumers"] for r in plan.imbalance} | {r["consumers"] for r in plan.consumers})


def plan_verdict(plan: PlanData, n: int) -> Verdict | None:
    """Which strategy to pick at ``n`` consumers (the rule in the module docstring); ``None`` without
    imbalance rows for ``n``."""
    rows = [r for r in plan.imbalance if r["consumers"] == n]
    if not rows:
        return None
    order = {r["strategy"]: i for i, r in enumerate(rows)}
    moved: dict[tuple[str, str], float] = {
        (r["strategy"], r["event"]): r["queues_moved_share"] for r in plan.churn if r["consumers"] == n
    }

    def churn(s: str) -> float | None:
        known = [moved[(s, e)] for e in ("join", "leave") if (s, e) in moved]
        return sum(known) / len(known) if known else None

    def moves(s: str) -> str:
        parts = []
        if (s, "join") in moved:
            parts.append(f"{share(moved[(s, 'join')])} of the queues when a consumer joins")
        if (s, "leave") in moved:
            parts.append(f"{share(moved[(s, 'leave')])} when one leaves")
        return " and ".join(parts) or "an unknown share of the queues (no churn rows)"

    def per_event(s: str) -> str:
        c = churn(s)
        return "an unknown share" if c is None else share(c)

    mom = {r["strategy"]: r["max_over_mean"] for r in rows}
    idle = {r["strategy"]: r["idle_consumers"] for r in rows}
    inf = float("inf")

    def by_load(s: str) -> tuple[float, float, int]:
        c = churn(s)
        return (mom[s], c if c is not None else inf, order[s])

    def by_churn(s: str) -> tuple[float, float, int]:
        c = churn(s)
        return (c if c is not None else inf, mom[s], order[s])

    even = min(mom, key=by_load)
    tied = [s for s in mom if s != even and abs(mom[s] - mom[even]) < 1e-9]
    evenly = f"as evenly as any (max/mean {mom[even]:.2f}, tied with {_join(tied)})" if tied else (
        f"most evenly (max/mean {mom[even]:.2f})"
    )  # fmt: skip
    where = f"At {counted(n, 'consumer')} on {counted(plan.queues, 'queue')}"
    out = []
    if all(churn(s) is None for s in mom):
        out.append(f"{where}, {even} spreads the load {evenly}; plan wrote no churn.")
        out.append(f"Pick {even}.")
        return Verdict("strategy", out + _idle(n, plan.queues, even, idle[even]))
    stable = min(mom, key=by_churn)
    balanced = [s for s in mom if mom[s] <= mom[even] * (1 + BALANCED_WITHIN) + 1e-12]
    pick = min(balanced, key=by_churn)
    if even == stable:
        out.append(f"{where}, {even} spreads the load {evenly} and moves the fewest queues: {moves(even)}.")
        out.append(f"Pick {even}: no other strategy is more even or moves less.")
    else:
        out.append(
            f"{where}, {even} spreads the load {evenly} but moves {moves(even)}; "
            f"{stable} moves the fewest ({moves(stable)}) at max/mean {mom[stable]:.2f}."
        )
        more = _above(mom[stable], mom[even])
        if pick == even:
            out.append(
                f"Pick {even}: the strategies that move fewer queues load their busiest consumer more than "
                f"{BALANCED_WITHIN:.0%} above {even}'s ({stable}: {share(more)} more); pick {stable} instead if "
                "consumers join and leave often."
            )
        else:
            extra = _above(mom[pick], mom[even])
            load = (
                f"as even as {even}" if extra < 0.0005
                else f"its busiest consumer carries {share(extra)} more than {even}'s (within {BALANCED_WITHIN:.0%})"
            )  # fmt: skip
            text = (
                f"Pick {pick}: {load} and it moves {per_event(pick)} of the queues per join or leave on average, "
                f"against {per_event(even)} for {even}"
            )
            if pick != stable:
                text += f"; {stable} moves fewer but its busiest consumer carries {share(more)} more than {even}'s"
            out.append(text + ".")
    return Verdict("strategy", out + _idle(n, plan.queues, pick, idle[pick]))


def _above(x: float, base: float) -> float:
    """How much ``x`` is above ``base``, as a share of it (0 when ``base`` is 0: no load at all)."""
    return x / base - 1 if base > 0 else 0.0


def _idle(n: int, queues: int, strategy: str, idle: int) -> list[str]:
    if not idle:
        return []
    why = ""
    if n > queues:
        why = f" ({counted(n, 'consumer')} for {counted(queues, 'queue')}: some get none whatever the strategy)"
    return [f"Under {strategy}, {idle} of the {n} consumers {noun(idle, 'gets', 'get')} no queue{why}."]


def resize_verdict(resize: Mapping[str, Any]) -> Verdict:
    """The ordering risk of plan's ``--resize``."""
    r = resize
    change = f"Resizing the topic from {r['from_queues']:,} to {counted(r['to_queues'], 'queue')}"
    if r["keys_moved"] == 0:
        return Verdict("resize", [f"{change} keeps every key on its queue: no ordering risk."])
    return Verdict(
        "resize",
        [
            f"{change} moves {share(r['keys_moved_share'])} of the keys ({r['keys_moved']:,} of {r['keys']:,}), "
            f"{share(r['messages_moved_share'])} of the messages, to another queue: their per-key order is at risk "
            "until the old queues drain, so let consumers catch up (or pause those producers) across the switch."
        ],
    )


def replay_verdict(replay: ReplayData) -> Verdict | None:
    """What fault tolerance changed in the replay (on against off); one mode alone: its numbers. ``None``
    without modes."""
    modes = {m["mode"]: m for m in replay.modes}
    on, off = (modes.get(m) for m in MODE_ORDER)
    if on is None or off is None:
        if not replay.modes:
            return None
        m = replay.modes[0]
        text = (
            f"The replay ran with {m['mode']} only: {counted(m['failures'], 'failure')} in "
            f"{counted(m['sends'], 'send')}, p99 "
            f"{duration(m['p99_ms'])}, max {duration(m['max_ms'])}"
        )
        if m["max_delay_ms"] is not None:
            text += f", max delay {duration(m['max_delay_ms'])}"
        return Verdict("fault tolerance", [text + "."])
    metrics: list[tuple[str, str, Any]] = [
        ("max delay (the longest a send started after its event)", "max_delay_ms", duration),
        ("p99 latency", "p99_ms", duration),
        ("failures", "failures", lambda v: f"{v:,}"),
        ("sends to a degraded broker", "degraded_share", share),
    ]
    changes, better, worse = [], [], []
    for label, key, fmt in metrics:
        a, b = off[key], on[key]
        if a is None or b is None:
            continue
        changes.append(f"{label} from {fmt(a)} to {fmt(b)}" if a != b else f"{label} unchanged at {fmt(a)}")
        if b < a:
            better.append(label.split(" (")[0])
        elif b > a:
            worse.append(label.split(" (")[0])
    sentences = [f"Turning fault tolerance on took the {_join(changes)} ({counted(on['sends'], 'send')} replayed)."]
    if better and not worse:
        sentences.append(
            f"Keep it on (sendLatencyFaultEnable): better on {_join(better)} and no worse on anything measured."
        )
    elif better and worse:
        sentences.append(f"A trade-off on this trace: better on {_join(better)}, worse on {_join(worse)}.")
    elif worse:
        sentences.append(f"It did not help on this trace: worse on {_join(worse)}.")
    else:
        sentences.append("It changed none of these on this trace.")
    return Verdict("fault tolerance", sentences)


def compat_verdict(names: Sequence[str], pairs: Sequence[Mapping[str, Any]]) -> Verdict:
    """The client pairs that would split keys across queues (route's ``--compare-profiles``), worst first."""
    order = {n: i for i, n in enumerate(names)}
    distinct = [r for r in pairs if r["a"] in order and r["b"] in order and order[r["a"]] < order[r["b"]]]
    split = sorted(
        (r for r in distinct if r["key_share"] is not None and r["key_share"] < 1),
        key=lambda r: (r["key_share"], order[r["a"]], order[r["b"]]),
    )
    agree = [r for r in distinct if r["key_share"] == 1]
    none = [r for r in distinct if r["key_share"] is None]
    out = []
    if split:
        named = [
            f"{r['a']} and {r['b']} put "
            + (f"only {share(r['key_share'])} of their keys" if r["key_share"] > 0 else "no key")
            + " on the same queue"
            for r in split[:_SHOWN_PAIRS]
        ]
        rest = len(split) - len(named)
        out.append(
            f"{len(split)} of {counted(len(distinct), 'client pair')} would split keys across queues: "
            + "; ".join(named)
            + (f"; and {rest} more {noun(rest, 'pair')}" if rest else "")
            + ". A key produced through both clients of such a pair loses its order: keep each key on one client."
        )
    else:
        out.append(
            f"No pair of the {counted(len(names), 'client')} splits a key: each pair puts every shared key on one "
            "queue."
        )
    if agree and split:
        shown = ", ".join(f"{r['a']} and {r['b']}" for r in agree[:_SHOWN_PAIRS])
        more = len(agree) - min(len(agree), _SHOWN_PAIRS)
        out.append(
            f"Every key on the same queue: {shown}" + (f" and {more} more {noun(more, 'pair')}" if more else "") + "."
        )
    if none:
        out.append(f"{counted(len(none), 'pair')} placed no key in common (a client refuses keys).")
    return Verdict("clients", out)


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def verdict(
    route: RouteData | None = None,
    plan: PlanData | None = None,
    replay: ReplayData | None = None,
    consumers: int | None = None,
) -> list[Verdict]:
    """The verdict's topics for the outputs given, in the page's order: strategy, resize, fault tolerance,
    clients (a topic whose data is missing is left out). ``consumers``: the focus count (see
    :func:`focus_count`)."""
    out: list[Verdict | None] = []
    if plan is not None:
        n = focus_count(plan, consumers)
        out.append(plan_verdict(plan, n) if n is not None else None)
        out.append(resize_verdict(plan.resize) if plan.resize is not None else None)
    if replay is not None:
        out.append(replay_verdict(replay))
    if route is not None and route.compat_profiles is not None and route.compat_pairs is not None:
        out.append(compat_verdict(route.compat_profiles, route.compat_pairs))
    return [v for v in out if v is not None]
