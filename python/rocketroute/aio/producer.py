""":class:`Producer`: the producer for asyncio services, on the caller's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from threading import get_ident
from typing import TYPE_CHECKING, Any

from ..client.instances import release_instance
from ..client.message import Message
from ..client.namespace import wrap
from ..client.producer.base import ProducerBase
from ..client.producer.send_args import check_selector
from ..client.producer.send_result import SendResult
from ..client.producer.sender import Sender, body_size
from ..client.producer.settings import ProducerSettings
from ..client.settings_check import check_positive_ms
from ..loggers import get_logger
from ..net.bridge import loop_runs_here
from ..selector import MessageQueueSelector, SelectorFunction

if TYPE_CHECKING:
    from .. import TopicPublishInfo

__all__ = ["Producer"]

log = get_logger("producer")


class Producer(ProducerBase):
    """``DefaultMQProducer`` for asyncio: the arguments and settings of :class:`rocketroute.Producer` (``compat``,
    ``credentials``, ``tls``, ``namespace``, ``send_msg_timeout``, the back-pressure, ...), and the same send path
    (its :class:`~rocketroute.client.producer.sender.Sender`), run on the loop that awaits :meth:`start`. Every
    method is a coroutine of that loop; connections, timers, route polls and heartbeats live on it, so :meth:`stop`
    (or ``async with``) must run before the loop ends.

    ``send`` waits for the broker's answer; ``enqueue`` returns once the send is under way (after waiting for room
    when the back-pressure is on) with a future of its result, for a stream of sends at the broker's pace with
    bounded memory."""

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str,
        *,
        settings: ProducerSettings | None = None,
        **kwargs: Any,
    ) -> None:
        if "instance" in kwargs:
            raise TypeError("rocketroute.aio.Producer runs on an instance of its own loop: instance= is not taken")
        super().__init__(namesrv, group, settings=settings, **kwargs)

    async def publish_info(self, topic: str) -> TopicPublishInfo:
        """The topic's ``TopicPublishInfo`` as the next send would use it (fetched now if not known yet)."""
        sender = self._on_its_loop()
        return await sender.find_publish_info(wrap(self.namespace, topic))  # type: ignore[no-any-return]

    # -- lifecycle --------------------------------------------------------------------------------------------

    async def start(self) -> Producer:
        """Start on the running loop: the client instance (route poll, heartbeats, connections) runs on it."""
        self._bind_loop = asyncio.get_running_loop()
        self._join_instance()
        return self

    async def stop(self) -> None:
        """Take no new sends, wait (at most ``shutdown_flush_timeout``) for those already accepted, then unregister
        the group from the brokers and close the connections (awaited); what is still under way when the wait ends
        fails with :class:`~rocketroute.errors.ProducerClosedError` (see :meth:`rocketroute.Producer.shutdown`), and
        sends after this raise ``RuntimeError``."""
        life = self._life
        remoting = life.stop_accepting()
        instance = life.instance
        if remoting is None or instance is None:
            return
        bound_ms = self.settings.shutdown_flush_timeout
        left = await life.inflight.wait_async(bound_ms / 1000)
        if left:
            life.give_up(left, f"shutdown_flush_timeout ({bound_ms} ms) passed")
            await life.inflight.cancel_tracked(1.0)
        self._begin_shutdown()
        unregister, bound_s = self._unregister(instance)
        try:
            await asyncio.wait_for(unregister, bound_s)
        except Exception as e:
            log.debug("unregistering producer group %s did not finish: %r", self.group, e)
        if release_instance(instance, "producer", self.group, close=False):
            await remoting.aclose()
        self._log_lifecycle("shut down")

    async def __aenter__(self) -> Producer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _on_its_loop(self) -> Sender:
        """The producer's sender, after checking that it runs and that the caller is on its loop (its connections'
        futures belong to that loop: awaited from another one they would never be woken)."""
        life = self._life
        # life.running() and remoting.loop_runs_here() written out (every send comes here)
        remoting = life.remoting if life.state == "running" else None
        if remoting is None:
            remoting, _ = life.running()  # raises: not running
        loop = remoting.loop
        # loop_runs_here's first test written out: the standard loops say which thread runs them
        if getattr(loop, "_thread_id", None) != get_ident() and not loop_runs_here(loop):
            raise RuntimeError("a rocketroute.aio.Producer is used on the event loop that started it, not another")
        return self._sender

    # -- sends ------------------------------------------------------------------------------------------------

    async def send(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
        *,
        timeout_ms: int | None = None,
    ) -> SendResult:
        """Send one message and return the broker's answer (:meth:`rocketroute.Producer.send_async`'s attempts:
        1 + ``retry_times_when_send_async_failed``; with ``selector`` and ``arg``, one attempt on the selected
        queue; ``selector`` and ``arg`` checked as there)."""
        check_selector("send", selector, arg)
        # rocketroute.Producer.send_async's twin, on the client's loop already (no hop to look for)
        sender = self._on_its_loop()
        body = msg.body if isinstance(msg, Message) else None  # sender.encodes_off_loop(msg) written out
        sender.life.accept()
        try:
            if type(body) is bytes and len(body) >= sender.off_loop_min:
                enc, timeout_ms = await sender.encode_off_loop(msg, timeout_ms)
            else:
                enc = sender.wire.encode(msg)
            if sender.window is None:
                return await sender.attempts(enc, msg, selector, arg, timeout_ms)  # type: ignore[no-any-return]
            return await sender.send_admitted(enc, msg, selector, arg, timeout_ms, body_size(msg.body))
        finally:
            sender.life.inflight.end()

    async def send_batch(self, msgs: Iterable[Message], *, timeout_ms: int | None = None) -> SendResult:
        """The messages as one ``SEND_BATCH_MESSAGE`` (:meth:`rocketroute.Producer.send_batch`'s checks)."""
        return await self._on_its_loop().send_batch(msgs, timeout_ms)

    async def flush(self, timeout_ms: int | None = None) -> int:
        """Wait (the loop goes on) until every send accepted so far is done, at most ``timeout_ms`` (``None``:
        until they are); returns how many are still under way (0: all done). :meth:`stop` flushes first, within
        ``shutdown_flush_timeout``."""
        if timeout_ms is not None:
            check_positive_ms("timeout_ms", timeout_ms)
        return await self._life.inflight.wait_async(None if timeout_ms is None else timeout_ms / 1000)

    async def send_oneway(
        self, msg: Message, selector: MessageQueueSelector | SelectorFunction | None = None, arg: Any = None
    ) -> None:
        """``sendOneway``: one attempt, returned once the request is written (no answer)."""
        check_selector("send_oneway", selector, arg, timeout=False)
        await self._on_its_loop().send_oneway(msg, selector, arg)

    async def enqueue(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
        *,
        timeout_ms: int | None = None,
    ) -> asyncio.Future[SendResult]:
        """Start one send and return its future once it is under way: with ``enable_backpressure_for_async_mode``
        this waits for room first (no room within the budget: ``RemotingTooMuchRequestError``), so ``await
        producer.enqueue(m)`` in a loop runs at the broker's pace (aiokafka's ``send``; Java's ``send(msg,
        callback)``). ``selector`` and ``arg`` as for :meth:`send`."""
        check_selector("enqueue", selector, arg)
        return await self._on_its_loop().enqueue(msg, selector, arg, timeout_ms)

    def __repr__(self) -> str:
        return f"rocketroute.aio.{super().__repr__()}"
