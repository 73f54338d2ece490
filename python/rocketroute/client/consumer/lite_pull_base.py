"""``LitePullBase``: what :class:`~rocketroute.client.consumer.lite_pull_consumer.LitePullConsumer` and
:class:`rocketroute.aio.LitePullConsumer` both are (Java's ``DefaultLitePullConsumerImpl``), on
:class:`~.base.ConsumerBase`: the queues come from a subscription with the group's rebalance (``subscribe``) or
are given (``assign``), never both; a :class:`~.lite_puller.LitePuller` pulls each into the
:class:`~.poll_buffer.PollBuffer`; ``poll`` hands out one pull's messages at a time and (with ``auto_commit``)
commits what the polls before it returned. Seeks, commits, pauses and the offsets' lookups are here too; the
front-ends add the blocking calls (threaded) or the coroutines of the caller's loop (asyncio).

Everything runs on the consumer's loop: the threaded front-end calls these coroutines there."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ...errors import IllegalArgumentError
from ...protocol.errors import RemotingConnectError
from ..instance import ClientInstance
from ..instances import forked_error
from ..namespace import unwrap, wrap
from ._shared import _now_ms, log
from .base import STOP_TIMEOUT_S, ConsumerBase
from .lite_pull_settings import LitePullConsumerSettings
from .lite_puller import LitePuller
from .offset_store import OffsetStore
from .poll_buffer import PollBuffer, Pulled
from .process_queue import ProcessQueue
from .subscription import ConsumerData, SubscriptionData, build_subscription

if TYPE_CHECKING:
    from ... import MessageQueue
    from ...rebalance import QueueAllocator
    from ..message_decode import MessageExt

__all__ = ["LitePullBase"]

NOT_RUNNING = "The consumer not running, please start it first."
"""``DefaultLitePullConsumerImpl``'s ``IllegalStateException`` text (a :class:`RuntimeError` here)."""
CONFLICT = "Subscribe and assign are mutually exclusive."


