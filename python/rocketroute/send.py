"""``send_default``: the producer's send loop (``DefaultMQProducerImpl.sendDefaultImpl``) without a network.

This is how a real producer plugs rocketroute in: give it the topic's publish info, the fault strategy and
a callable that sends one message to one queue; it picks the queue of every attempt, times the call,
reports the latency (or an isolation) to the strategy, retries on another broker after a failure and
returns the first result (or raises the last error). It works with either backend's objects.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import AccessDeniedError, BrokerResponseError, BrokerUnreachableError, SendFailedError
from .protocol.response_code import RETRY_RESPONSE_CODES, default_retry_response_codes
from .selector import MessageQueueSelector, as_selector

__all__ = [
    "CommunicationMode",
    "SendAttempt",
    "send_default",
    "send_default_async",
    "send_select",
    "DEFAULT_RETRY_RESPONSE_CODES",
]

T = TypeVar("T")

DEFAULT_RETRY_RESPONSE_CODES = RETRY_RESPONSE_CODES["5.3"]
"""The response codes after which a 5.3 producer retries (``default_retry_response_codes("4.9")`` for 4.9)."""


class CommunicationMode(str, enum.Enum):
    SYNC = "sync"
    ASYNC = "async"
    ONEWAY = "oneway"


@dataclass(frozen=True)
class SendAttempt:
    """One attempt of a send: the queue, how long the call took, and the error it raised (if any)."""

    queue: Any
    latency_ms: int
    error: BaseException | None


def _monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


class _LoopEnd:
    """What ends a send loop, for both loops (:class:`_SendLoop`, and the native one for the native backend's
    strategy and publish info): a failed attempt's verdict and the loop's final answer. Both loops give
    ``times``, ``has_result``, ``result``, ``last_error``, ``retry_response_codes``, ``start_detector``,
    ``timed_out``, ``attempts``, ``tp_info``, ``brokers_sent``, ``_record``, ``_count`` and ``_elapsed_ms``."""

    __slots__ = ()

    def failed(self, e: BaseException) -> bool:
        """Record an attempt that raised; re-raise ``e`` when Java would not retry it. True when the loop ends
        here with an earlier not-stored result (:attr:`result`), as Java returns it rather than throw."""
        loop: Any = self
        loop.last_error = e
        if isinstance(e, AccessDeniedError):
            # the broker refused the credentials: not down, and another try (Java retries NO_PERMISSION and
            # SYSTEM_ERROR) would be refused the same way, or store on another broker what this one refused
            loop._record(e, isolation=False, reachable=True)
            loop._count()
            if loop.has_result:  # as for a broker's error: an earlier not-stored result is returned
                return True
            raise e
        if isinstance(e, BrokerResponseError):
            loop._record(e, isolation=True, reachable=False)
            if e.response_code not in loop.retry_response_codes:
                if loop.has_result:  # Java returns an earlier not-stored result rather than throw
                    return True
                raise e
        elif isinstance(e, (BrokerUnreachableError, ConnectionError, TimeoutError)):
            loop._record(e, isolation=True, reachable=not loop.start_detector)
        else:
            loop._record(e, isolation=False, reachable=True)
        loop._count()
        return False

    def finish(self) -> Any:
        """After the last attempt: an earlier result, or the error Java throws."""
        loop: Any = self
        if loop.has_result:
            return loop.result
        info = (
            f"Send [{loop.times}] times, still failed, cost [{loop._elapsed_ms()}]ms, Topic: "
            f"{_topic(loop.tp_info)}, BrokersSent: [{', '.join('null' if b is None else b for b in loop.brokers_sent)}]"
        )
        e = loop.last_error
        if loop.timed_out:  # Java's bare message; the note says where the budget went, the cause what failed
            timeout = SendFailedError("sendDefaultImpl call timeout", loop.attempts or [])
            if hasattr(timeout, "add_note"):  # Python >= 3.11
                timeout.add_note(info)
            raise timeout from e
        if e is None:
            raise SendFailedError(info, loop.attempts)
        if hasattr(e, "add_note"):  # Python >= 3.11
            e.add_note(info)
        raise e


class _SendLoop(_LoopEnd):
    """The state of one ``sendDefaultImpl`` loop, shared by :func:`send_default` and :func:`send_default_async`:
    which queue each attempt goes to, what the strategy learns from its outcome, and when to stop. The native
    backend's strategy and publish info get the native loop instead (:func:`_send_loop`)."""

    __slots__ = (
        "attempts",
        "begin",
        "brokers_sent",
        "first",
        "has_result",
        "last_error",
        "mode",
        "mq",
        "now",
        "result",
        "retry_response_codes",
        "retry_result",
        "start_detector",
        "strategy",
        "timed_out",
        "timeout_ms",
        "times",
        "total",
        "tp_info",
    )

    def __init__(
        self,
        tp_info: Any,
        strategy: Any,
        mode: CommunicationMode | str,
        retry_times_when_send_failed: int,
        retry_times_when_send_async_failed: int,
        timeout_ms: int,
        retry_response_codes: Collection[int] | None,
        clock: Any,
        attempts: list[SendAttempt] | None,
        retry_result: Callable[[Any], bool] | None,
    ) -> None:
        self.mode, self.total = _mode_and_total(mode, retry_times_when_send_failed, retry_times_when_send_async_failed)
        if retry_response_codes is None:
            retry_response_codes = default_retry_response_codes(getattr(strategy, "compat", "5.3"))
        self.retry_response_codes = retry_response_codes
        self.now = clock.now_ms if clock is not None else _monotonic_ms
        if not tp_info.ok():
            raise SendFailedError(f"No route info of this topic: {_topic(tp_info)}")
        self.tp_info, self.strategy, self.timeout_ms = tp_info, strategy, timeout_ms
        self.attempts, self.retry_result = attempts, retry_result
        self.start_detector = bool(getattr(strategy, "start_detector_enable", False))
        self.first = self.begin = self.now()
        self.mq: Any = None
        self.brokers_sent: list[str | None] = [None] * self.total
        self.last_error: BaseException | None = None
        self.result: Any = None
        self.has_result = False
        self.timed_out = False
        self.times = 0

    def next_queue(self) -> Any:
        """The queue of the next attempt, or ``None`` when the loop is over (no attempt left, no queue, or the
        send timeout passed)."""
        if self.times >= self.total:
            return None
        last_broker = None if self.mq is None else self.mq.broker_name
        reset_index = self.mode is CommunicationMode.SYNC and self.times > 0
        selected = self.strategy.select_one_message_queue(self.tp_info, last_broker, reset_index)
        if selected is None:
            return None
        self.mq = selected
        self.brokers_sent[self.times] = selected.broker_name
        self.begin = self.now()
        if self.timeout_ms < self.begin - self.first:
            self.timed_out = True
            return None
        return selected

    def succeeded(self, result: Any) -> bool:
        """Record an attempt that returned; True when ``result`` is the answer (else the loop goes on: a
        ``retry_result`` asked for another broker)."""
        self._record(None, isolation=False, reachable=True)
        self.times += 1
        if self.retry_result is not None and self.retry_result(result):
            self.result, self.has_result = result, True
            return False
        return True

    def _count(self) -> None:
        self.times += 1

    def _elapsed_ms(self) -> int:
        return self.now() - self.first  # type: ignore[no-any-return]

    def _record(self, error: BaseException | None, *, isolation: bool, reachable: bool) -> None:
        _record(
            self.strategy,
            self.attempts,
            self.mq,
            self.now() - self.begin,
            error,
            isolation=isolation,
            reachable=reachable,
        )


