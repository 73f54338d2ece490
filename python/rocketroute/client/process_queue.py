"""The old import path of :mod:`rocketroute.client.consumer.process_queue`: this name is that same module object."""

from __future__ import annotations

import importlib
import sys

# by its full name: the package also exports names that could shadow the submodule's
sys.modules[__name__] = importlib.import_module(f"{__package__}.consumer.process_queue")