class LitePullBase(ConsumerBase[LitePullConsumerSettings]):
    """See the module. ``subscriptions`` (``{topic: tag expression}`` or topics) subscribes at once, as
    :meth:`subscribe` does; none: call :meth:`subscribe` or :meth:`assign` before or after :meth:`start`."""

    SETTINGS: ClassVar[type[LitePullConsumerSettings]] = LitePullConsumerSettings
    CONSUME_TYPE: ClassVar[str] = "CONSUME_ACTIVELY"
    LITE: ClassVar[bool] = True

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str,
        subscriptions: Mapping[str, str | None] | Iterable[str] | None = None,
        strategy: QueueAllocator | None = None,
        *,
        on_rebalance: Callable[[str, tuple[MessageQueue, ...]], None] | None = None,
        settings: LitePullConsumerSettings | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            namesrv, group, {} if subscriptions is None else subscriptions, strategy, on_rebalance=on_rebalance,
            settings=settings, **kwargs,
        )  # fmt: skip
        # SubscriptionType: "none" until subscribe or assign says which
        self._mode = "subscribe" if self._subscription.subscriptions else "none"
        self._assigned: set[Any] = set()  # assign's queues, topics on the wire
        self._assign_expressions: dict[str, SubscriptionData] = {}  # setSubExpressionForAssign, by wire topic
        self._paused: set[Any] = set()
        self._buffer = PollBuffer()
        self._puller: LitePuller | None = None
        self._next_auto_commit_ms = -1
        self._commits: set[asyncio.Future[None]] = set()  # the give-ups of queues no longer assigned, under way
        # a poll's hand-out (on any thread, for the threaded front-end) and a seek (on the loop) one at a time
        self._hand_lock = threading.Lock()

    def _kind_text(self) -> str:
        return f"lite pull ({self._mode})"

    # -- the queues: subscribe or assign (on the loop once started) ------------------------------------------------

    def _set_mode(self, mode: str) -> None:
        if self._mode == "none":
            self._mode = mode
        elif self._mode != mode:
            raise RuntimeError(CONFLICT)

    def _wire_queue(self, mq: Any) -> Any:
        """``mq`` as the consumer holds it: the backend's class, its topic as sent (in the namespace)."""
        if not hasattr(mq, "topic") or not hasattr(mq, "queue_id"):
            raise TypeError(f"a message queue (rocketroute.MessageQueue) is expected, not {mq!r}")
        return self._rr.MessageQueue(wrap(self.namespace, mq.topic), mq.broker_name, mq.queue_id)

    def _subscribe_now(self, topic: str, expression: str | None) -> None:
        if not isinstance(topic, str) or not topic:
            raise IllegalArgumentError("Topic can not be null or empty.")
        sub = build_subscription(wrap(self.namespace, topic), expression)  # a bad expression raises before any change
        self._set_mode("subscribe")
        self._subscription.subscriptions[sub.topic] = sub
        if self._rebalancer is not None:  # running: the next rebalance (now) takes the topic's queues
            self._ensure_rebalance_loop()
            self._rebalancer.wake()

    def _unsubscribe_now(self, topic: str) -> None:
        self._subscription.remove(wrap(self.namespace, topic))
        if self._rebalancer is not None:
            self._rebalancer.wake()  # gives up the topic's queues

    def _assign_now(self, queues: Iterable[Any]) -> None:
        if isinstance(queues, (str, bytes)) or not isinstance(queues, Iterable):
            raise TypeError(f"assign takes message queues, not {queues!r}")
        wanted = {self._wire_queue(mq) for mq in queues}
        if not wanted:
            raise IllegalArgumentError("Message queues can not be null or empty.")
        self._set_mode("assign")
        self._assigned = wanted
        if self._puller is not None:
            self._update_assigned()

    def _set_sub_expression_for_assign_now(self, topic: str, expression: str) -> None:
        if not isinstance(expression, str) or not expression.strip():
            raise IllegalArgumentError("subExpression can not be null or empty.")
        if self._state != "created":
            raise RuntimeError("setAssignTag only can be called before start.")
        sub = build_subscription(wrap(self.namespace, topic), expression)
        self._set_mode("assign")
        self._assign_expressions[sub.topic] = sub

    def _update_assigned(self) -> None:
        """``updateAssignPullTask``: the queues no longer assigned stop at once and are given up (their offsets
        committed, then forgotten), the new ones start from their committed offset (else ``consume_from_where``)."""
        puller = self._puller
        assert puller is not None
        pqs = self._subscription.process_queues
        for mq, pq in list(pqs.items()):
            if mq not in self._assigned and not pq.dropped:
                puller.stop_pull(mq)  # what its polls reached goes to the offset store first (auto_commit)
                pq.dropped = True
                give_up = asyncio.ensure_future(self._give_up(mq))
                self._commits.add(give_up)
                give_up.add_done_callback(self._commits.discard)
        for mq in sorted(self._assigned):
            if mq not in pqs:
                self._start_assigned(mq)

    def _start_assigned(self, mq: Any) -> None:
        assert self._puller is not None
        pq = self._subscription.process_queues[mq] = ProcessQueue()
        self._puller.start_pull(mq, pq, -1)  # its start offset fetches the route first when it is not known yet

    async def _give_up(self, mq: Any) -> None:
        """A queue no longer assigned: its offset committed and forgotten (it stays among the queues held until
        then, so the periodic commit does not drop it unwritten); taken again if it was assigned again meanwhile."""
        assert self._rebalancer is not None
        await self._rebalancer.drop(mq)
        if mq in self._assigned and mq not in self._subscription.process_queues and self._is_running():
            self._start_assigned(mq)

    def _subscription_of(self, topic: str) -> SubscriptionData:
        """What a queue of ``topic`` pulls with: the subscription, or assign's expression (all tags by default)."""
        sub = self._subscription.subscriptions.get(topic) or self._assign_expressions.get(topic)
        return sub if sub is not None else build_subscription(topic, "*")

    def _pause_now(self, queues: Iterable[Any], paused: bool) -> None:
        for mq in queues:
            wire = self._wire_queue(mq)
            if paused:
                self._paused.add(wire)
            else:
                self._paused.discard(wire)

    # -- what the instance asks ---------------------------------------------------------------------------------

    def _route_topics(self) -> list[str]:
        return sorted({*self._subscription.route_topics(), *(mq.topic for mq in self._assigned)})

    def _takes_route(self, topic: str) -> bool:
        return self._subscription.takes_route(topic) or any(mq.topic == topic for mq in self._assigned)

    def _consumer_data(self) -> ConsumerData:
        # Java's lite pull consumer tells the brokers CONSUME_FROM_LAST_OFFSET whatever it starts from
        return ConsumerData(
            self.group,
            list(self._subscription.subscriptions.values()),
            message_model=self.model,
            consume_from_where="CONSUME_FROM_LAST_OFFSET",
            consume_type=self.CONSUME_TYPE,
            unit_mode=False,
        )

    # -- start and stop --------------------------------------------------------------------------------------------

    def _build_parts(self, instance: ClientInstance, offsets: OffsetStore) -> None:
        self._puller = puller = LitePuller(
            self.group,
            self.settings,
            self.compat,
            client=instance.remoting.async_client,
            broker_addrs=instance.broker_addrs,
            buffer=self._buffer,
            offsets=offsets,
            paused=self._paused,
            subscription_of=self._subscription_of,
            start_offset=self._start_offset,
            stats=self.stats,
            running=self._is_running,
        )
        self._rebalancer = self._rebalancer_for(instance, offsets, puller, None)

    async def _start_offset(self, mq: Any) -> int:
        """Where a queue with no offset yet starts: its committed offset, else ``consume_from_where`` (an
        assigned queue's route is fetched first when it is not known yet)."""
        assert self._rebalancer is not None
        await self._master(mq)
        return await self._rebalancer.compute_pull_from_where(mq)

    def _rebalances(self) -> bool:
        return self._mode == "subscribe"

    async def _first_assignment(self) -> None:
        if self._mode == "assign":
            self._update_assigned()
        elif self._mode == "subscribe":
            await self._rebalancing().rebalance_all()

    def _cancel_pulls(self) -> list[asyncio.Task[None]]:
        return [] if self._puller is None else self._puller.cancel_all()

    async def _stop_steps(self) -> None:
        """The stop, on the loop: the pulls and timers end, waiting polls return nothing, the offsets committed
        (acknowledged) and the group left; each step bounded."""
        try:
            await asyncio.wait_for(self._stop_pulls(), STOP_TIMEOUT_S)
        except Exception as e:
            log.warning("stopping the pulls and timers did not finish: %r", e)
        self._buffer.close()
        if self.settings.auto_commit and self._puller is not None and self._offsets is not None:
            # what the polls returned is committed, as the next poll would have (and as Kafka's close does)
            for mq, offset in self._puller.polled_offsets().items():
                self._offsets.update_offset(mq, offset)
        try:
            await asyncio.wait_for(self._final_commit_and_unregister(), self._final_bound_s())
        except Exception as e:
            log.warning("the final commit or unregister did not finish: %r", e)

    # -- poll and commit ---------------------------------------------------------------------------------------

    def _running_puller(self) -> LitePuller:
        if self._state == "forked":
            raise forked_error("consumer", self._forked_from)
        if self._state != "running" or self._puller is None:
            raise RuntimeError(f"{NOT_RUNNING} (it is {self._state})")
        return self._puller

    def _poll_timeout_s(self, timeout_ms: int | None) -> float:
        """A poll's wait: ``timeout_ms``, ``poll_timeout_millis`` when ``None``; Java's error for a negative one."""
        timeout = self.settings.poll_timeout_millis if timeout_ms is None else timeout_ms
        if isinstance(timeout, bool) or not isinstance(timeout, int):
            raise TypeError(f"the poll timeout is an int of milliseconds, not {timeout!r}")
        if timeout < 0:
            raise IllegalArgumentError("Timeout must not be negative")
        return timeout / 1000

    def _maybe_auto_commit(self) -> None:
        """``maybeAutoCommit``: with ``auto_commit``, what the polls returned goes to the offset store at most every
        ``auto_commit_interval_millis``."""
        s = self.settings
        if s.auto_commit:
            now = _now_ms()
            if now >= self._next_auto_commit_ms:
                self._commit_polled()
                self._next_auto_commit_ms = now + s.auto_commit_interval_millis

    async def _poll(self, timeout_ms: int | None) -> list[MessageExt]:
        """``poll(timeout)``: one pull's messages (up to ``pull_batch_size``, of one queue), waiting up to
        ``timeout_ms`` (``poll_timeout_millis`` when ``None``) for them; ``[]`` when none came."""
        self._running_puller()
        timeout_s = self._poll_timeout_s(timeout_ms)
        self._maybe_auto_commit()
        pulled = await self._buffer.get(timeout_s)
        if pulled is None:
            return []
        with self._hand_lock:
            return self._hand_out(pulled)

    def _poll_ready(self) -> list[MessageExt] | None:
        """A poll that needs no wait, from any thread: the auto-commit, then one pull's messages when the buffer
        holds some; ``None`` when it holds none (the caller then waits on the loop). The threaded front-end's poll
        comes here first: a poll that finds messages waiting costs no hop to the loop."""
        self._running_puller()
        self._maybe_auto_commit()
        with self._hand_lock:  # a seek (on the loop) happens before the take or after the hand-out, never between
            pulled = self._buffer.take_now()
            return None if pulled is None else self._hand_out(pulled)

    def _hand_out(self, pulled: Pulled) -> list[MessageExt]:
        """A pull's messages handed out by a poll (under the hand-out lock): the offset the queue's polls reached
        moves past them; their topics lose the namespace."""
        puller = self._running_puller()
        msgs = pulled.messages
        offset = pulled.pq.remove_messages(msgs)
        state = puller.queues.get(pulled.mq)
        if offset >= 0 and state is not None and state.pq is pulled.pq:
            state.consume_offset = offset
        if self.namespace:
            for m in msgs:
                m.topic = unwrap(self.namespace, m.topic)
        self.stats.add(consumed=len(msgs))
        return msgs

    def _commit_polled(self) -> list[Any]:
        """``commitAll``: the offset each held queue's polls reached, into the offset store's memory (the periodic
        commit, and :meth:`_commit_sync`, write them to the brokers); the queues committed."""
        puller = self._running_puller()
        offsets = self._offsets
        assert offsets is not None
        polled = puller.polled_offsets()
        for mq, offset in polled.items():
            offsets.update_offset(mq, offset)
        return list(polled)

    async def _commit_sync(self) -> None:
        """What every held queue's polls reached, committed and written to the brokers (acknowledged)."""
        committed = self._commit_polled()
        await self._write(committed)

    async def _commit(self, offsets: Mapping[Any, int], persist: bool) -> None:
        """``commit(offsets, persist)``: the given offsets of held queues into memory; written (acknowledged) with
        ``persist``. A queue this consumer no longer holds is left alone (its owner commits it)."""
        puller = self._running_puller()
        if not isinstance(offsets, Mapping):
            raise TypeError(f"commit takes {{message queue: offset}}, not {offsets!r}")
        store = self._offsets
        assert store is not None
        given = []
        for mq, offset in offsets.items():
            if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
                raise IllegalArgumentError(f"the offset to commit of {mq} must be an int >= 0, not {offset!r}")
            wire = self._wire_queue(mq)
            state = puller.queues.get(wire)
            if state is None or state.pq.dropped:
                log.debug("commit of %s at %d left alone: the queue is not held by this consumer", mq, offset)
                continue
            store.update_offset(wire, offset)
            given.append(wire)
        if persist:
            await self._write(given)

    async def _write(self, queues: Sequence[Any]) -> None:
        store = self._offsets
        assert store is not None
        for mq in queues:
            await store.persist(mq)

    async def _committed(self, mq: Any) -> int:
        """``committed(mq)``: the offset held in memory, else the broker's; -1 when there is none."""
        self._running_puller()
        wire = self._wire_queue(mq)
        store = self._offsets
        assert store is not None
        held = store.read_memory(wire)
        if held >= 0:
            return held
        await self._master(wire)  # the route of a queue not pulled yet
        return await store.read_from_store(wire)

    # -- seeks and the offsets of a queue ------------------------------------------------------------------------

    async def _master(self, mq: Any) -> str:
        """The master of ``mq``'s broker (its route fetched when it is not known yet, as Java's ``MQAdminImpl``)."""
        instance = self._instance
        assert instance is not None
        addr = instance.broker_addrs.master(mq.broker_name)
        if addr is None:
            await instance.update_route(mq.topic, self.settings.mq_client_api_timeout)
            addr = instance.broker_addrs.master(mq.broker_name)
        if addr is None:
            raise RemotingConnectError(f"<{mq.broker_name}>", f"The broker[{mq.broker_name}] not exist")
        return addr

    async def _min_offset(self, mq: Any) -> int:
        self._running_puller()
        assert self._instance is not None
        return await self._instance.api.min_offset(await self._master(mq), mq, self.settings.mq_client_api_timeout)

    async def _max_offset(self, mq: Any) -> int:
        self._running_puller()
        assert self._instance is not None
        return await self._instance.api.max_offset(await self._master(mq), mq, self.settings.mq_client_api_timeout)

    async def _seek(self, mq: Any, offset: int) -> None:
        """``seek``: the queue is pulled again from ``offset`` (between its min and max offsets), which the next
        commit writes; what it held unpolled is dropped."""
        puller = self._running_puller()
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError(f"a seek offset is an int, not {offset!r}")
        wire = self._wire_queue(mq)
        if wire not in puller.queues:
            rebalancing = ", may be rebalancing" if self._mode == "subscribe" else ""
            raise IllegalArgumentError(f"The message queue is not in assigned list{rebalancing}, message queue: {mq}")
        low, high = await self._min_offset(wire), await self._max_offset(wire)
        if offset < low or offset > high:
            raise IllegalArgumentError(
                f"Seek offset illegal, seek offset = {offset}, min offset = {low}, max offset = {high}"
            )
        with self._hand_lock:
            if wire in puller.queues:  # still held after the lookups
                puller.seek(wire, offset)

    async def _seek_to_begin(self, mq: Any) -> None:
        await self._seek(mq, await self._min_offset(self._wire_queue(mq)))

    async def _seek_to_end(self, mq: Any) -> None:
        await self._seek(mq, await self._max_offset(self._wire_queue(mq)))

    async def _offset_for_timestamp(self, mq: Any, timestamp_ms: int) -> int:
        """``offsetForTimestamp``: the offset of the queue's first message stored at or after ``timestamp_ms``."""
        self._running_puller()
        if isinstance(timestamp_ms, bool) or not isinstance(timestamp_ms, int):
            raise TypeError(f"a timestamp is an int of epoch milliseconds, not {timestamp_ms!r}")
        wire = self._wire_queue(mq)
        assert self._instance is not None
        timeout = self.settings.mq_client_api_timeout
        return await self._instance.api.search_offset(await self._master(wire), wire, timestamp_ms, timeout)

    async def _fetch_message_queues(self, topic: str) -> list[MessageQueue]:
        """``fetchMessageQueues``: the queues the name servers' route of ``topic`` offers to read, sorted, with the
        plain topic (no namespace)."""
        self._running_puller()
        if not isinstance(topic, str) or not topic:
            raise IllegalArgumentError("Topic can not be null or empty.")
        instance = self._instance
        assert instance is not None
        wire = wrap(self.namespace, topic)
        route = await instance.names.get_route(wire, self.settings.mq_client_api_timeout)
        mq_class = self._rr.MessageQueue
        return sorted(
            mq_class(unwrap(self.namespace, mq.topic), mq.broker_name, mq.queue_id)
            for mq in route.subscribe_queues(wire, self.compat)
        )

    def __repr__(self) -> str:
        return (
            f"LitePullConsumer(group={self.group!r}, client_id={self.client_id!r}, model={self.model}, "
            f"{self._mode}, {self._state})"
        )