def _mode_and_total(
    mode: CommunicationMode | str, retry_times_when_send_failed: int, retry_times_when_send_async_failed: int
) -> tuple[CommunicationMode, int]:
    """The mode (a :class:`CommunicationMode` of its value) and how many attempts it allows."""
    mode = mode if type(mode) is CommunicationMode else CommunicationMode(mode)
    if mode is CommunicationMode.SYNC:
        return mode, 1 + retry_times_when_send_failed
    if mode is CommunicationMode.ASYNC:
        return mode, 1 + retry_times_when_send_async_failed
    return mode, 1


_NATIVE_LOOP: tuple[type, ...] | None = None
_NATIVE_MAX_ATTEMPTS = 1 << 16
_NATIVE_MAX_TIMEOUT = (1 << 62) - 1


def _native_loop_types() -> tuple[type, ...]:
    """``(loop class, MQFaultStrategy, TopicPublishInfo, ManualClock)`` of the native backend: the native loop
    (``rocketroute_core::send_loop``) with the Python ending, and the classes it takes; ``()`` on the reference
    backend. Made at first use: ``rocketroute._backend`` imports this module (through the reference backend)
    while it chooses the backend."""
    global _NATIVE_LOOP
    if _NATIVE_LOOP is None:
        from ._backend import native_twin

        base = native_twin("_SendLoop")
        if base is None:
            _NATIVE_LOOP = ()
        else:

            class _NativeSendLoop(base, _LoopEnd):  # type: ignore[misc, valid-type]
                """The native loop with the Python ending."""

                __slots__ = ()

            _NATIVE_LOOP = (
                _NativeSendLoop,
                native_twin("MQFaultStrategy"),
                native_twin("TopicPublishInfo"),
                native_twin("ManualClock"),
            )
    return _NATIVE_LOOP


