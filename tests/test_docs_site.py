"""The docs site as a reader gets it: ``mkdocs build --strict`` once for the module, then the built pages are read.

A fence the site's Markdown does not parse (```` ```python cluster ````: a fence's info string takes one word) is
not an error to MkDocs: the fence shows as text in a paragraph and the fences after it pair up wrongly, so the
rest of the page is mangled. Here every page's code blocks, counted by language, are the fences of its Markdown
(after the hooks that add some), no ``` is left in a page's text, and the hooks and the benchmark runs they read
stay out of the built site.

The reference pages read as a user expects: the docstrings' Sphinx roles (``:class:`X```) are links or code, not
text (docs/hooks/sphinx_roles.py); the routing names are headed by their public paths (``rocketroute.MessageQueue``,
not ``rocketroute._native``) without what PyO3 adds to a class; each page has one h1, its title; code in a table
cell never breaks inside a name (docs/stylesheets/extra.css and docs/hooks/table_code.py).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml

from .test_docs import ROOT, code_blocks, nav_pages

ROLE_TEXT = re.compile(r":(?:py:)?(?:class|meth|func|mod|attr|exc|data|obj|const|type):")
"""A Sphinx role as text on a page: what the docstrings' ``:class:`X``` showed before the roles were rendered."""

HEADING = re.compile(r"<h(?P<level>[1-6])\b[^>]*>(?P<inner>.*?)</h(?P=level)>", re.S)

