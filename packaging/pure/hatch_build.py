"""The pure-Python wheel's metadata and files, taken from the native build's: ``[project]`` of the checkout's
pyproject.toml (maturin's), the Cargo workspace's version, and every file of ``python/rocketroute`` that the
native wheel carries except the extension module itself (``_native.pyi`` stays: type checkers read it)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface

if sys.version_info >= (3, 11):
    import tomllib
else:  # hatchling depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "rocketroute"
# the [project] fields maturin's build reads from pyproject.toml; name and version are not among them
COPIED = ("description", "requires-python", "license", "classifiers", "dependencies", "optional-dependencies",
          "scripts")  # fmt: skip
# the native extension (built into the package by maturin develop) and what Python or a build leaves behind
_NOT_SHIPPED = re.compile(r"(^|/)__pycache__/|\.pyc$|(^|/)_native\.[^/]*\.(so|pyd)$|\.tmp$")


def cargo_version() -> str:
    """The Cargo workspace's version: what maturin gives the native wheel."""
    with open(ROOT / "Cargo.toml", "rb") as f:
        return str(tomllib.load(f)["workspace"]["package"]["version"])


def shipped_files() -> list[Path]:
    """The files of ``python/rocketroute`` the pure wheel carries, sorted."""
    return sorted(
        p for p in PACKAGE.rglob("*") if p.is_file() and not _NOT_SHIPPED.search(p.relative_to(PACKAGE).as_posix())
    )


class CustomMetadataHook(MetadataHookInterface):
    def update(self, metadata: dict[str, Any]) -> None:
        with open(ROOT / "pyproject.toml", "rb") as f:
            project = tomllib.load(f)["project"]
        if project["name"] != metadata["name"]:
            raise ValueError(f"packaging/pure names {metadata['name']!r}, pyproject.toml {project['name']!r}")
        metadata["version"] = cargo_version()
        for field in COPIED:
            if field in project:
                metadata[field] = project[field]
        readme = ROOT / project["readme"]
        metadata["readme"] = {"content-type": "text/markdown", "text": readme.read_text(encoding="utf-8")}


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            raise ValueError("packaging/pure builds the pure-Python wheel only; the sdist is maturin's")
        build_data["pure_python"] = True
        for path in shipped_files():
            build_data["force_include"][str(path)] = f"rocketroute/{path.relative_to(PACKAGE).as_posix()}"
