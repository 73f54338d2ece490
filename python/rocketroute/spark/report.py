"""``report``: one self-contained HTML page from the small aggregate outputs of ``route``, ``plan`` and ``replay``.

The page has no external references: the plots are PNGs rendered with matplotlib's Agg canvas and embedded as
``data:`` URIs, the style sheet is inline, and there is no script. Only the aggregates are read (JSON summaries
and the coalesced CSV folders), with :mod:`csv` and :mod:`json`: no Spark session is needed. The output is
deterministic: the same inputs give the same bytes.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import itertools
import json
import math
import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import IllegalArgumentError, RocketRouteError

__all__ = ["render_report", "write_report"]

_MODE_ORDER = ("fault tolerance on", "fault tolerance off")
_HOT_KEYS_ALL_ROWS = 40
"""Show every hot key row up to this many; beyond it, the top 3 of each queue."""
_HOT_KEYS_TOP = 3


# ---------------------------------------------------------------------------------------------------- reading


def _read_json(path: Path, what: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RocketRouteError(f"{path} does not exist ({what})") from None
    except OSError as e:
        raise RocketRouteError(f"cannot read {path} ({what}): {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RocketRouteError(f"{path} is not valid JSON ({what}): {e}") from None


def _spark_csv_records(text: str) -> list[list[str]]:
    """Records of a CSV file written by Spark: a quoted field escapes ``"`` and ``\\`` with a backslash (not by
    doubling, which is all :mod:`csv` reads); a field outside quotes is literal, backslashes included."""
    records: list[list[str]] = []
    record: list[str] = []
    field: list[str] = []
    quoted = started = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quoted:
            if c == "\\" and i + 1 < n:
                field.append(text[i + 1])
                i += 1
            elif c == '"':
                quoted = False
            else:
                field.append(c)
        elif c == '"' and not started:
            quoted = started = True
        elif c == ",":
            record.append("".join(field))
            field, started = [], False
        elif c in "\r\n":
            if c == "\r" and text.startswith("\n", i + 1):
                i += 1
            record.append("".join(field))
            if record != [""]:
                records.append(record)
            record, field, started = [], [], False
        else:
            field.append(c)
            started = True
        i += 1
    if field or record or started:
        record.append("".join(field))
        records.append(record)
    return records


def _read_csv_file(path: Path, columns: Sequence[str], *, spark: bool) -> list[dict[str, str]]:
    """Rows of one CSV file with a header, as text; an empty file has no rows. ``spark``: written by Spark."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RocketRouteError(f"{path} does not exist") from None
    except OSError as e:
        raise RocketRouteError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise RocketRouteError(f"{path} is not UTF-8 text: {e.reason}") from None
    if not text.strip():
        return []
    if spark and "\\" in text:
        records = _spark_csv_records(text)
    else:
        try:
            records = [r for r in csv.reader(io.StringIO(text, newline=""), strict=True) if r]
        except csv.Error as e:
            raise RocketRouteError(f"{path} is not valid CSV: {e}") from None
    header, body = records[0], records[1:]
    missing = [c for c in columns if c not in header]
    if missing:
        raise RocketRouteError(f"{path} lacks the columns {missing} (its header is {header})")
    rows = []
    for number, record in enumerate(body, start=2):
        if len(record) != len(header):
            raise RocketRouteError(f"{path}: record {number} has {len(record)} fields, the header {len(header)}")
        rows.append(dict(zip(header, record, strict=True)))
    return rows


def _read_csv_folder(folder: Path, columns: Sequence[str]) -> list[dict[str, str]]:
    """Rows of every ``part-*.csv`` file of a Spark CSV folder (or, for a folder written without Spark, of every
    ``*.csv`` file in it). A folder with only ``_SUCCESS`` is an empty output."""
    if not folder.is_dir():
        raise RocketRouteError(f"{folder} does not exist (expected a folder of part-*.csv files)")
    files = sorted(folder.glob("part-*.csv"))
    spark = bool(files)
    if not files:
        files = sorted(p for p in folder.glob("*.csv") if not p.name.startswith((".", "_")))
    if not files and not (folder / "_SUCCESS").exists():
        raise RocketRouteError(f"{folder} has no part-*.csv file")
    rows: list[dict[str, str]] = []
    for f in files:
        rows.extend(_read_csv_file(f, columns, spark=spark))
    return rows


