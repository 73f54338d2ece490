"""The one place the backend is chosen (as polars' ``_plr.py`` chooses its binary).

``ROCKETROUTE_BACKEND`` unset: the native extension (:mod:`rocketroute._native`) when it imports, else the pure-Python
reference (:mod:`rocketroute.reference`). ``=reference``: the reference. ``=native``: the extension, and an
:class:`ImportError` saying it is missing when it does not import. Any other value is an :class:`ImportError` too.

- ``BACKEND``: ``"native"`` or ``"reference"``;
- ``core``: the module the routing names of :mod:`rocketroute` come from (``__all__`` there is the one list);
- :func:`batch_module` / :func:`profiles_module`: where :mod:`rocketroute.batch` and :mod:`rocketroute.profiles`
  take their functions from (the extension itself, or the reference's ``batch`` / ``profiles``);
- :func:`native_twin`: the extension's Rust twin of a Python function (a private ``_name``), or ``None``;
- ``native_error``: why the extension did not import (``None`` when it did, or was not tried).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

ENV = "ROCKETROUTE_BACKEND"
CHOICES = ("native", "reference")


def _choose() -> tuple[str, ModuleType, ImportError | None]:
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted not in ("", *CHOICES):
        raise ImportError(f"{ENV} must be 'native' or 'reference', not {wanted!r}")
    error: ImportError | None = None
    if wanted != "reference":
        try:
            native = importlib.import_module("rocketroute._native")
        except ImportError as e:
            if wanted == "native":
                raise ImportError(
                    f"{ENV}=native, but the native extension rocketroute._native is missing or does not load "
                    f"({e}); build it (`make build`, or `maturin develop --release`), or unset {ENV} to use the "
                    "pure-Python reference"
                ) from e
            error = e
        else:
            return "native", native, None
    return "reference", importlib.import_module("rocketroute.reference"), error


BACKEND, core, native_error = _choose()


def native_twin(name: str) -> Any:
    """The native backend's twin of a Python function or class (``rocketroute._native.<name>``, written in Rust:
    the same results), or ``None`` on the reference backend, whose modules then use their own Python code."""
    return getattr(core, name, None) if BACKEND == "native" else None


def batch_module() -> ModuleType:
    """Where :mod:`rocketroute.batch` takes its functions from (imported when first asked: NumPy is optional)."""
    return core if BACKEND == "native" else importlib.import_module("rocketroute.reference.batch")


def profiles_module() -> ModuleType:
    """Where :mod:`rocketroute.profiles` takes its selectors from."""
    return core if BACKEND == "native" else importlib.import_module("rocketroute.reference.profiles")
