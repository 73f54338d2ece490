"""``TopicPublishInfo``: a topic's publish queues and the round-robin pick over them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..errors import JavaArithmeticError, NullPointerError
from .compat import parse_compat
from .counter import SendWhichQueue
from .java import check_opt_name, java_abs, java_rem
from .message_queue import MessageQueue
from .route import TopicRouteData
from .route_model import PermName

__all__ = ["TopicPublishInfo"]

QueueFilter = Callable[[MessageQueue], bool]


class TopicPublishInfo:
    """The queues a producer sends a topic's messages to, with its ``sendWhichQueue`` index."""

    __slots__ = ("_compat", "_have_route_info", "_index", "_order_topic", "_queues", "_route")

    def __init__(
        self,
        message_queues: Iterable[MessageQueue],
        *,
        order_topic: bool = False,
        route: TopicRouteData | None = None,
        compat: str = "5.3",
        send_which_queue: SendWhichQueue | None = None,
    ) -> None:
        self._compat = parse_compat(compat)
        queues = tuple(message_queues)
        for mq in queues:
            if not isinstance(mq, MessageQueue):
                raise TypeError(f"message_queues must hold MessageQueue, not {type(mq).__name__}")
            if mq.broker_name is None or mq.topic is None:
                raise NullPointerError(f"publish queue {mq} has no topic or broker name")
        if route is not None and not isinstance(route, TopicRouteData):
            raise TypeError(f"route must be a TopicRouteData, not {type(route).__name__}")
        if send_which_queue is None:
            send_which_queue = SendWhichQueue(self._compat)
        elif not isinstance(send_which_queue, SendWhichQueue):
            raise TypeError(f"send_which_queue must be a SendWhichQueue, not {type(send_which_queue).__name__}")
        self._queues = queues
        self._order_topic = bool(order_topic)
        self._route = route
        self._index = send_which_queue
        self._have_route_info = False

    @classmethod
    def from_route(cls, topic: str, route: TopicRouteData, compat: str = "5.3") -> TopicPublishInfo:
        """``MQClientInstance.topicRouteData2TopicPublishInfo``: the queues of ``orderTopicConf`` when it is
        set (an ordered topic); on 5.3, for a static topic (``orderTopicConf`` null, a non-empty
        ``topic_queue_mapping_by_broker``), its logic queues sorted by queue id; else ``writeQueueNums`` queues
        of every writeable broker that has a master, brokers in name order. The returned info keeps the route,
        with its queue datas in that sorted order on the last path (Java sorts the route's list in place).
        ``compat`` also picks the path: 4.9.8 has no static topics. Like Java's converter, it leaves
        :attr:`have_topic_router_info` ``False``."""
        if not isinstance(route, TopicRouteData):
            raise TypeError(f"route must be a TopicRouteData, not {type(route).__name__}")
        compat = parse_compat(compat)
        queues, order_topic, kept = route._publish(topic, compat)
        return cls(queues, order_topic=order_topic, route=kept, compat=compat)

    @property
    def message_queues(self) -> tuple[MessageQueue, ...]:
        return self._queues

    @property
    def order_topic(self) -> bool:
        return self._order_topic

    @property
    def route(self) -> TopicRouteData | None:
        return self._route

    @property
    def compat(self) -> str:
        return self._compat

    @property
    def send_which_queue(self) -> SendWhichQueue:
        return self._index

    @property
    def have_topic_router_info(self) -> bool:
        """``TopicPublishInfo.isHaveTopicRouterInfo`` / ``setHaveTopicRouterInfo``: ``False`` until set (the
        Java client sets it right after converting the route). Setting a non-``bool`` is ``TypeError``. A plain
        attribute store, atomic under the GIL (Java's field is ``volatile``)."""
        return self._have_route_info

    @have_topic_router_info.setter
    def have_topic_router_info(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"have_topic_router_info must be a bool, not {type(value).__name__}")
        self._have_route_info = bool(value)

    def ok(self) -> bool:
        return bool(self._queues)

    def __len__(self) -> int:
        return len(self._queues)

    def __repr__(self) -> str:
        return f"TopicPublishInfo(order_topic={self._order_topic}, queues={len(self._queues)}, compat={self._compat!r})"

    def _next(self) -> MessageQueue:
        # Java: index % size, with the index already non-negative; an empty list divides by zero.
        index = self._index.increment_and_get()
        if not self._queues:
            raise JavaArithmeticError("/ by zero")
        return self._queues[index % len(self._queues)]

    def select_one_message_queue(self, last_broker_name: str | None = None) -> MessageQueue:
        """The next queue round-robin; with ``last_broker_name``, the next one on another broker if any
        (up to one full turn), else simply the next one. Raises :class:`JavaArithmeticError` when empty."""
        queues = self._queues
        if check_opt_name("last_broker_name", last_broker_name) is None or not queues:
            return self._next()
        n = len(queues)
        # one turn of this call's own (Java's index is per thread), then one more pick
        value = self._index._take_turn(n + 1, lambda i, v: i == n or queues[v % n].broker_name != last_broker_name)
        assert value is not None  # the last value of the turn is always taken
        return queues[value % n]

    def select_one_message_queue_filtered(self, *filters: QueueFilter) -> MessageQueue | None:
        """5.x ``selectOneMessageQueue(QueueFilter...)``: up to one full turn for a queue that every filter
        accepts, else ``None``; with no filter, the next queue. ``None`` for an empty queue list."""
        queues = self._queues
        if not queues:
            return None
        n = len(queues)
        if filters:

            def accept(_: int, value: int) -> bool:
                mq = queues[java_abs(java_rem(value, n))]
                ok = True
                for f in filters:
                    if f is None:
                        raise NullPointerError("queue filter is None")
                    ok &= bool(f(mq))
                return ok

            # one turn of this call's own, as Java's per-thread index gives it
            value = self._index._take_turn(n, accept)
            return None if value is None else queues[java_abs(java_rem(value, n))]
        return queues[java_abs(java_rem(self._index.increment_and_get(), n))]

    def reset_index(self) -> None:
        self._index.reset()

    def write_queue_nums_by_broker(self, broker_name: str) -> int:
        """``writeQueueNums`` of the first queue data of ``broker_name`` in the route, or -1. On 4.9
        (``getQueueIdByBroker``) only writeable queue datas count; 5.3 has no such check."""
        broker_name = check_opt_name("broker_name", broker_name)
        if self._route is None:
            raise NullPointerError("this TopicPublishInfo has no route")
        queue_datas = self._route.queue_datas
        if queue_datas is None:
            raise NullPointerError("the route's queue_datas is None")
        for qd in queue_datas:
            if self._compat == "4.9" and not PermName.is_writeable(qd.perm):
                continue
            if qd.broker_name == broker_name:
                return qd.write_queue_nums
        return -1