_TRUE = ("true", "1", "yes", "t", "y")
_FALSE = ("false", "0", "no", "f", "n")


def _to_int(v: Any) -> int:
    if isinstance(v, bool):
        raise ValueError(f"{v!r} is not an integer")
    if isinstance(v, int):
        return v
    f = float(v)  # "12", "12.0" and 12.0 all read as 12
    if not f.is_integer():
        raise ValueError(f"{v!r} is not an integer")
    return int(f)


def _to_float(v: Any) -> float:
    if isinstance(v, bool):
        raise ValueError(f"{v!r} is not a number")
    f = float(v)
    if math.isnan(f):
        raise ValueError("NaN")
    return f


class _Optional:
    """A field that may be empty, or missing altogether (newer than the output being read): ``None`` then,
    else ``convert`` of its value."""

    __slots__ = ("convert",)

    def __init__(self, convert: Callable[[Any], Any]) -> None:
        self.convert = convert

    def __call__(self, v: Any) -> Any:
        return None if v is None or v == "" else self.convert(v)


def _to_bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    text = str(v).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{v!r} is not a boolean")


def _to_str(v: Any) -> str:
    return "" if v is None else str(v)


def _convert(row: Any, types: Mapping[str, Callable[[Any], Any]], where: str) -> dict[str, Any]:
    """``row`` with the named fields converted (the others dropped); a missing or bad value names ``where``."""
    if not isinstance(row, Mapping):
        raise RocketRouteError(f"{where}: expected an object, found {type(row).__name__}")
    typed = {}
    for name, convert in types.items():
        if name not in row:
            if isinstance(convert, _Optional):
                typed[name] = None
                continue
            raise RocketRouteError(f"{where} lacks {name!r}")
        try:
            typed[name] = convert(row[name])
        except (TypeError, ValueError) as e:
            raise RocketRouteError(f"{where} has a bad {name!r} ({row[name]!r}): {e}") from None
    return typed


def _typed(rows: Iterable[Any], types: Mapping[str, Callable[[Any], Any]], where: Path) -> list[dict[str, Any]]:
    """Each row (a CSV row or a JSON object) converted by :func:`_convert`; errors name the file and the row."""
    return [_convert(row, types, f"{where}: row {number}") for number, row in enumerate(rows, start=1)]


def _one(obj: Any, types: Mapping[str, Callable[[Any], Any]], where: Path) -> dict[str, Any]:
    """One JSON object converted by :func:`_convert`; errors name the file."""
    return _convert(obj, types, str(where))


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


def _table(rows: Sequence[Mapping[str, Any]], columns: Sequence[_Col], caption: str | None = None) -> str:
    """An HTML table; every cell is escaped, a missing value (``None``) shows as a dash."""
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
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body) + "\n</tbody></table>"


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


# ---------------------------------------------------------------------------------------------------- plotting


def _figure(width: float, height: float) -> Any:
    """A figure on an Agg canvas, not registered with pyplot: nothing global changes (the backend of an
    interactive session included), and the figure is freed with its last reference."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _img(fig: Any, alt: str) -> str:
    """The figure as an embedded PNG ``<img>``; the figure is cleared afterwards."""
    buf = io.BytesIO()
    # tight: nothing is cut off, rotated tick labels and outside legends included; no Software metadata: the
    # bytes do not depend on the matplotlib version
    fig.savefig(buf, format="png", bbox_inches="tight", pad_inches=0.08, metadata={"Software": None})
    fig.clear()
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(alt)}"></figure>'


def _palette(names: Sequence[str]) -> dict[str, Any]:
    """A stable color per name (in the order given): tab10 up to 10 names, tab20 beyond (cycling)."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if len(names) <= 10 else "tab20"]
    return {name: cmap(i % cmap.N) for i, name in enumerate(names)}


