"""What the consumer's two consume services share (``ConsumeMessageService``): the listener called and its answer
checked, the messages made ready for it, a call put off, and the send-backs to the broker (blocking on a listener
thread, awaited on the loop). :class:`~.consume_concurrently.ConcurrentConsumeService` and
:class:`~.consume_orderly.OrderlyConsumeService` are the two services (Java's
``ConsumeMessageConcurrentlyService`` and ``ConsumeMessageOrderlyService``); the consumer builds the one its
listener asks for when it starts (:class:`~.base.ConsumerBase`), with what it needs in its constructor: the
listener, the pool its calls run on, the connections, the broker requests, the offset store and the counters."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...protocol import RemotingCommand
from ..api import send_back_request
from ..message_const import PROPERTY_RETRY_TOPIC as _RETRY_TOPIC
from ..message_decode import reset_retry_topic
from ..namespace import unwrap, wrap
from ._shared import _RAISED, _name_of, _now_ms, log
from .process_queue import ProcessQueue

__all__ = ["ConsumeService"]

if TYPE_CHECKING:
    from ...net.runtime import RemotingClient
    from ..api import BrokerAPI
    from ..workers import ConsumePool
    from .loop_pool import LoopConsumePool
    from .offset_store import OffsetStore
    from .settings import ConsumerSettings
    from .stats import ConsumerStats


class ConsumeService(ABC):
    """See the module. ``on_loop``: the listener is a coroutine function awaited on the loop (an asyncio-native
    consumer) instead of a function called on a pool thread; ``master_addr(broker_name)`` is where a send-back
    goes; ``running()`` whether the consumer still runs (a call put off is dropped once it does not)."""

    def __init__(
        self,
        group: str,
        settings: ConsumerSettings,
        compat: str,
        namespace: str | None,
        listener: Callable[..., Any] | None,
        *,
        clustering: bool,
        on_loop: bool,
        executor: ConsumePool | LoopConsumePool,
        remoting: RemotingClient,
        api: BrokerAPI,
        master_addr: Callable[[str], str | None],
        offsets: OffsetStore,
        stats: ConsumerStats,
        running: Callable[[], bool],
    ) -> None:
        self.group = group
        self.settings = settings
        self.compat = compat
        self.namespace = namespace
        self.listener = listener
        self.clustering = clustering
        self.on_loop = on_loop
        self.executor = executor
        self.remoting = remoting
        self.api = api
        self.master_addr = master_addr
        self.offsets = offsets
        self.stats = stats
        self.running = running

    @abstractmethod
    def submit_consume(self, msgs: list[Any], pq: ProcessQueue, mq: Any, dispatch: bool) -> None:
        """``submitConsumeRequest``: pulled ``msgs`` of ``mq`` (cached in ``pq``) to consume; ``dispatch``: the
        queue's cache was empty before them (an orderly queue is consumed by one call, started then)."""

    def later(self, delay_ms: int, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the pool after ``delay_ms`` (Java's ``submitConsumeRequestLater``)."""
        remoting, executor = self.remoting, self.executor
        if not self.running():
            return

        def submit() -> None:
            if self.running():
                executor.submit(fn, *args)

        try:
            remoting.loop.call_soon_threadsafe(remoting.loop.call_later, delay_ms / 1000, submit)
        except RuntimeError:
            pass

    def prepare(self, msgs: list[Any]) -> None:
        """``resetRetryAndNamespace`` and the consume start time, before the listener sees the messages."""
        namespace = self.namespace
        group = self.group
        now = str(_now_ms())
        for m in msgs:
            properties = m.properties
            if _RETRY_TOPIC in properties:  # the retry topic, then the namespace
                reset_retry_topic(m, group)
            if namespace:
                m.topic = unwrap(namespace, m.topic)
            properties["CONSUME_START_TIME"] = now

    def listener_raised(self, msgs: list[Any], context: Any) -> Any:
        log.warning(
            "the listener %s raised on %d message(s) of %s",
            _name_of(self.listener),
            len(msgs),
            context.message_queue,
            exc_info=True,
        )
        return _RAISED

    def call_listener(self, msgs: list[Any], context: Any) -> Any:
        listener = self.listener
        assert listener is not None
        self.prepare(msgs)
        try:
            return listener(msgs, context)
        except Exception:
            return self.listener_raised(msgs, context)

    async def call_listener_async(self, msgs: list[Any], context: Any) -> Any:
        """The asyncio-native consumer's listener call: a coroutine function awaited on the loop."""
        self.prepare(msgs)
        listener = self.listener
        assert listener is not None
        try:
            return await listener(msgs, context)
        except Exception:
            return self.listener_raised(msgs, context)

    def not_a_status(self, status: Any, expected: type, instead: Any) -> Any:
        """Java's answer to a listener that returns no status (``null``) or a wrong one: ``instead``
        (RECONSUME_LATER, or SUSPEND_CURRENT_QUEUE_A_MOMENT for an orderly listener), with a WARNING naming the
        listener (none for one that raised: that was logged with its traceback)."""
        if status is not _RAISED:
            log.warning(
                "the listener %s returned %r, not a %s: treated as %s",
                _name_of(self.listener),
                status,
                expected.__name__,
                instead.name,
            )
        return instead

    def max_reconsume_times(self) -> int:
        n = self.settings.max_reconsume_times
        return 16 if n == -1 else n

    def send_back(self, msg: Any, delay_level: int) -> bool:
        """CONSUMER_SEND_MSG_BACK to the message's broker: the broker stores it again in the retry topic (or
        the dead-letter queue). Java falls back to sending it as a new message through its internal producer
        when this fails; here it is consumed again locally after 5 s instead."""
        remoting = self.remoting
        addr, request = self.send_back_request(msg, delay_level)
        try:
            # a listener thread blocks on it: the runtime's blocking invoke (BrokerAPI.send_back is the loop's)
            remoting.invoke_checked(addr, request, self.settings.mq_client_api_timeout)
            return True
        except Exception as e:
            log.warning("sending back %s failed: %s", msg.msg_id, e)
            return False

    async def set_aside_undecodable(self, msgs: list[Any], mq: Any) -> bool:
        """Messages whose body cannot be decoded (a codec missing, corrupt, over ``max_body_size``) never reach
        the listener and never stall their queue: each is logged at ERROR and, in a clustering group, sent back
        with delay level -1, which the broker stores straight into the group's dead-letter queue
        (``%DLQ%<group>``), where it can be looked at. False if a send-back failed (the pull is retried)."""
        for m in msgs:
            log.error(
                "message %s (offset %d of %s) cannot be decoded, %s: %s",
                m.msg_id,
                m.queue_offset,
                mq,
                "sent to the dead-letter queue" if self.clustering else "skipped (broadcasting)",
                m.decode_error,
            )
            if not self.clustering:
                continue
            try:
                await self.send_back_async(m, -1)
            except Exception as e:
                log.error("sending the undecodable message %s to the dead-letter queue failed: %s", m.msg_id, e)
                return False
        self.stats.add(undecodable=len(msgs))
        return True

    async def send_back_async(self, msg: Any, delay_level: int) -> None:
        """:meth:`_send_back` on the loop; raises what the broker or the connection answered."""
        addr, request = self.send_back_request(msg, delay_level)
        await self.api.send_back(addr, request, self.settings.mq_client_api_timeout)

    def send_back_request(self, msg: Any, delay_level: int) -> tuple[str, RemotingCommand]:
        addr = self.master_addr(msg.broker_name) if msg.broker_name else None
        if addr is None:
            addr = msg.store_host
        request = send_back_request(
            msg,
            group=self.group,
            delay_level=delay_level,
            origin_topic=wrap(self.namespace, msg.topic),  # Java: msg.setTopic(withNamespace(...))
            max_reconsume_times=self.max_reconsume_times(),
            compat=self.compat,
        )
        return addr, request

    async def try_send_back_async(self, msg: Any, delay_level: int) -> bool:
        """:meth:`send_back` awaited: whether the broker took the message back (a failure is logged)."""
        try:
            await self.send_back_async(msg, delay_level)
            return True
        except Exception as e:
            log.warning("sending back %s failed: %s", msg.msg_id, e)
            return False
