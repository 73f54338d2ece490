"""``report``: one self-contained HTML page from the small aggregate outputs of ``route``, ``plan`` and ``replay``.

The page has no external references: the plots are PNGs rendered with matplotlib's Agg canvas and embedded as
``data:`` URIs, the style sheet is inline, and there is no script. Only the jobs' JSON files are read (their
``summary.json`` and the records of :mod:`rocketroute.spark.aggregates`): no Spark session is needed. The
output is deterministic: the same inputs give the same bytes.

Four parts: :mod:`.load` reads and checks the files (an error names the file), :mod:`.verdict` draws the
conclusions at the top of the page (sentences with their numbers, by rules its docstring states),
:mod:`.plots` draws the figures, :mod:`.page` assembles the HTML. Importing this package imports neither
matplotlib nor Spark.
"""

from __future__ import annotations

from .page import render_report, write_report

__all__ = ["render_report", "write_report"]
