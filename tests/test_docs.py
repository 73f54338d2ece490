"""The documentation's Python examples run: every ```python block of the docs site (pages in the order of
mkdocs.yml's nav, one namespace, as a reader goes through them) and of the README, on both backends, so the
documentation cannot drift. A block that needs real servers is tagged by an HTML comment on the line before its
fence, ``<!-- test: cluster -->`` (or ``bp-cluster``, ``tls-cluster``, ...): the page renders it as a plain Python
block (a fence's info string takes one word; ```` ```python cluster ```` is not a fence to the site's Markdown), and
the tests in tests/cluster run it by its tag."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def nav_pages() -> list[Path]:
    """The docs pages in mkdocs.yml's nav order."""
    text = (ROOT / "mkdocs.yml").read_text()
    nav = text[text.index("\nnav:") :]
    return [ROOT / "docs" / m for m in re.findall(r":\s*(\S+\.md)\s*$", nav, flags=re.M)]


FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
TEST_TAG = re.compile(r"^<!-- test: (?P<tag>[a-z0-9-]+) -->$")


@dataclass(frozen=True)
class CodeBlock:
    """A fenced block of a page, as its author meant it."""

    info: str
    """The fence's info string."""
    tag: str | None
    """The test tag of a ``<!-- test: TAG -->`` line just before the fence."""
    code: str
    start: int
    """The opening fence's line (0-based); the closing one is ``end``."""
    end: int

    @property
    def language(self) -> str:
        """The info string's first word ("text" for a bare fence)."""
        return (self.info.split() or ["text"])[0]


def code_blocks(markdown: str) -> list[CodeBlock]:
    """The fenced blocks of a page: a fence opens at ``` (or ~~~) and closes at a bare fence of the same kind at
    least as long, so a fence inside a block (an example of Markdown) is that block's text."""
    lines = markdown.splitlines(keepends=True)
    blocks: list[CodeBlock] = []
    opened: tuple[str, str, int] | None = None  # fence, info string, line
    for i, line in enumerate(lines):
        m = FENCE.match(line.strip())
        if m is None:
            continue
        if opened is None:
            opened = (m["fence"], m["info"].strip(), i)
        elif m["fence"].startswith(opened[0]) and not m["info"].strip():
            _, info, start = opened
            tag = TEST_TAG.match(lines[start - 1].strip()) if start else None
            blocks.append(CodeBlock(info, tag["tag"] if tag else None, "".join(lines[start + 1 : i]), start, i))
            opened = None
    return blocks


def python_blocks(path: Path, tag: str | None = None) -> list[str]:
    """The code of the page's ```python blocks tagged ``tag`` (the untagged ones, which run here, by default)."""
    return [b.code for b in code_blocks(path.read_text()) if b.language == "python" and b.tag == tag]


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
        f"{p.relative_to(ROOT)}:{b.start + 1}: ```{b.info}"
        for p in _markdown_files()
        for b in code_blocks(p.read_text())
        if len(b.info.split()) > 1
    ]
    assert bad == []


def test_every_test_tag_is_on_a_python_block():
    """A ``<!-- test: TAG -->`` line not just before a ```python fence would leave its block untested."""
    for p in _markdown_files():
        text = p.read_text()
        blocks = code_blocks(text)
        inside = {i for b in blocks for i in range(b.start, b.end + 1)}
        tags = [i for i, line in enumerate(text.splitlines()) if line.startswith("<!-- test:") and i not in inside]
        assert tags == [b.start - 1 for b in blocks if b.tag and b.language == "python"], p.relative_to(ROOT)


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
