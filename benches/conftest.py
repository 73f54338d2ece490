"""Benchmarks run every case on both backends in one session, orjson-style: one ``LIBRARIES`` table,
one ``lib`` fixture parametrised over it, one benchmark group per operation, so pytest-benchmark prints
native and reference side by side and ``benches/ratios.py`` can turn the JSON into ratios.

These are not correctness tests: if the native backend is not built, its cases are skipped here
(the test suite in ``tests/`` is the one that fails on a missing native backend)."""

from __future__ import annotations

from types import ModuleType

import pytest

import rocketroute
import rocketroute.reference

LIBRARIES: dict[str, ModuleType | None] = {
    "native": rocketroute if rocketroute.BACKEND == "native" else None,
    "reference": rocketroute.reference,
}
"""Backend name -> the module that exposes it (``None``: not available in this environment)."""


@pytest.fixture(params=list(LIBRARIES))
def lib(request: pytest.FixtureRequest) -> ModuleType:
    module = LIBRARIES[request.param]
    if module is None:
        pytest.skip(f"native backend not available (rocketroute.BACKEND == {rocketroute.BACKEND!r}); run `make build`")
    return module