def _thousands(ax_axis: Any) -> None:
    from matplotlib.ticker import FuncFormatter

    ax_axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))


def _percent(ax_axis: Any, decimals: int = 0) -> None:
    from matplotlib.ticker import PercentFormatter

    ax_axis.set_major_formatter(PercentFormatter(1.0, decimals=decimals))


def _broker_legend(fig_or_ax: Any, colors: Mapping[str, Any], extra: Sequence[Any] = (), **kwargs: Any) -> None:
    from matplotlib.patches import Patch

    if len(colors) > 24:  # too many to name: the colors still tell brokers apart
        handles = list(extra)
    else:
        handles = [Patch(color=c, label=b) for b, c in colors.items()] + list(extra)
    if handles:
        fig_or_ax.legend(handles=handles, fontsize=8, frameon=False, **kwargs)


# ---------------------------------------------------------------------------------------------------- route


def _section_route(root: Path) -> str:
    summary_path = root / "summary" / "summary.json"
    raw = _read_json(summary_path, "the summary `rocketroute route` writes")
    s = _one(
        raw,
        {
            "topic": _to_str,
            "selector": _to_str,
            "input_rows": _to_int,
            "routed_rows": _to_int,
            "rejected_rows": _to_int,
            "skew": lambda v: v,
            "per_queue": lambda v: v,
        },
        summary_path,
    )
    skew = _one(s["skew"], {"max_over_mean": _to_float, "cv": _to_float, "gini": _to_float}, summary_path)
    if not isinstance(s["per_queue"], list):
        raise RocketRouteError(f"{summary_path}: 'per_queue' is not a list")
    per_queue = _typed(
        s["per_queue"],
        {
            "queue_index": _to_int,
            "broker": _to_str,
            "queue_id": _to_int,
            "messages": _to_int,
            "bytes": _to_int,
            "share": _to_float,
        },
        summary_path,
    )
    per_queue.sort(key=lambda r: r["queue_index"])
    hot_folder = root / "hot_keys"
    hot = _typed(
        _read_csv_folder(hot_folder, ["queue_index", "key", "messages", "rank"]),
        {"queue_index": _to_int, "key": _to_str, "messages": _to_int, "rank": _to_int},
        hot_folder,
    )

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
    if isinstance(raw.get("seconds"), (int, float)):
        facts.append(("job time", f"{raw['seconds']:,.2f} s"))
    parts = ['<section id="route"><h2>Route</h2>', _facts(facts)]
    if total != routed + rejected:
        parts.append(_para(f"Row counts do not add up: {total:,} input rows, {routed + rejected:,} accounted.", "warn"))
    if per_queue:
        parts.append(_img(_plot_queue_load(per_queue), _queue_load_alt(per_queue)))
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
        )
    )
    parts.append("<h3>Hot keys</h3>")
    hot.sort(key=lambda r: (r["queue_index"], r["rank"]))
    shown = hot if len(hot) <= _HOT_KEYS_ALL_ROWS else [r for r in hot if r["rank"] <= _HOT_KEYS_TOP]
    queue_messages = {r["queue_index"]: r["messages"] for r in per_queue}
    for r in shown:
        r["queue"] = queue_name.get(r["queue_index"], f"#{r['queue_index']}")
        m = queue_messages.get(r["queue_index"])
        r["queue_share"] = r["messages"] / m if m else None
    caption = None if shown is hot else f"the top {_HOT_KEYS_TOP} keys of each queue ({len(shown)} of {len(hot)} rows)"
    parts.append(
        _table(
            shown,
            [
                _Col("queue", "queue"),
                _Col("rank", "rank", _fmt_int),
                _Col("key", "key"),
                _Col("messages", "messages", _fmt_int),
                _Col("queue_share", "share of queue", _fmt_share),
            ],
            caption,
        )
    )
    if raw.get("compat") is not None:
        parts.append(_compat_part(raw["compat"], len(per_queue), summary_path))
    parts.append("</section>")
    return "\n".join(parts)


