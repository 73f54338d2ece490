"""Checks of the producer's and the consumer's settings at construction: every value is read or refused.

A setting gets its type and range checked when the client is built, with Java's limits where Java has them
(``DefaultMQPushConsumerImpl.checkConfig``, ``Validators.checkGroup``) and the clear error Python code expects:
:class:`TypeError` for a value of the wrong type (``'10'`` for an int, ``'false'`` for a bool: no string is
silently taken as True), :class:`ValueError` (:class:`~rocketroute.errors.IllegalArgumentError`) for one out of
range. The settings objects (:class:`~rocketroute.client.producer.settings.ProducerSettings`,
:class:`~rocketroute.client.consumer.settings.ConsumerSettings`) run these checks; what they do with the names
they do not read is :mod:`rocketroute.client.settings_base`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from ..errors import IllegalArgumentError
from ..protocol.command import LANGUAGE_CODES

__all__ = [
    "DEFAULT_LANGUAGE",
    "GROUP_MAX_LENGTH",
    "JAVA_INT_MAX",
    "check_bool",
    "check_choice",
    "check_compat",
    "check_group",
    "check_int",
    "check_language",
    "check_positive_ms",
]

JAVA_INT_MAX = 2**31 - 1


def check_compat(compat: Any) -> str:
    """The client's compat profile, ``"5.3"`` or ``"4.9"``, from it or one of its aliases (``"5.3.3"``, ``"5.5"``,
    ``"4.9.8"``, ...); anything else is a :class:`ValueError`."""
    from ..reference.compat import parse_compat

    try:
        return parse_compat(compat)
    except (IllegalArgumentError, TypeError):  # an unknown name, or not a str
        raise ValueError(f"compat must be '5.3' or '4.9' (or an alias such as '5.5'), not {compat!r}") from None


DEFAULT_LANGUAGE = "PYTHON"
"""The ``language`` rocketroute's clients write in their requests' headers unless told otherwise (Java's clients
write ``JAVA``; brokers show it in ``consumerConnection`` and the like)."""
GROUP_MAX_LENGTH = 255
"""``Validators.CHARACTER_MAX_LENGTH``."""
_LEGAL_GROUP = frozenset("%|abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def check_int(name: str, value: Any, lo: int, hi: int = JAVA_INT_MAX, *, also: Collection[int] = ()) -> int:
    """``value`` as an int in ``[lo, hi]`` (or one of ``also``, e.g. -1 for "no limit"). A bool, a float or a str
    is refused with :class:`TypeError`; an int out of range with :class:`IllegalArgumentError` in Java's words
    (``"pullInterval Out of range [0, 65535]"``, the setting named in snake_case)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__} {value!r}")
    if value in also:
        return value
    if not lo <= value <= hi:
        extra = "".join(f" or {v}" for v in also)
        raise IllegalArgumentError(f"{name} Out of range [{lo}, {hi}]{extra}: {value}")
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool: only ``True`` or ``False`` (``'false'``, ``'no'`` and ``0`` are refused, not guessed)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {value!r}")
    return value


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """``value`` as one of ``choices`` (case-sensitive, as Java's enum names)."""
    options = tuple(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {', '.join(options)}; not {type(value).__name__} {value!r}")
    if value not in options:
        raise IllegalArgumentError(f"{name} must be one of {', '.join(options)}, not {value!r}")
    return value


def check_language(value: Any) -> str:
    """The ``language`` a client writes in its requests' headers: a ``LanguageCode`` name."""
    return check_choice("language", value, sorted(LANGUAGE_CODES))


def check_group(group: Any, what: str = "group") -> str:
    """``Validators.checkGroup``: not blank, at most 255 characters, only ``%|a-zA-Z0-9_-``."""
    if not isinstance(group, str):
        raise TypeError(f"the {what} must be a str, not {type(group).__name__} {group!r}")
    if not group.strip():
        raise IllegalArgumentError(f"the specified {what} is blank")
    if len(group) > GROUP_MAX_LENGTH:
        raise IllegalArgumentError(f"the specified {what} is longer than group max length {GROUP_MAX_LENGTH}.")
    if not _LEGAL_GROUP.issuperset(group):
        raise IllegalArgumentError(
            f"the specified {what}[{group}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
        )
    return group


def check_positive_ms(name: str, value: Any) -> int:
    """A time in milliseconds (or a count) that must be at least 1."""
    return check_int(name, value, 1)
