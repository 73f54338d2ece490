"""The old path of :mod:`rocketroute.examples.walkthrough`: ``python -m rocketroute.walkthrough`` still runs it,
and importing this name gives that same module object."""

from __future__ import annotations

import importlib
import sys

_walkthrough = importlib.import_module("rocketroute.examples.walkthrough")

if __name__ == "__main__":
    sys.exit(_walkthrough.main())
else:
    sys.modules[__name__] = _walkthrough
