"""``send_default``: the producer's send loop (``DefaultMQProducerImpl.sendDefaultImpl``) without a network.

This is how a real producer plugs rocketroute in: give it the topic's publish info, the fault strategy and
a callable that sends one message to one queue; it picks the queue of every attempt, times the call,
reports the latency (or an isolation) to the strategy, retries on another broker after a failure and
returns the first result (or raises the last error). It works with either backend's objects.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import BrokerResponseError, BrokerUnreachableError, SendFailedError
from .response_code import RETRY_RESPONSE_CODES, default_retry_response_codes
from .selector import MessageQueueSelector, as_selector

__all__ = ["CommunicationMode", "SendAttempt", "send_default", "send_select", "DEFAULT_RETRY_RESPONSE_CODES"]

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
    strategy's compat profile, :func:`default_retry_response_codes`); any other ``Exception`` reports the latency
    and is retried (Java's MQClientException). After the last attempt the last error is raised again, with
    a note listing the attempts. ``clock.now_ms()`` times the calls (default: a monotonic clock);
    ``attempts``, if given, receives a :class:`SendAttempt` per attempt.
    """
    mode = CommunicationMode(mode)
    if retry_response_codes is None:
        retry_response_codes = default_retry_response_codes(getattr(strategy, "compat", "5.3"))
    now = clock.now_ms if clock is not None else _monotonic_ms
    if not tp_info.ok():
        raise SendFailedError(f"No route info of this topic: {_topic(tp_info)}")
    if mode is CommunicationMode.SYNC:
        total = 1 + retry_times_when_send_failed
    elif mode is CommunicationMode.ASYNC:
        total = 1 + retry_times_when_send_async_failed
    else:
        total = 1
    first = now()
    mq = None
    brokers_sent: list[str | None] = [None] * total
    last_error: BaseException | None = None
    times = 0
    while times < total:
        last_broker = None if mq is None else mq.broker_name
        reset_index = mode is CommunicationMode.SYNC and times > 0
        selected = strategy.select_one_message_queue(tp_info, last_broker, reset_index)
        if selected is None:
            break
        mq = selected
        brokers_sent[times] = mq.broker_name
        begin = now()
        if timeout_ms < begin - first:
            raise SendFailedError("sendDefaultImpl call timeout", attempts or [])
        try:
            result = send(mq)
        except BrokerResponseError as e:
            _record(strategy, attempts, mq, now() - begin, e, isolation=True, reachable=False)
            last_error = e
            if e.response_code not in retry_response_codes:
                raise
        except (BrokerUnreachableError, ConnectionError, TimeoutError) as e:
            reachable = not bool(getattr(strategy, "start_detector_enable", False))
            _record(strategy, attempts, mq, now() - begin, e, isolation=True, reachable=reachable)
            last_error = e
        except Exception as e:
            _record(strategy, attempts, mq, now() - begin, e, isolation=False, reachable=True)
            last_error = e
        else:
            _record(strategy, attempts, mq, now() - begin, None, isolation=False, reachable=True)
            return result
        times += 1
    info = (
        f"Send [{times}] times, still failed, cost [{now() - first}]ms, Topic: {_topic(tp_info)}, "
        f"BrokersSent: [{', '.join('null' if b is None else b for b in brokers_sent)}]"
    )
    if last_error is None:
        raise SendFailedError(info, attempts)
    if hasattr(last_error, "add_note"):  # Python >= 3.11
        last_error.add_note(info)
    raise last_error


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
    now = clock.now_ms if clock is not None else _monotonic_ms
    begin = now()
    if not tp_info.ok():
        raise SendFailedError(f"No route info for this topic, {_topic(tp_info)}")
    chosen = as_selector(selector)
    try:
        mq = chosen.select(list(tp_info.message_queues), msg, arg)
    except Exception as e:
        raise SendFailedError("select message queue threw exception.") from e
    if timeout_ms < now() - begin:
        raise SendFailedError("sendSelectImpl call timeout")
    if mq is None:
        raise SendFailedError("select message queue return null.")
    if not all(hasattr(mq, a) for a in ("topic", "broker_name", "queue_id")):
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
