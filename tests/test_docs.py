"""The documentation's Python examples run: every ```python block of the docs site (pages in the order of
mkdocs.yml's nav, one namespace, as a reader goes through them) and of the README, on both backends, so the
documentation cannot drift. A block that needs real servers is tagged by an HTML comment on the line before its
fence, ``<!-- test: cluster -->`` (or ``bp-cluster``, ``tls-cluster``, ...): the page renders it as a plain Python
block (a fence's info string takes one word; ```` ```python cluster ```` is not a fence to the site's Markdown), and
the tests in tests/cluster run it by its tag."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def nav_pages() -> list[Path]:
    """The docs pages in mkdocs.yml's nav order."""
    text = (ROOT / "mkdocs.yml").read_text()
    nav = text[text.index("\nnav:") :]
    return [ROOT / "docs" / m for m in re.findall(r":\s*(\S+\.md)\s*$", nav, flags=re.M)]


PYTHON_BLOCK = re.compile(r"^(?:<!-- test: (?P<tag>[a-z0-9-]+) -->\n)?```python\n(?P<code>.*?)^```$", re.S | re.M)
"""A ```python fence, with the test tag of the ``<!-- test: TAG -->`` line just before it, if any."""


def python_blocks(path: Path, tag: str | None = None) -> list[str]:
    """The code of the page's ```python blocks tagged ``tag`` (the untagged ones, which run here, by default)."""
    return [m["code"] for m in PYTHON_BLOCK.finditer(path.read_text()) if m["tag"] == tag]


def test_every_page_is_in_the_nav_and_exists():
    pages = nav_pages()
    assert all(p.is_file() for p in pages), [str(p) for p in pages if not p.is_file()]
    on_disk = {p for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk == set(pages), sorted(str(p) for p in on_disk ^ set(pages))


def _markdown_files() -> list[Path]:
    return [*nav_pages(), ROOT / "README.md"]


def test_every_fence_has_a_one_word_info_string():
    """```` ```python cluster ```` renders as a paragraph of text and mangles the rest of the page: a fence is
    ``` and at most one word; a test tag goes on a ``<!-- test: TAG -->`` line before it."""
    bad = [
        f"{p.relative_to(ROOT)}:{n}: {line}"
        for p in _markdown_files()
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if line.lstrip().startswith("```") and len(line.strip().strip("`").split()) > 1
    ]
    assert bad == []


def test_every_test_tag_is_on_a_python_block():
    """A ``<!-- test: TAG -->`` line not followed by a ```python fence would leave its block untested."""
    for p in _markdown_files():
        text = p.read_text()
        tags = re.findall(r"^<!-- test: [^\n]*$", text, flags=re.M)
        tagged = [m["tag"] for m in PYTHON_BLOCK.finditer(text) if m["tag"]]
        assert len(tags) == len(tagged), f"{p.relative_to(ROOT)}: {tags} but tagged blocks {tagged}"


def test_the_docs_have_examples():
    assert sum(len(python_blocks(p)) for p in nav_pages()) >= 20
    assert python_blocks(ROOT / "README.md")


def _run(blocks: list[tuple[str, str]], backend: object) -> dict[str, object]:
    namespace: dict[str, object] = {}
    for where, block in blocks:
        code = block.replace("import rocketroute as rr", "rr = backend").replace(
            "from rocketroute import batch", "batch = batch_module"
        )
        namespace["backend"] = backend
        namespace["batch_module"] = importlib.import_module(backend.__name__ + ".batch")  # type: ignore[attr-defined]
        try:
            exec(compile(code, where, "exec"), namespace)
        except Exception as e:  # pragma: no cover - the message says which block broke
            raise AssertionError(f"{where} failed on {backend.BACKEND}: {e!r}\n{block}") from e  # type: ignore[attr-defined]
    return namespace


def test_docs_examples_run(backend):
    blocks = [
        (f"{p.relative_to(ROOT)} python block {i}", b) for p in nav_pages() for i, b in enumerate(python_blocks(p))
    ]
    namespace = _run(blocks, backend)
    assert namespace["rr"] is backend


def test_readme_examples_run(backend):
    blocks = [(f"README.md python block {i}", b) for i, b in enumerate(python_blocks(ROOT / "README.md"))]
    namespace = _run(blocks, backend)
    assert namespace["rr"] is backend
