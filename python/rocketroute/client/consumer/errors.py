"""The consumer's own exceptions."""

from __future__ import annotations

__all__ = ["DuplicateClientIdError"]


class DuplicateClientIdError(RuntimeError):
    """:meth:`Consumer.start` found another member of its group with the same client id (``ip@instance_name``)."""