def _send_loop(
    tp_info: Any,
    strategy: Any,
    mode: CommunicationMode | str,
    retry_times_when_send_failed: int,
    retry_times_when_send_async_failed: int,
    timeout_ms: int,
    retry_response_codes: Collection[int] | None,
    clock: Any,
    attempts: list[SendAttempt] | None,
    retry_result: Callable[[Any], bool] | None,
) -> Any:
    """The state of a new send loop: the native one for the native backend's strategy and publish info (with no
    clock or a native ``ManualClock``, and no ``attempts`` list), else :class:`_SendLoop`. Both decide the same."""
    native = _NATIVE_LOOP if _NATIVE_LOOP is not None else _native_loop_types()
    if (
        native
        and attempts is None
        and type(strategy) is native[1]
        and type(tp_info) is native[2]
        and (clock is None or type(clock) is native[3])
    ):
        if mode is CommunicationMode.ASYNC:  # _mode_and_total written out for the async sends
            sync, total = False, 1 + retry_times_when_send_async_failed
        else:
            sync_or_async, total = _mode_and_total(
                mode, retry_times_when_send_failed, retry_times_when_send_async_failed
            )
            sync = sync_or_async is CommunicationMode.SYNC
        # the counts and timeouts the native loop takes: an int of attempts up to 65536, an int timeout of 0 to
        # 2**62 - 1 (a float, a negative or huge one, no attempt at all: the Python loop, which compares any number)
        if (
            type(total) is int
            and 0 <= total <= _NATIVE_MAX_ATTEMPTS
            and type(timeout_ms) is int
            and 0 <= timeout_ms <= _NATIVE_MAX_TIMEOUT
        ):
            if retry_response_codes is None:
                retry_response_codes = default_retry_response_codes(strategy.compat)
            if not tp_info.ok():
                raise SendFailedError(f"No route info of this topic: {_topic(tp_info)}")
            return native[0](tp_info, strategy, sync, total, timeout_ms, retry_response_codes, retry_result, clock)
    return _SendLoop(
        tp_info, strategy, mode, retry_times_when_send_failed, retry_times_when_send_async_failed, timeout_ms,
        retry_response_codes, clock, attempts, retry_result,
    )  # fmt: skip


def send_default(
    tp_info: Any,
    strategy: Any,
    send: Callable[[Any], T],
    *,
    mode: CommunicationMode | str = CommunicationMode.SYNC,
    retry_times_when_send_failed: int = 2,
    retry_times_when_send_async_failed: int = 2,
    timeout_ms: int = 3000,
    retry_response_codes: Collection[int] | None = None,
    clock: Any = None,
    attempts: list[SendAttempt] | None = None,
    retry_result: Callable[[T], bool] | None = None,
) -> T:
    """Send with Java's retry loop; ``send(mq)`` does one attempt and returns its result.

    - ``sync``: 1 + ``retry_times_when_send_failed`` attempts; a retry re-draws the round-robin start (5.3)
      and avoids the failed broker.
    - ``async``: 1 + ``retry_times_when_send_async_failed`` attempts (Java retries inside its callback),
      also avoiding the failed broker.
    - ``oneway``: one attempt.

    What ``send`` raises decides what the strategy learns: :class:`BrokerUnreachableError`,
    ``ConnectionError`` or ``TimeoutError`` isolate the broker (Java's RemotingException; unreachable too
    when the strategy's detector is on); :class:`BrokerResponseError` isolates it and marks it unreachable,
    and is retried only for a code in ``retry_response_codes`` (default: ``DefaultMQProducer``'s for the
    strategy's compat profile, :func:`default_retry_response_codes`); an
    :class:`~rocketroute.errors.AccessDeniedError` (the broker refused the credentials) reports the latency and is
    raised at once, never retried (rocketroute's choice: Java retries the ``NO_PERMISSION`` and ``SYSTEM_ERROR``
    these come as); any other ``Exception`` reports the latency and is retried (Java's MQClientException). After
    the last attempt the last error is raised again, with a note listing the attempts. ``clock.now_ms()`` times
    the calls (default: a monotonic clock); ``attempts``, if given, receives a :class:`SendAttempt` per attempt.

    ``retry_result(result)``, when given, is asked about each result: True sends again on another broker
    (Java's ``retryAnotherBrokerWhenNotStoreOK`` for a status other than ``SEND_OK``), and when no later
    attempt succeeds the last such result is returned, as in Java.
    """
    loop = _send_loop(
        tp_info, strategy, mode, retry_times_when_send_failed, retry_times_when_send_async_failed, timeout_ms,
        retry_response_codes, clock, attempts, retry_result,
    )  # fmt: skip
    while (mq := loop.next_queue()) is not None:
        try:
            result = send(mq)
        except Exception as e:
            if loop.failed(e):
                return loop.result  # type: ignore[no-any-return]
            continue
        if loop.succeeded(result):
            return result
    return loop.finish()  # type: ignore[no-any-return]


