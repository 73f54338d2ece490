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
not about one peer, e.g. a :class:`FrameError` from a bare :class:`~rocketroute.protocol.FrameDecoder`).

How :func:`rocketroute.send_default` treats them: the ``ConnectionError`` and ``TimeoutError`` ones isolate the broker
(Java's ``catch (RemotingException e)`` in ``sendDefaultImpl``), and :class:`RemotingCommandError` is a
:class:`~rocketroute.BrokerResponseError`, retried only for a retryable code (Java's ``catch (MQBrokerException e)``).
"""

from __future__ import annotations

import re

from ..errors import (
    AccessDeniedError,
    AuthenticationError,
    BrokerResponseError,
    BrokerUnreachableError,
    PermissionDeniedError,
    RocketRouteError,
)

__all__ = [
    "RemotingError",
    "RemotingConnectError",
    "RemotingSendRequestError",
    "RemotingTimeoutError",
    "FrameError",
    "RemotingCommandError",
    "RemotingTooMuchRequestError",
    "access_error",
    "response_error",
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


class RemotingTooMuchRequestError(RemotingError, TimeoutError):
    """An async send found no room within its budget: the producer's back-pressure
    (``enable_backpressure_for_async_mode``) had ``back_pressure_for_async_send_num`` sends or
    ``back_pressure_for_async_send_size`` body bytes in flight for the whole ``send_msg_timeout``. Java's
    ``RemotingTooMuchRequestException`` ("send message tryAcquire semaphoreAsyncNum timeout"). Nothing was sent."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException"

    def __init__(self, message: str) -> None:
        RemotingError.__init__(self, message)


class FrameError(RemotingError, ValueError):
    """A malformed or oversized frame: a length field under 4 or over the maximum frame size, a header length larger
    than its frame, an unknown serialize type, a header that does not decode. The client closes the connection it
    came from and fails every request in flight on it with this error (Java's ``NettyDecoder`` logs the decode error
    and closes the channel; its pending requests then fail with ``RemotingSendRequestException``)."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingCommandException"


class RemotingCommandError(RemotingError, BrokerResponseError):
    """A response whose code is not a success code, raised by ``invoke_checked`` (``invoke`` returns any response
    as it is). Java's client raises ``MQBrokerException(code, remark, brokerAddr)`` for it: a
    :class:`~rocketroute.BrokerResponseError`, whose one-line message, ``code`` (also ``response_code``),
    ``remark`` and ``addr`` it has."""

    java_class = "org.apache.rocketmq.client.exception.MQBrokerException"

    def __init__(self, code: int, remark: str | None, addr: str | None = None) -> None:
        BrokerResponseError.__init__(self, code, remark, addr=addr)


# 4.9's plain ACL (and 5.x's ACL 1.0): the broker's RPC hook throws AclException; its remoting answers SYSTEM_ERROR
# with RemotingHelper.exceptionSimpleDesc: "org.apache.rocketmq.acl.common.AclException: <why>, <first frame>"
_ACL_V1 = re.compile(r"^\s*(?:[\w.$]+\.)?AclException:\s*(?P<why>.*?)(?:, [\w.$]+\([\w.]+:\d+\))?\s*$", re.DOTALL)
# 5.x ACL 2.0: the broker answers NO_PERMISSION with its authentication handler's message ...
_AUTHN_V2 = re.compile(
    r"username cannot be null|check signature failed|User:\S* (?:is )?(?:not found|disabled)|"
    r"Authentication failed|authenticationMetadataProvider is not configured",
    re.IGNORECASE,
)
# ... or its authorization handler's. Its other NO_PERMISSION answers are not about credentials ("the topic[t]
# sending message is forbidden", "subscription group no permission, g": a perm or a group switched off)
_AUTHZ_V2 = re.compile(
    r"has no permission to access|Authorization failed|authorizationMetadataProvider is not configured", re.IGNORECASE
)


def access_error(
    code: int, remark: str | None, *, addr: str | None = None, request_code: int | None = None
) -> AccessDeniedError | None:
    """The :class:`~rocketroute.errors.AuthenticationError` or :class:`~rocketroute.errors.PermissionDeniedError` a
    refused response stands for, or ``None`` when it is not a refusal of the client's credentials.

    - 4.9 broker, ``aclEnable=true`` (plain ACL): ``SYSTEM_ERROR`` (1), remark ``...AclException: <why>, <frame>``.
      A ``why`` that speaks of a permission ("No default permission for topic:T", "Need admin permission for
      request code=17 ...") is a permission error; the others ("No accessKey is configured", "No acl config for
      K", "Check signature failed for accessKey=K") are authentication errors.
    - 5.x broker, ACL 2.0: ``NO_PERMISSION`` (16) with the authentication handler's message ("username cannot be
      null.", "check signature failed.", "User:u is not found.") or the authorization handler's ("User:u has no
      permission to access Topic:T from 127.0.0.1, no matched policies.").
    """
    text = remark or ""
    v1 = _ACL_V1.match(text) if code in (1, 16) else None
    if v1 is not None:
        why = " ".join(v1.group("why").split())
        cls: type[AccessDeniedError] = PermissionDeniedError if "permission" in why.lower() else AuthenticationError
        return cls(code, remark, addr=addr, request_code=request_code, reason=why)
    if code == 16:
        if _AUTHZ_V2.search(text):
            return PermissionDeniedError(code, remark, addr=addr, request_code=request_code)
        if _AUTHN_V2.search(text):
            return AuthenticationError(code, remark, addr=addr, request_code=request_code)
    return None


def response_error(
    code: int, remark: str | None, addr: str | None = None, *, request_code: int | None = None
) -> RemotingCommandError | AccessDeniedError:
    """The exception for a response whose code is not a success: :func:`access_error`'s when the server refused
    the client's credentials, else a :class:`RemotingCommandError`."""
    refused = access_error(code, remark, addr=addr, request_code=request_code)
    return refused if refused is not None else RemotingCommandError(code, remark, addr)
