"""The old import path of :mod:`rocketroute.remoting.response_code` (the response codes, next to the request codes
now): this name is that same module object."""

from __future__ import annotations

import importlib
import sys

sys.modules[__name__] = importlib.import_module("rocketroute.remoting.response_code")
