"""The producer: :class:`Producer` (``DefaultMQProducer``), its settings, its send results and the route changes
it reports.

Modules: ``producer`` (the class), ``settings`` (:class:`ProducerSettings`), ``send_result``, ``route_change``,
``transaction`` (:class:`TransactionProducer`, ``TransactionMQProducer``); the
send's request header is :mod:`rocketroute.protocol.headers.send`. ``rocketroute.client.producer.Producer`` is the
class, as it was when this package was one module.
"""

from __future__ import annotations

from .producer import Producer
from .route_change import RouteChange, key_move_share, route_change
from .send_result import DEFAULT_TRACE_REGION_ID, SendResult, SendStatus, send_result_from_response
from .settings import ProducerSettings
from .transaction import LocalTransactionState, TransactionProducer, TransactionSendResult

__all__ = [
    "DEFAULT_TRACE_REGION_ID",
    "LocalTransactionState",
    "Producer",
    "ProducerSettings",
    "RouteChange",
    "SendResult",
    "SendStatus",
    "TransactionProducer",
    "TransactionSendResult",
    "key_move_share",
    "route_change",
    "send_result_from_response",
]
