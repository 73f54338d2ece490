"""The native module's stubs (``_native.pyi``) describe exactly what the extension exports."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import rocketroute

STUB = Path(rocketroute.__file__).with_name("_native.pyi")


def _stub_names() -> tuple[set[str], dict[str, set[str]]]:
    tree = ast.parse(STUB.read_text())
    top: set[str] = set()
    members: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top.add(node.name)
            names = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
            members[node.name] = names
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
    return top, members


@pytest.fixture(scope="module")
def native():
    if rocketroute.BACKEND != "native":
        pytest.fail("the native backend is not built; the stubs cannot be checked", pytrace=False)
    from rocketroute import _native

    return _native


def test_stub_lists_every_export_and_nothing_else(native):
    top, _ = _stub_names()
    exported = {n for n in dir(native) if not n.startswith("_")}
    assert {n for n in top if not n.startswith("_")} == exported
    assert all(hasattr(native, n) for n in top)  # the private ones declared (diagnostics hooks) exist too


def test_stub_members_exist_on_the_classes(native):
    _, members = _stub_names()
    for cls_name, names in members.items():
        cls = getattr(native, cls_name)
        public = {n for n in dir(cls) if not n.startswith("_")}
        declared = {n for n in names if not n.startswith("_") or n in ("__init__",)} - {"__init__"}
        assert declared == public, cls_name
        for dunder in names - declared - {"__init__"}:
            assert hasattr(cls, dunder), f"{cls_name}.{dunder}"


def test_stubtest_finds_no_difference(native, tmp_path):
    """mypy's stubtest compares every signature, default, property and ``@final`` of the stub with the extension."""
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is not installed; install the test extra (pip install -e '.[test]')", pytrace=False)
    # stubtest writes mypy's cache under the working directory unless a config file moves it
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\ncache_dir = {tmp_path / 'mypy_cache'}\n")
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "rocketroute._native", "--mypy-config-file", str(config)],
        cwd=Path(rocketroute.__file__).parent.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
