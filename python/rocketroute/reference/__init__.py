"""The pure-Python reference backend: the same names and behaviour as :mod:`rocketroute`, no compiler
needed. It is the drop-in fallback and the baseline the benchmarks compare the native backend with."""

from __future__ import annotations

import types as _types

from ..errors import IllegalArgumentError as IllegalArgumentError
from ..errors import IndexOutOfBoundsError as IndexOutOfBoundsError
from ..errors import JavaArithmeticError as JavaArithmeticError
from ..errors import NullPointerError as NullPointerError
from ..errors import NumberFormatError as NumberFormatError
from ..errors import RocketRouteError as RocketRouteError
from ..java_defaults import producer_defaults as producer_defaults
from ..protocol.response_code import RESPONSE_CODES as RESPONSE_CODES
from ..protocol.response_code import RETRY_RESPONSE_CODES as RETRY_RESPONSE_CODES
from ..protocol.response_code import ResponseCode as ResponseCode
from ..protocol.response_code import default_retry_response_codes as default_retry_response_codes
from ..rebalance import Churn as Churn
from ..rebalance import RebalanceResult as RebalanceResult
from ..rebalance import churn as churn
from ..rebalance import rebalance as rebalance
from ..selector import MessageQueueSelector as MessageQueueSelector
from ..selector import as_selector as as_selector
from ..send import CommunicationMode as CommunicationMode
from ..send import SendAttempt as SendAttempt
from ..send import send_default as send_default
from ..send import send_default_async as send_default_async
from ..send import send_select as send_select
from .allocate import AllocateMachineRoomNearby as AllocateMachineRoomNearby
from .allocate import AllocateMessageQueueAveragely as AllocateMessageQueueAveragely
from .allocate import AllocateMessageQueueAveragelyByCircle as AllocateMessageQueueAveragelyByCircle
from .allocate import AllocateMessageQueueByConfig as AllocateMessageQueueByConfig
from .allocate import AllocateMessageQueueByMachineRoom as AllocateMessageQueueByMachineRoom
from .allocate import AllocateMessageQueueConsistentHash as AllocateMessageQueueConsistentHash
from .allocate import AllocateMessageQueueStrategy as AllocateMessageQueueStrategy
from .allocate import MachineRoomResolver as MachineRoomResolver
from .allocate import allocate_all as allocate_all
from .bounded import AllocateMessageQueueConsistentHashBounded as AllocateMessageQueueConsistentHashBounded
from .clock import ManualClock as ManualClock
from .clock import SystemClock as SystemClock
from .compat import COMPAT_PROFILES as COMPAT_PROFILES
from .counter import SendWhichQueue as SendWhichQueue
from .fault import LatencyFaultTolerance as LatencyFaultTolerance
from .java import JavaRandom as JavaRandom
from .java import java_int_hash as java_int_hash
from .java import java_long_hash as java_long_hash
from .java import java_string_compare as java_string_compare
from .java import java_string_hash as java_string_hash
from .message_queue import MessageQueue as MessageQueue
from .publish_info import TopicPublishInfo as TopicPublishInfo
from .ring import MAX_VIRTUAL_NODES as MAX_VIRTUAL_NODES
from .ring import ConsistentHashRouter as ConsistentHashRouter
from .ring import md5_hash as md5_hash
from .route import TopicRouteData as TopicRouteData
from .route_model import MAX_QUEUES as MAX_QUEUES
from .route_model import BrokerData as BrokerData
from .route_model import PermName as PermName
from .route_model import QueueData as QueueData
from .select import SelectMessageQueueByHash as SelectMessageQueueByHash
from .select import SelectMessageQueueByMachineRoom as SelectMessageQueueByMachineRoom
from .select import SelectMessageQueueByRandom as SelectMessageQueueByRandom
from .static_topic import LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST as LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST
from .static_topic import LOGICAL_QUEUE_MOCK_BROKER_PREFIX as LOGICAL_QUEUE_MOCK_BROKER_PREFIX
from .static_topic import METADATA_SCOPE_GLOBAL as METADATA_SCOPE_GLOBAL
from .static_topic import TopicQueueMappingInfo as TopicQueueMappingInfo
from .static_topic import mock_broker_name as mock_broker_name
from .sticky import AllocateMessageQueueSticky as AllocateMessageQueueSticky
from .strategy import DEFAULT_TABLES as DEFAULT_TABLES
from .strategy import MQFaultStrategy as MQFaultStrategy

BACKEND = "reference"

# its public names are what it imports above, each as `name as name`: the form by which type checkers see a name
# exported (rocketroute.__all__ is the one written list; tests check they agree)
__all__ = sorted(
    n
    for n, v in globals().items()
    if not n.startswith("_") and n != "annotations" and not isinstance(v, _types.ModuleType)
)
