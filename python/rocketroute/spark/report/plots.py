"""Plots: the report's matplotlib figures, each on its own Agg canvas (nothing global changes, pyplot is never
used), and :func:`png` to turn one into PNG bytes. Each function takes the loaded records
(:mod:`rocketroute.spark.report.load`) and returns the figure; the page embeds it.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "figure",
    "plot_churn",
    "plot_compat",
    "plot_consumer_load",
    "plot_imbalance",
    "plot_queue_load",
    "plot_replay_timeline",
    "png",
    "window_width",
]


def figure(width: float, height: float) -> Any:
    """A figure on an Agg canvas, not registered with pyplot: nothing global changes (the backend of an
    interactive session included), and the figure is freed with its last reference."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def png(fig: Any) -> bytes:
    """The figure as PNG bytes; the figure is cleared afterwards."""
    buf = io.BytesIO()
    # tight: nothing is cut off, rotated tick labels and outside legends included; no Software metadata: the
    # bytes do not depend on the matplotlib version
    fig.savefig(buf, format="png", bbox_inches="tight", pad_inches=0.08, metadata={"Software": None})
    fig.clear()
    return buf.getvalue()


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


def plot_compat(names: Sequence[str], share: Mapping[tuple[str, str], float | None]) -> Any:
    """A heatmap of the share of keys every two client profiles put on the same queue (``None``: a dash)."""
    import numpy as np

    k = len(names)
    grid = np.array([[np.nan if share[(a, b)] is None else share[(a, b)] for b in names] for a in names])
    fig = figure(1.1 * k + 2.6, 0.8 * k + 1.4)
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


def plot_queue_load(per_queue: Sequence[Mapping[str, Any]]) -> Any:
    """Messages per queue as bars colored by broker, with the mean as a dashed line."""
    from matplotlib.lines import Line2D

    n = len(per_queue)
    brokers = list(dict.fromkeys(r["broker"] for r in per_queue))
    colors = _palette(brokers)
    fig = figure(min(14.0, max(6.0, 0.25 * n + 2.5)), 3.8)
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


