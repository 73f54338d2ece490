"""Shared pytest setup: the ``backend`` fixture (native and reference) and the ``--vectors`` directory.

Every behavioural test takes ``backend``, so it runs once against the native module (the top-level
``rocketroute`` package when ``rocketroute.BACKEND == "native"``) and once against ``rocketroute.reference``.
A requested native backend that is not importable makes its tests fail, never skip: CI must not fall back
silently. ``ROCKETROUTE_ALLOW_NO_NATIVE=1`` (a developer without a Rust toolchain) turns those failures into
skips.
"""

from __future__ import annotations

import importlib
import os

import pytest
from hypothesis import HealthCheck, settings

# Native detection must see the package pick its backend by itself: with ROCKETROUTE_BACKEND=reference the
# top-level package would report "reference" even when the extension is built.
_BACKEND_ENV = os.environ.pop("ROCKETROUTE_BACKEND", None)

import rocketroute  # noqa: E402
import rocketroute.reference  # noqa: E402

if _BACKEND_ENV is not None:
    os.environ["ROCKETROUTE_BACKEND"] = _BACKEND_ENV

BACKENDS = ("native", "reference")
ALLOW_NO_NATIVE_ENV = "ROCKETROUTE_ALLOW_NO_NATIVE"

settings.register_profile(
    "rocketroute",
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# `make fuzz`: many more examples for the property and differential tests (ROCKETROUTE_FUZZ_EXAMPLES to change)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("ROCKETROUTE_FUZZ_EXAMPLES", "20000")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "rocketroute"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rocketroute")
    group.addoption(
        "--vectors",
        action="store",
        default=None,
        metavar="DIR",
        help="directory of golden vector files (NAME.jsonl or NAME.jsonl.gz); default: tests/conformance/vectors",
    )
    group.addoption(
        "--backends",
        action="store",
        default=",".join(BACKENDS),
        metavar="LIST",
        help="comma-separated backends to test: native, reference (default: native,reference)",
    )


def requested_backends(config: pytest.Config) -> list[str]:
    names = [n.strip() for n in str(config.getoption("backends")).split(",") if n.strip()]
    unknown = [n for n in names if n not in BACKENDS]
    if unknown or not names:
        raise pytest.UsageError(f"--backends takes a comma-separated subset of {BACKENDS}, got {names!r}")
    return list(dict.fromkeys(names))


def pytest_configure(config: pytest.Config) -> None:
    requested_backends(config)  # a bad --backends value is a usage error before collection


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        names = requested_backends(metafunc.config)
        metafunc.parametrize("backend", names, indirect=True, ids=names)


def native_missing_reason() -> str:
    """Why ``rocketroute`` is not the native backend, for the failure message."""
    why = f"rocketroute.BACKEND is {rocketroute.BACKEND!r}"
    try:
        importlib.import_module("rocketroute._native")
    except ImportError as e:
        why += f"; importing rocketroute._native failed: {e}"
    else:
        why += "; rocketroute._native imports, yet the package did not pick it"
    if _BACKEND_ENV is not None:
        why += f" (ROCKETROUTE_BACKEND was {_BACKEND_ENV!r})"
    return (
        f"the native backend was requested but is not available: {why}. Build it (make build / maturin "
        f"develop), or run with --backends reference, or set {ALLOW_NO_NATIVE_ENV}=1 to skip native tests."
    )


def native_allowed_missing() -> bool:
    return os.environ.get(ALLOW_NO_NATIVE_ENV, "") == "1"


@pytest.fixture(scope="session")
def backend_names(pytestconfig: pytest.Config) -> list[str]:
    """The backends this run tests (``--backends``)."""
    return requested_backends(pytestconfig)


@pytest.fixture(scope="session")
def backend(request: pytest.FixtureRequest):
    """The backend module under test: ``rocketroute`` (native) or ``rocketroute.reference``."""
    name = request.param
    if name == "reference":
        return rocketroute.reference
    assert name == "native", name
    if rocketroute.BACKEND == "native":
        return rocketroute
    reason = native_missing_reason()
    if native_allowed_missing():
        pytest.skip(f"{ALLOW_NO_NATIVE_ENV}=1: {reason}")
    pytest.fail(reason, pytrace=False)
