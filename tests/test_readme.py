"""The README's Python examples run, in order, on both backends (so the documentation cannot drift)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(_python_blocks()) >= 8


def test_readme_examples_run(backend):
    namespace: dict[str, object] = {}
    for i, block in enumerate(_python_blocks()):
        code = block.replace("import rocketroute as rr", "rr = backend").replace(
            "from rocketroute import batch", "batch = batch_module"
        )
        namespace["backend"] = backend
        namespace["batch_module"] = importlib.import_module(backend.__name__ + ".batch")
        try:
            exec(compile(code, f"README.md python block {i}", "exec"), namespace)
        except Exception as e:  # pragma: no cover - the message says which block broke
            raise AssertionError(f"README python block {i} failed on {backend.BACKEND}: {e!r}\n{block}") from e
    assert namespace["rr"] is backend