async def send_default_async(
    tp_info: Any,
    strategy: Any,
    send: Callable[[Any], Awaitable[T]],
    *,
    mode: CommunicationMode | str = CommunicationMode.ASYNC,
    retry_times_when_send_failed: int = 2,
    retry_times_when_send_async_failed: int = 2,
    timeout_ms: int = 3000,
    retry_response_codes: Collection[int] | None = None,
    clock: Any = None,
    attempts: list[SendAttempt] | None = None,
    retry_result: Callable[[T], bool] | None = None,
) -> T:
    """:func:`send_default` for a coroutine ``send(mq)``: the same loop, each attempt awaited. The default mode
    is ``async`` (1 + ``retry_times_when_send_async_failed`` attempts, as Java's ``sendAsync``)."""
    loop = _send_loop(
        tp_info, strategy, mode, retry_times_when_send_failed, retry_times_when_send_async_failed, timeout_ms,
        retry_response_codes, clock, attempts, retry_result,
    )  # fmt: skip
    while (mq := loop.next_queue()) is not None:
        try:
            result = await send(mq)
        except Exception as e:
            if loop.failed(e):
                return loop.result  # type: ignore[no-any-return]
            continue
        if loop.succeeded(result):
            return result
    return loop.finish()  # type: ignore[no-any-return]


def send_select(
    tp_info: Any,
    selector: MessageQueueSelector | Callable[..., Any],
    msg: Any,
    arg: Any,
    send: Callable[[Any], T],
    *,
    timeout_ms: int = 3000,
    clock: Any = None,
) -> T:
    """Send through a selector, as Java's ``send(msg, selector, arg)`` (``sendSelectImpl``) does for
    ordered messages: the selector picks one of the topic's queues and ``send(mq)`` makes one attempt; there
    is no retry and no fault-item update (a retry on another queue would break the order).

    ``selector`` is any :class:`MessageQueueSelector` (e.g. ``SelectMessageQueueByHash()``) or a callable
    ``(mqs, msg, arg) -> mq``. Raises :class:`SendFailedError` when the topic has no queues, when the selector
    raises (chained) or returns ``None``, and when ``timeout_ms`` passed while selecting; a selector that
    returns something other than a queue raises ``TypeError``. ``send``'s own exceptions propagate."""
    # every keyed send comes here: the clock, as_selector and the queue check written out
    begin = clock.now_ms() if clock is not None else time.monotonic_ns() // 1_000_000
    if not tp_info.ok():
        raise SendFailedError(f"No route info for this topic, {_topic(tp_info)}")
    chosen = selector if hasattr(selector, "select") else as_selector(selector)
    try:
        mq = chosen.select(list(tp_info.message_queues), msg, arg)  # type: ignore[union-attr]
    except Exception as e:
        raise SendFailedError("select message queue threw exception.") from e
    if timeout_ms < (clock.now_ms() if clock is not None else time.monotonic_ns() // 1_000_000) - begin:
        raise SendFailedError("sendSelectImpl call timeout")
    if mq is None:
        raise SendFailedError("select message queue return null.")
    if not (hasattr(mq, "topic") and hasattr(mq, "broker_name") and hasattr(mq, "queue_id")):
        raise TypeError(f"the selector returned a {type(mq).__name__}, not a MessageQueue")
    return send(mq)


def _topic(tp_info: Any) -> str | None:
    queues = tp_info.message_queues
    return queues[0].topic if queues else None


def _record(
    strategy: Any,
    attempts: list[SendAttempt] | None,
    mq: Any,
    latency: int,
    error: BaseException | None,
    *,
    isolation: bool,
    reachable: bool,
) -> None:
    strategy.update_fault_item(mq.broker_name, latency, isolation, reachable)
    if attempts is not None:
        attempts.append(SendAttempt(mq, latency, error))
