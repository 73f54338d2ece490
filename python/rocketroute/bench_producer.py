"""The old import path of :mod:`rocketroute.cli.bench_producer_run` (the producer benchmark, now in the command
line's package): this name is that same module object."""

from __future__ import annotations

import importlib
import sys

sys.modules[__name__] = importlib.import_module("rocketroute.cli.bench_producer_run")
