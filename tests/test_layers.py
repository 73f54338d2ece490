"""The package's layers, checked on its source (docs/architecture.md draws them): each layer imports only the
layers below it, ``protocol/`` does no I/O, one module reaches the event loop from other threads, no module
stands in for another, and no modules import one another in a cycle."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from ._imports import Module, cycles, read_package

SRC = Path(__file__).resolve().parent.parent / "python"
MODULES = read_package(SRC, "rocketroute")

ABOVE = {
    # layer -> the layers above it, which it never imports (docs/architecture.md, bottom to top)
    "reference": ("protocol", "net", "client", "aio", "integrations", "cli", "spark", "examples"),
    "protocol": ("net", "client", "aio", "integrations", "cli", "spark", "examples"),
    "net": ("client", "aio", "integrations", "cli", "spark", "examples"),
    "client": ("aio", "integrations", "cli", "spark", "examples"),
    "aio": ("integrations", "cli", "spark", "examples"),
}
IO = {"asyncio", "socket", "ssl", "selectors", "concurrent", "threading"}
"""What ``protocol/`` never imports: it encodes and decodes, the network is ``net/``'s."""
APPS = ("integrations", "cli", "spark", "examples")
"""The top layer: what users run, over the others."""
FACADES = {"rocketroute.reference"}
"""The reference backend's namespace (``reference/__init__.py``): the same names as :mod:`rocketroute`, so it
re-exports the shared ones, the response codes included; the reference's modules themselves stay below."""
LOOP_FROM_OTHER_THREADS = {"rocketroute.net.runtime", "rocketroute.net.caller_loops"}


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and MODULES[name].is_package) else "(top)"


def _in(layer: str) -> list[Module]:
    return [m for m in MODULES.values() if _layer(m.name) == layer]


def test_every_subpackage_has_a_layer_and_the_architecture_page_places_it():
    subpackages = {m.name.split(".")[1] for m in MODULES.values() if m.is_package and m.name.count(".") == 1}
    assert subpackages == {*ABOVE, *APPS}
    page = (SRC.parent / "docs" / "architecture.md").read_text()
    table = [line for line in page.splitlines() if line.startswith("| ")]
    assert [name for name in sorted(subpackages) if not any(f"`{name}/`" in row for row in table)] == []


def test_the_graph_is_read_from_the_whole_package():
    assert len(MODULES) > 120
    assert "rocketroute.net.transport" in MODULES["rocketroute.net.runtime"].imports
    assert "rocketroute.client.producer.base" in MODULES["rocketroute.aio.producer"].imports
    assert "asyncio" in MODULES["rocketroute.net.runtime"].external


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_a_layer_never_imports_a_layer_above_it(layer):
    wrong = sorted(
        f"{m.name} imports {target}"
        for m in _in(layer)
        if m.name not in FACADES
        for target in m.imports
        if _layer(target) in ABOVE[layer]
    )
    assert _in(layer) and wrong == []


def test_the_protocol_does_no_io():
    wrong = sorted(f"{m.name} imports {name}" for m in _in("protocol") for name in m.external & IO)
    assert _in("protocol") and wrong == []


def test_only_the_runtime_hands_coroutines_to_the_loop_from_other_threads():
    calls = sorted(
        m.name
        for m in MODULES.values()
        for node in ast.walk(m.tree)
        if isinstance(node, ast.Attribute) and node.attr == "run_coroutine_threadsafe"
    )
    assert calls and set(calls) <= LOOP_FROM_OTHER_THREADS, calls


def test_no_module_stands_in_for_another():
    """``sys.modules[__name__] = ...`` made an old path the new module: a name with two homes."""
    aliases = sorted(
        m.name
        for m in MODULES.values()
        for node in ast.walk(m.tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Subscript) and ast.unparse(target) == "sys.modules[__name__]"
    )
    assert aliases == []


def test_only_a_package_re_exports_what_it_imports():
    """A module that imports names only to hand them on (``# noqa: F401``) gives them a second home: its importers
    take them from where they live (spark/cli/common.py handed on cli/args.py's until this was written)."""
    handing_on = sorted(m.name for m in MODULES.values() if not m.is_package and "noqa: F401" in m.path.read_text())
    assert handing_on == []


def test_no_modules_import_one_another_in_a_cycle():
    assert cycles(MODULES) == []


MAX_LINES = 600


def test_no_module_is_over_600_lines():
    """A module over :data:`MAX_LINES` holds more than one thing: split it (issue 54 split the producer, 894, into
    its lifecycle, its sender and the user's methods)."""
    sizes = {m.name: len(m.path.read_text().splitlines()) for m in MODULES.values()}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_every_module_says_what_it_holds():
    # a split leaves no placeholder behind (a963a6e left two modules with a docstring of "x")
    bare = [m.name for m in MODULES.values() if len(ast.get_docstring(m.tree) or "") < 20]
    assert bare == []


CONSUMER_PARTS = ("coordinator", "rebalance", "puller", "consume_service", "consume_concurrently", "consume_orderly")
STATE_READS_LEFT = {
    "coordinator": 26,
    "rebalance": 48,
    "puller": 0,  # built at start with what it needs (tests/client/test_puller.py builds one alone)
    "consume_service": 0,  # the consume services too (tests/client/test_consume_services.py)
    "consume_concurrently": 0,
    "consume_orderly": 0,
}
"""Lines of each consumer part that reach into the Consumer's private state (``self.consumer._x``): 128 when
issue 54 was filed, none once each part owns its state. A count may fall, never rise."""


def _state_reads(module: Module) -> int:
    return len(
        {
            node.lineno
            for node in ast.walk(module.tree)
            if isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and ast.unparse(node.value) == "self.consumer"
        }
    )


def test_the_consumer_s_parts_reach_into_its_state_no_more_than_before():
    reads = {part: _state_reads(MODULES[f"rocketroute.client.consumer.{part}"]) for part in CONSUMER_PARTS}
    assert {part: n for part, n in reads.items() if n > STATE_READS_LEFT[part]} == {}
    assert sum(reads.values()) > 0  # the day it is 0 the rule becomes "none", and this table goes


# -- the checks can fail: the same functions on a package made for it ----------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, Module]:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return read_package(tmp_path, "pkg")


def test_a_cycle_through_a_function_level_import_is_found_and_one_under_type_checking_is_not(tmp_path):
    modules = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from . import b\n",
            "b.py": "def f():\n    from .sub.c import g\n",
            "sub/__init__.py": "",
            "sub/c.py": "import asyncio\nfrom ..a import x\n",
            "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .e import y\n",
            "e.py": "try:\n    import socket\nexcept ImportError:\n    from .d import z\n",
        },
    )
    assert modules["pkg.b"].imports == {"pkg.sub.c"}
    assert modules["pkg.sub.c"].external == {"asyncio"}
    assert modules["pkg.d"].imports == set() and modules["pkg.e"].imports == {"pkg.d"}
    assert cycles(modules) == [["pkg.a", "pkg.b", "pkg.sub.c"]]


def test_a_part_reading_the_consumer_s_state_is_counted_once_a_line(tmp_path):
    modules = _package(
        tmp_path,
        {
            "__init__.py": "",
            "part.py": """
                class Part:
                    def f(self):
                        return self.consumer._table, self.consumer._lock  # one line
                    def g(self):
                        self.consumer.start()  # public: not state
                        return self.consumer._subs
            """,
        },
    )
    assert _state_reads(modules["pkg.part"]) == 2
