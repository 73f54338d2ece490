"""The distributions a user installs: a manylinux2014 (glibc 2.17) abi3 wheel built with maturin's zig support and
checked by auditwheel, the pure-Python wheel (``py3-none-any``, the reference backend, built by hatchling from
``packaging/pure``) and an sdist; all carry the LICENSE. Each wheel installs into a fresh virtual environment with
nothing else and gives its backend and the ``rocketroute`` command; pip picks the native wheel where it fits and the
pure one elsewhere.

``make test-dist`` builds them into ``target/dist-check`` and runs this file with ``ROCKETROUTE_DIST_DIR`` set;
run alone, the dists are built into a temporary folder first."""

from __future__ import annotations

import email.parser
import io
import json
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
    pure = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "packaging/pure", "-w", str(out)]
    subprocess.run(pure, cwd=ROOT, env=env, check=True)
    yield out


def _one(dist_dir: Path, pattern: str) -> Path:
    found = sorted(dist_dir.glob(pattern))
    assert len(found) == 1, f"{pattern} in {dist_dir}: {found}"
    return found[0]


NATIVE = "*-abi3-*.whl"
PURE = "*-py3-none-any.whl"


def test_the_wheel_is_manylinux2014_abi3_and_auditwheel_agrees(dist_dir: Path) -> None:
    version = _cargo_version()
    wheel = _one(dist_dir, NATIVE)
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
    with zipfile.ZipFile(_one(dist_dir, NATIVE)) as z:
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
                 "python/rocketroute/__init__.py", "java/src/io/rocketroute/udf/Profiles.java",
                 "java/provided/org/apache/spark/sql/api/java/UDF2.java", "rust/python/build.rs"):  # fmt: skip
        assert path in names, path
    if shutil.which("javac") is not None:  # the built jar too, so a wheel built from the sdist carries it
        assert f"python/{UDF_JAR}" in names


def _install_alone(wheel: Path, where: Path) -> tuple[Path, dict[str, str]]:
    """``wheel`` installed into a fresh venv with nothing else: its python, and an environment with no
    ``ROCKETROUTE_BACKEND`` (the backend is the one the wheel gives) and no ``PYTHONPATH``."""
    venv = where / "venv"
    # no pip in it (ensurepip is most of a venv's making): this pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-deps", "--no-index"]
    subprocess.run([*install, str(wheel)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("ROCKETROUTE_BACKEND", "PYTHONPATH")}
    return py, env


def _runs(py: Path, env: dict[str, str], where: Path) -> tuple[list[str], str]:
    """What the installed package answers (backend, version, a hash and a routing call) and what its console
    script says to ``--version``."""
    code = (
        "import rocketroute as rr;"
        "print(rr.BACKEND, rr.__version__, rr.java_string_hash('order-42'),"
        " rr.SelectMessageQueueByHash().select([rr.MessageQueue('T', 'b', i) for i in range(4)], None, 'k').queue_id)"
    )
    done = subprocess.run([str(py), "-c", code], capture_output=True, text=True, check=True, env=env, cwd=where)
    script = py.parent / "rocketroute"
    version = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True, env=env)
    return done.stdout.split(), version.stdout.strip()


def _expected_answers(backend: str) -> list[str]:
    k_queue = abs(int(math.fmod(_java_hash("k"), 4)))  # SelectMessageQueueByHash: abs(hashCode % n), Java's remainder
    return [backend, _cargo_version(), str(_java_hash("order-42")), str(k_queue)]


def _has_the_jar(py: Path, env: dict[str, str], where: Path) -> bool:
    """Whether the UDF jar is installed where rocketroute.spark.jvm looks for it."""
    code = "import pathlib, rocketroute as rr; print((pathlib.Path(rr.__file__).parent / {!r}).is_file())"
    found = subprocess.run(
        [str(py), "-c", code.format(UDF_JAR.removeprefix("rocketroute/"))],
        capture_output=True, text=True, check=True, env=env, cwd=where,
    )  # fmt: skip
    return found.stdout.strip() == "True"


def test_the_wheel_installs_alone_and_runs(dist_dir: Path, tmp_path: Path) -> None:
    py, env = _install_alone(_one(dist_dir, NATIVE), tmp_path)
    answers, version = _runs(py, env, tmp_path)
    assert answers == _expected_answers("native")
    assert version == f"rocketroute {_cargo_version()} (native backend)"
    if shutil.which("javac") is not None:
        assert _has_the_jar(py, env, tmp_path)


