"""MkDocs hook: the command line reference is the parser's own help, so it cannot drift from the code."""

from __future__ import annotations

import argparse
import os
from typing import Any

MARKER = "<!-- cli-help -->"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    os.environ["COLUMNS"] = "110"  # argparse wraps to the terminal width: a fixed width gives a stable page
    from rocketroute.cli import build_parser

    parser = build_parser()
    parts = ["```text", parser.format_help().rstrip(), "```", ""]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                parts += [f"## `rocketroute {name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return markdown.replace(MARKER, "\n".join(parts))
