"""Exceptions of the remoting client, one per Java remoting exception.

| Java                                    | Python                                                      |
|-----------------------------------------|-------------------------------------------------------------|
| RemotingException                       | RemotingError                                               |
| RemotingConnectException                | RemotingConnectError (ConnectionError)                      |
| RemotingSendRequestException            | RemotingSendRequestError (RemotingConnectError)             |
| RemotingTimeoutException                | RemotingTimeoutError (TimeoutError)                         |
| RemotingCommandException (decode error) | FrameError (ValueError)                                     |
| MQBrokerException                       | RemotingCommandError (:class:`~rocketroute.BrokerResponseError`) |

Messages start as Java's do (``connect to 127.0.0.1:9876 failed``, ``wait response on the channel <addr>
timeout, 3000(ms)``, ``send request to <addr> failed``, ``CODE: 17  DESC: ...``) and add what Java logs elsewhere
(the reason, the request code). Each error carries ``addr``, the peer's ``"host:port"`` (``None`` when the error is
not about one peer, e.g. a :class:`FrameError` from a bare :class:`~rocketroute.remoting.FrameDecoder`).

How :func:`rocketroute.send_default` treats them: the ``ConnectionError`` and ``TimeoutError`` ones isolate the broker
(Java's ``catch (RemotingException e)`` in ``sendDefaultImpl``), and :class:`RemotingCommandError` is a
:class:`~rocketroute.BrokerResponseError`, retried only for a retryable code (Java's ``catch (MQBrokerException e)``).
"""

from __future__ import annotations

from ..errors import BrokerResponseError, BrokerUnreachableError, RocketRouteError

__all__ = [
    "RemotingError",
    "RemotingConnectError",
    "RemotingSendRequestError",
    "RemotingTimeoutError",
    "FrameError",
    "RemotingCommandError",
    "one_line",
]


class RemotingError(BrokerUnreachableError):
    """Base class of the remoting errors (Java's ``RemotingException``). It is a
    :class:`~rocketroute.BrokerUnreachableError`, so the send loop isolates the broker on any of them, as Java's
    ``sendDefaultImpl`` does on a ``RemotingException`` (a malformed frame included: Java fails the pending request
    with ``RemotingSendRequestException``)."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingException"

    def __init__(self, message: str, *, addr: str | None = None) -> None:
        RocketRouteError.__init__(self, message)
        self.addr = addr


class RemotingConnectError(RemotingError, ConnectionError):
    """The connection to ``addr`` could not be made (refused, unreachable, not made within the connect timeout, a
    malformed address): Java's ``RemotingConnectException`` ("connect to <addr> failed")."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingConnectException"

    def __init__(self, addr: str, reason: str | None = None) -> None:
        message = f"connect to {addr} failed"
        RemotingError.__init__(self, f"{message}: {reason}" if reason else message, addr=addr)
        self.reason = reason


class RemotingSendRequestError(RemotingConnectError):
    """The connection broke while the request was being sent or waited for a response (the peer closed it, a
    network error, the client was closed): Java's ``RemotingSendRequestException`` ("send request to <addr> failed"),
    which Java raises when a channel closes with requests in flight (``failFast``)."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingSendRequestException"

    def __init__(self, addr: str, reason: str | None = None) -> None:
        message = f"send request to <{addr}> failed"
        RemotingError.__init__(self, f"{message}: {reason}" if reason else message, addr=addr)
        self.reason = reason


class RemotingTimeoutError(RemotingError, TimeoutError):
    """No response within ``timeout_ms``: Java's ``RemotingTimeoutException`` ("wait response on the channel <addr>
    timeout, 3000(ms)"). ``code`` is the request's code. The request stays sent: a response arriving later is
    dropped, as Java drops a response whose request is no longer in its response table."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingTimeoutException"

    def __init__(self, addr: str, timeout_ms: int, code: int | None = None) -> None:
        message = f"wait response on the channel <{addr}> timeout, {timeout_ms}(ms)"
        if code is not None:
            message += f", request code {code}"
        RemotingError.__init__(self, message, addr=addr)
        self.timeout_ms = timeout_ms
        self.code = code


class FrameError(RemotingError, ValueError):
    """A malformed or oversized frame: a length field under 4 or over the maximum frame size, a header length larger
    than its frame, an unknown serialize type, a header that does not decode. The client closes the connection it
    came from and fails every request in flight on it with this error (Java's ``NettyDecoder`` logs the decode error
    and closes the channel; its pending requests then fail with ``RemotingSendRequestException``)."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingCommandException"


def one_line(remark: str | None) -> str:
    """A server's remark for an error message: line breaks and runs of spaces folded into one space (Apache's
    servers put a "See https://rocketmq.apache.org/docs/bestPractice/06FAQ ..." line under many remarks). The
    exceptions keep the remark as the server sent it in their ``remark`` attribute."""
    return " ".join((remark or "").split())


class RemotingCommandError(RemotingError, BrokerResponseError):
    """A response whose code is not a success code, raised by ``invoke_checked`` (``invoke`` returns any response
    as it is). Java's client raises ``MQBrokerException(code, remark, brokerAddr)`` for it, whose message is
    ``CODE: <code>  DESC: <remark> BROKER: <addr>``. ``code`` (also ``response_code``, as for
    :class:`~rocketroute.BrokerResponseError`), ``remark`` and ``addr`` are the response's."""

    java_class = "org.apache.rocketmq.client.exception.MQBrokerException"

    def __init__(self, code: int, remark: str | None, addr: str | None = None) -> None:
        message = f"CODE: {code}  DESC: {one_line(remark)}"
        if addr is not None:
            message += f" BROKER: {addr}"
        RemotingError.__init__(self, message, addr=addr)
        self.response_code = code
        self.code = code
        self.remark = remark
