"""Compat profiles: which RocketMQ client release to behave like."""

from __future__ import annotations

from ..errors import IllegalArgumentError

__all__ = ["COMPAT_PROFILES", "parse_compat"]

COMPAT_PROFILES = ("5.3", "4.9")
_ALIASES = {
    "5.3": "5.3",
    "5.3.3": "5.3",
    "5": "5.3",
    # RocketMQ 5.5.0 routes as 5.3.3 on every input the live Java oracle (tests/oracle) tried: an alias
    "5.5": "5.3",
    "5.5.0": "5.3",
    "4.9": "4.9",
    "4.9.8": "4.9",
    "4": "4.9",
}


def parse_compat(compat: str | None) -> str:
    """``"5.3"`` (RocketMQ 5.3.3, the default; also ``None``; ``"5.5"`` is an alias) or ``"4.9"`` (4.9.8); full
    versions are accepted too."""
    if compat is None:
        return "5.3"
    if not isinstance(compat, str):
        raise TypeError(f"compat must be a str, not {type(compat).__name__}")
    try:
        return _ALIASES[compat]
    except KeyError:
        raise IllegalArgumentError(f"unknown compat profile {compat!r}; expected one of {COMPAT_PROFILES}") from None
