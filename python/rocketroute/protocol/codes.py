"""Request codes of RocketMQ's remoting protocol (Java's ``RequestCode``), the ones a client of a name server or
broker needs. Every value is the same in RocketMQ 5.3.3 (``org.apache.rocketmq.remoting.protocol.RequestCode``)
and 4.9.8 (``org.apache.rocketmq.common.protocol.RequestCode``).

The response codes are :mod:`.response_code`'s (:class:`~rocketroute.protocol.response_code.ResponseCode`), not
re-exported here: this module imports nothing of the package, so :mod:`rocketroute.errors` can name a request
in its messages without an import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["REQUEST_CODE_NAMES", "RequestCode"]


class RequestCode:
    """Java's ``RequestCode`` constants (a subset: what a producer, a consumer and a test harness send or receive)."""

    # broker: messages
    SEND_MESSAGE = 10
    PULL_MESSAGE = 11
    QUERY_MESSAGE = 12
    QUERY_CONSUMER_OFFSET = 14
    UPDATE_CONSUMER_OFFSET = 15
    SEND_MESSAGE_V2 = 310
    SEND_BATCH_MESSAGE = 320
    SEND_REPLY_MESSAGE = 324
    SEND_REPLY_MESSAGE_V2 = 325
    LITE_PULL_MESSAGE = 361
    CONSUMER_SEND_MSG_BACK = 36
    END_TRANSACTION = 37
    VIEW_MESSAGE_BY_ID = 33
    # broker: topics and offsets
    UPDATE_AND_CREATE_TOPIC = 17
    GET_ALL_TOPIC_CONFIG = 21
    GET_BROKER_RUNTIME_INFO = 28
    SEARCH_OFFSET_BY_TIMESTAMP = 29
    GET_MAX_OFFSET = 30
    GET_MIN_OFFSET = 31
    GET_EARLIEST_MSG_STORETIME = 32
    DELETE_TOPIC_IN_BROKER = 215
    GET_TOPIC_STATS_INFO = 202
    UPDATE_AND_CREATE_SUBSCRIPTIONGROUP = 200
    # broker: clients
    HEART_BEAT = 34
    UNREGISTER_CLIENT = 35
    GET_CONSUMER_LIST_BY_GROUP = 38
    LOCK_BATCH_MQ = 41
    UNLOCK_BATCH_MQ = 42
    # broker -> client requests
    CHECK_TRANSACTION_STATE = 39
    NOTIFY_CONSUMER_IDS_CHANGED = 40
    GET_CONSUMER_RUNNING_INFO = 307
    CONSUME_MESSAGE_DIRECTLY = 309
    PUSH_REPLY_MESSAGE_TO_CLIENT = 326
    # name server
    GET_KV_CONFIG = 101
    REGISTER_BROKER = 103
    UNREGISTER_BROKER = 104
    GET_ROUTEINFO_BY_TOPIC = 105
    GET_BROKER_CLUSTER_INFO = 106
    GET_ALL_TOPIC_LIST_FROM_NAMESERVER = 206
    DELETE_TOPIC_IN_NAMESRV = 216
    GET_TOPICS_BY_CLUSTER = 224


REQUEST_CODE_NAMES: Mapping[int, str] = MappingProxyType(
    {value: name for name, value in vars(RequestCode).items() if name.isupper() and isinstance(value, int)}
)
"""Request code -> its Java name (for messages and logs)."""
