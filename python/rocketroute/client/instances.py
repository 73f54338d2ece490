"""The process's client instances, one per client id (Java's ``MQClientManager``): a producer or a consumer
acquires its instance and releases it when it shuts down; the identity a client id is made of; and fork safety
(a child process drops the instances it inherited and builds its own)."""

from __future__ import annotations

import os
import threading

from .inner import ConsumerInner, ProducerInner
from .instance import ClientInstance, default_client_ip, default_instance_name

__all__ = [
    "acquire_instance",
    "client_identity",
    "instances",
    "release_instance",
]


def client_identity(
    instance: ClientInstance | None, instance_name: str | None, client_ip: str | None
) -> tuple[str, str]:
    """A new client's ``(instance_name, client_id)``: ``instance``'s when it is given (the client joins that
    instance), else ``ip@instance_name`` with the defaults (this host's address, ``<pid>#<nanos>``)."""
    if instance is None:
        name = instance_name or default_instance_name()
        return name, f"{client_ip or default_client_ip()}@{name}"
    if not isinstance(instance, ClientInstance):
        raise TypeError(f"instance= takes a client's .instance (a ClientInstance), not {type(instance).__name__}")
    if instance_name is not None or client_ip is not None:
        raise ValueError("give instance= or instance_name= / client_ip=, not both: an instance has its client id")
    _, _, name = instance.client_id.partition("@")  # ip@name: an address has no @
    return name, instance.client_id


_instances: dict[str, ClientInstance] = {}


_registry = threading.Lock()


_inherited: list[ClientInstance] = []
"""In a process forked from one that had clients: the parent's instances, kept (never closed nor collected here)."""


def forked_error(kind: str, pid: int) -> RuntimeError:
    """What a client made before ``os.fork()`` raises when it is used in the child."""
    return RuntimeError(
        f"this {kind} was started in process {pid}, before os.fork(): its event-loop thread and connections stay with "
        f"that process and cannot be used here. Create the {kind} after the fork, in the child (gunicorn: in the "
        "post_fork hook or the worker's app factory; uWSGI: with lazy-apps or a postfork hook; multiprocessing: in "
        "the child's target, or use the 'spawn' or 'forkserver' start method)"
    )


def _before_fork() -> None:
    _registry.acquire()  # the child gets the table in one piece


def _after_fork_in_parent() -> None:
    _registry.release()


def _after_fork_in_child() -> None:
    """The child of a fork: every client instance (and each of its producers and consumers) is the parent's. Each is
    marked so that using it raises :func:`forked_error` and stopping it returns at once; none is closed or
    collected here, as closing would shut down the sockets and the event loop's selector the parent still uses. New
    clients made in the child start instances of their own."""
    global _registry
    _registry = threading.Lock()  # the parent's was held over the fork
    inherited = list(_instances.values())
    _instances.clear()
    _inherited.extend(inherited)
    for instance in inherited:
        instance.forked_away()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child)


def instances() -> dict[str, ClientInstance]:
    """The client instances open in this process, by client id (a copy)."""
    with _registry:
        return dict(_instances)


def acquire_instance(user: ProducerInner | ConsumerInner, kind: str) -> ClientInstance:
    """Register ``user`` (a producer or a consumer: ``kind``) with the instance of its ``client_id``, starting the
    instance when it is the first; the instance is built from the user's name servers, compat, ``language``,
    ``mq_client_api_timeout`` and backend. ``RuntimeError`` when the user was given an instance (``instance=``)
    that has closed since. Raises :class:`~rocketroute.client.consumer.DuplicateClientIdError` when
    the instance already has a ``kind`` of the user's group, :class:`ValueError` when its name servers, compat or
    language differ."""
    from .consumer.errors import DuplicateClientIdError

    client_id, group, namesrv_addrs = user.client_id, user.group, user.namesrv_addrs
    compat, language = user.compat, user.settings.language
    joined = user._join
    with _registry:
        instance = _instances.get(client_id)
        if joined is not None and instance is not joined:
            raise RuntimeError(
                f"the client instance {client_id!r} given as instance= was closed (its last client shut down) before "
                f"this {kind} started"
            )
        loop = user._bind_loop  # an asyncio-native client: its instance runs on the caller's loop
        if instance is not None:
            instance._check_same(namesrv_addrs, compat, language, user.credentials, user.tls)
            if (None if instance.remoting.owns_loop else instance.remoting.loop) is not loop:
                raise ValueError(
                    f"the client instance {client_id!r} runs on {'its own loop thread' if loop else 'another loop'}: "
                    f"an asyncio-native client and a threaded one (or two on different loops) cannot share a client "
                    f"id; give this {kind} another instance_name"
                )
            if instance.registered(kind, group) is not None:
                raise DuplicateClientIdError(
                    f"{kind} group {group} already runs with client id {client_id!r} in this process (Java: the "
                    f"{kind} group has been created before): give this {kind} another instance_name"
                )
        else:
            timeout_ms = user.settings.mq_client_api_timeout
            instance = ClientInstance(
                client_id,
                namesrv_addrs,
                compat=compat,
                timeout_ms=timeout_ms,
                language=language,
                backend=user._rr,
                credentials=user.credentials,
                tls=user.tls,
                loop=loop,
            )
            _instances[client_id] = instance
        instance.join(kind, user)
    instance.user_joined()
    return instance


def release_instance(instance: ClientInstance, kind: str, group: str, *, close: bool = True) -> bool:
    """Unregister the ``kind`` of ``group``; the last user's release closes the instance (its connections and its
    loop thread) and returns True. ``close=False`` leaves the connections to the caller (``await
    instance.remoting.aclose()`` on the caller's loop, for an asyncio-native client)."""
    with _registry:
        if instance.leave(kind, group) or instance.closed:
            return False
        instance.closed = True
        if _instances.get(instance.client_id) is instance:
            del _instances[instance.client_id]
    try:
        instance.remoting.loop.call_soon_threadsafe(instance._stop_timers)
    except RuntimeError:  # the loop is closed already
        pass
    if close:
        instance.remoting.close()
    return True
