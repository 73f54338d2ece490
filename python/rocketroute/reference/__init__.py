"""The pure-Python reference backend: the same names and behaviour as :mod:`rocketroute`, no compiler
needed. It is the drop-in fallback and the baseline the benchmarks compare the native backend with."""

from __future__ import annotations

import types as _types

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
from ..remoting.response_code import RESPONSE_CODES, RETRY_RESPONSE_CODES, ResponseCode, default_retry_response_codes
from ..selector import MessageQueueSelector, as_selector
from ..send import CommunicationMode, SendAttempt, send_default, send_default_async, send_select
from .allocate import (
    AllocateMachineRoomNearby,
    AllocateMessageQueueAveragely,
    AllocateMessageQueueAveragelyByCircle,
    AllocateMessageQueueByConfig,
    AllocateMessageQueueByMachineRoom,
    AllocateMessageQueueConsistentHash,
    AllocateMessageQueueStrategy,
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

# its public names are what it imports above (rocketroute.__all__ is the one written list; tests check they agree)
__all__ = sorted(
    n
    for n, v in globals().items()
    if not n.startswith("_") and n != "annotations" and not isinstance(v, _types.ModuleType)
)
