"""rocketroute: Apache RocketMQ client routing (queue selection, latency fault tolerance, allocation)
that picks exactly what the Java client picks, with a Rust core.

``rocketroute`` exposes the native (Rust) backend when it is built, else the pure-Python reference
(:mod:`rocketroute.reference`, same names); ``BACKEND`` says which. ``ROCKETROUTE_BACKEND=reference``
forces the reference, ``ROCKETROUTE_BACKEND=native`` makes a missing native module an import error.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from . import _backend
from .errors import (
    AccessDeniedError,
    AuthenticationError,
    BrokerResponseError,
    BrokerUnreachableError,
    IllegalArgumentError,
    IndexOutOfBoundsError,
    JavaArithmeticError,
    NullPointerError,
    NumberFormatError,
    PermissionDeniedError,
    ProducerClosedError,
    RocketRouteError,
    SendFailedError,
)
from .java_defaults import consumer_defaults, lite_pull_consumer_defaults, producer_defaults
from .protocol.response_code import RESPONSE_CODES, RETRY_RESPONSE_CODES, ResponseCode, default_retry_response_codes
from .rebalance import Churn, RebalanceResult, churn, rebalance
from .reference.allocate import MachineRoomResolver
from .reference.strategy import DEFAULT_TABLES
from .selector import MessageQueueSelector, as_selector
from .send import CommunicationMode, SendAttempt, send_default, send_default_async, send_select

if TYPE_CHECKING:
    # what type checkers and IDEs see: the names __all__ takes from the backend (both backends have the same), and
    # the lazily imported ones below from where _CLIENT_NAMES says they live (tests/test_typing.py checks they agree)
    from . import aio as aio
    from ._native import *
    from .client.consumer.consumer import Consumer
    from .client.consumer.listener import (
        ConsumeConcurrentlyContext,
        ConsumeConcurrentlyStatus,
        ConsumeOrderlyContext,
        ConsumeOrderlyStatus,
    )
    from .client.consumer.lite_pull_consumer import LitePullConsumer
    from .client.consumer.lite_pull_settings import LitePullConsumerSettings
    from .client.consumer.settings import ConsumerSettings
    from .client.message import Message, MessageError
    from .client.message_decode import MessageExt
    from .client.namesrv import TopicNotExistError, fetch_route
    from .client.producer.producer import Producer
    from .client.producer.route_change import RouteChange
    from .client.producer.send_result import SendResult, SendStatus
    from .client.producer.settings import ProducerSettings
    from .client.producer.transaction import LocalTransactionState, TransactionProducer
    from .errors import UnsupportedSettingError
    from .protocol.acl import Credentials

    __version__: str


def _version() -> str:
    """``__version__``: the installed distribution's version (the Cargo workspace's, which maturin gives the
    wheel), read when first asked (importlib.metadata costs about 40 ms: not on ``import rocketroute``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rocketroute")
    except PackageNotFoundError:  # a source tree on sys.path, never installed
        return "0+unknown"


BACKEND = _backend.BACKEND
"""``"native"`` (the Rust extension) or ``"reference"`` (pure Python): chosen once, in :mod:`rocketroute._backend`."""

_CLIENT_NAMES = {
    "Producer": "client.producer.producer",
    "ProducerSettings": "client.producer.settings",
    "TransactionProducer": "client.producer.transaction",
    "LocalTransactionState": "client.producer.transaction",
    "ConsumerSettings": "client.consumer.settings",
    "LitePullConsumerSettings": "client.consumer.lite_pull_settings",
    "LitePullConsumer": "client.consumer.lite_pull_consumer",
    "UnsupportedSettingError": "errors",
    "Message": "client.message",
    "SendResult": "client.producer.send_result",
    "SendStatus": "client.producer.send_result",
    "MessageError": "client.message",
    "fetch_route": "client.namesrv",
    "TopicNotExistError": "client.namesrv",
    "RouteChange": "client.producer.route_change",
    "Consumer": "client.consumer.consumer",
    "MessageExt": "client.message_decode",
    "ConsumeConcurrentlyStatus": "client.consumer.listener",
    "ConsumeOrderlyStatus": "client.consumer.listener",
    "ConsumeConcurrentlyContext": "client.consumer.listener",
    "ConsumeOrderlyContext": "client.consumer.listener",
    "Credentials": "protocol.acl",
}
"""The client (:mod:`rocketroute.client`: a producer and a consumer on real brokers) and its credentials
(:mod:`rocketroute.protocol.acl`), imported when first used: ``import rocketroute`` stays the routing core alone.
A name added here is also imported in the ``if TYPE_CHECKING:`` block above, from the same module, so that type
checkers see it (``tests/test_typing.py`` checks the two agree)."""


if not TYPE_CHECKING:  # hidden from type checkers: they see the names above, and report a misspelt one

    def __getattr__(name: str) -> object:
        if name == "__version__":
            globals()["__version__"] = value = _version()
            return value
        if name == "aio":  # the asyncio-native clients, a subpackage imported on first use
            return importlib.import_module(".aio", __name__)
        module = _CLIENT_NAMES.get(name)
        if module is None:
            raise AttributeError(f"module 'rocketroute' has no attribute {name!r}")
        # kept as a module attribute: later lookups (rr.Message per message) skip this function and the imports
        globals()[name] = value = getattr(importlib.import_module(f".{module}", __name__), name)
        return value


__all__ = [
    "Producer",
    "ProducerSettings",
    "TransactionProducer",
    "LocalTransactionState",
    "Consumer",
    "ConsumerSettings",
    "LitePullConsumer",
    "LitePullConsumerSettings",
    "UnsupportedSettingError",
    "MessageExt",
    "ConsumeConcurrentlyStatus",
    "ConsumeOrderlyStatus",
    "ConsumeConcurrentlyContext",
    "ConsumeOrderlyContext",
    "consumer_defaults",
    "lite_pull_consumer_defaults",
    "Message",
    "SendResult",
    "SendStatus",
    "MessageError",
    "fetch_route",
    "Credentials",
    "TopicNotExistError",
    "RouteChange",
    "RESPONSE_CODES",
    "RETRY_RESPONSE_CODES",
    "ResponseCode",
    "default_retry_response_codes",
    "producer_defaults",
    "AllocateMachineRoomNearby",
    "AllocateMessageQueueAveragely",
    "AllocateMessageQueueAveragelyByCircle",
    "AllocateMessageQueueByConfig",
    "AllocateMessageQueueByMachineRoom",
    "AllocateMessageQueueConsistentHash",
    "AllocateMessageQueueConsistentHashBounded",
    "AllocateMessageQueueSticky",
    "AllocateMessageQueueStrategy",
    "BACKEND",
    "Churn",
    "ConsistentHashRouter",
    "MachineRoomResolver",
    "RebalanceResult",
    "allocate_all",
    "churn",
    "md5_hash",
    "mock_broker_name",
    "LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST",
    "LOGICAL_QUEUE_MOCK_BROKER_PREFIX",
    "METADATA_SCOPE_GLOBAL",
    "TopicQueueMappingInfo",
    "rebalance",
    "COMPAT_PROFILES",
    "DEFAULT_TABLES",
    "MAX_QUEUES",
    "MAX_VIRTUAL_NODES",
    "AccessDeniedError",
    "AuthenticationError",
    "BrokerData",
    "BrokerResponseError",
    "BrokerUnreachableError",
    "CommunicationMode",
    "IllegalArgumentError",
    "PermissionDeniedError",
    "IndexOutOfBoundsError",
    "JavaArithmeticError",
    "JavaRandom",
    "LatencyFaultTolerance",
    "MQFaultStrategy",
    "ManualClock",
    "MessageQueue",
    "MessageQueueSelector",
    "NullPointerError",
    "NumberFormatError",
    "PermName",
    "ProducerClosedError",
    "QueueData",
    "RocketRouteError",
    "SelectMessageQueueByHash",
    "SelectMessageQueueByMachineRoom",
    "SelectMessageQueueByRandom",
    "SendAttempt",
    "SendFailedError",
    "SendWhichQueue",
    "SystemClock",
    "TopicPublishInfo",
    "TopicRouteData",
    "as_selector",
    "java_int_hash",
    "java_long_hash",
    "java_string_compare",
    "java_string_hash",
    "send_default",
    "send_default_async",
    "send_select",
]


def _take_from_backend() -> None:
    """Every name of ``__all__`` not defined above and not a client name comes from the chosen backend."""
    here = globals()
    for name in __all__:
        if name not in here and name not in _CLIENT_NAMES:
            here[name] = getattr(_backend.core, name)


_take_from_backend()
