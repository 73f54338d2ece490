"""The ``rocketroute`` command: the pipeline's jobs on Spark (local by default).

The command line lives in :mod:`rocketroute.spark.cli` (one module per command); this module keeps the entry point
(``rocketroute = "rocketroute.cli:main"``) and ``python -m rocketroute.cli ...``.
"""

from __future__ import annotations

import sys

from .spark.cli import build_parser, main

__all__ = ["build_parser", "main"]

if __name__ == "__main__":
    sys.exit(main())
