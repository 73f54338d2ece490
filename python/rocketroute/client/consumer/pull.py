"""PULL_MESSAGE (11): the request a consumer sends for one queue and what it makes of the answer.

Java: ``PullSysFlag``, ``PullMessageRequestHeader``, ``MQClientAPIImpl.processPullResponse`` (the response code
gives the status) and ``PullAPIWrapper.processPullResult`` (decode, client-side tag filter, ``MIN_OFFSET`` /
``MAX_OFFSET`` put on each message, the broker name set on it).
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass, field
from typing import Any, Literal

from ...errors import AccessDeniedError
from ...log_repeats import REPEATS
from ...protocol import RemotingCommand
from ...protocol.codes import RequestCode
from ...protocol.errors import RemotingCommandError, response_error
from ...protocol.headers import PullMessageRequestHeader
from ...protocol.headers.consumer import FLAG_LITE_PULL_MESSAGE
from ...protocol.response_code import ResponseCode
from ..message_decode import DEFAULT_MAX_BODY_SIZE, MessageDecodeError, decode_pulled
from ._shared import log
from .subscription import SubscriptionData, filter_by_tags

__all__ = [
    "FLAG_CLASS_FILTER",
    "FLAG_COMMIT_OFFSET",
    "FLAG_LITE_PULL_MESSAGE",
    "FLAG_SUBSCRIPTION",
    "FLAG_SUSPEND",
    "PullResult",
    "PullStatus",
    "fetch",
    "log_pull_failure",
    "pull_request",
    "pull_result",
    "pull_sys_flag",
]

FLAG_COMMIT_OFFSET = 0x1
FLAG_SUSPEND = 0x2
FLAG_SUBSCRIPTION = 0x4
FLAG_CLASS_FILTER = 0x8


def pull_sys_flag(
    commit_offset: bool, suspend: bool, subscription: bool, class_filter: bool = False, lite_pull: bool = False
) -> int:
    """``PullSysFlag.buildSysFlag``."""
    return (
        (FLAG_COMMIT_OFFSET if commit_offset else 0)
        | (FLAG_SUSPEND if suspend else 0)
        | (FLAG_SUBSCRIPTION if subscription else 0)
        | (FLAG_CLASS_FILTER if class_filter else 0)
        | (FLAG_LITE_PULL_MESSAGE if lite_pull else 0)
    )


class PullStatus(enum.Enum):
    """``PullStatus``: what a pull found."""

    FOUND = "FOUND"
    NO_NEW_MSG = "NO_NEW_MSG"
    NO_MATCHED_MSG = "NO_MATCHED_MSG"
    OFFSET_ILLEGAL = "OFFSET_ILLEGAL"


_STATUS_OF_CODE = {
    ResponseCode.SUCCESS: PullStatus.FOUND,
    ResponseCode.PULL_NOT_FOUND: PullStatus.NO_NEW_MSG,
    ResponseCode.PULL_RETRY_IMMEDIATELY: PullStatus.NO_MATCHED_MSG,
    ResponseCode.PULL_OFFSET_MOVED: PullStatus.OFFSET_ILLEGAL,
}


@dataclass
class PullResult:
    """``PullResult``: the status, the offset to pull from next, the queue's min and max offsets, the messages
    (after the tag filter) and the broker id the broker suggests pulling from next."""

    status: PullStatus
    next_begin_offset: int
    min_offset: int
    max_offset: int
    messages: list[Any] = field(default_factory=list)
    suggest_which_broker_id: int = 0


def pull_request(
    group: str,
    mq: Any,
    offset: int,
    *,
    max_nums: int = 32,
    sys_flag: int = FLAG_SUSPEND,
    commit_offset: int = 0,
    suspend_timeout_ms: int = 15_000,
    subscription: SubscriptionData | None = None,
    max_msg_bytes: int | None = None,
    sub_version: int | None = None,
    compat: str = "5.3",
) -> RemotingCommand:
    """A PULL_MESSAGE request for ``mq`` from ``offset`` (``PullAPIWrapper.pullKernelImpl``). ``subscription``
    is sent (with ``FLAG_SUBSCRIPTION`` in ``sys_flag``) or only its version and type are; ``sub_version``
    replaces the subscription's version (the lite pull consumer sends 0 for a TAG expression, as Java's)."""
    return PullMessageRequestHeader(
        consumer_group=group,
        topic=mq.topic,
        queue_id=mq.queue_id,
        queue_offset=offset,
        max_msg_nums=max_nums,
        sys_flag=sys_flag,
        commit_offset=commit_offset,
        suspend_timeout_millis=suspend_timeout_ms,
        subscription=subscription.sub_string if subscription is not None and sys_flag & FLAG_SUBSCRIPTION else None,
        sub_version=(subscription.sub_version if subscription is not None else 0)
        if sub_version is None
        else sub_version,
        expression_type=subscription.expression_type if subscription is not None else "TAG",
        max_msg_bytes=max_msg_bytes,
        broker_name=mq.broker_name,
    ).request(compat)


def _int_field(response: RemotingCommand, name: str, default: int = 0) -> int:
    value = response.ext_fields.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise RemotingCommandError(response.code, f"the pull response's {name} is not a number: {value!r}") from None


def pull_result(
    response: RemotingCommand,
    mq: Any,
    subscription: SubscriptionData | None,
    *,
    addr: str | None = None,
    read_body: bool = True,
    decompress_body: bool = True,
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE,
    undecodable: Literal["raise", "mark"] = "raise",
) -> PullResult:
    """The :class:`PullResult` of a PULL_MESSAGE response. Found messages are decoded
    (:func:`~rocketroute.client.message_decode.decode_pulled` with ``read_body``, ``decompress_body``,
    ``max_body_size`` and ``undecodable``), filtered by the subscription's tags, and get
    ``MIN_OFFSET`` / ``MAX_OFFSET`` properties and ``broker_name`` as Java's. Any other response code raises
    :class:`~rocketroute.protocol.RemotingCommandError` (Java's ``MQBrokerException``), or an
    :class:`~rocketroute.errors.AccessDeniedError` when the broker refused the credentials."""
    status = _STATUS_OF_CODE.get(response.code)
    if status is None:
        raise response_error(response.code, response.remark, addr, request_code=RequestCode.PULL_MESSAGE)
    result = PullResult(
        status,
        _int_field(response, "nextBeginOffset"),
        _int_field(response, "minOffset"),
        _int_field(response, "maxOffset"),
        suggest_which_broker_id=_int_field(response, "suggestWhichBrokerId"),
    )
    if status is PullStatus.FOUND and response.body:
        msgs = decode_pulled(
            response.body,
            str(result.min_offset),
            str(result.max_offset),
            mq.broker_name,
            read_body=read_body,
            decompress_body=decompress_body,
            max_body_size=max_body_size,
            undecodable=undecodable,
        )
        if subscription is not None:
            msgs = filter_by_tags(msgs, subscription)
        result.messages = msgs
    return result


async def fetch(
    client: Any, addr: str, request: RemotingCommand, timeout_ms: int, mq: Any, sub: SubscriptionData, settings: Any
) -> PullResult:
    """Send a pull built by :func:`pull_request` on ``client`` (an ``AsyncRemotingClient``) and read its answer
    as a consumer with ``settings`` reads it (``decode_read_body``, ``decode_decompress_body``, ``max_body_size``;
    an undecodable message marked, not raised: the consumer decides what becomes of it)."""
    response = await client.invoke(addr, request, timeout_ms)
    return pull_result(
        response,
        mq,
        sub,
        addr=addr,
        read_body=settings.decode_read_body,
        decompress_body=settings.decode_decompress_body,
        max_body_size=settings.max_body_size,
        undecodable="mark",
    )


def log_pull_failure(mq: Any, addr: str, failures: int, error: BaseException) -> None:
    """A failed pull, ``failures`` in a row on ``mq``: the first a WARNING (an ERROR for a response that cannot be
    read or a refusal of the credentials, which the consumer keeps trying as Java does: an ACL can change), the
    ones after it DEBUG, so a queue that stops moving is never silent; and the first failures of the queues of one
    broker are one line a minute, so a broker down is not a flood."""
    if failures > 1:
        log.debug("pull of %s from %s failed (%d in a row): %s", mq, addr, failures, error)
        return
    level = logging.ERROR if isinstance(error, (MessageDecodeError, AccessDeniedError)) else logging.WARNING
    REPEATS.log(
        log, level, "pull of %s from %s failed (%d in a row): %s", mq, addr, 1, error, about=(addr, type(error))
    )
