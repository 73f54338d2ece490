"""``Consumer``: a RocketMQ push consumer on real brokers, with rebalance through rocketroute's strategies.

It is ``DefaultMQPushConsumer`` for Python, push built on pull as the Java client does it:

- routes and heartbeats through its client instance (:mod:`rocketroute.client.instance`, shared with the producers
  and consumers of its client id): the subscribed topics' routes every ``poll_name_server_interval`` ms and a
  heartbeat (HEART_BEAT) carrying its subscriptions to every broker node every ``heartbeat_broker_interval`` ms;
- a rebalance every ``rebalance_interval`` ms (Java's 20 s) and whenever a broker pushes
  NOTIFY_CONSUMER_IDS_CHANGED: the topic's queues (from its route) and the group's members (GET_CONSUMER_LIST_BY_GROUP)
  go through :func:`rocketroute.rebalance` with the consumer's strategy (any of the library's, or a user's object
  with ``allocate(group, cid, mq_all, cid_all)``); broadcasting consumers take every queue;
- one pull loop per owned queue (PULL_MESSAGE with long polling, the broker holding a pull up to 15 s), with
  Java's flow control (``pull_threshold_for_queue`` messages, ``pull_threshold_size_for_queue`` MiB,
  ``consume_concurrently_max_span``);
- offsets: read from the broker when a queue is taken (``consume_from_where`` when none is stored), committed every
  ``persist_consumer_offset_interval`` ms and at shutdown; broadcasting consumers keep them in a local file;
- a concurrent listener (``CONSUME_SUCCESS`` / ``RECONSUME_LATER``: sent back with CONSUMER_SEND_MSG_BACK) on
  ``consume_thread_min`` threads, or an orderly one: each queue locked on its broker (LOCK_BATCH_MQ /
  UNLOCK_BATCH_MQ) and consumed by one thread at a time, in queue order.

Threads: the network work runs on the remoting client's event loop (a daemon thread); listeners run on the
consumer's thread pool. Where this consumer does better than Java's, the docstrings say so.
"""

from __future__ import annotations

from ..namespace import wrap
from ..workers import ConsumePool
from ._shared import log
from .base import STOP_TIMEOUT_S
from .errors import DuplicateClientIdError
from .front_ends import BlockingCalls
from .listener import MessageListener
from .push_base import PushConsumerBase
from .stats import ConsumerStats

__all__ = ["Consumer", "ConsumerStats", "DuplicateClientIdError"]


class Consumer(PushConsumerBase[MessageListener], BlockingCalls):
    """A push consumer of group ``group`` on the cluster behind ``namesrv`` (``"host:port;host:port"`` or a list).

    ``subscriptions``: ``{topic: tag expression}`` (``"*"``, ``"TagA || TagB"``) or a list of topics (all tags).
    ``strategy``: the allocation strategy (default the backend's ``AllocateMessageQueueAveragely()``).
    ``listener(msgs, context)``: see :mod:`rocketroute.client.consumer.listener`; ``orderly=True`` makes it an
    orderly listener. ``on_rebalance(topic, assigned)`` is called on the consumer's callback thread (where it may
    call the consumer's methods) after each rebalance that changed what this consumer owns.

    Settings (:class:`~rocketroute.client.consumer.settings.ConsumerSettings`) are ``DefaultMQPushConsumer``'s in
    snake_case with Java's defaults, given as keyword arguments (``message_model="BROADCASTING"``,
    ``pull_batch_size=64``), as a ``settings=`` object, or both (the keywords change the object's values). A name
    the consumer would not read is refused with :class:`~rocketroute.errors.UnsupportedSettingError`.
    ``instance_name`` and ``client_ip`` make the
    client id (``ip@instance``); the default instance name is ``<pid>#<nanos>`` as Java's, so consumers in one
    process have distinct ids. ``instance=`` (another client's :attr:`instance`) joins that client instance
    instead: one connection per broker, one route table and heartbeat (:mod:`rocketroute.client.instance`).
    ``credentials`` (:class:`~rocketroute.Credentials`) sign every request (:mod:`rocketroute.protocol.acl`); ``tls``
    (``True``, or an :class:`ssl.SSLContext`) makes every connection TLS (:mod:`rocketroute.net.tls`).
    ``namespace`` (Java 5.x's): the subscribed topics and the group go out as ``namespace%name``; the listener
    gets messages with the plain topic (:mod:`rocketroute.client.namespace`).

    Use it as a context manager, or call :meth:`start` and :meth:`shutdown`.
    """

    # -- lifecycle --------------------------------------------------------------------------------------------

    def register_message_listener(self, listener: MessageListener, *, orderly: bool = False) -> None:
        """``registerMessageListener``: set the listener (before :meth:`start`)."""
        if self._state != "created":
            raise RuntimeError("the listener is registered before start()")
        self.listener = listener
        self.orderly = orderly

    def start(self) -> Consumer:
        """Fetch the routes, heartbeat to the brokers, run the first rebalance (so the consumer owns its queues
        when this returns) and start the pulls and the timers."""
        if not self._begin_start():
            return self
        try:
            self._call(self._start())
            self._flush_callbacks()  # on_rebalance has run
        except BaseException:
            self.shutdown()
            raise
        return self

    def shutdown(self) -> None:
        """Stop pulling, wait for the listener calls under way (their offsets are committed), commit every
        offset and wait for the brokers' acknowledgement (Java's commit is oneway), unlock the orderly queues,
        unregister from the brokers (so the others rebalance at once) and close the connections.

        The wait for listener calls is bounded by ``await_termination_millis_when_shutdown`` (ms) or, when that is
        0 (Java's default), by ``consume_timeout`` (minutes): a call still running then is abandoned with a
        WARNING, and its messages are not committed (they are consumed again, by this group's next owner of the
        queue). It may be called from a listener (the caller's own call is not waited for) or a callback."""
        self._refuse_on_loop("shutdown()")
        if not self._begin_stop():
            return
        remoting, executor = self._remoting, self._executor
        assert remoting is not None and isinstance(executor, ConsumePool)
        # bounded: a shutdown never hangs, whatever a task or a broker does (the loops also end on the state)
        try:
            self._call(self._stop_pulls(), timeout=STOP_TIMEOUT_S)
        except Exception as e:
            log.warning("stopping the pulls and timers did not finish: %r", e)
        wait_ms = self._listener_wait_ms()
        self._abandoned(executor.shutdown(wait_ms / 1000), wait_ms)
        try:
            self._call(self._final_commit_and_unregister(), timeout=self._final_bound_s())
        except Exception as e:
            log.warning("the final commit or unregister did not finish: %r", e)
        self._leave()

    def __enter__(self) -> Consumer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def consumer_ids(self, topic: str) -> list[str]:
        """The group's members as a broker of ``topic`` reports them (GET_CONSUMER_LIST_BY_GROUP)."""
        return self._call(self._rebalancing().find_consumer_ids(wrap(self.namespace, topic)))

    def rebalance_now(self) -> None:
        """Run a rebalance now (what a NOTIFY_CONSUMER_IDS_CHANGED triggers) and return when it is done (and
        ``on_rebalance`` has been called for what it changed, unless this is called from ``on_rebalance``)."""
        self._call(self._rebalancing().rebalance_all())
        self._flush_callbacks()

    def _flush_callbacks(self) -> None:
        if self._callbacks is not None:
            self._callbacks.flush(self.settings.mq_client_api_timeout / 1000)

    def refresh_routes(self) -> None:
        """Fetch the subscribed topics' routes now (what the instance's poll does every ``poll_name_server_interval``
        ms)."""
        self._call(self._refresh_routes())
