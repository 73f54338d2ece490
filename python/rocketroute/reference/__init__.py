"""The pure-Python reference backend: the same names and behaviour as :mod:`rocketroute`, no compiler
needed. It is the drop-in fallback and the baseline the benchmarks compare the native backend with."""

from __future__ import annotations

from ..errors import (
    IllegalArgumentError,
    IndexOutOfBoundsError,
    JavaArithmeticError,
    NullPointerError,
    NumberFormatError,
    RocketRouteError,
)
from ..producer_config import producer_defaults
from ..rebalance import Churn, RebalanceResult, churn, rebalance
from ..response_code import RESPONSE_CODES, RETRY_RESPONSE_CODES, ResponseCode, default_retry_response_codes
from ..selector import MessageQueueSelector, as_selector
from ..send import CommunicationMode, SendAttempt, send_default, send_default_async, send_select
from .allocate import (
    AllocateMachineRoomNearby,
    AllocateMessageQueueAveragely,
    AllocateMessageQueueAveragelyByCircle,
    AllocateMessageQueueByConfig,
    AllocateMessageQueueByMachineRoom,
    AllocateMessageQueueConsistentHash,
    MachineRoomResolver,
    allocate_all,
)
from .bounded import AllocateMessageQueueConsistentHashBounded
from .clock import ManualClock, SystemClock
from .compat import COMPAT_PROFILES
from .counter import SendWhichQueue
from .fault import LatencyFaultTolerance
from .grpc_balancer import Endpoints, GrpcMessageQueue, PublishingLoadBalancer, SubscriptionLoadBalancer
from .java import JavaRandom, java_int_hash, java_long_hash, java_string_compare, java_string_hash
from .message_queue import MessageQueue
from .publish_info import TopicPublishInfo
from .ring import MAX_VIRTUAL_NODES, ConsistentHashRouter, md5_hash
from .route import MAX_QUEUES, BrokerData, PermName, QueueData, TopicRouteData
from .select import SelectMessageQueueByHash, SelectMessageQueueByMachineRoom, SelectMessageQueueByRandom
from .static_topic import (
    LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST,
    LOGICAL_QUEUE_MOCK_BROKER_PREFIX,
    METADATA_SCOPE_GLOBAL,
    TopicQueueMappingInfo,
    mock_broker_name,
)
from .sticky import AllocateMessageQueueSticky
from .strategy import DEFAULT_TABLES, MQFaultStrategy

BACKEND = "reference"

__all__ = [
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
    "BACKEND",
    "Churn",
    "ConsistentHashRouter",
    "MachineRoomResolver",
    "RebalanceResult",
    "allocate_all",
    "churn",
    "md5_hash",
    "rebalance",
    "COMPAT_PROFILES",
    "DEFAULT_TABLES",
    "Endpoints",
    "GrpcMessageQueue",
    "PublishingLoadBalancer",
    "SubscriptionLoadBalancer",
    "MAX_QUEUES",
    "MAX_VIRTUAL_NODES",
    "LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST",
    "LOGICAL_QUEUE_MOCK_BROKER_PREFIX",
    "METADATA_SCOPE_GLOBAL",
    "BrokerData",
    "CommunicationMode",
    "IllegalArgumentError",
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
    "QueueData",
    "RocketRouteError",
    "SelectMessageQueueByHash",
    "SelectMessageQueueByMachineRoom",
    "SelectMessageQueueByRandom",
    "SendAttempt",
    "SendWhichQueue",
    "SystemClock",
    "TopicPublishInfo",
    "TopicQueueMappingInfo",
    "TopicRouteData",
    "as_selector",
    "java_int_hash",
    "java_long_hash",
    "java_string_compare",
    "java_string_hash",
    "mock_broker_name",
    "send_default",
    "send_default_async",
    "send_select",
]
