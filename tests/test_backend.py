"""Which backend is live, and that both expose the same API and the same exception classes."""

from __future__ import annotations

import pytest

import rocketroute
import rocketroute.errors as errors
import rocketroute.reference

from .conftest import ALLOW_NO_NATIVE_ENV, native_allowed_missing, native_missing_reason


def test_native_backend_is_live(backend_names):
    """CI must never fall back to the reference silently: ``import rocketroute`` gives the native backend."""
    if "native" not in backend_names:
        pytest.skip("--backends does not include native")
    if rocketroute.BACKEND != "native" and native_allowed_missing():
        pytest.skip(f"{ALLOW_NO_NATIVE_ENV}=1: {native_missing_reason()}")
    assert rocketroute.BACKEND == "native", native_missing_reason()


def test_backend_name(backend):
    assert backend.BACKEND in ("native", "reference")
    if backend is rocketroute.reference:
        assert backend.BACKEND == "reference"
    else:
        assert backend is rocketroute
        assert backend.BACKEND == "native"


def test_backend_exposes_the_reference_api(backend):
    missing = [name for name in rocketroute.reference.__all__ if not hasattr(backend, name)]
    assert not missing


def test_both_backends_raise_the_same_exception_classes(backend):
    for name in (
        "IllegalArgumentError",
        "IndexOutOfBoundsError",
        "JavaArithmeticError",
        "NullPointerError",
        "NumberFormatError",
        "RocketRouteError",
    ):
        assert getattr(backend, name) is getattr(errors, name)


def test_exception_classes_map_java_to_python():
    expected = {
        errors.IllegalArgumentError: ("java.lang.IllegalArgumentException", ValueError),
        errors.NumberFormatError: ("java.lang.NumberFormatException", errors.IllegalArgumentError),
        errors.JavaArithmeticError: ("java.lang.ArithmeticException", ZeroDivisionError),
        errors.NullPointerError: ("java.lang.NullPointerException", TypeError),
        errors.IndexOutOfBoundsError: ("java.lang.ArrayIndexOutOfBoundsException", IndexError),
    }
    for cls, (java_class, base) in expected.items():
        assert cls.java_class == java_class
        assert issubclass(cls, base)
        assert issubclass(cls, errors.RocketRouteError)
        assert errors.JAVA_EXCEPTIONS[java_class] is cls
    assert errors.SendFailedError.java_class == "org.apache.rocketmq.client.exception.MQClientException"


def test_compat_profiles(backend):
    assert tuple(backend.COMPAT_PROFILES) == ("5.3", "4.9")


def test_public_names_are_listed_once_and_every_backend_has_them():
    """``rocketroute.__all__`` is the one list: each name resolves, the routing names come from the chosen
    backend, and the reference exports no name the package lacks."""
    from rocketroute import _backend

    lazy = set(rocketroute._CLIENT_NAMES)
    for name in rocketroute.__all__:
        assert hasattr(rocketroute, name), name
    from_backend = [n for n in rocketroute.__all__ if n not in lazy and hasattr(_backend.core, n)]
    for name in from_backend:
        if isinstance(getattr(rocketroute, name), type) or callable(getattr(rocketroute, name)):
            assert getattr(rocketroute, name) is getattr(_backend.core, name), name
    assert set(rocketroute.reference.__all__) <= set(rocketroute.__all__)
    missing = [n for n in rocketroute.__all__ if n not in lazy and not hasattr(rocketroute.reference, n)]
    client_errors = {"AccessDeniedError", "AuthenticationError", "PermissionDeniedError", "ProducerClosedError"}
    assert set(missing) <= {
        "BrokerResponseError", "BrokerUnreachableError", "SendFailedError", "consumer_defaults",
        "lite_pull_consumer_defaults", *client_errors
    }  # fmt: skip
    assert len(rocketroute.__all__) == len(set(rocketroute.__all__))


def _package_without_the_extension(tmp_path):
    """A copy of the ``rocketroute`` sources without the built extension, as a checkout that was never built."""
    import shutil
    from pathlib import Path

    src = Path(rocketroute.__file__).parent
    shutil.copytree(src, tmp_path / "rocketroute", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    return tmp_path


def _import_in_child(path, env_value, code="import rocketroute; print(rocketroute.BACKEND)"):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "ROCKETROUTE_BACKEND"}
    env["PYTHONPATH"] = str(path)
    if env_value is not None:
        env["ROCKETROUTE_BACKEND"] = env_value
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_native_requested_without_the_extension_says_it_is_missing(tmp_path):
    path = _package_without_the_extension(tmp_path)
    done = _import_in_child(path, "native")
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ROCKETROUTE_BACKEND=native, but the native extension rocketroute._native")
    assert "make build" in last and "circular" not in done.stderr


def test_without_the_extension_the_reference_serves_every_module(tmp_path):
    path = _package_without_the_extension(tmp_path)
    code = (
        "import rocketroute, rocketroute.batch, rocketroute.profiles;"
        "print(rocketroute.BACKEND, rocketroute.MessageQueue.__module__,"
        " rocketroute.batch.java_string_hashes(['a']).tolist(), rocketroute.profiles.ProfileSelector.__module__)"
    )
    done = _import_in_child(path, None, code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "reference",
        "rocketroute.reference.message_queue",
        "[97]",
        "rocketroute.reference.profiles",
    ]
    bad = _import_in_child(path, "fast")
    assert "ROCKETROUTE_BACKEND must be 'native' or 'reference', not 'fast'" in bad.stderr


def test_version_is_the_cargo_workspace_version_and_the_cli_prints_it():
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    cargo = (Path(__file__).resolve().parents[1] / "Cargo.toml").read_text()
    section = cargo[cargo.index("[workspace.package]") :]
    match = re.search(r'^version = "([^"]+)"', section, flags=re.M)
    assert match is not None
    want = match.group(1)
    assert rocketroute.__version__ == want
    env = {k: v for k, v in os.environ.items() if k != "ROCKETROUTE_BACKEND"}  # the backend this process has
    done = subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "--version"], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"rocketroute {want} ({rocketroute.BACKEND} backend)"
