"""The page: the report's HTML, one section per job output, with the figures of
:mod:`~rocketroute.spark.report.plots` embedded as PNG ``data:`` URIs and the tables escaped; and
:func:`render_report` / :func:`write_report`, which load every output first
(:mod:`~rocketroute.spark.report.load`) and draw only when all of it reads.
"""

from __future__ import annotations

import base64
import html
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import IllegalArgumentError, RocketRouteError
from . import plots
from .load import PlanData, ReplayData, RouteData, load_plan, load_replay, load_route, mode_key
from .verdict import Verdict, focus_count, verdict

__all__ = ["render_report", "write_report"]

_HOT_KEYS_ALL_ROWS = 40
"""Show every hot key row up to this many; beyond it, the top 3 of each queue."""
_HOT_KEYS_TOP = 3


# ---------------------------------------------------------------------------------------------------- formatting


def _fmt_int(v: Any) -> str:
    return f"{int(v):,}"


def _fmt_float(v: Any) -> str:
    return f"{float(v):,.3f}"


def _fmt_ms(v: Any) -> str:
    return f"{float(v):,.1f}" if isinstance(v, float) and not v.is_integer() else f"{int(v):,}"


def _fmt_share(v: Any) -> str:
    v = float(v)
    return f"{v:.2%}" if 0 < abs(v) < 0.01 else f"{v:.1%}"


def _fmt_text(v: Any) -> str:
    return str(v)


_NUM = ' class="num"'


@dataclass(frozen=True)
class _Col:
    key: str
    header: str
    fmt: Callable[[Any], str] = _fmt_text

    @property
    def numeric(self) -> bool:
        return self.fmt is not _fmt_text


_FOLD_OVER = 12
"""A table of more rows than this is folded (``<details>``): its summary line says what and how many rows."""


def _table(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[_Col], caption: str | None = None, what: str = "the table"
) -> str:
    """An HTML table; every cell is escaped, a missing value (``None``) shows as a dash. Over
    :data:`_FOLD_OVER` rows it is folded in a ``<details>`` whose summary names ``what`` and the row count."""
    if not rows:
        return '<p class="note">(no rows)</p>'
    head = "".join(f"<th{_NUM if c.numeric else ''}>{html.escape(c.header)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            v = row.get(c.key)
            text = "\u2013" if v is None else c.fmt(v)
            cells.append(f"<td{_NUM if c.numeric else ''}>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    table = f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body) + "\n</tbody></table>"
    if len(rows) <= _FOLD_OVER:
        return table
    return f"<details><summary>{html.escape(what)} ({len(rows):,} rows)</summary>\n{table}\n</details>"


def _facts(pairs: Sequence[tuple[str, str]]) -> str:
    """Headline numbers as a definition list (escaped)."""
    items = "".join(f"<div><dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd></div>" for k, v in pairs)
    return f'<dl class="facts">{items}</dl>'


def _para(text: str, cls: str | None = None) -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<p{attr}>{html.escape(text)}</p>"


def _counts_text(counts: Sequence[int]) -> str:
    """``2..32`` for a contiguous range, else the list."""
    if len(counts) > 2 and list(counts) == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}..{counts[-1]}"
    return ", ".join(str(c) for c in counts)


def _img(fig: Any, alt: str) -> str:
    """The figure as an embedded PNG ``<img>``."""
    data = base64.b64encode(plots.png(fig)).decode("ascii")
    return f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(alt)}"></figure>'


# ---------------------------------------------------------------------------------------------------- route