def _wheel_files(wheel: Path) -> set[str]:
    """The wheel's files, less the ones each build backend writes its own way (WHEEL, RECORD) and the SBOM of the
    Rust crates that maturin adds (the pure wheel has none of them)."""
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    own_way = {n for n in names if n.endswith((".dist-info/WHEEL", ".dist-info/RECORD")) or ".dist-info/sboms/" in n}
    return names - own_way


def test_the_pure_wheel_is_the_native_one_less_the_extension(dist_dir: Path) -> None:
    version = _cargo_version()
    pure = _one(dist_dir, PURE)
    assert pure.name == f"rocketroute-{version}-py3-none-any.whl"
    native_files = _wheel_files(_one(dist_dir, NATIVE))
    assert "rocketroute/_native.abi3.so" in native_files
    assert _wheel_files(pure) == native_files - {"rocketroute/_native.abi3.so"}
    with zipfile.ZipFile(pure) as z:
        wheel_meta = z.read(f"rocketroute-{version}.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: true" in wheel_meta and "Tag: py3-none-any" in wheel_meta, wheel_meta


def _metadata(wheel: Path) -> dict[str, object]:
    """The core metadata fields that say what the project is and needs, normalised (maturin and hatchling spell
    requirements and markers their own ways)."""
    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(z.read(name).decode())
    single = ("Name", "Version", "Summary", "License", "Requires-Python")
    fields: dict[str, object] = {f: meta.get(f) for f in single}
    # maturin adds "; charset=UTF-8; variant=GFM", what text/markdown means to PyPI anyway (hatchling refuses them)
    fields["Description-Content-Type"] = str(meta.get("Description-Content-Type", "")).split(";")[0]
    fields["Classifier"] = sorted(meta.get_all("Classifier") or [])
    fields["Provides-Extra"] = sorted(meta.get_all("Provides-Extra") or [])
    fields["Requires-Dist"] = sorted(str(Requirement(r)) for r in meta.get_all("Requires-Dist") or [])
    fields["body"] = meta.get_payload().strip()
    return fields


def test_the_pure_wheel_has_the_native_wheels_metadata(dist_dir: Path) -> None:
    native, pure = _metadata(_one(dist_dir, NATIVE)), _metadata(_one(dist_dir, PURE))
    assert native["Version"] == _cargo_version() and native["Requires-Dist"]
    assert pure == native


def test_the_pure_wheel_installs_alone_and_runs_the_reference(dist_dir: Path, tmp_path: Path) -> None:
    py, env = _install_alone(_one(dist_dir, PURE), tmp_path)
    answers, version = _runs(py, env, tmp_path)
    assert answers == _expected_answers("reference")  # the same answers as the native wheel's, by the reference
    assert version == f"rocketroute {_cargo_version()} (reference backend)"
    if shutil.which("javac") is not None:
        assert _has_the_jar(py, env, tmp_path)


def _pip_picks(dist_dir: Path, where: Path, *platform: str) -> str:
    """The file pip would install for ``rocketroute`` from ``dist_dir`` alone (a dry run; ``platform``: the pip
    options of another platform)."""
    report = where / "report.json"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps", "--no-index",
         "--quiet", "--find-links", str(dist_dir), "--report", str(report), *platform, "rocketroute"],
        check=True,
    )  # fmt: skip
    installs = json.loads(report.read_text())["install"]
    assert len(installs) == 1, installs
    return str(installs[0]["download_info"]["url"]).rsplit("/", 1)[-1]


def test_pip_prefers_the_native_wheel_and_takes_the_pure_one_elsewhere(dist_dir: Path, tmp_path: Path) -> None:
    assert _pip_picks(dist_dir, tmp_path) == _one(dist_dir, NATIVE).name
    # a platform no native wheel here fits (and no sdist build wanted): the pure wheel
    elsewhere = ("--only-binary=:all:", "--platform", "macosx_11_0_arm64", "--target", str(tmp_path / "t"))
    assert _pip_picks(dist_dir, tmp_path, *elsewhere) == _one(dist_dir, PURE).name


def _java_hash(s: str) -> int:
    """Java's String.hashCode over UTF-16 code units (the test's own oracle)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i : i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h
