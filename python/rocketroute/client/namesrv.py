"""The name server side of a client: topic routes (GET_ROUTEINFO_BY_TOPIC), with Java's choice of name server.

Java's ``NettyRemotingClient`` keeps one chosen name server and sends every name server request there. It starts
from a random index; when the chosen one cannot be connected it walks the list from the next index on until one
connects (within the same call). A request that times out or loses its connection closes that channel, so the
next call chooses again from the next index. :class:`NameServerClient` does the same.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import RocketRouteError, one_line
from ..net.direct import direct_connection_class
from ..net.runtime import RemotingClient
from ..net.tls import TLS
from ..net.transport import AsyncRemotingClient
from ..protocol import RemotingCommand, RemotingConnectError, RemotingError, RemotingSendRequestError
from ..protocol.acl import Credentials
from ..protocol.command import MQ_VERSIONS
from ..protocol.headers import GetRouteInfoRequestHeader
from ..protocol.response_code import ResponseCode

__all__ = [
    "MASTER_ID",
    "NameServerClient",
    "NameServerError",
    "TopicNotExistError",
    "fetch_route",
    "master_or_first",
    "parse_namesrv_addrs",
]

MASTER_ID = 0
"""A broker's master in a route's ``brokerAddrs`` (Java's ``MixAll.MASTER_ID``)."""


def master_or_first(broker_addrs: Mapping[int, str | None] | None) -> str | None:
    """The master's address, else the node with the lowest id (a broker whose master is down): where a client
    asks for things any node of the broker knows, such as the group's members."""
    addrs = broker_addrs or {}
    return addrs.get(MASTER_ID) or next((a for _, a in sorted(addrs.items()) if a), None)


class TopicNotExistError(RocketRouteError, LookupError):
    """The name servers know no route for the topic (response code 17, TOPIC_NOT_EXIST): Java's
    ``MQClientException`` with that code and the name server's remark."""

    java_class = "org.apache.rocketmq.client.exception.MQClientException"

    def __init__(self, topic: str, remark: str | None, addr: str | None = None) -> None:
        code = int(ResponseCode.TOPIC_NOT_EXIST)
        super().__init__(f"CODE: {code}  DESC: {one_line(remark)} (topic {topic!r}, name server {addr})")
        self.topic = topic
        self.remark = remark
        self.addr = addr
        self.response_code = code


class NameServerError(RemotingError):
    """A name server answered a request with an error code other than TOPIC_NOT_EXIST."""

    java_class = "org.apache.rocketmq.client.exception.MQClientException"

    def __init__(self, code: int, remark: str | None, addr: str) -> None:
        super().__init__(f"CODE: {code}  DESC: {one_line(remark)}", addr=addr)
        self.response_code = code
        self.remark = remark


def parse_namesrv_addrs(namesrv: str | Sequence[str]) -> list[str]:
    """``"host:port;host:port"`` (Java's ``namesrvAddr``, ``;`` separated) or a list of ``host:port``. The one
    parser of a name server list: the producers, consumers, :func:`fetch_route` and the CLI go through it, so each
    refuses the same strings with the same ``ValueError``. A ``,`` is refused, with the ``;`` string as a hint:
    Java's client splits on ``;`` only, so a Java config string means the same here."""
    if isinstance(namesrv, str):
        addrs = [a.strip() for a in namesrv.split(";")]
    else:
        addrs = [str(a).strip() for a in namesrv]
    addrs = [a for a in addrs if a]
    if not addrs:
        raise ValueError("no name server address given (namesrv is empty)")
    for a in addrs:
        if "," in a:
            hint = ";".join(p.strip() for p in a.split(",") if p.strip())
            raise ValueError(
                f"name server addresses are separated by ';' (as Java's namesrvAddr), not ',': {a!r}; did you mean "
                f"{hint!r}?"
            )
        host, sep, port = a.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"a name server address is host:port, not {a!r}")
    return addrs


