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
