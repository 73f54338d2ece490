"""A panic inside the native extension becomes a Python exception; the interpreter keeps running."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rocketroute

pytestmark = pytest.mark.skipif(rocketroute.BACKEND != "native", reason="panics exist in the native backend only")


@pytest.mark.parametrize("detached", [False, True], ids=["with-gil", "gil-released"])
def test_a_panic_is_raised_as_a_python_exception(detached):
    from rocketroute import _native

    with pytest.raises(BaseException, match="boom: 42") as info:
        _native._panic_for_tests("boom: 42", detached=detached)
    assert type(info.value).__name__ == "PanicException"
    assert not isinstance(info.value, Exception)  # a bug is not swallowed by `except Exception`
    # the extension still works afterwards
    assert rocketroute.java_string_hash("abc") == 96354


def test_a_panic_does_not_abort_the_process():
    code = (
        "from rocketroute import _native\n"
        "try:\n    _native._panic_for_tests('x', detached=True)\n"
        "except BaseException as e:\n    print(type(e).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "PanicException", done.stderr
