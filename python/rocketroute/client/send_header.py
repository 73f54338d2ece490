"""The send's request header moved to :mod:`rocketroute.remoting.headers.send`; this old import path stays."""

from __future__ import annotations

from ..remoting.headers import send as _send
from ..remoting.headers.send import *  # noqa: F403  (the old path: every public name of the new one)

__all__ = list(_send.__all__)