def _grid(k: int, columns: int = 3) -> tuple[int, int]:
    """Rows and columns of ``k`` small multiples, at most ``columns`` wide."""
    cols = max(1, min(k, columns))
    return -(-max(k, 1) // cols), cols


def plot_consumer_load(rows: Sequence[Mapping[str, Any]], strategies: Sequence[str], n: int) -> Any:
    """Messages per consumer with ``n`` consumers, one panel per strategy (up to three a row), each labelled
    with that strategy's consumer ids, with the mean and max/mean."""
    shown = [s for s in strategies if any(r["strategy"] == s for r in rows)]
    nrows, ncols = _grid(len(shown))
    fig = figure(min(15.0, 4.4 * ncols + 0.6), 2.9 * nrows + 0.5)
    axes = fig.subplots(nrows, ncols, sharey=True, squeeze=False).ravel()
    fig.suptitle(f"Messages per consumer, {n} consumers", x=0.01, ha="left", fontsize=11)
    for ax, strategy in zip(axes, shown, strict=False):
        mine = [r for r in rows if r["strategy"] == strategy]
        loads = [r["messages"] for r in mine]
        mean = sum(loads) / len(loads) if loads else 0
        busiest = max(loads) if loads else 0
        colors = ["tab:orange" if v == busiest and mean else "tab:blue" for v in loads]
        ax.bar(range(len(mine)), loads, color=colors, width=0.8)
        ax.axhline(mean, ls="--", lw=1, color="0.25")
        ratio = f"max/mean {busiest / mean:.2f}" if mean else "no load"
        ax.set_title(f"{strategy}: {ratio}", fontsize=9, loc="left")
        if len(mine) <= 16:
            ax.set_xticks(range(len(mine)), labels=[r["consumer"] for r in mine], rotation=60, ha="right", fontsize=7)
        else:
            ax.set_xlabel("consumer")
        _thousands(ax.yaxis)
        ax.tick_params(axis="y", labelsize=8)
    for ax in axes[len(shown) :]:
        ax.set_visible(False)
    for ax in axes[::ncols]:
        ax.set_ylabel("messages", fontsize=8)
    return fig


def _mark_count(ax: Any, n: int | None) -> None:
    if n is not None:
        ax.axvline(n, color="0.55", lw=0.9, ls=":", zorder=0)


def plot_imbalance(imbalance: Sequence[Mapping[str, Any]], strategies: Sequence[str], n: int | None = None) -> Any:
    """The max/mean consumer load against the consumer count, one line per strategy; ``n`` (the focus count)
    marked with a dotted line."""
    from matplotlib.lines import Line2D

    colors = _palette(strategies)
    fig = figure(8.5, 3.6)
    ax = fig.add_subplot()
    for strategy in strategies:
        pts = sorted((r["consumers"], r["max_over_mean"]) for r in imbalance if r["strategy"] == strategy)
        if pts:
            xs, ys = zip(*pts, strict=True)
            ax.plot(xs, ys, marker="o" if len(xs) <= 40 else None, ms=3, lw=1.5, color=colors[strategy], label=strategy)
    ax.axhline(1.0, lw=0.8, color="0.6")
    _mark_count(ax, n)
    ax.set_xlabel("consumers")
    ax.set_ylabel("max / mean load")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_title("Imbalance (1.0 = even)", loc="left", fontsize=11)
    handles, _ = ax.get_legend_handles_labels()
    if n is not None:
        handles.append(Line2D([], [], color="0.55", lw=0.9, ls=":", label=f"{n} consumers (the verdict's)"))
    ax.legend(handles=handles, fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    return fig


def plot_churn(churn: Sequence[Mapping[str, Any]], strategies: Sequence[str], n: int | None = None) -> Any:
    """Small multiples, one panel per strategy (same axes): the share of queues that move when a consumer joins
    (solid) or leaves (dashed) against the consumer count before it; ``n`` marked with a dotted line."""
    from matplotlib.lines import Line2D

    shown = [s for s in strategies if any(r["strategy"] == s for r in churn)]
    colors = _palette(strategies)
    nrows, ncols = _grid(len(shown))
    fig = figure(min(15.0, 4.2 * ncols + 0.6), 2.4 * nrows + 0.9)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).ravel()
    fig.suptitle("Rebalance churn: queues moved when one consumer joins or leaves", x=0.01, ha="left", fontsize=11)
    for ax, strategy in zip(axes, shown, strict=False):
        for event, style, marker_style in (("join", "-", "o"), ("leave", "--", "s")):
            pts = sorted(
                (r["consumers"], r["queues_moved_share"])
                for r in churn
                if r["strategy"] == strategy and r["event"] == event
            )
            if pts:
                xs, ys = zip(*pts, strict=True)
                marker = marker_style if len(xs) <= 16 else None
                ax.plot(xs, ys, ls=style, marker=marker, ms=3.5, mfc="white", lw=1.5, color=colors[strategy])
        _mark_count(ax, n)
        ax.set_title(strategy, loc="left", fontsize=9, color=colors[strategy])
        ax.set_ylim(0, 1.05)
        _percent(ax.yaxis)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    for ax in axes[len(shown) :]:
        ax.set_visible(False)
    for ax in axes[::ncols]:
        ax.set_ylabel("queues moved", fontsize=8)
    for ax in axes[(nrows - 1) * ncols :]:
        ax.set_xlabel("consumers (before the event)", fontsize=8)
    for ax in axes[max(0, len(shown) - ncols) : len(shown)]:  # the last row's labels, also under a short row
        ax.xaxis.set_tick_params(labelbottom=True)
        ax.set_xlabel("consumers (before the event)", fontsize=8)
    handles = [
        Line2D([], [], color="0.3", ls="-", marker="o", ms=3.5, mfc="white", label="a consumer joins"),
        Line2D([], [], color="0.3", ls="--", marker="s", ms=3.5, mfc="white", label="a consumer leaves"),
    ]
    if n is not None:
        handles.append(Line2D([], [], color="0.55", lw=0.9, ls=":", label=f"{n} consumers (the verdict's)"))
    fig.legend(handles=handles, fontsize=8, frameon=False, loc="outside upper right", ncols=len(handles))
    return fig


WALL_CLOCK_FROM_MS = 946_684_800_000
"""Window starts from this one on (2000-01-01 UTC as epoch milliseconds) are drawn on a clock-time axis (UTC);
earlier ones (a trace timed from 0) in seconds."""

_FAILED_ALPHA = 0.25


def window_width(windows: Sequence[int]) -> int:
    """The window: the smallest gap between window starts (1 s when there is only one)."""
    gaps = [b - a for a, b in itertools.pairwise(sorted(set(windows))) if b > a]
    return min(gaps) if gaps else 1000


def plot_replay_timeline(
    traffic: Sequence[Mapping[str, Any]], broker_windows: Sequence[Mapping[str, Any]], modes: Sequence[str]
) -> Any:
    """One panel per mode: each broker's share of the sends per window (stacked) and the send rate (a line);
    below them, each broker's highest latency per window, its failed windows shaded."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    windows = sorted({r["window_ms"] for r in traffic} | {r["window_ms"] for r in broker_windows})
    width = window_width(windows)
    t0 = windows[0] if windows else 0
    end = windows[-1] + width if windows else 1000
    wall = t0 >= WALL_CLOCK_FROM_MS  # epoch milliseconds: a clock-time axis (UTC)
    if wall:
        from datetime import datetime, timezone

        from matplotlib import dates

        day0 = dates.date2num(datetime(1970, 1, 1, tzinfo=timezone.utc))

    def sec(ms: float) -> float:
        return day0 + ms / 86_400_000.0 if wall else (ms - t0) / 1000.0

    brokers = sorted({r["broker"] for r in traffic} | {r["broker"] for r in broker_windows})
    colors = _palette(brokers)
    latency = bool(broker_windows)
    panels = len(modes) + (1 if latency else 0)
    heights = [2.0] * len(modes) + ([2.6] if latency else [])
    fig = figure(11.0, sum(heights) + 0.9)
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

    extra: list[Any] = []
    failed_brokers: dict[str, None] = {}
    if latency:
        ax = axes[-1]
        positive = [r["max_latency_ms"] for r in broker_windows if r["max_latency_ms"] > 0]
        for broker in brokers:
            rows = sorted((r for r in broker_windows if r["broker"] == broker), key=lambda r: r["window_ms"])
            if not rows:
                continue
            xs = [sec(r["window_ms"]) for r in rows] + [sec(rows[-1]["window_ms"] + width)]
            ys = [r["max_latency_ms"] for r in rows] + [rows[-1]["max_latency_ms"]]
            ax.step(xs, ys, where="post", color=colors[broker], lw=1.5)
            for failed, run in itertools.groupby(rows, key=lambda r: r["failed"]):
                if failed:  # one shaded span per run of failed windows, in the broker's color
                    span = list(run)
                    ax.axvspan(sec(span[0]["window_ms"]), sec(span[-1]["window_ms"] + width), color=colors[broker],
                               alpha=_FAILED_ALPHA, lw=0)  # fmt: skip
                    failed_brokers.setdefault(broker, None)
        if positive and max(positive) / min(positive) >= 20:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_ylabel("max latency (ms)", fontsize=8)
        ax.set_title("broker latency per window (trace)", loc="left", fontsize=10)
        # the legend's swatch is the shading itself: the broker's color at the same alpha
        extra += [
            Patch(color=colors[b], alpha=_FAILED_ALPHA, lw=0, label=f"{b} failed (ok=false)") for b in failed_brokers
        ]
    if modes:
        extra.insert(0, Line2D([], [], color="black", lw=1.0, label="sends/s"))
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.set_xlim(sec(t0), sec(end))
    if wall:
        locator = dates.AutoDateLocator(tz=timezone.utc, minticks=5, maxticks=12)
        axes[-1].xaxis.set_major_locator(locator)
        axes[-1].xaxis.set_major_formatter(dates.DateFormatter("%H:%M:%S", tz=timezone.utc))
        first, last = (datetime.fromtimestamp(ms / 1000, tz=timezone.utc) for ms in (t0, end))
        day = first.strftime("%Y-%m-%d") + ("" if first.date() == last.date() else last.strftime(" to %Y-%m-%d"))
        axes[-1].set_xlabel(f"time (UTC, {day})")
    else:
        axes[-1].set_xlabel("seconds" if t0 == 0 else f"seconds since {t0:,} ms")
    _broker_legend(fig, colors, extra, loc="outside upper right", ncols=min(len(brokers) + len(extra), 8))
    return fig
