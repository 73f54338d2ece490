"""The headers of a transaction's requests: END_TRANSACTION (37), which the producer sends oneway to end a half
message, and CHECK_TRANSACTION_STATE (39), which a broker sends oneway to ask a producer of the group about one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from ..codes import RequestCode
from .base import QueueRequestHeader

__all__ = [
    "TRANSACTION_COMMIT_TYPE",
    "TRANSACTION_NOT_TYPE",
    "TRANSACTION_ROLLBACK_TYPE",
    "CheckTransactionStateRequestHeader",
    "EndTransactionRequestHeader",
]

TRANSACTION_NOT_TYPE = 0
"""``MessageSysFlag.TRANSACTION_NOT_TYPE``: the local transaction's state is unknown (the broker will check)."""
TRANSACTION_COMMIT_TYPE = 0x2 << 2
"""``MessageSysFlag.TRANSACTION_COMMIT_TYPE`` (8)."""
TRANSACTION_ROLLBACK_TYPE = 0x3 << 2
"""``MessageSysFlag.TRANSACTION_ROLLBACK_TYPE`` (12)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EndTransactionRequestHeader(QueueRequestHeader):
    """END_TRANSACTION: ``EndTransactionRequestHeader``. ``topic`` is 5.x's only (4.9's header has none), and so is
    ``bname`` (the broker's name)."""

    CODE: ClassVar[int] = RequestCode.END_TRANSACTION
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("producer_group", "producerGroup"),
        ("tran_state_table_offset", "tranStateTableOffset"),
        ("commit_log_offset", "commitLogOffset"),
        ("commit_or_rollback", "commitOrRollback"),
        ("from_transaction_check", "fromTransactionCheck"),
        ("msg_id", "msgId"),
        ("transaction_id", "transactionId"),
    )

    producer_group: str
    tran_state_table_offset: int
    commit_log_offset: int
    commit_or_rollback: int
    from_transaction_check: bool = False
    msg_id: str | None = None
    transaction_id: str | None = None
    topic: str | None = None

    def to_ext_fields(self, compat: str) -> dict[str, object]:
        ext = QueueRequestHeader.to_ext_fields(self, compat)
        if compat == "5.3" and self.topic is not None:
            ext["topic"] = self.topic
        return ext


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckTransactionStateRequestHeader:
    """CHECK_TRANSACTION_STATE, as a broker sends it: ``CheckTransactionStateRequestHeader`` (``topic`` and
    ``bname`` from 5.x brokers only). The request's body is the half message (``MessageDecoder.encode``)."""

    tran_state_table_offset: int
    commit_log_offset: int
    msg_id: str | None = None
    transaction_id: str | None = None
    offset_msg_id: str | None = None
    topic: str | None = None
    broker_name: str | None = None

    @classmethod
    def from_ext_fields(cls, ext: Mapping[str, str]) -> CheckTransactionStateRequestHeader:
        """The header of a broker's request; a missing or malformed offset raises ``ValueError``."""
        try:
            return cls(
                tran_state_table_offset=int(ext["tranStateTableOffset"]),
                commit_log_offset=int(ext["commitLogOffset"]),
                msg_id=ext.get("msgId"),
                transaction_id=ext.get("transactionId"),
                offset_msg_id=ext.get("offsetMsgId"),
                topic=ext.get("topic"),
                broker_name=ext.get("bname"),
            )
        except (KeyError, ValueError) as e:
            raise ValueError(f"a CHECK_TRANSACTION_STATE request without a valid {e}: {dict(ext)}") from None
