"""Exceptions raised by rocketroute, by both backends.

Every Java exception that the RocketMQ client can throw on the routing path maps to one class here.
Each class is also the closest built-in Python exception, so ``except ValueError`` keeps working, and each
carries the Java class name it stands for in ``java_class``. Messages of RocketMQ's own exceptions are
identical to Java's (``"currentCID is empty"``); JDK exceptions keep the JDK's wording where it is useful
("/ by zero", ``For input string: "x"``).

| Java                                   | Python                                         |
|----------------------------------------|------------------------------------------------|
| java.lang.IllegalArgumentException     | IllegalArgumentError (ValueError)              |
| java.lang.NumberFormatException        | NumberFormatError (IllegalArgumentError)       |
| java.lang.ArithmeticException          | JavaArithmeticError (ZeroDivisionError)        |
| java.lang.NullPointerException         | NullPointerError (TypeError)                   |
| java.lang.ArrayIndexOutOfBoundsException | IndexOutOfBoundsError (IndexError)           |
| MQClientException (send gave up)       | SendFailedError                                |
| (the producer shut down mid-send)      | ProducerClosedError (SendFailedError)          |
| AclException / AuthenticationException | AuthenticationError (AccessDeniedError)        |
| AclException / AuthorizationException  | PermissionDeniedError (AccessDeniedError)      |
"""

from __future__ import annotations

from typing import ClassVar

from .protocol.codes import REQUEST_CODE_NAMES

__all__ = [
    "RocketRouteError",
    "IllegalArgumentError",
    "UnsupportedSettingError",
    "NumberFormatError",
    "JavaArithmeticError",
    "NullPointerError",
    "IndexOutOfBoundsError",
    "SendFailedError",
    "ProducerClosedError",
    "BrokerUnreachableError",
    "BrokerResponseError",
    "AccessDeniedError",
    "AuthenticationError",
    "PermissionDeniedError",
    "JAVA_EXCEPTIONS",
    "one_line",
]


def one_line(remark: str | None) -> str:
    """A server's remark for an error message: line breaks and runs of spaces folded into one space (Apache's
    servers put a "See https://rocketmq.apache.org/docs/bestPractice/06FAQ ..." line under many remarks). Every
    exception made from a remark keeps the remark as the server sent it in its ``remark`` attribute."""
    return " ".join((remark or "").split())


class RocketRouteError(Exception):
    """Base class of every exception rocketroute raises on purpose."""

    java_class: ClassVar[str | None] = None


class IllegalArgumentError(RocketRouteError, ValueError):
    """java.lang.IllegalArgumentException: an argument Java would reject."""

    java_class = "java.lang.IllegalArgumentException"


class UnsupportedSettingError(IllegalArgumentError, TypeError):
    """A client setting rocketroute refuses: a Java setting whose feature it does not implement (given a value other
    than Java's default, which is what rocketroute does), one the ``compat`` profile's Java client does not have, or
    a name no client has. The message names the setting and says why. It is a :class:`ValueError` (a value rocketroute
    cannot honour) and a :class:`TypeError` (what Python raises for an unexpected keyword argument)."""

    java_class = None


class NumberFormatError(IllegalArgumentError):
    """java.lang.NumberFormatException: ``Integer.parseInt`` refused a string (e.g. in ``orderTopicConf``)."""

    java_class = "java.lang.NumberFormatException"


class JavaArithmeticError(RocketRouteError, ZeroDivisionError):
    """java.lang.ArithmeticException ("/ by zero"): selecting from an empty queue list."""

    java_class = "java.lang.ArithmeticException"


class NullPointerError(RocketRouteError, TypeError):
    """java.lang.NullPointerException: ``None`` where Java dereferences a value."""

    java_class = "java.lang.NullPointerException"


class IndexOutOfBoundsError(RocketRouteError, IndexError):
    """java.lang.ArrayIndexOutOfBoundsException (e.g. an ``orderTopicConf`` entry without ``:``)."""

    java_class = "java.lang.ArrayIndexOutOfBoundsException"


