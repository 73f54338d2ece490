""":class:`Producer`: the producer for asyncio services, on the caller's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from threading import get_ident
from typing import TYPE_CHECKING, Any

from ..client.message import Message
from ..client.namespace import wrap
from ..client.producer.producer import Producer as _ThreadedProducer
from ..client.producer.producer import _body_size
from ..client.producer.send_args import check_selector
from ..client.producer.send_result import SendResult
from ..client.producer.settings import ProducerSettings
from ..client.settings_check import check_positive_ms
from ..net.bridge import loop_runs_here
from ..selector import MessageQueueSelector, SelectorFunction
from ..send import CommunicationMode

if TYPE_CHECKING:
    from .. import MQFaultStrategy, TopicPublishInfo

__all__ = ["Producer"]


class Producer:
    """``DefaultMQProducer`` for asyncio: the arguments and settings of :class:`rocketroute.Producer` (``compat``,
    ``credentials``, ``tls``, ``namespace``, ``send_msg_timeout``, the back-pressure, ...), and the same send path,
    run on the loop that awaits :meth:`start`. Every method is a coroutine of that loop; connections, timers, route
    polls and heartbeats live on it, so :meth:`stop` (or ``async with``) must run before the loop ends.

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
        self._producer = _ThreadedProducer(namesrv, group, settings=settings, **kwargs)

    # -- what the threaded producer has, read-only ----------------------------------------------------------------

    @property
    def group(self) -> str:
        return self._producer.group

    @property
    def settings(self) -> ProducerSettings:
        return self._producer.settings

    @property
    def strategy(self) -> MQFaultStrategy:
        """The ``MQFaultStrategy`` every send goes through."""
        return self._producer.strategy

    @property
    def client_id(self) -> str:
        return self._producer.client_id

    @property
    def async_sends_in_flight(self) -> tuple[int, int]:
        """(sends, body bytes) the back-pressure counts in flight now; (0, 0) without it."""
        return self._producer.async_sends_in_flight

    async def publish_info(self, topic: str) -> TopicPublishInfo:
        """The topic's ``TopicPublishInfo`` as the next send would use it (fetched now if not known yet)."""
        p = self._on_its_loop()
        return await p._find_publish_info(wrap(p.namespace, topic))

    # -- lifecycle --------------------------------------------------------------------------------------------

    async def start(self) -> Producer:
        """Start on the running loop: the client instance (route poll, heartbeats, connections) runs on it."""
        self._producer._bind_loop = asyncio.get_running_loop()
        self._producer.start()
        return self

    async def stop(self) -> None:
        """Take no new sends, wait (at most ``shutdown_flush_timeout``) for those already accepted, then unregister
        the group from the brokers and close the connections (awaited); what is still under way when the wait ends
        fails with :class:`~rocketroute.errors.ProducerClosedError` (see :meth:`rocketroute.Producer.shutdown`), and
        sends after this raise ``RuntimeError``."""
        await self._producer._shutdown_on_loop()

    async def __aenter__(self) -> Producer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _on_its_loop(self) -> _ThreadedProducer:
        """The producer, after checking that it runs and that the caller is on its loop (its connections' futures
        belong to that loop: awaited from another one they would never be woken)."""
        p = self._producer
        # p._running() and remoting.loop_runs_here() written out (every send comes here)
        remoting = p._remoting if p._state == "running" else None
        if remoting is None:
            remoting, _ = p._running()  # raises: not running
        loop = remoting.loop
        # loop_runs_here's first test written out: the standard loops say which thread runs them
        if getattr(loop, "_thread_id", None) != get_ident() and not loop_runs_here(loop):
            raise RuntimeError("a rocketroute.aio.Producer is used on the event loop that started it, not another")
        return p

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
        p = self._on_its_loop()
        body = msg.body if isinstance(msg, Message) else None  # p._encodes_off_loop(msg) written out
        p._accept()
        try:
            if type(body) is bytes and len(body) >= p._off_loop_min:
                enc, timeout_ms = await p._encode_off_loop(msg, timeout_ms)
            else:
                enc = p._wire.encode(msg)
            if p._window is None:  # on the producer's loop already: no hop to check for
                return await p._send_async(enc, msg, selector, arg, timeout_ms)  # type: ignore[no-any-return]
            return await p._send_async_admitted(enc, msg, selector, arg, timeout_ms, _body_size(msg.body))
        finally:
            p._inflight.end()

    async def send_batch(self, msgs: Iterable[Message], *, timeout_ms: int | None = None) -> SendResult:
        """The messages as one ``SEND_BATCH_MESSAGE`` (:meth:`rocketroute.Producer.send_batch`'s checks)."""
        return await self._on_its_loop().send_batch_async(msgs, timeout_ms=timeout_ms)

    async def flush(self, timeout_ms: int | None = None) -> int:
        """Wait (the loop goes on) until every send accepted so far is done, at most ``timeout_ms`` (``None``:
        until they are); returns how many are still under way (0: all done). :meth:`stop` flushes first, within
        ``shutdown_flush_timeout``."""
        if timeout_ms is not None:
            check_positive_ms("timeout_ms", timeout_ms)
        return await self._producer._inflight.wait_async(None if timeout_ms is None else timeout_ms / 1000)

    async def send_oneway(
        self, msg: Message, selector: MessageQueueSelector | SelectorFunction | None = None, arg: Any = None
    ) -> None:
        """``sendOneway``: one attempt, returned once the request is written (no answer)."""
        check_selector("send_oneway", selector, arg, timeout=False)
        p = self._on_its_loop()
        timeout_ms = None
        p._accept()
        try:
            if p._encodes_off_loop(msg):
                enc, timeout_ms = await p._encode_off_loop(msg, timeout_ms)
            else:
                enc = p._wire.encode(msg)
            await p._send_async(enc, msg, selector, arg, timeout_ms, CommunicationMode.ONEWAY)
        finally:
            p._inflight.end()

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
        p = self._on_its_loop()
        p._accept()
        try:
            if p._encodes_off_loop(msg):
                enc, timeout_ms = await p._encode_off_loop(msg, timeout_ms)
            else:
                enc = p._wire.encode(msg)
            timeout = p.settings.send_msg_timeout if timeout_ms is None else timeout_ms
            window = p._window
            size = _body_size(msg.body)
            loop = p._running()[0].loop  # the running one (_on_its_loop)
            if window is not None:
                timeout = await window.admit_async(size, timeout)
        except BaseException:
            p._inflight.end()
            raise
        try:
            task = loop.create_task(p._send_async(enc, msg, selector, arg, timeout))
        except BaseException:
            if window is not None:
                window.release(size)
            p._inflight.end()
            raise
        if window is not None:
            task.add_done_callback(lambda _: window.release(size))
        p._inflight.track(task)  # the shutdown cancels it if it stops waiting: its future is settled then
        task.add_done_callback(p._inflight.end)
        return task

    def __repr__(self) -> str:
        return f"rocketroute.aio.{self._producer!r}"