class NameServerClient:
    """Requests to a set of name servers over an :class:`~rocketroute.net.AsyncRemotingClient`, choosing the
    name server as Java's client does (see the module docstring). Use it from the remoting client's loop. Routes
    are built with ``backend``'s ``TopicRouteData`` (default: the ``rocketroute`` package's)."""

    def __init__(
        self,
        namesrv: str | Sequence[str],
        remoting: AsyncRemotingClient,
        *,
        timeout_ms: int = 3000,
        compat: str = "5.3",
        rng: random.Random | None = None,
        backend: Any = None,
    ) -> None:
        if backend is None:
            import rocketroute as backend
        self.backend = backend
        self.addrs = parse_namesrv_addrs(namesrv)
        self.remoting = remoting
        self.timeout_ms = timeout_ms
        self.version = MQ_VERSIONS[compat]
        self.compat = compat
        self._index = (rng or random.Random()).randrange(999)  # Java's initValueIndex: nextInt(999)
        self._chosen: str | None = None

    @property
    def chosen(self) -> str | None:
        """The name server requests go to now (``None`` before the first request or after a failure)."""
        return self._chosen

    async def invoke(self, request: RemotingCommand, timeout_ms: int | None = None) -> tuple[str, RemotingCommand]:
        """Send ``request`` to the chosen name server; returns ``(addr, response)``."""
        timeout = self.timeout_ms if timeout_ms is None else timeout_ms
        last: RemotingConnectError | None = None
        candidates = [self._chosen] if self._chosen is not None else []
        n = len(self.addrs)
        for _ in range(n):
            self._index += 1
            candidates.append(self.addrs[abs(self._index) % n])
        for addr in candidates:
            try:
                response = await self.remoting.invoke(addr, request, timeout)
            except RemotingSendRequestError:
                self._chosen = None  # the connection broke under the request: Java throws, the next call rechooses
                raise
            except RemotingConnectError as e:
                last = e  # not connected: Java walks on to the next name server within the same call
                if self._chosen == addr:
                    self._chosen = None
                continue
            except RemotingError:
                self._chosen = None  # a timeout: Java closes the channel, the next call chooses again
                raise
            self._chosen = addr
            return addr, response
        assert last is not None
        raise last

    async def get_route(self, topic: str, timeout_ms: int | None = None) -> Any:
        """``getTopicRouteInfoFromNameServer``: the topic's :class:`~rocketroute.TopicRouteData`.
        :class:`TopicNotExistError` when no name server knows the topic."""
        request = GetRouteInfoRequestHeader(topic=topic).request(self.compat)
        addr, response = await self.invoke(request, timeout_ms)
        if response.code == ResponseCode.SUCCESS and response.body:
            return self.backend.TopicRouteData.from_json(response.body)
        if response.code == ResponseCode.TOPIC_NOT_EXIST:
            raise TopicNotExistError(topic, response.remark, addr)
        raise NameServerError(response.code, response.remark, addr)


def fetch_route(
    namesrv: str | Sequence[str],
    topic: str,
    *,
    timeout_ms: int = 3000,
    compat: str = "5.3",
    backend: Any = None,
    credentials: Credentials | None = None,
    tls: TLS = None,
) -> Any:
    """The topic's route from the name servers (``"host:port;host:port"`` or a list): a
    :class:`~rocketroute.TopicRouteData`. The name server is chosen and failed over as Java's client does;
    raises :class:`TopicNotExistError` (code 17) when the topic has no route, and
    :class:`~rocketroute.protocol.RemotingConnectError` when no name server could be reached. ``backend``: the
    module whose ``TopicRouteData`` is built (default: the ``rocketroute`` package). ``credentials``
    (:class:`~rocketroute.Credentials`) sign the request, for name servers that check them; ``tls``: connect with TLS
    (:mod:`rocketroute.net.tls`)."""
    addrs = parse_namesrv_addrs(namesrv)
    with RemotingClient(connect_timeout_ms=timeout_ms, credentials=credentials, tls=tls) as client:
        names = NameServerClient(addrs, client.async_client, timeout_ms=timeout_ms, compat=compat, backend=backend)
        return client.run(names.get_route(topic))


def connect_name_servers(
    addrs: Sequence[str],
    *,
    timeout_ms: int,
    compat: str,
    backend: Any = None,
    language: str | None = None,
    credentials: Credentials | None = None,
    tls: TLS = None,
    loop: asyncio.AbstractEventLoop | None = None,
) -> tuple[RemotingClient, NameServerClient]:
    """What a producer or a consumer starts with: a remoting client of its own (its event loop and connections,
    ``timeout_ms`` to connect, ``language`` written in every request, every request signed with ``credentials``,
    every connection TLS with ``tls``; on the caller's running ``loop`` when given; with direct connections for the
    blocking sends when ``backend`` is the native one) and a :class:`NameServerClient`
    over it for ``addrs``."""
    remoting = RemotingClient(
        connect_timeout_ms=timeout_ms,
        language=language,
        credentials=credentials,
        tls=tls,
        loop=loop,
        direct=direct_connection_class(backend),
    )
    names = NameServerClient(addrs, remoting.async_client, timeout_ms=timeout_ms, compat=compat, backend=backend)
    return remoting, names
