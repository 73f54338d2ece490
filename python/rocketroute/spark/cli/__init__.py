"""The Spark pipeline's commands of the ``rocketroute`` command line (:mod:`rocketroute.cli`): one module per
command (:mod:`.route`, :mod:`.plan`, :mod:`.replay`, :mod:`.report`, :mod:`.demo`, :mod:`.bench_spark`), each with
its ``cmd_*`` function and an ``add_parser``; what they share is in :mod:`.common` and :mod:`.inputs`. Importing
them imports neither pyspark nor matplotlib: a command that needs one says so in one line when it is missing.

The command line itself (``main``, ``build_parser``) and the commands that need no Spark (``bench-producer``, the
live ``plan --namesrv``) are :mod:`rocketroute.cli`'s; the names this package had before (``main``,
``build_parser``, ``COMMANDS``, ``DESCRIPTION``, ``INTERRUPTED``) are that package's, and
``rocketroute.spark.cli.bench_producer`` is :mod:`rocketroute.cli.bench_producer`.
"""

from __future__ import annotations

from typing import Any

_MOVED = ("COMMANDS", "DESCRIPTION", "INTERRUPTED", "build_parser", "main")


def __getattr__(name: str) -> Any:
    if name in _MOVED:  # imported when asked for: rocketroute.cli imports this package's command modules
        import rocketroute.cli

        return getattr(rocketroute.cli, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
