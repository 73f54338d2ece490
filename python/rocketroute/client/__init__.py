"""A RocketMQ producer and consumer on real brokers, built on the routing core: :class:`Consumer`
(``DefaultMQPushConsumer``: heartbeats, rebalance through the library's strategies, long-polling pulls, offsets,
concurrent and orderly listeners; pulled messages are :class:`MessageExt`), :class:`Producer`
(``DefaultMQProducer``), :func:`fetch_route` and :class:`NameServerClient` (the name servers),
:func:`snapshot_group` and :func:`plan_group` (a running group's plan and the members whose view differs),
:class:`RouteChange` (what a route refresh changed, with its ordering risk), and the message side, encoded exactly
as the Java client encodes it (5.3.3, or 4.9.8 with ``compat="4.9"``): :class:`Message` and its validation, the
properties string, compression, batches, message ids (``MessageClientIDSetter``) and the :class:`SendResult`
of a response (the ``SEND_MESSAGE_V2`` request header is :mod:`rocketroute.protocol.headers.send`'s). Pure Python
over :mod:`rocketroute.protocol`, standard library only."""

from __future__ import annotations

from ..errors import UnsupportedSettingError
from ..protocol.acl import Credentials
from .compression import CompressionType, compress_body
from .consumer.consumer import Consumer, ConsumerStats, DuplicateClientIdError
from .consumer.listener import (
    ConsumeConcurrentlyContext,
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyContext,
    ConsumeOrderlyStatus,
)
from .consumer.lite_pull_consumer import LitePullConsumer
from .consumer.lite_pull_settings import LitePullConsumerSettings
from .consumer.process_queue import ProcessQueue
from .consumer.settings import ConsumerSettings
from .group_plan import GroupPlan, GroupSnapshot, plan_group, snapshot_group
from .message import Message, MessageError, check_message, check_topic
from .message_const import (
    COMPRESSED_FLAG,
    COMPRESSION_ZLIB_TYPE,
    DEFAULT_MAX_MESSAGE_SIZE,
    KEY_SEPARATOR,
    PROPERTY_DELAY_TIME_LEVEL,
    PROPERTY_KEYS,
    PROPERTY_MSG_REGION,
    PROPERTY_TAGS,
    PROPERTY_TRACE_SWITCH,
    PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
    PROPERTY_WAIT_STORE_MSG_OK,
    SYSTEM_PROPERTY_NAMES,
)
from .message_decode import MessageDecodeError, MessageExt, decode_message_id, decode_messages
from .message_encode import EncodedBatch, EncodedMessage, encode_batch, encode_for_send, encode_message
from .message_id import MessageIdGenerator, UniqIdInfo, create_uniq_id, parse_uniq_id
from .message_properties import properties_to_string, string_to_properties
from .namesrv import NameServerClient, NameServerError, TopicNotExistError, fetch_route, parse_namesrv_addrs
from .producer.producer import Producer
from .producer.route_change import RouteChange, key_move_share, route_change
from .producer.send_result import SendResult, SendStatus, send_result_from_response
from .producer.settings import ProducerSettings
from .producer.transaction import LocalTransactionState, TransactionProducer, TransactionSendResult

__all__ = [
    "LocalTransactionState",
    "TransactionProducer",
    "TransactionSendResult",
    "Credentials",
    "Consumer",
    "ConsumerSettings",
    "ConsumerStats",
    "DuplicateClientIdError",
    "LitePullConsumer",
    "LitePullConsumerSettings",
    "ConsumeConcurrentlyContext",
    "ConsumeConcurrentlyStatus",
    "ConsumeOrderlyContext",
    "ConsumeOrderlyStatus",
    "GroupPlan",
    "GroupSnapshot",
    "plan_group",
    "snapshot_group",
    "MessageDecodeError",
    "MessageExt",
    "ProcessQueue",
    "ProducerSettings",
    "decode_message_id",
    "decode_messages",
    "NameServerClient",
    "NameServerError",
    "Producer",
    "RouteChange",
    "TopicNotExistError",
    "fetch_route",
    "key_move_share",
    "parse_namesrv_addrs",
    "route_change",
    "COMPRESSED_FLAG",
    "COMPRESSION_ZLIB_TYPE",
    "DEFAULT_MAX_MESSAGE_SIZE",
    "KEY_SEPARATOR",
    "PROPERTY_DELAY_TIME_LEVEL",
    "PROPERTY_KEYS",
    "PROPERTY_MSG_REGION",
    "PROPERTY_TAGS",
    "PROPERTY_TRACE_SWITCH",
    "PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX",
    "PROPERTY_WAIT_STORE_MSG_OK",
    "SYSTEM_PROPERTY_NAMES",
    "CompressionType",
    "EncodedBatch",
    "EncodedMessage",
    "Message",
    "MessageError",
    "MessageIdGenerator",
    "SendResult",
    "SendStatus",
    "UnsupportedSettingError",
    "UniqIdInfo",
    "check_message",
    "check_topic",
    "compress_body",
    "create_uniq_id",
    "encode_batch",
    "encode_for_send",
    "encode_message",
    "parse_uniq_id",
    "properties_to_string",
    "send_result_from_response",
    "string_to_properties",
]
