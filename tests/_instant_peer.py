"""The instant peer (``rust/peer``, built by ``make peer``): a name server and broker in one process that answers
every send at once and stores nothing. Started on a free port and killed by pid."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BINARY = Path(__file__).resolve().parent.parent / "target" / "release" / "rocketroute-instant-peer"


@contextmanager
def instant_peer(*args: str) -> Iterator[str]:
    """``rocketroute-instant-peer serve *args``; yields its address. A missing binary fails (never skips)."""
    assert BINARY.is_file(), f"{BINARY} is missing: run `make peer` (make build builds it)"
    proc = subprocess.Popen([str(BINARY), "serve", *args], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("listening "), f"the instant peer did not start: {line!r}"
        yield line.split()[1]
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout:
            proc.stdout.close()