class SendFailedError(RocketRouteError):
    """Every attempt of a send failed (Java's MQClientException "Send [n] times, still failed")."""

    java_class = "org.apache.rocketmq.client.exception.MQClientException"

    def __init__(self, message: str, attempts: list[object] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts or []


class ProducerClosedError(SendFailedError):
    """The producer shut down before this send was done: its ``shutdown_flush_timeout`` passed (or it was shut
    down from its own event-loop thread, where it cannot wait). The message says how many of the sends it had
    accepted were not done. The broker may still have stored this one (its request may have been written): a
    caller who sends it again may store it twice."""

    java_class = "org.apache.rocketmq.client.exception.MQClientException"

    def __init__(self, message: str, unsent: int = 0) -> None:
        super().__init__(message)
        self.unsent = unsent


class BrokerUnreachableError(RocketRouteError):
    """Raise from a send callable when the broker could not be reached (Java's RemotingException).

    The broker is isolated (and marked unreachable when the detector runs), then the send is retried."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingException"


class BrokerResponseError(RocketRouteError):
    """A server answered with an error code (Java's ``MQBrokerException(code, remark, brokerAddr)``); raise it from
    a send callable for the same.

    The broker is isolated and marked unreachable; the send is retried only for a retryable code. ``str(e)`` is
    Java's ``CODE: <code>  DESC: <remark> BROKER: <addr>`` on one line (:func:`one_line`; a ``None`` remark reads
    ``null``, as Java prints it; ``BROKER`` only with ``addr``). ``code`` (also ``response_code``), ``remark`` (as
    the server sent it, line breaks and all) and ``addr`` are the response's."""

    java_class = "org.apache.rocketmq.client.exception.MQBrokerException"

    def __init__(self, response_code: int, remark: str | None = None, *, addr: str | None = None) -> None:
        text = f"CODE: {response_code}  DESC: {'null' if remark is None else one_line(remark)}"
        super().__init__(text if addr is None else f"{text} BROKER: {addr}")
        self.code = self.response_code = response_code
        self.remark = remark
        self.addr = addr

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_response, (type(self), self.response_code, self.remark, self.addr))


def _rebuild_response(
    cls: type[BrokerResponseError], code: int, remark: str | None, addr: str | None
) -> BrokerResponseError:
    return cls(code, remark, addr=addr)


class AccessDeniedError(RocketRouteError, PermissionError):
    """A server refused a request for its credentials: the base of :class:`AuthenticationError` (who the client
    is) and :class:`PermissionDeniedError` (what it may do). Raised at once: the producer does not retry it on
    another broker (the broker is not down, and Java's retry of ``NO_PERMISSION`` would only send the refused
    message again), and nothing it refused is acknowledged.

    Apache's servers send no dedicated code: a 4.9 broker with ``aclEnable`` answers ``SYSTEM_ERROR`` (1) with the
    remark ``org.apache.rocketmq.acl.common.AclException: <why>, <where>``; a 5.x broker with ACL 2.0 answers
    ``NO_PERMISSION`` (16) with its authentication or authorization handler's message. The remark decides (see
    :func:`rocketroute.protocol.errors.response_error`); ``NO_PERMISSION`` for a topic or broker that is not
    writable ("... sending message is forbidden") stays a :class:`BrokerResponseError`, retried as Java does.

    ``request_code``: the refused request's code (``None`` when not known); ``code`` (also ``response_code``) and
    ``remark``: the response's; ``addr``: the server's ``host:port``; ``reason``: the remark without the Java
    exception's class and stack frame."""

    java_class: ClassVar[str | None] = "org.apache.rocketmq.client.exception.MQBrokerException"

    def __init__(
        self,
        code: int,
        remark: str | None,
        *,
        addr: str | None = None,
        request_code: int | None = None,
        reason: str | None = None,
    ) -> None:
        self.code = self.response_code = code
        self.remark = remark
        self.addr = addr
        self.request_code = request_code
        self.reason = reason if reason is not None else one_line(remark)
        super().__init__(self._message())

    def _message(self) -> str:
        if self.request_code is None:
            what = "a request"
        else:
            name = REQUEST_CODE_NAMES.get(self.request_code)
            what = f"{name} ({self.request_code})" if name else f"request {self.request_code}"
        where = f" by {self.addr}" if self.addr else ""
        return f"{self.KIND}: {what} refused{where}: {self.reason} (CODE: {self.code})"

    KIND: ClassVar[str] = "access denied"

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_access, (type(self), self.code, self.remark, self.addr, self.request_code, self.reason))


def _rebuild_access(
    cls: type[AccessDeniedError], code: int, remark: str | None, addr: str | None, request_code: int | None,
    reason: str | None,
) -> AccessDeniedError:  # fmt: skip
    return cls(code, remark, addr=addr, request_code=request_code, reason=reason)


class AuthenticationError(AccessDeniedError):
    """The server did not accept who the client says it is: no credentials, an unknown access key or user, a
    wrong secret (the signature does not check), a disabled user. Java's ``AclException`` (4.9's plain ACL) or
    ``AuthenticationException`` (5.x ACL 2.0) on the server."""

    KIND = "authentication failed"


class PermissionDeniedError(AccessDeniedError):
    """The server knows the client but its user may not do this: publish to or subscribe to a topic, use a
    consumer group, an admin request. Java's ``AclException`` "No default permission for ..." (4.9) or
    ``AuthorizationException`` "... has no permission to access ..." (5.x ACL 2.0) on the server."""

    KIND = "permission denied"


JAVA_EXCEPTIONS: dict[str, type[RocketRouteError]] = {
    cls.java_class: cls  # type: ignore[misc]
    for cls in (
        IllegalArgumentError,
        NumberFormatError,
        JavaArithmeticError,
        NullPointerError,
        IndexOutOfBoundsError,
    )
}
"""Java exception class name -> the Python class that stands for it."""
