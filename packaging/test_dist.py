"""The distributions a user installs: a manylinux2014 (glibc 2.17) abi3 wheel built with maturin's zig support and
checked by auditwheel, and an sdist; both carry the LICENSE. The wheel installs into a fresh virtual environment
with nothing else and gives the native backend and the ``rocketroute`` command.

``make test-dist`` builds them into ``target/dist-check`` and runs this file with ``ROCKETROUTE_DIST_DIR`` set;
run alone, the dists are built into a temporary folder first."""

from __future__ import annotations

import io
import math
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _cargo_version() -> str:
    cargo = (ROOT / "Cargo.toml").read_text()
    match = re.search(r'^version = "([^"]+)"', cargo[cargo.index("[workspace.package]") :], flags=re.M)
    assert match is not None
    return match.group(1)


@pytest.fixture(scope="module")
def dist_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    given = os.environ.get("ROCKETROUTE_DIST_DIR")
    if given:
        yield Path(given)
        return
    out = tmp_path_factory.mktemp("dist")
    env = dict(os.environ, PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    maturin = [sys.executable, "-m", "maturin"]
    build = [*maturin, "build", "--release", "--zig", "--compatibility", "manylinux2014", "--out", str(out)]
    subprocess.run(build, cwd=ROOT, env=env, check=True)
    subprocess.run([*maturin, "sdist", "--out", str(out)], cwd=ROOT, env=env, check=True)
    yield out


def _one(dist_dir: Path, pattern: str) -> Path:
    found = sorted(dist_dir.glob(pattern))
    assert len(found) == 1, f"{pattern} in {dist_dir}: {found}"
    return found[0]


def test_the_wheel_is_manylinux2014_abi3_and_auditwheel_agrees(dist_dir: Path) -> None:
    version = _cargo_version()
    wheel = _one(dist_dir, "*.whl")
    assert wheel.name == f"rocketroute-{version}-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    shown = subprocess.run(
        [str(BIN / "auditwheel"), "show", str(wheel)], capture_output=True, text=True, check=True
    ).stdout
    assert re.search(r'consistent with the following platform tag:\s*"manylinux_2_17_x86_64"', shown), shown
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(f"rocketroute-{version}.dist-info/METADATA").decode()
        license_text = z.read(f"rocketroute-{version}.dist-info/licenses/LICENSE").decode()
    assert "Apache License" in license_text and "Version 2.0" in license_text
    assert f"Version: {version}" in meta and "License: Apache-2.0" in meta
    assert "rocketroute/_native.abi3.so" in names and "rocketroute/_native.pyi" in names
    assert "rocketroute/py.typed" in names


UDF_JAR = "rocketroute/spark/jars/rocketroute-udf.jar"
UDF_CLASSES = {"io/rocketroute/udf/Profiles.class", "io/rocketroute/udf/HashIndex$OfString.class",
               "io/rocketroute/udf/HashIndex$OfLong.class", "io/rocketroute/udf/HashIndex$OfUtf8.class",
               "io/rocketroute/udf/ProfileIndex$GrpcSiphash.class",
               "io/rocketroute/udf/ProfileIndex$KafkaMurmur2.class"}  # fmt: skip


def _needs_the_jar() -> None:
    if shutil.which("javac") is None:  # built without a JDK: the wheel has no jar, the pipeline falls back
        pytest.skip("no javac here: the dists are built without the JVM UDF jar")


def test_the_wheel_carries_the_jvm_udf_jar(dist_dir: Path) -> None:
    _needs_the_jar()
    with zipfile.ZipFile(_one(dist_dir, "*.whl")) as z:
        assert UDF_JAR in z.namelist()
        with zipfile.ZipFile(io.BytesIO(z.read(UDF_JAR))) as jar:
            classes = set(jar.namelist())
    assert UDF_CLASSES <= classes, sorted(classes)


def test_the_sdist_carries_the_sources_and_the_license(dist_dir: Path) -> None:
    sdist = _one(dist_dir, "*.tar.gz")
    assert sdist.name == f"rocketroute-{_cargo_version()}.tar.gz"
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for path in ("LICENSE", "pyproject.toml", "Cargo.toml", "rust/core/src/lib.rs", "rust/python/src/lib.rs",
                 "python/rocketroute/__init__.py", "java/src/io/rocketroute/udf/Profiles.java"):  # fmt: skip
        assert path in names, path
    if shutil.which("javac") is not None:  # the built jar too, so a wheel built from the sdist carries it
        assert f"python/{UDF_JAR}" in names


def test_the_wheel_installs_alone_and_runs(dist_dir: Path, tmp_path: Path) -> None:
    wheel = _one(dist_dir, "*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], check=True)
    code = (
        "import rocketroute as rr;"
        "print(rr.BACKEND, rr.__version__, rr.java_string_hash('order-42'),"
        " rr.SelectMessageQueueByHash().select([rr.MessageQueue('T', 'b', i) for i in range(4)], None, 'k').queue_id)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("ROCKETROUTE_BACKEND", "PYTHONPATH")}
    done = subprocess.run([str(py), "-c", code], capture_output=True, text=True, check=True, env=env, cwd=tmp_path)
    k_queue = abs(int(math.fmod(_java_hash("k"), 4)))  # SelectMessageQueueByHash: abs(hashCode % n), Java's remainder
    assert done.stdout.split() == ["native", _cargo_version(), str(_java_hash("order-42")), str(k_queue)]
    version = subprocess.run(
        [str(venv / "bin" / "rocketroute"), "--version"], capture_output=True, text=True, check=True, env=env
    )
    assert version.stdout.strip() == f"rocketroute {_cargo_version()} (native backend)"
    if shutil.which("javac") is not None:  # installed where rocketroute.spark.jvm looks for it
        where = "import pathlib, rocketroute as rr; print((pathlib.Path(rr.__file__).parent / {!r}).is_file())"
        found = subprocess.run(
            [str(py), "-c", where.format(UDF_JAR.removeprefix("rocketroute/"))],
            capture_output=True, text=True, check=True, env=env, cwd=tmp_path,
        )  # fmt: skip
        assert found.stdout.strip() == "True"


def _java_hash(s: str) -> int:
    """Java's String.hashCode over UTF-16 code units (the test's own oracle)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i : i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h