def _section_route(data: RouteData) -> str:
    s, skew, per_queue = data.summary, data.skew, data.per_queue
    routed, rejected, total = s["routed_rows"], s["rejected_rows"], s["input_rows"]
    facts = [
        ("topic", s["topic"]),
        ("selector", s["selector"]),
        ("queues", f"{len(per_queue):,}"),
        ("input rows", f"{total:,} = routed {routed:,} + rejected {rejected:,}"),
        ("rejected", _fmt_share(rejected / total) if total else "\u2013"),
        ("max / mean", _fmt_float(skew["max_over_mean"])),
        ("cv", _fmt_float(skew["cv"])),
        ("gini", _fmt_float(skew["gini"])),
    ]
    if s["seconds"] is not None:
        facts.append(("job time", f"{s['seconds']:,.2f} s"))
    parts = ['<section id="route"><h2>Route</h2>', _facts(facts)]
    if total != routed + rejected:
        parts.append(_para(f"Row counts do not add up: {total:,} input rows, {routed + rejected:,} accounted.", "warn"))
    if per_queue:
        parts.append(_img(plots.plot_queue_load(per_queue), _queue_load_alt(per_queue)))
    queue_name = {r["queue_index"]: f"{r['broker']}/{r['queue_id']}" for r in per_queue}
    parts.append("<h3>Per queue</h3>")
    parts.append(
        _table(
            per_queue,
            [
                _Col("queue_index", "index", _fmt_int),
                _Col("broker", "broker"),
                _Col("queue_id", "queue id", _fmt_int),
                _Col("messages", "messages", _fmt_int),
                _Col("bytes", "bytes", _fmt_int),
                _Col("share", "share", _fmt_share),
            ],
            what="Messages per queue",
        )
    )
    parts.append("<h3>Hot keys</h3>")
    hot = sorted(data.hot_keys, key=lambda r: (r["queue_index"], r["rank"]))
    shown = hot if len(hot) <= _HOT_KEYS_ALL_ROWS else [r for r in hot if r["rank"] <= _HOT_KEYS_TOP]
    queue_messages = {r["queue_index"]: r["messages"] for r in per_queue}
    rows = []
    for r in shown:
        m = queue_messages.get(r["queue_index"])
        queue = queue_name.get(r["queue_index"], f"#{r['queue_index']}")
        rows.append({**r, "queue": queue, "queue_share": r["messages"] / m if m else None})
    caption = None if shown is hot else f"the top {_HOT_KEYS_TOP} keys of each queue ({len(shown)} of {len(hot)} rows)"
    parts.append(
        _table(
            rows,
            [
                _Col("queue", "queue"),
                _Col("rank", "rank", _fmt_int),
                _Col("key", "key"),
                _Col("messages", "messages", _fmt_int),
                _Col("queue_share", "share of queue", _fmt_share),
            ],
            caption,
            what="Hot keys per queue",
        )
    )
    if data.compat_profiles is not None and data.compat_pairs is not None:
        parts.append(_compat_part(data.compat_profiles, data.compat_pairs, len(per_queue)))
    parts.append("</section>")
    return "\n".join(parts)


def _compat_part(names: Sequence[str], pairs: Sequence[Mapping[str, Any]], queues: int) -> str:
    """The cross-client comparison (``route --compare-profiles``): a heatmap and a table of the share of keys
    every two clients' routing profiles put on the same queue."""
    share = {(r["a"], r["b"]): r["key_share"] for r in pairs}
    parts = [
        "<h3>Other clients on the same keys</h3>",
        _para(
            f"The share of keys that two RocketMQ clients (and Kafka) put on the same queue of these {queues}, each "
            "routing keyed messages its own way: a key split between two queues loses its ordering when both "
            "clients produce it. A dash: no key placed by both (a client refuses every key)."
        ),
        _img(plots.plot_compat(names, share), _compat_alt(names, share)),
    ]
    order = {n: i for i, n in enumerate(names)}
    off_diagonal = [r for r in pairs if r["a"] in order and r["b"] in order and order[r["a"]] < order[r["b"]]]
    off_diagonal.sort(key=lambda r: (order[r["a"]], order[r["b"]]))
    parts.append(
        _table(
            off_diagonal,
            [
                _Col("a", "client a"),
                _Col("b", "client b"),
                _Col("keys_both", "keys", _fmt_int),
                _Col("key_share", "keys on the same queue", _fmt_share),
                _Col("messages_both", "messages", _fmt_int),
                _Col("message_share", "messages on the same queue", _fmt_share),
            ],
            what="Keys on the same queue, per pair of clients",
        )
    )
    return "\n".join(parts)


def _compat_alt(names: Sequence[str], share: Mapping[tuple[str, str], float | None]) -> str:
    known = [(share[(a, b)], a, b) for i, a in enumerate(names) for b in names[i + 1 :] if share[(a, b)] is not None]
    if not known:
        return f"Heatmap of {len(names)} client routing profiles; no key placed by two of them"
    low, a, b = min(known)
    return (
        f"Heatmap of the share of keys on the same queue for {len(names)} client routing profiles; "
        f"lowest {a} and {b} at {low:.1%}"
    )


def _queue_load_alt(per_queue: Sequence[Mapping[str, Any]]) -> str:
    top = max(per_queue, key=lambda r: r["messages"])
    mean = sum(r["messages"] for r in per_queue) / len(per_queue)
    return (
        f"Bar chart of messages per queue for {len(per_queue)} queues; mean {mean:,.0f}, "
        f"busiest {top['broker']}/{top['queue_id']} with {top['messages']:,}"
    )


# ---------------------------------------------------------------------------------------------------- plan


