"""MkDocs hook: code in a table cell that is one name (no space in it) gets the class ``name``, which
docs/stylesheets/extra.css never breaks; code with spaces (an expression, an error message) wraps at its spaces.

CSS alone cannot tell the two apart: never breaking any code in a cell pushed tables with an error message to
1,200 px, and breaking only at spaces still split names at their hyphens and slashes (``java5-`` / ``grpc-``).
"""

from __future__ import annotations

import re
from typing import Any

CELL = re.compile(r"<(t[dh])\b[^>]*>.*?</\1>", re.S)
NAME = re.compile(r"<code>([^<\s]+)</code>")


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return CELL.sub(lambda cell: NAME.sub(r'<code class="name">\1</code>', cell[0]), html)
