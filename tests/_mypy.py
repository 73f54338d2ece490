"""Run mypy over a snippet of user code, as a user's type checker sees the package: the package the tests import
(its stubs included) on the path, its own modules' errors not reported (as for any installed package), only the
snippet's. The cache outlives the test, so a second run takes about 2 s."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import rocketroute

PACKAGE = Path(rocketroute.__file__).parent


def run_mypy(tmp_path: Path, snippet: str, *flags: str, cache: str) -> subprocess.CompletedProcess[str]:
    """mypy with ``flags`` over ``snippet`` (written to ``tmp_path/snippet.py``); ``cache`` names its cache dir."""
    (tmp_path / "snippet.py").write_text(snippet)
    cache_dir = Path(tempfile.gettempdir()) / cache
    config = f"[mypy]\nmypy_path = {PACKAGE.parent}\ncache_dir = {cache_dir}\n\n"
    (tmp_path / "mypy.ini").write_text(config + "[mypy-rocketroute.*]\nfollow_imports = silent\n")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", *flags, "snippet.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