def _compat_part(compat: Any, queues: int, where: Path) -> str:
    """The cross-client comparison (``route --compare-profiles``): a heatmap and a table of the share of keys
    every two clients' routing profiles put on the same queue."""
    c = _one(compat, {"profiles": lambda v: v, "pairs": lambda v: v}, where)
    names = c["profiles"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or not names:
        raise RocketRouteError(f"{where}: compat 'profiles' is not a list of names")
    if not isinstance(c["pairs"], list):
        raise RocketRouteError(f"{where}: compat 'pairs' is not a list")
    pairs = _typed(
        c["pairs"],
        {
            "a": _to_str,
            "b": _to_str,
            "keys_both": _to_int,
            "keys_same": _to_int,
            "messages_both": _to_int,
            "messages_same": _to_int,
            "key_share": _Optional(_to_float),
            "message_share": _Optional(_to_float),
        },
        where,
    )
    share = {(r["a"], r["b"]): r["key_share"] for r in pairs}
    missing = [(a, b) for a in names for b in names if (a, b) not in share]
    if missing:
        raise RocketRouteError(f"{where}: compat lacks the pair {missing[0]!r}")
    parts = [
        "<h3>Other clients on the same keys</h3>",
        _para(
            f"The share of keys that two RocketMQ clients (and Kafka) put on the same queue of these {queues}, each "
            "routing keyed messages its own way: a key split between two queues loses its ordering when both "
            "clients produce it. A dash: no key placed by both (a client refuses every key)."
        ),
        _img(_plot_compat(names, share), _compat_alt(names, share)),
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


def _plot_compat(names: Sequence[str], share: Mapping[tuple[str, str], float | None]) -> Any:
    import numpy as np

    k = len(names)
    grid = np.array([[np.nan if share[(a, b)] is None else share[(a, b)] for b in names] for a in names])
    fig = _figure(1.1 * k + 2.6, 0.8 * k + 1.4)
    ax = fig.add_subplot()
    image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis")
    ax.set_xticks(range(k), labels=names, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(k), labels=names, fontsize=8)
    for i in range(k):
        for j in range(k):
            v = grid[i, j]
            text = "\u2013" if np.isnan(v) else f"{v:.0%}" if v >= 0.1 or v == 0 else f"{v:.1%}"
            ax.text(
                j, i, text, ha="center", va="center", fontsize=8, color="white" if np.isnan(v) or v < 0.6 else "black"
            )
    ax.set_title("Keys on the same queue, per pair of clients", loc="left", fontsize=11)
    fig.colorbar(image, ax=ax, shrink=0.8, format=lambda v, _: f"{v:.0%}")
    return fig


def _queue_load_alt(per_queue: Sequence[Mapping[str, Any]]) -> str:
    top = max(per_queue, key=lambda r: r["messages"])
    mean = sum(r["messages"] for r in per_queue) / len(per_queue)
    return (
        f"Bar chart of messages per queue for {len(per_queue)} queues; mean {mean:,.0f}, "
        f"busiest {top['broker']}/{top['queue_id']} with {top['messages']:,}"
    )


def _plot_queue_load(per_queue: Sequence[Mapping[str, Any]]) -> Any:
    from matplotlib.lines import Line2D

    n = len(per_queue)
    brokers = list(dict.fromkeys(r["broker"] for r in per_queue))
    colors = _palette(brokers)
    fig = _figure(min(14.0, max(6.0, 0.25 * n + 2.5)), 3.8)
    ax = fig.add_subplot()
    xs = range(n)
    ax.bar(xs, [r["messages"] for r in per_queue], color=[colors[r["broker"]] for r in per_queue], width=0.8)
    mean = sum(r["messages"] for r in per_queue) / n
    ax.axhline(mean, ls="--", lw=1, color="0.25")
    if n <= 48:
        labels = [f"{r['broker']}/{r['queue_id']}" for r in per_queue]
        ax.set_xticks(list(xs), labels=labels, rotation=90 if n > 6 else 0, fontsize=8)
    else:
        ax.set_xlabel("queue index")
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylabel("messages")
    _thousands(ax.yaxis)
    ax.set_title("Messages per queue", loc="left", fontsize=11)
    mean_line = Line2D([], [], ls="--", lw=1, color="0.25", label=f"mean {mean:,.0f}")
    _broker_legend(ax, colors, [mean_line], loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


# ---------------------------------------------------------------------------------------------------- plan


def _section_plan(root: Path) -> str:
    d = root / "plan"
    summary_path = d / "summary.json"
    raw = _read_json(summary_path, "the summary `rocketroute plan` writes")
    s = _one(raw, {"topic": _to_str, "queues": _to_int, "resize": lambda v: v}, summary_path)
    consumers = _typed(
        _read_csv_file(d / "consumers.csv", ["strategy", "consumers", "consumer", "queues", "messages"], spark=False),
        {"strategy": _to_str, "consumers": _to_int, "consumer": _to_str, "queues": _to_int, "messages": _to_int},
        d / "consumers.csv",
    )
    imbalance = _typed(
        _read_csv_file(
            d / "imbalance.csv", ["strategy", "consumers", "max_over_mean", "cv", "idle_consumers"], spark=False
        ),
        {
            "strategy": _to_str,
            "consumers": _to_int,
            "max_over_mean": _to_float,
            "cv": _to_float,
            "idle_consumers": _to_int,
        },
        d / "imbalance.csv",
    )
    churn = _typed(
        _read_csv_file(d / "churn.csv", ["strategy", "consumers", "event", "queues_moved_share"], spark=False),
        {"strategy": _to_str, "consumers": _to_int, "event": _to_str, "queues_moved_share": _to_float},
        d / "churn.csv",
    )
    strategies = list(dict.fromkeys([r["strategy"] for r in imbalance] + [r["strategy"] for r in consumers]))
    counts = sorted({r["consumers"] for r in consumers} | {r["consumers"] for r in imbalance})

    facts = [
        ("topic", s["topic"]),
        ("queues", f"{s['queues']:,}"),
        ("consumer counts", _counts_text(counts) if counts else "\u2013"),
        ("strategies", ", ".join(strategies) if strategies else "\u2013"),
    ]
    parts = ['<section id="plan"><h2>Plan</h2>', _facts(facts)]
    if s["resize"] is not None:
        parts.append(_para(_resize_sentence(s["resize"], summary_path), "risk"))
    if consumers:
        n = max((c for c in counts if c <= 8), default=counts[0])
        rows = [r for r in consumers if r["consumers"] == n]
        parts.append(
            _img(
                _plot_consumer_load(rows, strategies, n),
                f"Bar charts of messages per consumer with {n} consumers, one per strategy ({', '.join(strategies)})",
            )
        )
    if imbalance:
        parts.append(
            _img(
                _plot_imbalance(imbalance, strategies),
                "Line chart of the max/mean consumer load against the consumer count, one line per strategy",
            )
        )
    if churn:
        parts.append(
            _img(
                _plot_churn(churn, strategies),
                "Line chart of the share of queues that move when a consumer joins (solid) or leaves (dashed), "
                "against the consumer count, one color per strategy",
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
        )
    )
    parts.append("</section>")
    return "\n".join(parts)


def _resize_sentence(resize: Any, where: Path) -> str:
    r = _one(
        resize,
        {
            "from_queues": _to_int,
            "to_queues": _to_int,
            "messages": _to_int,
            "messages_moved": _to_int,
            "messages_moved_share": _to_float,
            "keys": _to_int,
            "keys_moved": _to_int,
            "keys_moved_share": _to_float,
        },
        where,
    )
    return (
        f"Resizing the topic from {r['from_queues']:,} to {r['to_queues']:,} queues moves "
        f"{_fmt_share(r['keys_moved_share'])} of the keys ({r['keys_moved']:,} of {r['keys']:,}) and "
        f"{_fmt_share(r['messages_moved_share'])} of the messages ({r['messages_moved']:,} of {r['messages']:,}) "
        "to another queue: those keys lose their per-key order while the old queues drain."
    )


def _plot_consumer_load(rows: Sequence[Mapping[str, Any]], strategies: Sequence[str], n: int) -> Any:
    shown = [s for s in strategies if any(r["strategy"] == s for r in rows)]
    k = max(len(shown), 1)
    fig = _figure(min(16.0, 3.6 * k + 0.8), 3.4)
    axes = fig.subplots(1, k, sharey=True, squeeze=False)[0]
    fig.suptitle(f"Messages per consumer, {n} consumers", x=0.01, ha="left", fontsize=11)
    for ax, strategy in zip(axes, shown, strict=False):
        mine = [r for r in rows if r["strategy"] == strategy]
        loads = [r["messages"] for r in mine]
        ax.bar(range(len(mine)), loads, color="tab:blue", width=0.8)
        mean = sum(loads) / len(loads) if loads else 0
        ax.axhline(mean, ls="--", lw=1, color="0.25")
        ratio = f"max/mean {max(loads) / mean:.2f}" if mean else "no load"
        ax.set_title(f"{strategy}\n{ratio}", fontsize=9)
        if len(mine) <= 16:
            ax.set_xticks(range(len(mine)), labels=[r["consumer"] for r in mine], rotation=90, fontsize=7)
        else:
            ax.set_xlabel("consumer")
        _thousands(ax.yaxis)
    axes[0].set_ylabel("messages")
    return fig


def _plot_imbalance(imbalance: Sequence[Mapping[str, Any]], strategies: Sequence[str]) -> Any:
    colors = _palette(strategies)
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    for strategy in strategies:
        pts = sorted((r["consumers"], r["max_over_mean"]) for r in imbalance if r["strategy"] == strategy)
        if pts:
            xs, ys = zip(*pts, strict=True)
            ax.plot(xs, ys, marker="o" if len(xs) <= 40 else None, ms=3, lw=1.5, color=colors[strategy], label=strategy)
    ax.axhline(1.0, lw=0.8, color="0.6")
    ax.set_xlabel("consumers")
    ax.set_ylabel("max / mean load")
    ax.set_title("Imbalance (1.0 = even)", loc="left", fontsize=11)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    return fig


def _plot_churn(churn: Sequence[Mapping[str, Any]], strategies: Sequence[str]) -> Any:
    from matplotlib.lines import Line2D

    colors = _palette(strategies)
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    for strategy in strategies:
        for event, style, marker_style in (("join", "-", "o"), ("leave", "--", "s")):
            pts = sorted(
                (r["consumers"], r["queues_moved_share"])
                for r in churn
                if r["strategy"] == strategy and r["event"] == event
            )
            if pts:
                xs, ys = zip(*pts, strict=True)
                marker = marker_style if len(xs) <= 16 else None
                ax.plot(xs, ys, ls=style, marker=marker, ms=4, mfc="white", lw=1.5, color=colors[strategy])
    ax.set_ylim(bottom=0)
    _percent(ax.yaxis)
    ax.set_xlabel("consumers (before the event)")
    ax.set_ylabel("queues moved")
    ax.set_title("Rebalance churn: one consumer joins or leaves", loc="left", fontsize=11)
    handles = [Line2D([], [], color=colors[s], lw=1.5, label=s) for s in strategies]
    handles += [
        Line2D([], [], color="0.3", ls="-", label="a consumer joins"),
        Line2D([], [], color="0.3", ls="--", label="a consumer leaves"),
    ]
    ax.legend(handles=handles, fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    return fig


# ---------------------------------------------------------------------------------------------------- replay


def _mode_key(mode: str) -> tuple[int, str]:
    return (_MODE_ORDER.index(mode) if mode in _MODE_ORDER else len(_MODE_ORDER), mode)


def _section_replay(root: Path) -> str:
    summary_path = root / "summary" / "summary.json"
    raw = _read_json(summary_path, "the summary `rocketroute replay` writes")
    # a list of per-mode summaries, or {"modes": [...], "rows": {...}} with the row-conservation counts
    modes_raw = raw.get("modes") if isinstance(raw, dict) else raw
    if not isinstance(modes_raw, list):
        raise RocketRouteError(f"{summary_path}: expected a list of per-mode summaries (or an object with 'modes')")
    modes = _typed(
        modes_raw,
        {
            "mode": _to_str,
            "sends": _to_int,
            "failures": _to_int,
            "retries": _to_int,
            "p50_ms": _to_float,
            "p99_ms": _to_float,
            "max_ms": _to_float,
            "degraded_share": _Optional(_to_float),
            "max_delay_ms": _Optional(_to_float),
        },
        summary_path,
    )
    modes.sort(key=lambda r: _mode_key(r["mode"]))
    traffic_folder = root / "traffic"
    traffic = _typed(
        _read_csv_folder(traffic_folder, ["mode", "window_ms", "broker", "sends", "share"]),
        {"mode": _to_str, "window_ms": _to_int, "broker": _to_str, "sends": _to_int, "share": _to_float},
        traffic_folder,
    )
    trace_folder = root / "trace"
    trace = None
    if trace_folder.exists():  # older outputs have no trace
        trace = _typed(
            _read_csv_folder(trace_folder, ["ts_ms", "broker", "latency_ms", "ok"]),
            {"ts_ms": _to_int, "broker": _to_str, "latency_ms": _to_float, "ok": _to_bool},
            trace_folder,
        )

    parts = ['<section id="replay"><h2>Replay</h2>']
    rows = raw.get("rows") if isinstance(raw, dict) else None
    if isinstance(rows, dict):
        c = _one(
            rows,
            {
                "trace_rows": _to_int,
                "trace_used": _to_int,
                "trace_rejected": _to_int,
                "send_rows": _to_int,
                "sends_replayed": _to_int,
                "sends_rejected": _to_int,
            },
            summary_path,
        )
        parts.append(
            _facts(
                [
                    (
                        "trace rows",
                        f"{c['trace_rows']:,} = used {c['trace_used']:,} + rejected {c['trace_rejected']:,}",
                    ),
                    (
                        "send rows",
                        f"{c['send_rows']:,} = replayed {c['sends_replayed']:,} + rejected {c['sends_rejected']:,}",
                    ),
                ]
            )
        )
    parts.append(
        _table(
            modes,
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
        )
    )
    if traffic or trace:
        mode_names = sorted({r["mode"] for r in traffic}, key=_mode_key)
        alt = f"Timeline: the share of sends per broker over time for {' and '.join(mode_names) or 'no mode'}" + (
            "; below, each broker's latency from the trace, failed intervals shaded" if trace else ""
        )
        parts.append(_img(_plot_replay_timeline(traffic, trace, mode_names), alt))
        if trace is None:
            parts.append(_para("No trace folder in this output: the timeline shows the traffic only.", "note"))
    parts.append("</section>")
    return "\n".join(parts)


def _window_ms(windows: Sequence[int]) -> int:
    """The traffic window: the smallest gap between window starts (1 s when there is only one)."""
    gaps = [b - a for a, b in itertools.pairwise(windows) if b > a]
    return min(gaps) if gaps else 1000


def _plot_replay_timeline(
    traffic: Sequence[Mapping[str, Any]], trace: Sequence[Mapping[str, Any]] | None, modes: Sequence[str]
) -> Any:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    windows = sorted({r["window_ms"] for r in traffic})
    width = _window_ms(windows)
    trace_ts = [r["ts_ms"] for r in trace or []]
    t0 = min(windows + trace_ts, default=0)
    # the timeline ends with the last traffic window; without traffic, 1 s after the last trace row
    end = windows[-1] + width if windows else max(trace_ts, default=t0) + 1000

    def sec(ms: float) -> float:
        return (ms - t0) / 1000.0

    brokers = sorted({r["broker"] for r in traffic} | {r["broker"] for r in trace or []})
    colors = _palette(brokers)
    panels = len(modes) + (1 if trace else 0)
    heights = [2.0] * len(modes) + ([2.6] if trace else [])
    fig = _figure(11.0, sum(heights) + 0.9)
    axes = fig.subplots(max(panels, 1), 1, sharex=True, squeeze=False, height_ratios=heights or None)[:, 0]

    for ax, mode in zip(axes, modes, strict=False):
        share = {(r["window_ms"], r["broker"]): r["share"] for r in traffic if r["mode"] == mode}
        mine = sorted({w for w, _ in share})
        present = [b for b in brokers if any((w, b) in share for w in mine)]
        xs = [sec(w) for w in mine] + ([sec(mine[-1] + width)] if mine else [])
        ys = [[share.get((w, b), 0.0) for w in mine] + [share.get((mine[-1], b), 0.0)] for b in present]
        if present:
            ax.stackplot(xs, *ys, colors=[colors[b] for b in present], step="post", lw=0)
        ax.set_ylim(0, 1)
        _percent(ax.yaxis)
        ax.set_ylabel("share of sends", fontsize=8)
        ax.set_title(mode, loc="left", fontsize=10)
        # the share alone hides a stall: a producer blocked on a slow broker sends less, so show the rate too
        totals: dict[int, int] = {}
        for r in traffic:
            if r["mode"] == mode:
                totals[r["window_ms"]] = totals.get(r["window_ms"], 0) + r["sends"]
        if mine:
            rate = ax.twinx()
            per_s = [totals.get(w, 0) * 1000.0 / width for w in mine]
            rate.step(xs, [*per_s, per_s[-1]], where="post", color="black", lw=1.0)
            rate.set_ylim(0, max(per_s) * 1.1 or 1)
            rate.set_ylabel("sends/s (line)", fontsize=8)
            rate.tick_params(labelsize=8)

    extra = []
    if trace:
        ax = axes[-1]
        latencies = [r["latency_ms"] for r in trace if r["latency_ms"] > 0]
        for broker in brokers:
            rows = sorted((r for r in trace if r["broker"] == broker), key=lambda r: r["ts_ms"])
            if not rows:
                continue
            xs = [sec(r["ts_ms"]) for r in rows] + [sec(end)]
            ys = [r["latency_ms"] for r in rows] + [rows[-1]["latency_ms"]]
            ax.step(xs, ys, where="post", color=colors[broker], lw=1.5)
            for r, nxt in zip(rows, [*rows[1:], None], strict=True):
                if not r["ok"]:
                    stop = nxt["ts_ms"] if nxt else end
                    ax.axvspan(sec(r["ts_ms"]), sec(stop), color=colors[broker], alpha=0.2, lw=0)
        if latencies and max(latencies) / min(latencies) >= 20:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_ylabel("latency (ms)", fontsize=8)
        ax.set_title("broker latency (trace)", loc="left", fontsize=10)
        extra.append(Patch(color="0.6", alpha=0.4, label="shaded: ok=false"))
    if modes:
        extra.insert(0, Line2D([], [], color="black", lw=1.0, label="sends/s"))
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.set_xlim(sec(t0), sec(end))
    axes[-1].set_xlabel("seconds" if t0 == 0 else f"seconds since {t0:,} ms")
    _broker_legend(fig, colors, extra, loc="outside upper right", ncols=min(len(brokers) + len(extra), 8))
    return fig


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
""".strip()


def render_report(
    *,
    route_dir: str | Path | None = None,
    plan_dir: str | Path | None = None,
    replay_dir: str | Path | None = None,
    title: str = "rocketroute report",
) -> str:
    """The report as one self-contained HTML page: a section for each output folder given (the ``--out`` of
    ``rocketroute route``, ``plan`` and ``replay``), with the plots embedded as PNGs and the tables.

    Raises :class:`IllegalArgumentError` when no folder is given, :class:`RocketRouteError` naming the file when
    an expected file is missing or malformed."""
    jobs = [
        ("route", "Route", route_dir, _section_route),
        ("plan", "Plan", plan_dir, _section_plan),
        ("replay", "Replay", replay_dir, _section_replay),
    ]
    given = [(anchor, name, Path(d), section) for anchor, name, d, section in jobs if d is not None]
    if not given:
        raise IllegalArgumentError("the report needs at least one of route_dir, plan_dir, replay_dir")
    for _, name, d, _ in given:
        if not d.is_dir():
            raise RocketRouteError(f"{d} is not a folder (the --out of `rocketroute {name.lower()}`)")
    sections = [section(d) for _, _, d, section in given]
    nav = " ".join(f'<a href="#{anchor}">{name}</a>' for anchor, name, _, _ in given)
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
