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


CONSUMER_FRONT = frozenset(
    {
        f"rocketroute.client.consumer.{name}"
        for name in ("base", "push_base", "consumer", "lite_pull_base", "lite_pull_consumer")
    }
)
"""The consumers' front: :class:`ConsumerBase` (the state every consumer has), the push and lite pull bases (the
parts each builds at start) and the threaded ``Consumer`` and ``LitePullConsumer``. Every other module of
``client/consumer`` is a part or what the parts share. (A part importing ``Consumer`` from the package would close
an import cycle, which ``test_no_modules_import_one_another_in_a_cycle`` finds.)"""


def _reaches_the_consumer(module: Module, front: frozenset[str] = CONSUMER_FRONT) -> list[int]:
    """The lines of ``module`` that reach the consumer from a part: ``self.consumer`` (a bag of state handed in:
    128 reads of its private state when issue 54 was filed), or an import of the consumer's front (under
    ``TYPE_CHECKING`` too: a part typed against the consumer can read anything of it)."""
    lines = set()
    package = module.name if module.is_package else module.name.rsplit(".", 1)[0]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute) and node.attr == "consumer" and ast.unparse(node.value) == "self":
            lines.add(node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, *(node.module or "").split(".")]).strip(".")
            named = {f"{target}.{alias.name}" for alias in node.names}
            if {target, *named} & front:
                lines.add(node.lineno)
    return sorted(lines)


def test_the_consumer_s_parts_own_their_state_and_never_reach_the_consumer():
    """Each part gets its collaborators in its constructor (tests/client builds each alone: test_rebalancer,
    test_puller, test_consume_services, test_running_info (the direct consumption))."""
    parts = [m for m in MODULES.values() if m.name.startswith("rocketroute.client.consumer.")]
    assert len(parts) > 10
    reaching = {m.name: lines for m in parts if m.name not in CONSUMER_FRONT and (lines := _reaches_the_consumer(m))}
    assert CONSUMER_FRONT <= set(MODULES)  # the front is where it says
    assert reaching == {}


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


def test_a_part_reaching_the_consumer_is_found_by_attribute_and_by_import(tmp_path):
    modules = _package(
        tmp_path,
        {
            "__init__.py": "",
            "client/__init__.py": "",
            "client/consumer/__init__.py": "",
            "client/consumer/base.py": "",
            "client/consumer/part.py": """
                from typing import TYPE_CHECKING
                from .queue import Queue  # another part: fine
                if TYPE_CHECKING:
                    from .base import ConsumerBase
                from . import base
                class Part:
                    def __init__(self, queue):
                        self.queue = queue  # a collaborator: fine
                    def f(self):
                        return self.consumer._table, self.consumer._lock  # one line
                    def g(self):
                        return self.consumer.start()  # public, still the consumer
            """,
            "client/consumer/queue.py": """
                class Queue:
                    def f(self, consumer):
                        return consumer.group  # a plain name, not the part's own consumer
            """,
        },
    )
    front = frozenset({"pkg.client.consumer.base"})
    assert _reaches_the_consumer(modules["pkg.client.consumer.part"], front) == [5, 6, 11, 13]
    assert _reaches_the_consumer(modules["pkg.client.consumer.queue"], front) == []
