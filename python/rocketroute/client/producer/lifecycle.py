"""``Lifecycle``: what a producer is (created, running, stopping, shut down, or unusable in a fork's child), what it
runs on once started (its client instance and that instance's remoting client), and the sends it has accepted.

The producer's parts read it instead of reaching into the producer: the sender asks it to accept a send and what a
send raises when the producer stopped under it; the shutdown asks it to stop accepting and, when the wait for the
sends under way ends with some left, to fail those with one :class:`~rocketroute.errors.ProducerClosedError` each.

``live``: accepted sends may still run (running, or stopping while they drain). ``closed_error``: what the sends
the shutdown gave up on raise. The lock guards the state's changes (start, the shutdown's first and last steps);
the sends read ``live`` and ``remoting`` without it, as they read a flag that only ever goes from on to off."""

from __future__ import annotations

import os
import threading
from collections.abc import Awaitable
from typing import TYPE_CHECKING, TypeVar

from ...errors import ProducerClosedError
from ...loggers import get_logger
from ..instances import forked_error
from .inflight import SendsInFlight

if TYPE_CHECKING:
    from ...net.runtime import RemotingClient
    from ..instance import ClientInstance

__all__ = ["Lifecycle"]

log = get_logger("producer")

T = TypeVar("T")


class Lifecycle:
    """See the module. ``group`` names the producer in what it raises and logs."""

    __slots__ = ("closed_error", "forked_from", "group", "inflight", "instance", "live", "lock", "remoting", "state")

    def __init__(self, group: str) -> None:
        self.group = group
        self.lock = threading.Lock()
        self.state = "created"
        self.live = False
        self.instance: ClientInstance | None = None
        self.remoting: RemotingClient | None = None
        self.closed_error: ProducerClosedError | None = None
        self.forked_from = 0
        self.inflight = SendsInFlight()

    def started(self, instance: ClientInstance) -> None:
        """The producer joined ``instance`` and takes sends (under :attr:`lock`)."""
        self.instance = instance
        self.remoting = instance.remoting
        self.state = "running"
        self.live = True
        self.inflight.open()

    def accept(self) -> None:
        """Count one send as accepted (flush and shutdown wait for it), or raise: the producer is not running."""
        if not self.inflight.begin():
            self.running()  # raises, saying why
            raise RuntimeError("the producer is stopping: it takes no new sends")

    def running(self) -> tuple[RemotingClient, ClientInstance]:
        """The remoting client and the instance of a running producer; ``RuntimeError`` (saying why) otherwise."""
        if self.state != "running" or self.remoting is None or self.instance is None:
            if self.state == "forked":
                raise forked_error("producer", self.forked_from)
            if self.state == "stopping":
                raise RuntimeError("the producer is shutting down: it takes no new sends")
            raise RuntimeError(f"the producer is {self.state}: call start() (or use it as a context manager)")
        return self.remoting, self.instance

    def not_live(self) -> BaseException:
        """What an accepted send raises when the producer stopped under it."""
        if self.state == "forked":
            return forked_error("producer", self.forked_from)
        if self.closed_error is not None:
            return self.unsent_error()
        try:
            self.running()
        except RuntimeError as e:
            return e
        return RuntimeError("the producer is not running")

    def unsent_error(self) -> ProducerClosedError:
        """A new exception for one send the shutdown gave up on (each send raises its own)."""
        e = self.closed_error
        assert e is not None
        return ProducerClosedError(str(e), e.unsent)

    def live_remoting(self) -> RemotingClient:
        """The remoting client while accepted sends may run (also while stopping), else raises :meth:`not_live`."""
        remoting = self.remoting if self.live else None
        if remoting is None:
            raise self.not_live()
        return remoting

    def live_instance(self) -> ClientInstance:
        """The instance while accepted sends may run (an accepted send's route lookup while stopping too)."""
        instance = self.instance if self.live else None
        if instance is None:
            raise self.not_live()
        return instance

    def run(self, coro: Awaitable[T], timeout_s: float | None = None) -> T:
        """Run ``coro`` on the client's loop and wait for it (at most ``timeout_s``: ``TimeoutError``); refused on
        that loop's own thread, where the wait would block what it waits for."""
        try:
            remoting = self.live_remoting()
            if remoting.on_loop_thread():
                raise RuntimeError(
                    "a blocking Producer method cannot be called on the producer's event-loop thread (it would wait "
                    "for that loop): use send_async there, or call it from another thread"
                )
        except BaseException:
            coro.close()  # type: ignore[attr-defined]
            raise
        return remoting.run(coro, timeout_s)  # type: ignore[arg-type]

    def stop_accepting(self) -> RemotingClient | None:
        """The first step of every shutdown: no new sends; the remoting client, or ``None`` when the producer was
        not running (or another shutdown is under way)."""
        with self.lock:
            if self.state != "running":
                if self.state == "created":
                    self.state = "shut down"
                return None
            self.state = "stopping"
            remoting = self.remoting
        assert remoting is not None
        self.inflight.close()
        return remoting

    def give_up(self, left: int, why: str) -> None:
        """The shutdown stops waiting: the ``left`` sends under way fail with :class:`ProducerClosedError` (said
        once here, not once per send)."""
        if not left:
            return
        self.closed_error = ProducerClosedError(
            f"the producer {self.group} shut down before this send was done: {left} of the sends it had accepted "
            f"were not done when {why}; the broker may still have stored it",
            left,
        )
        self.live = False
        log.warning("producer %s: %d send(s) accepted were not done when %s: they fail with ProducerClosedError",
                    self.group, left, why)  # fmt: skip

    def shut_down(self) -> None:
        """The sends are settled: the producer is shut down."""
        with self.lock:
            self.state = "shut down"
            self.live = False

    def forked(self) -> None:
        """In the child of a fork: unusable; the lock and the count are new (another thread of the parent may
        have held them over the fork)."""
        self.lock = threading.Lock()
        self.inflight = SendsInFlight()  # accepts nothing
        self.live = False
        self.forked_from = os.getppid()
        self.state = "forked"
