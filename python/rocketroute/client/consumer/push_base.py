"""``PushConsumerBase``: what :class:`~rocketroute.client.consumer.consumer.Consumer` and
:class:`rocketroute.aio.Consumer` both are, on :class:`~.base.ConsumerBase`: a listener (or ``async for``), and the
parts a push consumer builds at start with their collaborators (the queue locks, the puller, the consume service
and the direct consumption, beside the rebalancer). The threaded class adds the blocking calls and a listener on
threads; the asyncio one the coroutines of the caller's loop, an async listener and ``async for``.

``L`` is the listener's type: a :data:`~.listener.MessageListener` or an :data:`~.listener.AsyncMessageListener`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ...protocol import RemotingCommand
from ...protocol.response_code import ResponseCode
from ..instance import ClientInstance
from ..workers import ConsumePool
from ._shared import log
from .base import ConsumerBase
from .constants import CONSUMER_CONSTANTS
from .consume_concurrently import ConcurrentConsumeService
from .consume_directly import DirectConsumer
from .consume_orderly import OrderlyConsumeService
from .consume_service import ConsumeService
from .feed import Feed
from .loop_pool import LoopConsumePool
from .offset_store import OffsetStore
from .puller import Puller
from .queue_limits import QueueLimits
from .queue_locks import QueueLocks
from .settings import ConsumerSettings

if TYPE_CHECKING:
    from ... import MessageQueue
    from ...rebalance import QueueAllocator

__all__ = ["PushConsumerBase"]

L = TypeVar("L", bound=Callable[..., Any])


class PushConsumerBase(ConsumerBase[ConsumerSettings], Generic[L]):
    """See the module; the arguments are :class:`~rocketroute.client.consumer.consumer.Consumer`'s."""

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str,
        subscriptions: Mapping[str, str | None] | Iterable[str],
        strategy: QueueAllocator | None = None,
        *,
        listener: L | None = None,
        orderly: bool = False,
        on_rebalance: Callable[[str, tuple[MessageQueue, ...]], None] | None = None,
        settings: ConsumerSettings | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            namesrv, group, subscriptions, strategy, on_rebalance=on_rebalance, settings=settings, **kwargs
        )
        self.orderly = orderly
        # a MessageListener, or rocketroute.aio's AsyncMessageListener: the consume service checks what it answers
        self.listener: L | None = listener
        # the cache limits of a queue (messages, bytes): pull_threshold_*_for_queue, or a topic's share of
        # pull_threshold_*_for_topic among the queues this consumer owns (shared at each rebalance)
        self._limits = QueueLimits(self.settings)
        self._executor: ConsumePool | LoopConsumePool | None = None
        # the parts, built at start over the instance's connections and the offset store (Java's
        # RebalancePushImpl, its locks, the pull of DefaultMQPushConsumerImpl, the ConsumeMessage*Service)
        self._puller: Puller | None = None
        self._consume_service: ConsumeService | None = None  # the one the listener asks for
        self._direct: DirectConsumer | None = None  # CONSUME_MESSAGE_DIRECTLY
        # rocketroute.aio's without a listener: the feed that ``async for`` reads
        self._feed: Feed | None = None

    def _check_startable(self) -> None:
        if self.listener is None and self._bind_loop is None:  # asyncio's reads by async for
            raise RuntimeError("register a message listener before start()")

    def _kind_text(self) -> str:
        return "orderly" if self.orderly else "concurrently"

    def _kind_properties(self) -> dict[str, str]:
        return {
            "PROP_CONSUMEORDERLY": str(self.orderly).lower(),
            "PROP_THREADPOOL_CORE_SIZE": str(self.settings.consume_thread_min),
        }

    def _consume_service_for(self, instance: ClientInstance, offsets: OffsetStore) -> ConsumeService:
        """The consume service the listener asks for (Java's ``start`` picks it by the listener's type), over
        the started instance's connections and requests."""
        assert self._executor is not None
        args = (self.group, self.settings, self.compat, self.namespace, self.listener)
        parts: dict[str, Any] = {
            "clustering": self.model == "CLUSTERING",
            "on_loop": self._bind_loop is not None,
            "executor": self._executor,
            "remoting": instance.remoting,
            "api": instance.api,
            "master_addr": instance.broker_addrs.master,
            "offsets": offsets,
            "stats": self.stats,
            "running": self._is_running,
        }
        if self.orderly:
            lock = None if self._locks is None else self._locks.lock
            return OrderlyConsumeService(*args, lock=lock, **parts)
        service = ConcurrentConsumeService(*args, process_queues=self._subscription.process_queues, **parts)
        if self.listener is None:  # rr.aio's async for: the iterating tasks take the batches
            assert self._bind_loop is not None
            self._feed = service.feed = Feed(service.prepare, service.settle_fed, self._bind_loop)
        return service

    def _build_parts(self, instance: ClientInstance, offsets: OffsetStore) -> None:
        """The push consumer's parts (Java's ``start``): the pool the listener runs on, the queue locks, the
        consume service, the direct consumption, the puller and the rebalancer."""
        clustering = self.model == "CLUSTERING"
        master_addr = instance.broker_addrs.master
        state = self._subscription
        name = f"rocketroute-consume-{self.group}"
        n = self.settings.consume_thread_min
        on_loop = self._bind_loop is not None
        self._executor = executor = LoopConsumePool(n, name) if on_loop else ConsumePool(n, name)
        if self.orderly and clustering:
            self._locks = QueueLocks(
                self.group,
                self.client_id,
                api=instance.api,
                master_addr=master_addr,
                state=state,
                message_queue=self._rr.MessageQueue,
            )
        self._consume_service = consume = self._consume_service_for(instance, offsets)
        self._direct = DirectConsumer(
            self.group,
            self.settings,
            self.compat,
            self.namespace,
            self.listener,
            orderly=self.orderly,
            on_loop=on_loop,
            executor=executor,
            feed=self._feed,
            message_queue=self._rr.MessageQueue,
        )
        self._puller = puller = Puller(
            self.group,
            self.settings,
            self.compat,
            state.subscriptions,
            orderly=self.orderly,
            clustering=clustering,
            client=instance.remoting.async_client,
            broker_addrs=instance.broker_addrs,
            offsets=offsets,
            limits=self._limits,
            consume=consume,
            process_queues=state.process_queues,
            stats=self.stats,
            running=self._is_running,
        )
        self._rebalancer = self._rebalancer_for(instance, offsets, puller, self._limits)

    def _listener_wait_ms(self) -> int:
        s = self.settings
        return s.await_termination_millis_when_shutdown or s.consume_timeout * 60_000

    def _abandoned(self, still: int, wait_ms: int) -> None:
        if still:
            log.warning(
                "%d listener call(s) of %s still running %d ms into shutdown: abandoned, their messages are not "
                "committed and will be consumed again",
                still,
                self.group,
                wait_ms,
            )

    def _on_consume_directly(self, cmd: RemotingCommand, addr: str) -> Any:
        """CONSUME_MESSAGE_DIRECTLY, forwarded by a broker for ``mqadmin consumeMessage`` on one member
        (:mod:`.consume_directly`)."""
        if (refused := self._other_group(cmd)) is not None:
            return refused
        if self._direct is None:
            return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, f"the consumer is {self._state}")
        return self._direct.answer(cmd)

    def _periodic(self) -> list[tuple[int, Callable[[], Any]]]:
        jobs: list[tuple[int, Callable[[], Any]]] = []
        if self._locks is not None:
            jobs.append((CONSUMER_CONSTANTS["REBALANCE_LOCK_INTERVAL"], self._locks.lock_all))
        service = self._consume_service
        if isinstance(service, ConcurrentConsumeService):  # its cleanExpireMsg, every consume_timeout minutes
            jobs.append((self.settings.consume_timeout * 60_000, service.clean_expired))
        return jobs

    def _cancel_pulls(self) -> list[Any]:
        return [] if self._puller is None else self._puller.cancel_all()