def _section_plan(data: PlanData, n: int | None = None) -> str:
    """``n``: the focus consumer count (:func:`~rocketroute.spark.report.verdict.focus_count`): the
    per-consumer plot's, marked on the imbalance and churn plots."""
    consumers, imbalance, churn = data.consumers, data.imbalance, data.churn
    strategies = list(dict.fromkeys([r["strategy"] for r in imbalance] + [r["strategy"] for r in consumers]))
    counts = sorted({r["consumers"] for r in consumers} | {r["consumers"] for r in imbalance})

    facts = [
        ("topic", data.topic),
        ("queues", f"{data.queues:,}"),
        ("consumer counts", _counts_text(counts) if counts else "\u2013"),
        ("strategies", ", ".join(strategies) if strategies else "\u2013"),
    ]
    parts = ['<section id="plan"><h2>Plan</h2>', _facts(facts)]
    if data.resize is not None:
        parts.append(_para(_resize_sentence(data.resize), "risk"))
    if n is None and counts:
        n = counts[-1]
    rows = [r for r in consumers if r["consumers"] == n]
    if rows and n is not None:
        parts.append(
            _img(
                plots.plot_consumer_load(rows, strategies, n),
                f"Bar charts of messages per consumer with {n} consumers, one per strategy ({', '.join(strategies)}), "
                "labelled with each strategy's consumer ids",
            )
        )
    if imbalance:
        parts.append(
            _img(
                plots.plot_imbalance(imbalance, strategies, n),
                "Line chart of the max/mean consumer load against the consumer count, one line per strategy",
            )
        )
    if churn:
        parts.append(
            _img(
                plots.plot_churn(churn, strategies, n),
                "Small multiples, one per strategy: the share of queues that move when a consumer joins (solid) "
                "or leaves (dashed), against the consumer count",
            )
        )
    moved = {(r["strategy"], r["consumers"], r["event"]): r["queues_moved_share"] for r in churn}
    table_rows = [
        {
            **r,
            "join": moved.get((r["strategy"], r["consumers"], "join")),
            "leave": moved.get((r["strategy"], r["consumers"], "leave")),
        }
        for r in imbalance
    ]
    parts.append("<h3>Imbalance and churn</h3>")
    parts.append(
        _table(
            table_rows,
            [
                _Col("strategy", "strategy"),
                _Col("consumers", "consumers", _fmt_int),
                _Col("max_over_mean", "max / mean", _fmt_float),
                _Col("cv", "cv", _fmt_float),
                _Col("idle_consumers", "idle consumers", _fmt_int),
                _Col("join", "queues moved on join", _fmt_share),
                _Col("leave", "queues moved on leave", _fmt_share),
            ],
            what="Imbalance and churn, per strategy and consumer count",
        )
    )
    parts.append("</section>")
    return "\n".join(parts)


def _resize_sentence(r: Mapping[str, Any]) -> str:
    return (
        f"Resizing the topic from {r['from_queues']:,} to {r['to_queues']:,} queues moves "
        f"{_fmt_share(r['keys_moved_share'])} of the keys ({r['keys_moved']:,} of {r['keys']:,}) and "
        f"{_fmt_share(r['messages_moved_share'])} of the messages ({r['messages_moved']:,} of {r['messages']:,}) "
        "to another queue: those keys lose their per-key order while the old queues drain."
    )


# ---------------------------------------------------------------------------------------------------- replay


def _section_replay(data: ReplayData) -> str:
    c = data.rows
    parts = [
        '<section id="replay"><h2>Replay</h2>',
        _facts(
            [
                ("trace rows", f"{c['trace_rows']:,} = used {c['trace_used']:,} + rejected {c['trace_rejected']:,}"),
                (
                    "send rows",
                    f"{c['send_rows']:,} = replayed {c['sends_replayed']:,} + rejected {c['sends_rejected']:,}",
                ),
            ]
        ),
        _table(
            data.modes,
            [
                _Col("mode", "mode"),
                _Col("sends", "sends", _fmt_int),
                _Col("failures", "failures", _fmt_int),
                _Col("retries", "retries", _fmt_int),
                _Col("p50_ms", "p50 ms", _fmt_ms),
                _Col("p99_ms", "p99 ms", _fmt_ms),
                _Col("max_ms", "max ms", _fmt_ms),
                _Col("degraded_share", "sends to a degraded broker", _fmt_share),
                _Col("max_delay_ms", "max delay ms (send started after its event)", _fmt_ms),
            ],
        ),
    ]
    traffic, windows = data.traffic, data.broker_windows
    if traffic or windows:
        mode_names = sorted({r["mode"] for r in traffic}, key=mode_key)
        alt = f"Timeline: the share of sends per broker over time for {' and '.join(mode_names) or 'no mode'}" + (
            "; below, each broker's highest latency per window from the trace, failed windows shaded" if windows else ""
        )
        parts.append(_img(plots.plot_replay_timeline(traffic, windows, mode_names), alt))
        if not windows:
            note = "No trace row was used (none given, or all rejected): the timeline shows the traffic only."
            parts.append(_para(note, "note"))
    parts.append("</section>")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------------- page

_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 1.5em auto;
       max-width: 1150px; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.8em; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
