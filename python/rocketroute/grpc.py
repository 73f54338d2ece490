"""The old import path of :mod:`rocketroute.integrations.grpc` (the drop-in for the official Python 5.x client):
``rocketroute.grpc`` is that same module object, so ``from rocketroute import grpc`` and
``import rocketroute.grpc`` keep working and share its state."""

from __future__ import annotations

import sys

from .integrations import grpc as _grpc

sys.modules[__name__] = _grpc
