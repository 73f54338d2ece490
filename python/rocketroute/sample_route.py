"""The old import path of :mod:`rocketroute.examples.sample_route`: this name is that same module object."""

from __future__ import annotations

import importlib
import sys

sys.modules[__name__] = importlib.import_module("rocketroute.examples.sample_route")
