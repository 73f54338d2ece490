"""The package's import graph, read from its source with :mod:`ast` (nothing is imported): one edge per
``import`` or ``from ... import`` of a module of the package, at module level or inside a function, a class or a
``with``, ``if`` or ``try`` block; an import under ``if TYPE_CHECKING:`` is no edge (it never runs).
``tests/test_layers.py`` checks the layers and the cycles on it; docs/architecture.md draws it."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module
    imports: set[str] = field(default_factory=set)
    """The package's modules this one imports (the deepest module an import names that exists)."""
    external: set[str] = field(default_factory=set)
    """The top-level names of what it imports from outside the package (``asyncio``, ``socket``, ...)."""


def read_package(src: Path, package: str) -> dict[str, Module]:
    """Every module of ``src / package`` (``__init__.py`` stands for its package), with its imports."""
    modules: dict[str, Module] = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        name = ".".join(parts)
        modules[name] = Module(name, path, is_package, ast.parse(path.read_text(), str(path)))
    for module in modules.values():
        for target, names in _imports_of(module):
            top = target.partition(".")[0]
            if top != package:
                module.external.add(top)
                continue
            for alias in names:
                found = _deepest(f"{target}.{alias}", modules) if alias != "*" else None
                found = found or _deepest(target, modules)
                if found and found != module.name:
                    module.imports.add(found)
    return modules


def _deepest(name: str, modules: dict[str, Module]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports_of(module: Module) -> Iterator[tuple[str, list[str]]]:
    """``(module imported, names taken from it)`` for each import that runs."""
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    for node in _running(module.tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [""]
        else:
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield target, [a.name for a in node.names]


def _running(body: Iterable[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _running(node.orelse)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    yield from _running([child])
                elif isinstance(child, ast.excepthandler):
                    yield from _running(child.body)


def cycles(modules: dict[str, Module]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively): each is a set
    of modules that import one another, directly or through the others."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for start in modules:
        if start in index:
            continue
        work = [(start, iter(sorted(modules[start].imports)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(modules[child].imports))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found