nav a { margin-right: 1em; }
dl.facts { display: flex; flex-wrap: wrap; gap: 0.4em 1.6em; margin: 0.6em 0; }
dl.facts div { display: flex; gap: 0.4em; }
dl.facts dt { color: #666; }
dl.facts dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; }
figure { margin: 0.8em 0; }
figure img { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 0.4em 0 1em; font-size: 13px; }
caption { caption-side: bottom; text-align: left; color: #666; font-size: 12px; padding-top: 0.3em; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #eee; text-align: left; }
th { border-bottom: 1px solid #bbb; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
p.note { color: #666; }
p.warn { color: #a00; font-weight: 600; }
p.risk { background: #fff6e0; border-left: 3px solid #e0a000; padding: 0.4em 0.8em; }
#verdict { background: #f3f7fc; border: 1px solid #cfdcec; border-radius: 4px; padding: 0.2em 1em 0.4em; }
#verdict h2 { border-bottom: none; margin-top: 0.6em; }
details { margin: 0.4em 0 1em; }
summary { cursor: pointer; color: #245; }
""".strip()


def render_report(
    *,
    route_dir: str | Path | None = None,
    plan_dir: str | Path | None = None,
    replay_dir: str | Path | None = None,
    title: str = "rocketroute report",
    consumers: int | None = None,
) -> str:
    """The report as one self-contained HTML page: the verdict first (:mod:`~rocketroute.spark.report.verdict`),
    then a section for each output folder given (the ``--out`` of ``rocketroute route``, ``plan`` and
    ``replay``), with the plots embedded as PNGs and the tables. ``consumers``: the consumer count the verdict
    and the per-consumer plot are about (one of plan's; default: the largest).

    Raises :class:`IllegalArgumentError` when no folder is given (or ``consumers`` without ``plan_dir``),
    :class:`RocketRouteError` naming the file when an expected file is missing or malformed, or when plan has
    no rows for ``consumers``."""
    jobs: list[tuple[str, str, str | Path | None, Callable[[Path], Any]]] = [
        ("route", "Route", route_dir, load_route),
        ("plan", "Plan", plan_dir, load_plan),
        ("replay", "Replay", replay_dir, load_replay),
    ]
    given = [(anchor, name, Path(d), load) for anchor, name, d, load in jobs if d is not None]
    if not given:
        raise IllegalArgumentError("the report needs at least one of route_dir, plan_dir, replay_dir")
    if consumers is not None and plan_dir is None:
        raise IllegalArgumentError("consumers picks one of plan's consumer counts: it needs plan_dir")
    for _, name, d, _ in given:
        if not d.is_dir():
            raise RocketRouteError(f"{d} is not a folder (the --out of `rocketroute {name.lower()}`)")
    loaded = {anchor: load(d) for anchor, _, d, load in given}  # every file read and checked before drawing
    route, plan, replay = (loaded.get(a) for a in ("route", "plan", "replay"))
    n = focus_count(plan, consumers) if plan is not None else None
    verdicts = verdict(route, plan, replay, n)
    sections = [_section_verdict(verdicts)] if verdicts else []
    if route is not None:
        sections.append(_section_route(route))
    if plan is not None:
        sections.append(_section_plan(plan, n))
    if replay is not None:
        sections.append(_section_replay(replay))
    links = ([("verdict", "Verdict")] if verdicts else []) + [(anchor, name) for anchor, name, _, _ in given]
    nav = " ".join(f'<a href="#{anchor}">{name}</a>' for anchor, name in links)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(title)}</title>",
            f"<style>\n{_STYLE}\n</style>",
            "</head>",
            "<body>",
            f"<h1>{html.escape(title)}</h1>",
            f"<nav>{nav}</nav>",
            *sections,
            "</body>",
            "</html>",
            "",
        ]
    )


_TOPICS = {"strategy": "Strategy", "resize": "Resize", "fault tolerance": "Fault tolerance", "clients": "Clients"}


def _section_verdict(verdicts: Sequence[Verdict]) -> str:
    """The verdict: one paragraph per topic, its name in bold, then its sentences."""
    items = [
        f"<p><strong>{html.escape(_TOPICS.get(v.topic, v.topic))}.</strong> {html.escape(' '.join(v.sentences))}</p>"
        for v in verdicts
    ]
    return "\n".join(['<section id="verdict"><h2>Verdict</h2>', *items, "</section>"])


def write_report(path: str | Path, **kwargs: Any) -> Path:
    """Render the report (``kwargs`` as for :func:`render_report`) and write it to ``path`` atomically: into a
    temporary sibling first, then swapped into place, so a reader never sees a partial page."""
    page = render_report(**kwargs)  # render first: a failure leaves no file behind
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{uuid.uuid4().hex[:8]}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(page)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
