"""The progress lines and the summary of ``rocketroute bench-producer``, kept consistent by construction.

A run is cut into windows that follow each other without gap or overlap: a window ends at the clock reading its
line is printed for, and the next one starts there; the last one ends when the last sender stopped (or at Ctrl-C).
A window's line counts the messages acknowledged in it (each message of a batch counts once, with its batch's
response time) over the window's own length, so the summary's sent messages are the windows' added up, its
seconds the windows' lengths added up, its TPS their count-weighted mean and its response times those of every
window merged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from .bench_producer_run import _Stats

__all__ = ["Progress"]


class Progress:
    """The windows of one run that started at ``t0`` (``time.perf_counter()``), printed to ``out``."""

    def __init__(self, stats: _Stats, out: TextIO, t0: float) -> None:
        self._stats = stats
        self._out = out
        self.t0 = t0
        self.start = t0  # where the window in progress starts
        self._sent = 0
        self._failed = 0
        self.windows: list[dict[str, Any]] = []

    def line(self, end: float, *, print_empty: bool = True) -> None:
        """Close the window in progress at ``end`` and print its line (not when nothing was acknowledged or failed
        in it and ``print_empty`` is false: the run's end then stays where the last line put it)."""
        sent, failed, avg, p99, mx = self._stats.take_window()
        n, bad = sent - self._sent, failed - self._failed
        if not print_empty and n == 0 and bad == 0 and self.windows:
            return
        seconds = end - self.start
        tps = n / seconds if seconds > 0 else 0.0
        self.windows.append(
            {
                "end_s": end - self.t0,
                "seconds": seconds,
                "sent": n,
                "failed": bad,
                "tps": tps,
                "rt_ms": {"avg": avg, "p99": p99, "max": mx},
            }
        )
        print(
            f"[{end - self.t0:6.1f}s] Send TPS: {tps:,.0f}  RT avg: {avg:.2f} ms  p99: {p99:.2f} ms  "
            f"max: {mx:.2f} ms  sent: {sent:,}  failed: {failed:,}",
            file=self._out,
            flush=True,
        )
        self.start, self._sent, self._failed = end, sent, failed

    def summary(self, mode: str, size: int, *, interrupted: bool) -> dict[str, Any]:
        """The summary of the windows printed so far (print the last one first), printed and returned."""
        stats = self._stats
        sent, failed = self._sent, self._failed  # the last line's: every acknowledgement is in a window
        with stats.lock:
            errors = dict(stats.errors)
            rts = stats.total
            rt = {
                "avg": rts.mean,
                "p50": rts.percentile(0.50),
                "p99": rts.percentile(0.99),
                "p999": rts.percentile(0.999),
                "max": rts.max,
            }
        elapsed = self.start - self.t0  # where the last line ended
        tps = self._sent / elapsed if elapsed > 0 else 0.0
        summary: dict[str, Any] = {
            "mode": mode,
            "size": size,
            "seconds": round(elapsed, 3),
            "sent": sent,
            "failed": failed,
            "errors": errors,
            "tps": tps,
            "rt_ms": rt,
            "interrupted": interrupted,
            "windows": self.windows,
        }
        print(
            f"summary{' (interrupted)' if interrupted else ''}: {sent:,} sent, {failed:,} failed in {elapsed:.1f} s: "
            f"{tps:,.0f} msgs/s; RT ms avg {rt['avg']:.2f}, p50 {rt['p50']:.2f}, p99 {rt['p99']:.2f}, "
            f"p99.9 {rt['p999']:.2f}, max {rt['max']:.2f}" + (f"; errors: {errors}" if errors else ""),
            file=self._out,
            flush=True,
        )
        return summary
