"""``Sender``: a producer's sends, from an accepted message to its ``SendResult``: the sync path (the calling thread
routes and waits, on the direct path), the async one (on the client's loop, or on the caller's with connections of
that loop's own), the encoding of a large compressed body off the loop, and the back-pressure window.

Its collaborators come in its constructor: the producer's :class:`~.lifecycle.Lifecycle` (may a send run, and what
it raises when not), its :class:`~.send_wire.SendWire` (requests and results), its
:class:`~.publish_routes.PublishRoutes` (``topicPublishInfoTable``), its ``MQFaultStrategy`` and its
:class:`~.backpressure.SendWindow`. The encoder threads are given at start (:attr:`encoders`).
:class:`~rocketroute.client.producer.producer.Producer` and :class:`rocketroute.aio.Producer` send through it, each
with its own words around the same path."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Coroutine, Iterable, Sequence
from threading import get_ident
from typing import TYPE_CHECKING, Any

from ... import send as _send_module
from ...errors import BrokerUnreachableError, SendFailedError
from ...net.bridge import loop_runs_here
from ...net.transport import AsyncRemotingClient
from ...protocol import RemotingError, RemotingTooMuchRequestError
from ...protocol.command import RPC_ONEWAY
from ...protocol.response_code import default_retry_response_codes
from ...send import _NATIVE_MAX_ATTEMPTS, _NATIVE_MAX_TIMEOUT, CommunicationMode, _send_loop, send_select
from ..message import Message
from .backpressure import SendWindow
from .encoders import EncoderThreads
from .lifecycle import Lifecycle
from .publish_routes import PublishRoutes
from .send_budget import kernel_budget, loop_budget
from .send_result import SendResult
from .send_wire import EncodedSend, SendWire
from .settings import ProducerSettings

if TYPE_CHECKING:
    from ... import MQFaultStrategy

__all__ = ["OFF_LOOP_MIN_BODY", "Sender", "body_size"]


OFF_LOOP_MIN_BODY = 8 * 1024
"""A send awaited on an event loop (:meth:`Producer.send_async`, :mod:`rocketroute.aio`) whose body is compressed
and at least this long is encoded on the producer's encoder threads, not on the loop: zlib takes ~30 µs for 4 KiB,
~60 µs for 8 KiB, ~125 µs for 16 KiB and ~1.3 ms for 64 KiB on a 2-core x86_64 machine, and the hand-over to a
thread and back costs the loop ~20-30 µs. A smaller compressed body costs the loop less than the hand-over would."""


class Sender:
    """See the module. ``namesrv_addrs`` and ``namespace`` are the producer's: the first named in a failed route
    lookup's error, the second unwraps a user selector's queues."""

    def __init__(
        self,
        life: Lifecycle,
        settings: ProducerSettings,
        wire: SendWire,
        routes: PublishRoutes,
        strategy: MQFaultStrategy,
        window: SendWindow | None,
        namesrv_addrs: Sequence[str],
        namespace: str | None,
    ) -> None:
        self.life = life
        self.settings = settings
        self.wire = wire
        self.routes = routes
        self.strategy = strategy
        self.window = window
        self.namesrv_addrs = list(namesrv_addrs)
        self.namespace = namespace
        # the encoder threads (OFF_LOOP_MIN_BODY), given at start
        self.encoders: EncoderThreads | None = None
        self.off_loop_min = max(OFF_LOOP_MIN_BODY, settings.compress_msg_body_over_howmuch)

    # -- routes -----------------------------------------------------------------------------------------------

    async def find_publish_info(self, topic: str) -> Any:
        """``tryToFindTopicPublishInfo`` (:meth:`PublishRoutes.find`), also while the producer is stopping: an
        accepted send's lookup."""
        return await self.routes.find(self.life.live_instance(), topic)

    # -- encoding ---------------------------------------------------------------------------------------------

    def encodes_off_loop(self, msg: Message) -> bool:
        """Whether a send of ``msg`` awaited on a loop is encoded on the encoder threads (:data:`OFF_LOOP_MIN_BODY`)."""
        body = msg.body if isinstance(msg, Message) else None
        return type(body) is bytes and len(body) >= self.off_loop_min

    async def encode_off_loop(self, msg: Message, timeout_ms: int | None) -> tuple[EncodedSend, int]:
        """The encoding on one of the producer's encoder threads while the calling loop goes on (zlib releases
        Python's lock: the compressions of concurrent sends run on other cores), and the send's budget left after
        it. The wait for a thread and the encoding count against the budget, as the wait for Java's async sender
        executor does; none left: ``RemotingTooMuchRequestError("DEFAULT ASYNC send call timeout")``, Java's
        words."""
        if not self.life.live:
            raise self.life.not_live()
        encoders = self.encoders
        assert encoders is not None
        timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
        begin = time.monotonic()
        try:
            future = encoders.run(self.wire.encode, msg)
        except RuntimeError:
            if not self.life.live:  # shut down since the check above: say so
                raise self.life.not_live() from None
            raise
        enc: EncodedSend = await future
        left = timeout - int((time.monotonic() - begin) * 1000)
        if left <= 0:
            raise RemotingTooMuchRequestError("DEFAULT ASYNC send call timeout")
        return enc, left

    # -- sync sends -------------------------------------------------------------------------------------------

    def send_sync(
        self,
        enc: EncodedSend,
        msg: Message | None,
        selector: Any,
        arg: Any,
        timeout_ms: int | None,
        mode: CommunicationMode,
        *,
        accepted: bool = False,
    ) -> Any:
        """A sync send: accepted here (flush and shutdown wait for it), unless the caller ``accepted`` it already
        (a transaction is accepted whole: its half message, its executor and its END_TRANSACTION)."""
        remoting = self.life.remoting
        if remoting is not None and get_ident() == remoting._thread_id:  # remoting.on_loop_thread() written out
            raise RuntimeError(
                "a blocking Producer send cannot be called on the producer's event-loop thread (a submit() future's "
                "callback runs there): it would wait for that loop; use submit or send_async there, or call it from "
                "another thread"
            )
        if not accepted:
            self.life.accept()
        try:
            return self._sync_attempts(enc, msg, selector, arg, timeout_ms, mode)
        except Exception as e:
            if self.life.closed_error is not None:  # the shutdown stopped waiting for it
                raise self.life.unsent_error() from e
            raise
        finally:
            if not accepted:
                self.life.inflight.end()

    def _sync_attempts(
        self,
        enc: EncodedSend,
        msg: Message | None,
        selector: Any,
        arg: Any,
        timeout_ms: int | None,
        mode: CommunicationMode,
    ) -> Any:
        remoting = self.life.remoting
        assert remoting is not None
        timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
        begin = time.monotonic()
        rest = timeout  # what the loop of attempts has: all of it, less a route lookup's time
        info = self.routes.table.get(enc.topic)
        if info is None or not info.ok():
            try:
                info = self.life.run(self.find_publish_info(enc.topic), timeout / 1000)
            except (RemotingError, BrokerUnreachableError) as e:  # first: a name server's timeout is a TimeoutError
                raise self._no_route(enc.topic, timeout, e) from e
            except concurrent.futures.TimeoutError:
                raise self._no_route(enc.topic, timeout, None) from None
            if not info.ok():
                raise self._unknown_topic(enc.topic)
            rest = loop_budget(timeout, begin)
        oneway = mode is CommunicationMode.ONEWAY
        language = remoting.async_client.frame_language()
        flag = RPC_ONEWAY if oneway else 0

        wire = self.wire
        if selector is not None:

            def attempt(mq: Any) -> Any:
                left = kernel_budget(timeout, begin)
                addr, request = wire.request(enc, mq, language, flag)
                if oneway:
                    remoting.invoke_oneway(addr, request, direct=True)
                    return None
                response = remoting.invoke(addr, request, left, direct=True)
                return wire.result(enc, mq, addr, response)

            return send_select(info, wire.user_selector(selector), msg, arg, attempt, timeout_ms=rest)
        # send.send_default's loop written out, on the native loop where it takes the send (_send_loop's checks):
        # no closure per send and no calls through send_default and _send_loop
        retry_result = wire.retry_result()
        loops = _send_module._NATIVE_LOOP or _send_module._native_loop_types()
        total = 1 if oneway else 1 + self.settings.retry_times_when_send_failed
        if loops and _native_loop_takes(loops, self.strategy, info, rest, total):
            codes = default_retry_response_codes(self.strategy.compat)
            sends = loops[0](info, self.strategy, not oneway, total, rest, codes, retry_result, None)
        else:
            sends = _send_loop(
                info, self.strategy, mode, self.settings.retry_times_when_send_failed,
                self.settings.retry_times_when_send_async_failed, rest, None, None, None, retry_result,
            )  # fmt: skip
        while (mq := sends.next_queue()) is not None:
            try:
                left = timeout - int((time.monotonic() - begin) * 1000)  # kernel_budget written out
                if left < 0:
                    raise RemotingTooMuchRequestError("sendKernelImpl call timeout")
                addr, request = wire.request(enc, mq, language, flag)
                if oneway:
                    remoting.invoke_oneway(addr, request, direct=True)
                    result = None
                else:
                    response = remoting.invoke(addr, request, left or 1, direct=True)
                    result = wire.result(enc, mq, addr, response)
            except Exception as e:
                if sends.failed(e):
                    return sends.result
                continue
            if sends.succeeded(result):
                return result
        return sends.finish()

    def _no_route(self, topic: str, timeout_ms: int, error: BaseException | None) -> SendFailedError:
        """The route lookup of a send is bounded by the send's budget (Java's is not: it waits for the name
        server's own timeout, then throws "No route info"): the error when it failed or ran out of time."""
        addrs = ";".join(self.namesrv_addrs)
        why = f"the name server(s) {addrs} did not answer within send_msg_timeout ({timeout_ms} ms)"
        if error is not None:
            why = f"the name server(s) {addrs} failed: {error}"
        return SendFailedError(f"No route info of this topic: {topic}: {why}")

    def _unknown_topic(self, topic: str) -> SendFailedError:
        """The name servers answered, with no writable queue of ``topic`` nor of ``create_topic_key`` (Java's
        "No route info of this topic" after ``tryToFindTopicPublishInfo``): the error says which topic, and why a
        first send does not create it."""
        key = self.settings.create_topic_key
        return SendFailedError(
            f"No route info of this topic: {topic}: the name server(s) {';'.join(self.namesrv_addrs)} know no "
            f"writable queue of it, nor of create_topic_key {key!r} (a broker creates a topic at its first send only "
            f"with autoCreateTopicEnable=true): create the topic first (mqadmin updateTopic -t {topic} -c <cluster>)"
        )

    # -- async sends ------------------------------------------------------------------------------------------

    # -- async sends ------------------------------------------------------------------------------------------

    async def send_oneway(self, msg: Message, selector: Any, arg: Any) -> None:
        """``sendOneway`` on the client's loop: one attempt, done once the request is written."""
        timeout_ms = None
        self.life.accept()
        try:
            if self.encodes_off_loop(msg):
                enc, timeout_ms = await self.encode_off_loop(msg, timeout_ms)
            else:
                enc = self.wire.encode(msg)
            await self.attempts(enc, msg, selector, arg, timeout_ms, CommunicationMode.ONEWAY)
        finally:
            self.life.inflight.end()

    async def send_batch(self, msgs: Iterable[Message], timeout_ms: int | None) -> SendResult:
        """The messages as one ``SEND_BATCH_MESSAGE``, awaited on the running loop."""
        enc = self.wire.encode_batch(msgs)
        self.life.accept()
        try:
            return await self.send_admitted(enc, None, None, None, timeout_ms, len(enc.body))
        finally:
            self.life.inflight.end()

    def submit(
        self, msg: Message, selector: Any, arg: Any, timeout_ms: int | None
    ) -> concurrent.futures.Future[SendResult]:
        """A send started from any thread, with a future of its result (:meth:`Producer.submit`): the window's wait
        blocks the calling thread, except on the client's loop thread, where it would stop the answers that free
        room."""
        enc = self.wire.encode(msg)
        life = self.life
        life.accept()
        remoting = life.remoting
        assert remoting is not None
        timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
        size = body_size(msg.body)
        window = self.window
        if window is not None:
            try:
                timeout = window.admit(size, timeout, wait=not remoting.on_loop_thread())
            except RemotingTooMuchRequestError as e:
                life.inflight.end()
                return _failed(e)  # as Java's callback gets it
        try:
            future = remoting.returns.from_thread(self.attempts(enc, msg, selector, arg, timeout, track=True))
        except BaseException:
            if window is not None:
                window.release(size)
            life.inflight.end()
            raise
        if window is not None:
            future.add_done_callback(lambda _: window.release(size))  # before the caller's callbacks, as in Java
        future.add_done_callback(life.inflight.end)
        return future

    async def enqueue(
        self, msg: Message, selector: Any, arg: Any, timeout_ms: int | None
    ) -> asyncio.Future[SendResult]:
        """A send started on the client's loop (the running one), returned as its task once under way: after the
        window's room, when the back-pressure is on (:meth:`rocketroute.aio.Producer.enqueue`)."""
        life = self.life
        life.accept()
        try:
            if self.encodes_off_loop(msg):
                enc, timeout_ms = await self.encode_off_loop(msg, timeout_ms)
            else:
                enc = self.wire.encode(msg)
            timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
            window = self.window
            size = body_size(msg.body)
            loop = life.running()[0].loop
            if window is not None:
                timeout = await window.admit_async(size, timeout)
        except BaseException:
            life.inflight.end()
            raise
        try:
            task = loop.create_task(self.attempts(enc, msg, selector, arg, timeout))
        except BaseException:
            if window is not None:
                window.release(size)
            life.inflight.end()
            raise
        if window is not None:
            task.add_done_callback(lambda _: window.release(size))
        life.inflight.track(task)  # the shutdown cancels it if it stops waiting: its future is settled then
        task.add_done_callback(life.inflight.end)
        return task

    async def send_admitted(
        self, enc: EncodedSend, msg: Message | None, selector: Any, arg: Any, timeout_ms: int | None, size: int
    ) -> SendResult:
        """The async send, after waiting on the caller's loop for room when the back-pressure is on."""
        window = self.window
        if window is None:
            return await self.send_here(enc, msg, selector, arg, timeout_ms)  # type: ignore[no-any-return]
        timeout = await window.admit_async(size, self.settings.send_msg_timeout if timeout_ms is None else timeout_ms)
        try:
            return await self.send_here(enc, msg, selector, arg, timeout)  # type: ignore[no-any-return]
        finally:
            window.release(size)

    def send_here(
        self, enc: EncodedSend, msg: Message | None, selector: Any, arg: Any, timeout_ms: int | None
    ) -> Coroutine[Any, Any, Any]:
        """:meth:`attempts` on the running loop: on the client's connections when it is the client's loop, else
        on connections of that loop's own (``net.caller_loops``: no hop to the client's thread and back).
        :meth:`Producer.send_async` awaits it, once its sender has accepted and encoded the message."""
        remoting = self.life.live_remoting()
        loop = remoting.loop
        # remoting.loop_runs_here() written out: the standard loops say which thread runs them
        thread_id = getattr(loop, "_thread_id", _NO_THREAD_ID)
        here = thread_id == get_ident() if thread_id is not _NO_THREAD_ID else loop_runs_here(loop)
        client = None if here else remoting.caller_loops.here()
        return self.attempts(enc, msg, selector, arg, timeout_ms, client=client)

    async def attempts(
        self,
        enc: EncodedSend,
        msg: Message | None,
        selector: Any,
        arg: Any,
        timeout_ms: int | None,
        mode: CommunicationMode = CommunicationMode.ASYNC,
        *,
        client: AsyncRemotingClient | None = None,
        track: bool = False,
    ) -> Any:
        """The async send on the client's loop, or with ``client`` (the running loop's own, another loop than the
        client's) on that loop: its route lookups still run on the client's loop (its name server connections).
        ``track``: this coroutine is the task of a send nobody awaits (``submit``): cancelled if the shutdown stops
        waiting for it. An accepted send the shutdown gave up on raises :class:`ProducerClosedError`."""
        remoting = self.life.live_remoting()
        if track:
            self.life.inflight.track(asyncio.current_task(remoting.loop))  # type: ignore[arg-type]
        try:
            if client is None:
                client = remoting.async_client
            timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
            begin = time.monotonic()
            rest = timeout  # what the loop of attempts has: all of it, less a route lookup's time
            info = self.routes.table.get(enc.topic)
            if info is None or not info.ok():
                find = self.find_publish_info(enc.topic)
                if client is not remoting.async_client:
                    find = remoting.returns.from_loop(find)
                try:
                    info = await asyncio.wait_for(find, timeout / 1000)
                except (RemotingError, BrokerUnreachableError) as e:  # first: RemotingTimeoutError is a TimeoutError
                    raise self._no_route(enc.topic, timeout, e) from e
                except asyncio.TimeoutError:
                    raise self._no_route(enc.topic, timeout, None) from None
                if not info.ok():
                    raise self._unknown_topic(enc.topic)
                rest = loop_budget(timeout, begin)

            # sendDefaultImpl's loop (send.send_default_async's) or, with a selector, one attempt on the queue it
            # picks, written out here: every coroutine and closure of an async send lives as long as the send is in
            # flight, and the garbage collector walks each of them while a thousand sends wait
            oneway = mode is CommunicationMode.ONEWAY
            language = client.encoded_language
            flag = RPC_ONEWAY if oneway else 0
            sends: Any = None  # the send loop's state (send._send_loop), without a selector
            if selector is not None:
                chosen_by = selector if not self.namespace else self.wire.user_selector(selector)
                mq = send_select(info, chosen_by, msg, arg, _chosen, timeout_ms=rest)
            else:
                # _send_loop's choice of the native loop written out for the async sends (the same checks)
                loops = _send_module._NATIVE_LOOP or _send_module._native_loop_types()
                total = 1 + self.settings.retry_times_when_send_async_failed
                if loops and mode is _ASYNC and _native_loop_takes(loops, self.strategy, info, rest, total):
                    sends = loops[0](info, self.strategy, False, total, rest, (), None, None)
                else:
                    sends = _send_loop(
                        info, self.strategy, mode, 2, self.settings.retry_times_when_send_async_failed, rest, (),
                        None, None, None,
                    )  # fmt: skip
                mq = sends.next_queue()
            while mq is not None:
                try:
                    left = timeout - int((time.monotonic() - begin) * 1000)  # kernel_budget written out
                    if left < 0:
                        raise RemotingTooMuchRequestError("sendKernelImpl call timeout")
                    addr, request = self.wire.request(enc, mq, language, flag)
                    if oneway:
                        await client.invoke_oneway(addr, request)
                        result = None
                    else:
                        left = left or 1  # Java sends with the 0 ms left; the wait needs a deadline after now
                        waiter = client.start_invoke(addr, request, left)
                        if waiter is None:  # no connection yet
                            response = await client.invoke(addr, request, left)
                        else:
                            try:
                                response = await waiter
                            except asyncio.CancelledError:
                                client.abandon(addr, request, waiter)
                                raise
                        result = self.wire.result(enc, mq, addr, response)
                except Exception as e:
                    if sends is None:
                        raise
                    if sends.failed(e):
                        return sends.result
                    mq = sends.next_queue()
                    continue
                if sends is None or sends.succeeded(result):
                    return result
                mq = sends.next_queue()
            assert sends is not None
            return sends.finish()
        except asyncio.CancelledError:
            if self.life.closed_error is not None and self.life.inflight.tracks(asyncio.current_task()):
                raise self.life.unsent_error() from None
            raise
        except Exception as e:
            if self.life.closed_error is not None:
                raise self.life.unsent_error() from e
            raise


_ASYNC = CommunicationMode.ASYNC
_NO_THREAD_ID = object()  # a loop that does not say which thread runs it (not one of asyncio's)


def _native_loop_takes(loops: tuple[type, ...], strategy: Any, info: Any, rest: Any, total: Any) -> bool:
    """Whether the native send loop takes a send: ``_send_loop``'s checks, for the sends that build the loop
    themselves (the native strategy and publish info, an int budget and attempt count in its range, a route)."""
    return (
        type(strategy) is loops[1]
        and type(info) is loops[2]
        and type(rest) is int
        and 0 <= rest <= _NATIVE_MAX_TIMEOUT
        and type(total) is int
        and 0 <= total <= _NATIVE_MAX_ATTEMPTS
        and info.ok()  # else _send_loop raises "No route info"
    )


def _chosen(mq: Any) -> Any:
    return mq


def body_size(body: bytes | None) -> int:
    """What a send holds of the back-pressure's bytes: the body as given (Java's ``msgLen``, 1 without a body)."""
    return len(body) if body else 1


def _failed(error: BaseException) -> concurrent.futures.Future[Any]:
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    future.set_exception(error)
    return future
