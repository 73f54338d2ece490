"""``LitePullConsumer``: a RocketMQ lite pull consumer (Java's ``DefaultLitePullConsumer``) for threaded code: the
caller asks for messages with :meth:`LitePullConsumer.poll` instead of registering a listener.

- ``subscribe(topic, expression)`` (or ``subscriptions=``): the group's queues of the topic are shared among its
  members by the allocation strategy and rebalanced as members come and go (beside Java's lite pull and push
  consumers of the same group); or ``assign(queues)``: exactly those queues, no rebalance. Not both.
- One long-polled pull in flight per queue, on the client's event loop; what the pulls bring waits for ``poll``,
  bounded by Java's flow control (``pull_threshold_for_all``, ``pull_threshold_for_queue``,
  ``pull_threshold_size_for_queue``, ``consume_max_span``), so a slow caller never grows memory without limit.
- Offsets: with ``auto_commit`` (the default) each poll commits what the polls before it returned (at most every
  ``auto_commit_interval_millis``), and the offsets are written to the brokers every
  ``persist_consumer_offset_interval`` ms and at shutdown; or ``commit_sync()`` / ``commit(offsets)``.
- ``seek`` / ``seek_to_begin`` / ``seek_to_end``, ``offset_for_timestamp``, ``committed``, ``pause`` / ``resume``,
  ``fetch_message_queues``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ._shared import log
from .front_ends import BlockingCalls
from .lite_pull_base import LitePullBase

if TYPE_CHECKING:
    from ... import MessageQueue
    from ..message_decode import MessageExt

__all__ = ["LitePullConsumer"]


class LitePullConsumer(LitePullBase, BlockingCalls):
    """A lite pull consumer of group ``group`` on the cluster behind ``namesrv`` (``"host:port;host:port"`` or a
    list).

    ``subscriptions``: ``{topic: tag expression}`` or a list of topics to :meth:`subscribe` at once (or none, then
    :meth:`subscribe` or :meth:`assign`). ``strategy``: the allocation strategy of a subscribing consumer (default
    the backend's ``AllocateMessageQueueAveragely()``). ``on_rebalance(topic, owned)`` is called on the consumer's
    callback thread after a rebalance changed what it owns (Java's ``MessageQueueListener``).

    Settings (:class:`~rocketroute.client.consumer.lite_pull_settings.LitePullConsumerSettings`) are
    ``DefaultLitePullConsumer``'s in snake_case with Java's defaults, as keyword arguments or ``settings=``;
    ``compat``, ``instance_name``, ``client_ip``, ``instance``, ``credentials``, ``tls`` and ``namespace`` are
    :class:`~rocketroute.client.consumer.consumer.Consumer`'s. Use it as a context manager, or call :meth:`start`
    and :meth:`shutdown`. Its methods may be called from any thread but the client's event-loop thread."""

    # -- the queues ---------------------------------------------------------------------------------------------

    def subscribe(self, topic: str, expression: str | None = "*") -> None:
        """Subscribe ``topic`` with a tag expression (``"*"``, ``"TagA || TagB"``); when running, the next
        rebalance (at once) takes its queues. Raises :class:`RuntimeError` after :meth:`assign`."""
        self._here(self._subscribe_now, topic, expression)

    def unsubscribe(self, topic: str) -> None:
        """Stop consuming ``topic``: its queues are given up (their offsets committed) at the next rebalance."""
        self._here(self._unsubscribe_now, topic)

    def assign(self, queues: Iterable[MessageQueue]) -> None:
        """Consume exactly ``queues`` (no rebalance, no group sharing): queues no longer given stop (their offsets
        committed), new ones start from their committed offset, else ``consume_from_where``. Raises
        :class:`RuntimeError` after :meth:`subscribe`."""
        self._here(self._assign_now, list(queues) if isinstance(queues, Iterable) else queues)

    def set_sub_expression_for_assign(self, topic: str, expression: str) -> None:
        """The tag expression the assigned queues of ``topic`` pull with (before :meth:`start`; default all)."""
        self._set_sub_expression_for_assign_now(topic, expression)

    def pause(self, queues: Iterable[MessageQueue]) -> None:
        """Stop pulling ``queues`` (what was pulled already is still polled) until :meth:`resume`."""
        self._pause_now(queues, True)

    def resume(self, queues: Iterable[MessageQueue]) -> None:
        """Pull ``queues`` again."""
        self._pause_now(queues, False)

    def fetch_message_queues(self, topic: str) -> list[MessageQueue]:
        """The queues of ``topic`` the name servers' route offers, sorted."""
        return self._ask(self._fetch_message_queues(topic))

    # -- poll and offsets ------------------------------------------------------------------------------------------

    def poll(self, timeout_ms: int | None = None) -> list[MessageExt]:
        """The messages of one pull (up to ``pull_batch_size``, of one queue, in queue order), waiting up to
        ``timeout_ms`` (default ``poll_timeout_millis``) for some; ``[]`` when none came. With ``auto_commit``,
        what earlier polls returned is committed first."""
        self._running_puller()
        self._poll_timeout_s(timeout_ms)  # a bad timeout is refused even when messages wait
        ready = self._poll_ready()
        return ready if ready is not None else self._ask(self._poll(timeout_ms))

    def commit_sync(self) -> None:
        """Commit what the polls returned, on every queue held, and wait for the brokers to acknowledge it."""
        self._ask(self._commit_sync())

    def commit(self, offsets: Mapping[MessageQueue, int], *, persist: bool = True) -> None:
        """Commit ``offsets`` (the next offset to consume of each queue); ``persist``: wait for the brokers'
        acknowledgement, else they are written with the next periodic commit."""
        self._ask(self._commit(offsets, persist))

    def committed(self, mq: MessageQueue) -> int:
        """The queue's committed offset (this consumer's, else the broker's); -1 when there is none."""
        return self._ask(self._committed(mq))

    def seek(self, mq: MessageQueue, offset: int) -> None:
        """Consume ``mq`` from ``offset`` (between its min and max offsets): what was pulled and not polled is
        dropped. Raises :class:`ValueError` for a queue not held or an offset out of range."""
        self._ask(self._seek(mq, offset))

    def seek_to_begin(self, mq: MessageQueue) -> None:
        """:meth:`seek` to the queue's min offset."""
        self._ask(self._seek_to_begin(mq))

    def seek_to_end(self, mq: MessageQueue) -> None:
        """:meth:`seek` to the queue's max offset (only messages sent from now on)."""
        self._ask(self._seek_to_end(mq))

    def offset_for_timestamp(self, mq: MessageQueue, timestamp_ms: int) -> int:
        """The offset of ``mq``'s first message stored at or after ``timestamp_ms`` (epoch milliseconds)."""
        return self._ask(self._offset_for_timestamp(mq, timestamp_ms))

    # -- lifecycle ------------------------------------------------------------------------------------------------

    def start(self) -> LitePullConsumer:
        """Fetch the routes, heartbeat, take the queues (a first rebalance, or the assigned ones) and start the
        pulls and timers."""
        if not self._begin_start():
            return self
        try:
            self._call(self._start())
        except BaseException:
            self.shutdown()
            raise
        return self

    def shutdown(self) -> None:
        """Stop pulling, commit (with ``auto_commit``, what the polls returned) and wait for the brokers'
        acknowledgement, unregister and close the connections; a waiting :meth:`poll` returns ``[]``."""
        self._refuse_on_loop("shutdown()")
        if not self._begin_stop():
            return
        try:
            self._call(self._stop_steps())
        except Exception as e:
            log.warning("stopping the lite pull consumer did not finish: %r", e)
        self._leave()

    def __enter__(self) -> LitePullConsumer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def _ask(self, coro: Any) -> Any:
        """``coro`` on the consumer's loop, waited for: a running consumer's (Java's text otherwise)."""
        try:
            self._running_puller()
        except BaseException:
            coro.close()
            raise
        return self._call(coro)

    def _here(self, fn: Any, *args: Any) -> None:
        """``fn(*args)`` on the consumer's loop once it runs (it changes what the loop reads), else here."""
        if self._state == "running" and self._remoting is not None and not self._remoting.on_loop_thread():
            self._call(_run(fn, *args))
        else:
            fn(*args)


async def _run(fn: Any, *args: Any) -> None:
    fn(*args)
