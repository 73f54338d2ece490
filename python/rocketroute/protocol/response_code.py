"""The broker's response codes (``ResponseCode`` and ``RemotingSysResponseCode`` of RocketMQ 5.3.3 and 4.9.8) and
the codes after which the Java producer retries a send on another broker (``DefaultMQProducer``'s
``retryResponseCodes``), per compat profile. tests/conformance/test_producer.py checks them against the Java
classes' own values."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["RESPONSE_CODES", "RETRY_RESPONSE_CODES", "ResponseCode", "default_retry_response_codes"]


class ResponseCode:
    """Every response code name of either version, as an int constant (a few codes carry another name in the
    other version: 209-211)."""

    RPC_TIME_OUT = -1006
    RPC_SEND_TO_CHANNEL_FAILED = -1004
    RPC_ADDR_IS_NULL = -1002
    RPC_UNKNOWN = -1000
    SUCCESS = 0
    SYSTEM_ERROR = 1
    SYSTEM_BUSY = 2
    REQUEST_CODE_NOT_SUPPORTED = 3
    TRANSACTION_FAILED = 4
    FLUSH_DISK_TIMEOUT = 10
    SLAVE_NOT_AVAILABLE = 11
    FLUSH_SLAVE_TIMEOUT = 12
    MESSAGE_ILLEGAL = 13
    SERVICE_NOT_AVAILABLE = 14
    VERSION_NOT_SUPPORTED = 15
    NO_PERMISSION = 16
    TOPIC_NOT_EXIST = 17
    TOPIC_EXIST_ALREADY = 18
    PULL_NOT_FOUND = 19
    PULL_RETRY_IMMEDIATELY = 20
    PULL_OFFSET_MOVED = 21
    QUERY_NOT_FOUND = 22
    SUBSCRIPTION_PARSE_FAILED = 23
    SUBSCRIPTION_NOT_EXIST = 24
    SUBSCRIPTION_NOT_LATEST = 25
    SUBSCRIPTION_GROUP_NOT_EXIST = 26
    FILTER_DATA_NOT_EXIST = 27
    FILTER_DATA_NOT_LATEST = 28
    INVALID_PARAMETER = 29
    TRANSACTION_SHOULD_COMMIT = 200
    TRANSACTION_SHOULD_ROLLBACK = 201
    TRANSACTION_STATE_UNKNOW = 202
    TRANSACTION_STATE_GROUP_WRONG = 203
    NO_BUYER_ID = 204
    NOT_IN_CURRENT_UNIT = 205
    CONSUMER_NOT_ONLINE = 206
    CONSUME_MSG_TIMEOUT = 207
    NO_MESSAGE = 208
    POLLING_FULL = 209
    UPDATE_AND_CREATE_ACL_CONFIG_FAILED = 209
    DELETE_ACL_CONFIG_FAILED = 210
    POLLING_TIMEOUT = 210
    BROKER_NOT_EXIST = 211
    UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED = 211
    BROKER_DISPATCH_NOT_COMPLETE = 212
    BROADCAST_CONSUMPTION = 213
    FLOW_CONTROL = 215
    NOT_LEADER_FOR_QUEUE = 501
    ILLEGAL_OPERATION = 604
    GO_AWAY = 1500
    CONTROLLER_FENCED_MASTER_EPOCH = 2000
    CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH = 2001
    CONTROLLER_INVALID_MASTER = 2002
    CONTROLLER_INVALID_REPLICAS = 2003
    CONTROLLER_MASTER_NOT_AVAILABLE = 2004
    CONTROLLER_INVALID_REQUEST = 2005
    CONTROLLER_BROKER_NOT_ALIVE = 2006
    CONTROLLER_NOT_LEADER = 2007
    CONTROLLER_BROKER_METADATA_NOT_EXIST = 2008
    CONTROLLER_INVALID_CLEAN_BROKER_METADATA = 2009
    CONTROLLER_BROKER_NEED_TO_BE_REGISTERED = 2010
    CONTROLLER_MASTER_STILL_EXIST = 2011
    CONTROLLER_ELECT_MASTER_FAILED = 2012
    CONTROLLER_ALTER_SYNC_STATE_SET_FAILED = 2013
    CONTROLLER_BROKER_ID_INVALID = 2014
    CONTROLLER_JRAFT_INTERNAL_ERROR = 2015
    CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS = 2016
    USER_NOT_EXIST = 3001
    POLICY_NOT_EXIST = 3002


_ONLY_49 = frozenset(
    ("DELETE_ACL_CONFIG_FAILED", "UPDATE_AND_CREATE_ACL_CONFIG_FAILED", "UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED")
)
_ONLY_53 = frozenset(
    (
        "BROADCAST_CONSUMPTION",
        "BROKER_DISPATCH_NOT_COMPLETE",
        "BROKER_NOT_EXIST",
        "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED",
        "CONTROLLER_BROKER_ID_INVALID",
        "CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS",
        "CONTROLLER_BROKER_METADATA_NOT_EXIST",
        "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED",
        "CONTROLLER_BROKER_NOT_ALIVE",
        "CONTROLLER_ELECT_MASTER_FAILED",
        "CONTROLLER_FENCED_MASTER_EPOCH",
        "CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH",
        "CONTROLLER_INVALID_CLEAN_BROKER_METADATA",
        "CONTROLLER_INVALID_MASTER",
        "CONTROLLER_INVALID_REPLICAS",
        "CONTROLLER_INVALID_REQUEST",
        "CONTROLLER_JRAFT_INTERNAL_ERROR",
        "CONTROLLER_MASTER_NOT_AVAILABLE",
        "CONTROLLER_MASTER_STILL_EXIST",
        "CONTROLLER_NOT_LEADER",
        "GO_AWAY",
        "ILLEGAL_OPERATION",
        "INVALID_PARAMETER",
        "NOT_LEADER_FOR_QUEUE",
        "POLICY_NOT_EXIST",
        "POLLING_FULL",
        "POLLING_TIMEOUT",
        "RPC_ADDR_IS_NULL",
        "RPC_SEND_TO_CHANNEL_FAILED",
        "RPC_TIME_OUT",
        "RPC_UNKNOWN",
        "USER_NOT_EXIST",
    )
)


def _table(leave_out: frozenset[str]) -> Mapping[str, int]:
    codes = {n: v for n, v in vars(ResponseCode).items() if n.isupper() and n not in leave_out}
    return MappingProxyType(dict(sorted(codes.items(), key=lambda kv: (kv[1], kv[0]))))


RESPONSE_CODES: Mapping[str, Mapping[str, int]] = MappingProxyType({"5.3": _table(_ONLY_49), "4.9": _table(_ONLY_53)})
"""Each compat profile's response codes, name -> code."""

