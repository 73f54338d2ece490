"""What :class:`~rocketroute.client.producer.settings.ProducerSettings` and
:class:`~rocketroute.client.consumer.settings.ConsumerSettings` share: a frozen dataclass whose fields are exactly
the settings the client reads, read by attribute (``settings.send_msg_timeout``; :meth:`ClientSettings.as_dict`
for all of them at once), built from keyword arguments by :meth:`of`, which reads or refuses every name it is
given.

The rule, for every name given to :meth:`ClientSettings.of` (and so to ``Producer(..., **settings)`` and
``Consumer(..., **settings)``):

- a field: checked (type, then Java's range) and used;
- a field only the 5.3 client has, on ``compat="4.9"``: refused, the 4.9 client has no such setting;
- a Java setting whose feature rocketroute does not implement: accepted at Java's default (which is what
  rocketroute does: the value is honoured, it is not a field because there is nothing else it could be), refused
  with :class:`~rocketroute.errors.UnsupportedSettingError` naming it and saying why at any other value;
- another Java setting of the client: refused, naming it;
- anything else: refused as unknown, with the closest field names.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, TypeVar

from ..errors import UnsupportedSettingError
from .settings_check import check_compat

__all__ = ["ClientSettings", "Unread", "unread"]

S = TypeVar("S", bound="ClientSettings")


class Unread(NamedTuple):
    """A Java setting of the client that is not a field (:attr:`ClientSettings.NOT_SUPPORTED`)."""

    defaults: Mapping[str, Any]
    """Java's default per compat profile; a profile it lacks has no such setting."""
    why: str
    """Why rocketroute does not read it."""


def unread(default: Any, why: str, *, only_53: bool = False) -> Unread:
    """An :class:`Unread` whose Java default is ``default`` on both profiles (on 5.3 alone with ``only_53``)."""
    return Unread(MappingProxyType({"5.3": default} if only_53 else {"5.3": default, "4.9": default}), why)


