"""The base of the typed request headers: a header knows its request code and its ext fields, and makes its
request for a compat profile. :class:`QueueRequestHeader` is 5.x's ``TopicQueueRequestHeader``: the broker's
name goes out as ``bname`` for ``"5.3"`` only (4.9's headers have no such field)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..command import MQ_VERSIONS, RemotingCommand

__all__ = ["QueueRequestHeader", "RequestHeader"]


def _version(compat: str) -> int:
    try:
        return MQ_VERSIONS[compat]
    except KeyError:
        raise ValueError(f"compat must be one of {sorted(MQ_VERSIONS)}, not {compat!r}") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestHeader:
    """A request's header: ``CODE`` is its request code, ``FIELDS`` its ext fields as (attribute, wire name)."""

    CODE: ClassVar[int]
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = ()

    def to_ext_fields(self, compat: str) -> dict[str, Any]:
        """The ext fields for ``compat`` (``"5.3"`` or ``"4.9"``); ``None`` fields are left out."""
        _version(compat)
        fields = {wire: getattr(self, attr) for attr, wire in self.FIELDS}
        return {k: v for k, v in fields.items() if v is not None}

    def body(self, compat: str) -> bytes | None:
        """The request's body as ``compat``'s client writes it (most headers have none)."""
        return None

    def request(self, compat: str) -> RemotingCommand:
        """The request, with the version ``compat``'s client sends and a fresh opaque."""
        ext = self.to_ext_fields(compat)
        return RemotingCommand.request(self.CODE, ext or None, self.body(compat), version=_version(compat))


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueRequestHeader(RequestHeader):
    """A 5.x ``TopicQueueRequestHeader``: ``broker_name`` goes out as ``bname``, for ``"5.3"`` only."""

    broker_name: str | None = None

    def to_ext_fields(self, compat: str) -> dict[str, Any]:
        ext = RequestHeader.to_ext_fields(self, compat)
        if compat == "5.3" and self.broker_name:
            ext["bname"] = self.broker_name
        return ext
