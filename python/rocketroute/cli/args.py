"""What every command of the ``rocketroute`` command line parses with: the parser (a mistake in one line), the
argument types, the ``--json`` check and the progress line. Needs neither pyspark nor matplotlib."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ..errors import RocketRouteError

__all__ = [
    "JAVA_INT_MAX",
    "DefaultsHelpFormatter",
    "Parser",
    "check_json_out",
    "int_arg",
    "log",
    "positive_float_arg",
]

JAVA_INT_MAX = 2**31 - 1


class Parser(argparse.ArgumentParser):
    """The command line's parser: a mistake is one line (``rocketroute replay: error: argument --retries: ...``,
    exit 2) that points at ``--help`` instead of repeating the usage, and every help text shows its default."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Adds ``(default: X)`` to an option's help unless the help already says its default or it has none."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if default is None or default is False or default == argparse.SUPPRESS or "default" in text:
            return text
        if not action.option_strings:
            return text
        shown = f"{default:,}" if isinstance(default, int) and not isinstance(default, bool) else "%(default)s"
        return f"{text} (default: {shown})" if text else f"default: {shown}"


def int_arg(low: int, high: int = JAVA_INT_MAX) -> Callable[[str], int]:
    """An ``argparse`` type: an integer in ``[low, high]`` (a Java ``int`` unless ``high`` says otherwise), the
    mistake said in one line (``must be at least 1, not 0``)."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", ""), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, not {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low:,}, not {value:,}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, not {value:,}")
        return value

    return parse


def positive_float_arg(text: str) -> float:
    """An ``argparse`` type: a finite number above 0 (``nan``, ``inf``, 0 and negatives refused in one line)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, not {text!r}")
    return value


def check_json_out(option: str, path: str) -> None:
    """Before a run: the file ``path`` (``--json``) can be written, its folder existing (not made)."""
    target = Path(path)
    if target.is_dir():
        raise RocketRouteError(f"cannot write {option} {path!r}: it is a folder")
    parent = target.parent
    if not parent.is_dir():
        raise RocketRouteError(f"cannot write {option} {path!r}: the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise RocketRouteError(f"cannot write {option} {path!r}: permission denied")


def log(msg: str) -> None:
    """A progress line on stderr (``[rocketroute] ...``)."""
    print(f"[rocketroute] {msg}", file=sys.stderr, flush=True)
