"""The client's loggers, all under ``"rocketroute"``, and the ``NullHandler`` a library puts on its top logger.

With no logging configured, the ``NullHandler`` keeps the client's records from Python's last-resort handler
(which printed every WARNING as a bare line on stderr); an application that configures logging sees them as it
configures (``logging.basicConfig(level=logging.INFO)`` shows the starts, stops and rebalances). The handler is
added when the first module that logs is imported, never by ``import rocketroute`` alone (which stays the routing
core, without :mod:`logging`).
"""

from __future__ import annotations

import logging

__all__ = ["LOGGER_NAMES", "ROOT", "get_logger"]

ROOT = "rocketroute"

LOGGER_NAMES = {
    "client": "the shared client instance: route polls, heartbeats, its timers, the callback and listener threads",
    "producer": "producers: start, shutdown, route changes, route refreshes, transactions",
    "consumer": "consumers: start, shutdown, rebalances, pulls, offset commits, send-backs, queue locks",
    "net": "connections: malformed frames, peers that stop reading, TLS",
}
"""The parts of the client that log, each as the logger ``rocketroute.<part>``; docs/guide/logging.md says what each
logs at which level."""

logging.getLogger(ROOT).addHandler(logging.NullHandler())


def get_logger(part: str) -> logging.Logger:
    """The logger ``rocketroute.<part>`` of one of :data:`LOGGER_NAMES`; ``ValueError`` for another part (a new
    logger is added to that table, and documented, first)."""
    if part not in LOGGER_NAMES:
        raise ValueError(f"no rocketroute logger for {part!r}: the parts that log are {sorted(LOGGER_NAMES)}")
    return logging.getLogger(f"{ROOT}.{part}")
