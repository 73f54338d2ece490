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
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "RocketRouteError",
    "IllegalArgumentError",
    "UnsupportedSettingError",
    "NumberFormatError",
    "JavaArithmeticError",
    "NullPointerError",
    "IndexOutOfBoundsError",
    "SendFailedError",
    "BrokerUnreachableError",
    "BrokerResponseError",
    "JAVA_EXCEPTIONS",
]


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


class BrokerUnreachableError(RocketRouteError):
    """Raise from a send callable when the broker could not be reached (Java's RemotingException).

    The broker is isolated (and marked unreachable when the detector runs), then the send is retried."""

    java_class = "org.apache.rocketmq.remoting.exception.RemotingException"


class BrokerResponseError(RocketRouteError):
    """Raise from a send callable when the broker answered with an error code (Java's MQBrokerException).

    The broker is isolated and marked unreachable; the send is retried only for a retryable code."""

    java_class = "org.apache.rocketmq.client.exception.MQBrokerException"

    def __init__(self, response_code: int, message: str = "") -> None:
        super().__init__(f"CODE: {response_code}  DESC: {message}")
        self.response_code = response_code


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
