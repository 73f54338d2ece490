"""Namespaces (Java 5.x's ``ClientConfig.namespace`` and ``NamespaceUtil``): a managed instance puts each tenant's
topics and groups under a prefix, ``namespace%name`` on the wire, and the client shows the plain names.

- :func:`wrap`: ``NamespaceUtil.wrapNamespace``: ``T`` -> ``ns%T``; a retry or dead-letter topic keeps its prefix
  in front (``%RETRY%G`` -> ``%RETRY%ns%G``, ``%DLQ%G`` -> ``%DLQ%ns%G``); a system topic or group (``TBW102``,
  ``rmq_sys_*``, ``CID_RMQ_SYS_*``, ...) and a name already in the namespace are left as they are.
- :func:`unwrap`: ``NamespaceUtil.withoutNamespace(name, ns)``: the reverse, for a name in that namespace only.

A producer with ``namespace=`` sends to ``wrap(topic)`` under the group ``wrap(group)`` and reports its results
with the plain topic; a consumer subscribes ``wrap(topic)`` as the group ``wrap(group)`` (its retry topic is then
``%RETRY%ns%group``) and hands its listener messages whose topic is plain. Java 5.x's remoting client does not set
the ``ns`` / ``nsd`` fields of the 5.x request headers (only the gRPC proxy does, for its own requests): neither
does this one.
"""

from __future__ import annotations

import re

__all__ = ["NAMESPACE_SEPARATOR", "check_namespace", "is_system_resource", "unwrap", "wrap"]

NAMESPACE_SEPARATOR = "%"
_RETRY = "%RETRY%"
_DLQ = "%DLQ%"
_SYSTEM_TOPICS = frozenset(
    {
        "TBW102",
        "SCHEDULE_TOPIC_XXXX",
        "BenchmarkTest",
        "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRACE_TOPIC",
        "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC",
        "OFFSET_MOVED_EVENT",
        "CHECKPOINT_TOPIC",
        "RMQ_SYS_ROCKSDB_TRANS_HALF_TOPIC",
        "RMQ_SYS_ROCKSDB_TRANS_OP_HALF_TOPIC",
    }
)
"""5.5's ``TopicValidator.SYSTEM_TOPIC_SET`` (its fixed part)."""
_NAMESPACE = re.compile(r"[A-Za-z0-9_-]+")


def check_namespace(namespace: object) -> str | None:
    """``namespace`` as a client takes it: ``None`` (or ``""``: none), else a name of the characters a topic may
    hold, ``%`` and ``|`` excepted (``MQ_INST_xxx``): a wrapped topic must stay a valid topic."""
    if namespace is None or namespace == "":
        return None
    if not isinstance(namespace, str):
        raise TypeError(f"namespace must be a str, not {type(namespace).__name__}")
    if not _NAMESPACE.fullmatch(namespace):
        raise ValueError(f"namespace {namespace!r} may hold only letters, digits, '_' and '-'")
    return namespace


def is_system_resource(name: str) -> bool:
    """``NamespaceUtil.isSystemResource``: a system topic (``TopicValidator.isSystemTopic``: the fixed set or the
    ``rmq_sys_`` prefix) or a system consumer group (``MixAll.isSysConsumerGroup``: ``CID_RMQ_SYS_``)."""
    return bool(name) and (name in _SYSTEM_TOPICS or name.startswith(("rmq_sys_", "CID_RMQ_SYS_")))


def _split(name: str) -> tuple[str, str]:
    """(the retry / dead-letter prefix, the rest): ``withOutRetryAndDLQ``."""
    for prefix in (_RETRY, _DLQ):
        if name.startswith(prefix):
            return prefix, name[len(prefix) :]
    return "", name


def wrap(namespace: str | None, name: str) -> str:
    """``NamespaceUtil.wrapNamespace(namespace, name)`` (see the module)."""
    if not namespace or not name or is_system_resource(name):
        return name
    prefix, rest = _split(name)
    if rest.startswith(namespace + NAMESPACE_SEPARATOR):  # isAlreadyWithNamespace
        return name
    return f"{prefix}{namespace}{NAMESPACE_SEPARATOR}{rest}"


def unwrap(namespace: str | None, name: str) -> str:
    """``NamespaceUtil.withoutNamespace(name, namespace)``: ``name`` without ``namespace``; a name of no namespace,
    or of another, is returned as it is."""
    if not namespace or not name or is_system_resource(name):
        return name
    prefix, rest = _split(name)
    if not rest.startswith(namespace + NAMESPACE_SEPARATOR):
        return name
    return prefix + rest[len(namespace) + 1 :]