RETRY_RESPONSE_CODES: Mapping[str, frozenset[int]] = MappingProxyType(
    {
        # DefaultMQProducer (5.3.3): a send failing with one of these is retried on another broker
        "5.3": frozenset(
            {
                ResponseCode.TOPIC_NOT_EXIST,
                ResponseCode.SERVICE_NOT_AVAILABLE,
                ResponseCode.SYSTEM_ERROR,
                ResponseCode.SYSTEM_BUSY,
                ResponseCode.NO_PERMISSION,
                ResponseCode.NO_BUYER_ID,
                ResponseCode.NOT_IN_CURRENT_UNIT,
                ResponseCode.GO_AWAY,
            }
        ),
        # 4.9.8: no SYSTEM_BUSY and no GO_AWAY (which 4.9 does not have)
        "4.9": frozenset(
            {
                ResponseCode.TOPIC_NOT_EXIST,
                ResponseCode.SERVICE_NOT_AVAILABLE,
                ResponseCode.SYSTEM_ERROR,
                ResponseCode.NO_PERMISSION,
                ResponseCode.NO_BUYER_ID,
                ResponseCode.NOT_IN_CURRENT_UNIT,
            }
        ),
    }
)
"""The response codes after which ``send_default`` retries, as DefaultMQProducer's defaults per profile."""


def default_retry_response_codes(compat: str | None = "5.3") -> frozenset[int]:
    """``DefaultMQProducer``'s default ``retryResponseCodes`` for ``compat`` ("5.3" or "4.9")."""
    codes = RETRY_RESPONSE_CODES.get(compat) if type(compat) is str else None  # every send asks: no import then
    if codes is not None:
        return codes
    from ..reference.compat import parse_compat  # not at import time: the reference package imports this one

    return RETRY_RESPONSE_CODES[parse_compat(compat)]