BLOCK_LANGUAGE = re.compile(r'<div class="language-(?P<lang>[\w+-]+) highlight">')
"""A code block as pymdownx.highlight writes it (``pygments_lang_class: true`` in mkdocs.yml)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def built_page(site: Path, page: Path) -> Path:
    """Where MkDocs (directory URLs) writes a docs page."""
    name = page.relative_to(ROOT / "docs").with_suffix("")
    return site / ("index.html" if name.name == "index" else name / "index.html")


def _hooks() -> list[Any]:
    """mkdocs.yml's hook modules, loaded as MkDocs loads them."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    modules = []
    for path in config.get("hooks", []):
        spec = importlib.util.spec_from_file_location(f"_docs_hook_{Path(path).stem}", ROOT / path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    return modules


def fenced_blocks(markdown: str) -> Counter[str]:
    """The fenced code blocks of a page's Markdown by language, as its author meant them: ```` ```python cluster
    ```` opens a Python block here, whatever the site's Markdown makes of it."""
    return Counter(b.language for b in code_blocks(markdown))


class _Text(HTMLParser):
    """A page's text outside code (and outside scripts and styles), as a reader sees it."""

    SKIP = frozenset({"code", "pre", "script", "style"})

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.parts.append(data)


def page_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def test_the_site_builds_strictly(site: Path) -> None:
    """``make docs``: MkDocs in strict mode (a broken link, a missing page or a docstring the reference cannot
    render is an error), with the command line reference generated from the parser."""
    cli = built_page(site, ROOT / "docs" / "reference" / "cli.md").read_text()
    assert "rocketroute bench-producer" in cli and "--namesrv" in cli
    core = built_page(site, ROOT / "docs" / "reference" / "core.md").read_text()
    assert "AllocateMessageQueueAveragely" in core


def test_no_page_shows_a_fence_as_text(site: Path) -> None:
    shown = {
        str(page.relative_to(site)): text.count("```")
        for page in sorted(site.rglob("*.html"))
        if "```" in (text := page_text(page.read_text()))
    }
    assert shown == {}, "``` in the text of these pages (a fence the Markdown did not parse)"


def test_every_page_has_the_code_blocks_of_its_markdown(site: Path) -> None:
    """Per page and per language, the built code blocks are the Markdown's fences: a fence read as text or
    paired with the wrong one changes the count."""
    hooks = _hooks()
    wrong = {}
    for page in nav_pages():
        markdown = page.read_text()
        for hook in hooks:
            if hasattr(hook, "on_page_markdown"):
                markdown = hook.on_page_markdown(markdown, page=None, config=None, files=None)
        html = built_page(site, page).read_text()
        built = Counter(m["lang"] for m in BLOCK_LANGUAGE.finditer(html))
        if built != fenced_blocks(markdown):
            wrong[str(page.relative_to(ROOT))] = (dict(fenced_blocks(markdown)), dict(built))
    assert wrong == {}, "page: (fences in the Markdown, code blocks in the built page)"


def test_the_hooks_and_bench_runs_are_not_in_the_site(site: Path) -> None:
    """docs/hooks/*.py and docs/bench/*.json are build inputs: the hooks still run (the command line reference
    and the benchmark tables are on their pages) but the files are not published."""
    assert sorted(str(p.relative_to(site)) for p in site.rglob("*") if p.suffix in (".py", ".json")) == [
        "search/search_index.json"
    ]
    assert not (site / "hooks").exists() and not (site / "bench").exists()
    benchmarks = built_page(site, ROOT / "docs" / "benchmarks.md").read_text()
    assert "<!-- bench-tables -->" not in benchmarks and benchmarks.count("<table>") >= 3


def test_no_page_shows_a_sphinx_role_as_text(site: Path) -> None:
    """The docstrings' ``:class:`X```, ``:meth:`x```, ``:mod:`.x``` ... are rendered (a link, else code): none is
    left as ``:class:`` text before its name, and one resolves to the class it names on the page it is on."""
    shown = {
        str(page.relative_to(site)): len(found)
        for page in sorted(site.rglob("*.html"))
        if (found := ROLE_TEXT.findall(page_text(page.read_text())))
    }
    assert shown == {}, "Sphinx roles shown as text, per page"
    client = built_page(site, ROOT / "docs" / "reference" / "client.md").read_text()
    # Producer.shutdown's :class:`~rocketroute.errors.ProducerClosedError`, rendered further down the same page
    assert re.search(
        r'<a class="autorefs autorefs-internal"[^>]* href="#rocketroute\.errors\.ProducerClosedError">'
        r"<code>ProducerClosedError</code></a>",
        client,
    )


def test_the_routing_core_is_headed_by_public_names(site: Path) -> None:
    """``rocketroute.MessageQueue``, as the page tells users to import it, in every heading of the reference, and
    the native classes' members are their stubs' (no ``__doc__`` or ``__module__``, no ``str``'s docstring)."""
    private = {
        str(page.relative_to(ROOT)): [h["inner"] for h in HEADING.finditer(html) if "_native" in h["inner"]]
        for page in sorted((ROOT / "docs" / "reference").glob("*.md"))
        if "_native" in (html := built_page(site, page).read_text())
    }
    assert {page: found for page, found in private.items() if found} == {}
    core = built_page(site, ROOT / "docs" / "reference" / "core.md").read_text()
    assert 'id="rocketroute.MessageQueue"' in core and 'id="rocketroute.MessageQueue.compare_to"' in core
    assert "__doc__" not in core and "__module__" not in core and "str(object=" not in core


def test_every_page_has_one_h1_its_title(site: Path) -> None:
    """A section written ``#`` renders as a second page title (and MkDocs then shows no table of contents)."""
    wrong = {
        str(page.relative_to(ROOT)): n
        for page in nav_pages()
        if (n := len(re.findall(r"<h1\b", built_page(site, page).read_text()))) != 1
    }
    assert wrong == {}, "pages with other than one h1"


def test_code_in_table_cells_never_breaks_inside_a_name(site: Path) -> None:
    """The extra stylesheet is published and linked from every page, it keeps one-word code in a cell on one line,
    and the hook marks such code (a name) but not code with spaces (which wraps at its spaces)."""
    css = (site / "stylesheets" / "extra.css").read_text()
    assert re.search(r"table:not\(\[class\]\) code\.name\s*\{\s*white-space:\s*nowrap", css)
    unlinked = [
        str(page.relative_to(ROOT))
        for page in nav_pages()
        if "stylesheets/extra.css" not in built_page(site, page).read_text()
    ]
    assert unlinked == []
    fleets = built_page(site, ROOT / "docs" / "guide" / "mixed-fleets.md").read_text()
    assert '<code class="name">AllocateMessageQueueAveragely</code>' in fleets
    profiles = built_page(site, ROOT / "docs" / "guide" / "profiles.md").read_text()
    assert "<code>abs(key.hashCode() % n)</code>" in profiles