class ClientSettings:
    """Base of the clients' settings classes (each a ``@dataclass(frozen=True)``); not used on its own."""

    __slots__ = ()

    CLIENT: ClassVar[str] = "client"
    """The client's name in error messages."""
    ONLY_53: ClassVar[frozenset[str]] = frozenset()
    """Fields that are settings of the 5.3 Java client only: refused on ``compat="4.9"`` unless left at default."""
    ALSO_ON_49: ClassVar[frozenset[str]] = frozenset()
    """Fields that are settings of the 5.3 Java client only, that rocketroute also takes on ``compat="4.9"`` (not
    among 4.9's Java defaults)."""
    NOT_SUPPORTED: ClassVar[Mapping[str, Unread]] = {}
    """Java settings that are not fields: the feature is not implemented (setting -> Java's defaults, why)."""
    OWN: ClassVar[frozenset[str]] = frozenset()
    """Fields that are rocketroute's, not the Java client's settings (not among Java's defaults)."""
    JAVA_VALUES: ClassVar[Mapping[str, Any]] = {}
    """Fields whose Java default differs from rocketroute's: field -> Java's."""

    @classmethod
    def java_defaults(cls, compat: str) -> Mapping[str, Any]:
        """The Java client's settings and defaults for ``compat`` (``producer_defaults`` / ``consumer_defaults``):
        the fields' defaults (Java's where :attr:`JAVA_VALUES` says), less :attr:`OWN` (and on 4.9 the 5.3-only
        fields), and the :attr:`NOT_SUPPORTED` settings the profile has; read-only."""
        return _java_defaults(cls, compat)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The settings this client reads, in declaration order."""
        return _field_names(cls)

    @classmethod
    def of(cls: type[S], compat: str = "5.3", /, **settings: Any) -> S:
        """The settings of a client of ``compat``: the defaults, then ``settings`` (snake_case names), each read or
        refused as the module says."""
        compat = check_compat(compat)
        cls.refuse_unread(compat, settings)
        names = set(cls.field_names())
        return cls(**{k: v for k, v in settings.items() if k in names})

    @classmethod
    def resolve(cls: type[S], compat: str, settings: S | None, overrides: Mapping[str, Any]) -> S:
        """What a client's constructor takes: ``settings=`` (an object of this class, or ``None`` for the
        defaults) with the keyword ``overrides`` on top, checked for a client of ``compat``."""
        if settings is None:
            return cls.of(compat, **overrides)
        if not isinstance(settings, cls):
            raise TypeError(f"settings must be a {cls.__name__}, not {type(settings).__name__}")
        return settings.replace(**overrides).for_compat(compat)

    @classmethod
    def refuse_unread(cls, compat: str, settings: Mapping[str, Any]) -> None:
        """Raise for the first name of ``settings`` this client would not read (see the module)."""
        names = cls.field_names()
        java = cls.java_defaults(compat)
        for name, value in settings.items():
            if name in names:
                if compat == "4.9" and name in cls.ONLY_53:
                    raise UnsupportedSettingError(
                        f"{cls.CLIENT} setting {name} is not supported with compat='4.9': the 4.9 Java client has "
                        "no such setting"
                    )
                continue
            refused = cls.NOT_SUPPORTED.get(name)
            if refused is not None:
                why = refused.why
                if name in java and _same(value, java[name]):
                    continue  # Java's default: what rocketroute does
                shown = f"only {java[name]!r}, Java's default, is accepted" if name in java else "not a 4.9 setting"
                raise UnsupportedSettingError(
                    f"{cls.CLIENT} setting {name}={value!r} is not supported: {why} ({shown})"
                )
            if name in java:
                raise UnsupportedSettingError(
                    f"{cls.CLIENT} setting {name} is not supported by rocketroute: a Java setting of the client, not "
                    f"implemented here (supported: {', '.join(names)})"
                )
            close = difflib.get_close_matches(name, names, n=3)
            hint = f"; did you mean {' or '.join(close)}?" if close else f" (known: {', '.join(names)})"
            raise UnsupportedSettingError(f"unknown {cls.CLIENT} setting {name}{hint}")

    def for_compat(self: S, compat: str) -> S:
        """These settings, checked for a client of ``compat``: a 5.3-only field changed from its default is refused
        on 4.9."""
        if check_compat(compat) == "4.9":
            defaults = type(self)()
            given = {k: getattr(self, k) for k in self.ONLY_53 if getattr(self, k) != getattr(defaults, k)}
            self.refuse_unread("4.9", given)
        return self

    def replace(self: S, **changes: Any) -> S:
        """A copy with ``changes`` (field names only), checked as a new object is."""
        names = self.field_names()
        for name in changes:
            if name not in names:
                self.refuse_unread("5.3", {name: changes[name]})  # says why when it can
                raise UnsupportedSettingError(f"{name} is not a field of {type(self).__name__}")
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    def as_dict(self) -> dict[str, Any]:
        """Every field and its value, in declaration order (a new dict: the running info lists them)."""
        return {name: getattr(self, name) for name in self.field_names()}


@functools.cache
def _java_defaults(cls: type[ClientSettings], compat: str) -> Mapping[str, Any]:
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in cls.OWN or (compat == "4.9" and (f.name in cls.ONLY_53 or f.name in cls.ALSO_ON_49)):
            continue
        values[f.name] = cls.JAVA_VALUES.get(f.name, f.default)
    for name, refused in cls.NOT_SUPPORTED.items():
        if compat in refused.defaults:
            values[name] = refused.defaults[compat]
    return MappingProxyType(values)


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _same(value: Any, default: Any) -> bool:
    """``value`` is Java's default ``default`` (``1`` is not ``True``, nor ``'false'`` ``False``)."""
    if isinstance(default, tuple):  # latency_max and the like: any sequence of the same values
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(default)
            and all(_same(v, d) for v, d in zip(value, default, strict=True))
        )
    return type(value) is type(default) and value == default
