"""``Producer``: a RocketMQ producer that sends to real brokers through rocketroute's routing core.

It is ``DefaultMQProducer`` for Python: the same settings (snake_case), the same route lookup
(``tryToFindTopicPublishInfo``, with the ``TBW102`` fallback for a topic the name servers do not know yet), the
same send loop (``sendDefaultImpl``, :func:`rocketroute.send_default`) with real latencies feeding the
``MQFaultStrategy``, the same ordered send (``sendSelectImpl``), oneway and batch sends, and the same bytes on the
wire (``SEND_MESSAGE_V2`` / ``SEND_BATCH_MESSAGE``). Routes are refreshed every ``poll_name_server_interval`` ms and
each change is reported with its ordering risk (:class:`~rocketroute.client.route_change.RouteChange`).

Threads: a producer is safe to share. Sync sends run the routing in the calling thread and wait on the remoting
client's event loop (a daemon thread); :meth:`Producer.send_async` runs the whole send on that loop and can be
awaited from any event loop.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ...loggers import get_logger
from ...selector import MessageQueueSelector, SelectorFunction
from ...send import CommunicationMode
from ..instances import forked_error, release_instance
from ..message import Message
from ..namespace import wrap
from ..settings_check import check_positive_ms
from .base import ProducerBase
from .route_change import RouteChange
from .send_args import check_selector
from .send_result import SendResult
from .sender import body_size

if TYPE_CHECKING:
    from ... import TopicPublishInfo

__all__ = ["Producer"]

log = get_logger("producer")


class Producer(ProducerBase):
    """A producer of group ``group`` on the cluster behind ``namesrv`` (``"host:port;host:port"`` or a list).

    ``compat`` (``"5.3"`` or ``"4.9"``) picks the Java client whose behaviour is copied: routing, fault
    tolerance, message encoding. Settings (:class:`~rocketroute.client.producer.settings.ProducerSettings`) are
    ``DefaultMQProducer``'s, in snake_case, with its defaults, given as keyword arguments
    (``send_msg_timeout=1000``), as a ``settings=`` object, or both (the keywords change the object's values); a
    name the producer would not read is refused with :class:`~rocketroute.errors.UnsupportedSettingError`.

    ``on_route_change(change)`` is called (on the remoting thread) for every route change a refresh finds;
    ``backend`` is the routing module (default: the ``rocketroute`` package, native when built).
    ``instance_name`` and ``client_ip`` make the client id (``ip@instance``; the default instance name is
    ``<pid>#<nanos>``, as Java's 5.x clients); clients with one client id share one client instance. ``instance=``
    (another client's :attr:`instance`) joins that instance instead (:mod:`rocketroute.client.instance`).
    ``credentials`` (:class:`~rocketroute.Credentials`) sign every request (:mod:`rocketroute.protocol.acl`); ``tls``
    (``True``, or an :class:`ssl.SSLContext`) makes every connection TLS (:mod:`rocketroute.net.tls`).
    ``namespace`` (Java 5.x's): topics and the group go out as ``namespace%name``; send results, route changes
    and a selector's queues show the plain topic (:mod:`rocketroute.client.namespace`).

    Use it as a context manager, or call :meth:`start` and :meth:`shutdown`.
    """

    # -- lifecycle --------------------------------------------------------------------------------------------

    def start(self) -> Producer:
        """Join the client id's instance (starting it when this is its first client): its remoting client, and
        its route poll (every ``poll_name_server_interval`` ms) and heartbeat that register this producer's group
        with the brokers within 1 s and then every ``heartbeat_broker_interval`` ms."""
        self._join_instance()
        return self

    def shutdown(self) -> None:
        """Take no new sends, wait for the sends already accepted (at most ``shutdown_flush_timeout`` ms; see
        :meth:`flush`), then leave the instance's route poll and heartbeat, unregister the producer group from the
        brokers (each within ``mq_client_api_timeout``) and release the client instance (its connections are closed
        when this was its last client). Sends still under way when the wait ends fail with
        :class:`~rocketroute.errors.ProducerClosedError`, which says how many there were (one WARNING says it
        too); sends after this raise ``RuntimeError``. It may be called from any thread, ``on_route_change`` and a
        send's callback included: on the producer's own event-loop thread it cannot wait, so what is under way
        fails at once."""
        life = self._life
        remoting = life.stop_accepting()
        if remoting is None:
            return
        if remoting.on_loop_thread():
            life.give_up(life.inflight.count, "it was shut down from its own event-loop thread, where it cannot wait")
            remoting.loop.create_task(life.inflight.cancel_tracked(1.0))
        else:
            bound_ms = self.settings.shutdown_flush_timeout
            left = life.inflight.wait(bound_ms / 1000)
            if left:
                life.give_up(left, f"shutdown_flush_timeout ({bound_ms} ms) passed")
                try:
                    remoting.run(life.inflight.cancel_tracked(1.0), 2)
                except Exception as e:  # the loop is stopped or blocked: the connections' close settles the rest
                    log.debug("cancelling the sends under way of %s did not finish: %r", self.group, e)
        self._begin_shutdown()
        instance = life.instance
        if instance is not None and not remoting.on_loop_thread():
            unregister, bound_s = self._unregister(instance)
            try:
                remoting.run(unregister, bound_s)
            except Exception as e:
                log.debug("unregistering producer group %s did not finish: %r", self.group, e)
        if instance is not None:  # the last client of the instance closes its connections and loop thread
            release_instance(instance, "producer", self.group)
        self._log_lifecycle("shut down")

    def flush(self, timeout_ms: int | None = None) -> int:
        """Wait until every send accepted so far is done (stored, failed or timed out: each ends by its own
        budget), at most ``timeout_ms`` (``None``: until they are); returns how many are still under way (0: all
        done). Sends go on being taken meanwhile. confluent-kafka's ``flush``; :meth:`shutdown` flushes first.
        Refused (``RuntimeError``) on the producer's event-loop thread, where the sends it waits for run."""
        if timeout_ms is not None:
            check_positive_ms("timeout_ms", timeout_ms)
        life = self._life
        if life.state == "forked":
            raise forked_error("producer", life.forked_from)
        remoting = life.remoting
        if remoting is not None and remoting.on_loop_thread():
            raise RuntimeError(
                "Producer.flush() cannot be called on the producer's event-loop thread (a send's callback): the sends "
                "it waits for run there"
            )
        return life.inflight.wait(None if timeout_ms is None else timeout_ms / 1000)

    def __enter__(self) -> Producer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # -- routes -----------------------------------------------------------------------------------------------

    def publish_info(self, topic: str) -> TopicPublishInfo:
        """The topic's ``TopicPublishInfo`` as the next send would use it (fetched now if not known yet; its
        queues carry the topic as sent: ``namespace%topic`` in a namespace)."""
        return self._life.run(self._sender.find_publish_info(wrap(self.namespace, topic)))

    def refresh_routes(self) -> list[RouteChange]:
        """Fetch the routes of the topics this producer published to now (what the instance's poll does every
        ``poll_name_server_interval`` ms) and return the changes found, once ``on_route_change`` has been called
        for them (unless this is called from ``on_route_change`` itself)."""
        before = self._routes.queues()
        self._life.run(self._refresh_all())
        changes = self._routes.changes_since(before)
        if self._callbacks is not None:
            self._callbacks.flush(self.settings.mq_client_api_timeout / 1000)
        return changes

    async def _refresh_all(self) -> None:
        await self._routes.refresh_all(self._life.running()[1])

    # -- sync sends -------------------------------------------------------------------------------------------

    def send(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
        *,
        timeout_ms: int | None = None,
    ) -> SendResult:
        """Send one message and wait for the broker's answer.

        Without ``selector``: ``sendDefaultImpl``, up to 1 + ``retry_times_when_send_failed`` attempts on the
        queues the ``MQFaultStrategy`` picks. With ``selector`` (e.g. ``SelectMessageQueueByHash()``) and ``arg``:
        ``sendSelectImpl``, one attempt on the selected queue, as Java (no retry, which would break the order).
        ``arg`` without a ``selector``, and a ``selector`` that is none (a number: Java's ``send(msg, timeout)``
        is ``send(msg, timeout_ms=...)``), raise ``TypeError`` before anything is sent."""
        check_selector("send", selector, arg)
        sender = self._sender
        return sender.send_sync(sender.wire.encode(msg), msg, selector, arg, timeout_ms, CommunicationMode.SYNC)

    def send_oneway(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
    ) -> None:
        """``sendOneway``: one attempt, no answer awaited (the request goes out with the oneway flag). ``selector``
        and ``arg`` as for :meth:`send`."""
        check_selector("send_oneway", selector, arg, timeout=False)
        sender = self._sender
        sender.send_sync(sender.wire.encode(msg), msg, selector, arg, None, CommunicationMode.ONEWAY)

    def send_batch(self, msgs: Iterable[Message], *, timeout_ms: int | None = None) -> SendResult:
        """``send(Collection<Message>)``: the messages as one ``SEND_BATCH_MESSAGE`` (same topic, no delay; Java's
        checks), with the sync retry loop. The result's ``msg_id`` is the messages' ids joined by ``","``."""
        sender = self._sender
        return sender.send_sync(sender.wire.encode_batch(msgs), None, None, None, timeout_ms, CommunicationMode.SYNC)

    # -- async sends ------------------------------------------------------------------------------------------

    async def send_async(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
        *,
        timeout_ms: int | None = None,
    ) -> SendResult:
        """Send one message without blocking the caller's event loop (Java's ``send(msg, SendCallback)``): up to
        1 + ``retry_times_when_send_async_failed`` attempts, retried only when the request could not be sent or
        timed out (a broker's error answer is not retried, as in Java's async path). With ``selector``: one
        attempt on the selected queue. Await it from any event loop. A large compressed body is compressed on the
        producer's encoder threads, not on the loop (:data:`OFF_LOOP_MIN_BODY`). ``selector`` and ``arg`` as for
        :meth:`send`."""
        check_selector("send_async", selector, arg)
        # rr.aio.Producer.send's twin, written out here: each coroutine between the caller and the attempts is held
        # by every send in flight (a third one cost 2.8 % more instructions per message)
        sender = self._sender
        body = msg.body if isinstance(msg, Message) else None  # sender.encodes_off_loop(msg) written out
        sender.life.accept()
        try:
            if type(body) is bytes and len(body) >= sender.off_loop_min:
                enc, timeout_ms = await sender.encode_off_loop(msg, timeout_ms)
            else:
                enc = sender.wire.encode(msg)
            if sender.window is None:  # send_admitted written out: one coroutine fewer held by each send in flight
                return await sender.send_here(enc, msg, selector, arg, timeout_ms)  # type: ignore[no-any-return]
            return await sender.send_admitted(enc, msg, selector, arg, timeout_ms, body_size(msg.body))
        finally:
            sender.life.inflight.end()

    async def send_batch_async(self, msgs: Iterable[Message], *, timeout_ms: int | None = None) -> SendResult:
        """:meth:`send_batch` without blocking the caller's event loop."""
        return await self._sender.send_batch(msgs, timeout_ms)

    def submit(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
        *,
        timeout_ms: int | None = None,
    ) -> concurrent.futures.Future[SendResult]:
        """Send one message and return at once with a future of its result (Java's ``send(msg, SendCallback)``;
        ``future.add_done_callback(fn)`` is the callback). From any thread, no event loop needed; the attempts are
        :meth:`send_async`'s.

        With ``enable_backpressure_for_async_mode`` the call first waits for room (it blocks the calling thread, as
        Java's does), so a loop of ``submit`` calls runs at the broker's pace with bounded memory; no room within
        the budget gives a future failed with ``RemotingTooMuchRequestError``. Callbacks run on the client's I/O
        thread: keep them short; a blocking call there (``send``, ``flush``, ...) raises ``RuntimeError`` at once,
        while ``submit`` and ``send_async`` work. A shutdown waits for the future (see :meth:`shutdown`).
        ``selector`` and ``arg`` as for :meth:`send`."""
        check_selector("submit", selector, arg)
        return self._sender.submit(msg, selector, arg, timeout_ms)
