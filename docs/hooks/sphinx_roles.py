"""Griffe extension (mkdocstrings' ``extensions`` option): the docstrings' Sphinx roles become links on the site.

The docstrings cross-reference with Sphinx roles (``:class:`~rocketroute.errors.ProducerClosedError```,
``:meth:`flush```, ``:mod:`.walkthrough```), which read well in ``help()`` and the IDEs and stay as they are in the
code. mkdocstrings' Sphinx style parses the fields (``:param x:``) but leaves inline roles as text, so the site
showed ``:class:`` before every name. Here, when the package is loaded and before any docstring is rendered, each
role is rewritten to an optional autorefs cross-reference whose title is the name in code: a link where the object
is rendered on some page (under any of its aliases), plain code where it is not (a private helper, an external
class), never a strict-mode warning.

Names resolve as Sphinx resolves them: ``~path`` shows only the last part, ``!name`` never links, ``title
<path>`` shows the title, ``.name`` and bare names are looked up from the documented object outwards (its
members, its class, its module and what the module imports), then as a full path, then beside its module.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?P<role>[a-z]+):`(?P<content>[^`]+)`")
"""An inline Sphinx role: ``:class:`Name```, also with the ``py:`` domain."""

_TITLED = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$")


def _target(obj: griffe.Object, name: str) -> str | None:
    """The canonical path of what ``name`` names from ``obj``'s docstring, or ``None`` when it is not loaded."""
    head, _, rest = name.partition(".")
    candidates = []
    try:
        candidates.append(obj.resolve(head) + (f".{rest}" if rest else ""))
    except griffe.NameResolutionError:
        pass
    module = obj if obj.is_module else obj.module
    candidates += [name, f"{module.path}.{name}"]
    if module.parent is not None:
        candidates.append(f"{module.parent.path}.{name}")
    for path in candidates:
        try:
            return obj.modules_collection[path].canonical_path
        except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            continue
    return None


def render_roles(obj: griffe.Object, text: str) -> str:
    """``text`` with each Sphinx role replaced by code, a cross-reference where ``obj``'s scope resolves it."""

    def replace(match: re.Match[str]) -> str:
        content = match["content"].strip()
        if titled := _TITLED.match(content):
            title, name = titled["title"], titled["target"]
        else:
            name = content.lstrip("!~")
            title = name.lstrip(".")
            if content.startswith("~"):
                title = title.rpartition(".")[2]
        code = f"<code>{html.escape(title)}</code>"
        path = None if content.startswith("!") else _target(obj, name.lstrip("~.").removesuffix("()"))
        if path is None:
            return code
        return f'<autoref identifier="{html.escape(path)}" optional>{code}</autoref>'

    return ROLE.sub(replace, text)


def _rewrite(obj: griffe.Object) -> None:
    if obj.docstring is not None:
        obj.docstring.value = render_roles(obj, obj.docstring.value)
    for member in obj.members.values():
        if not member.is_alias:
            _rewrite(member)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring in a package once it is loaded (aliases resolve by then)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        _rewrite(pkg)
