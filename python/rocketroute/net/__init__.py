"""The network layer: connections (:mod:`.connection`), the asyncio remoting client (:mod:`.transport`), and the
one runtime (:mod:`.runtime`) that owns or borrows the event loop and is the only way other threads reach it; TLS
(:mod:`.tls`), the direct writes of blocking callers (:mod:`.direct`), the return path to a caller's loop
(:mod:`.bridge`) and the clients of other loops (:mod:`.caller_loops`) are its parts. What goes over the wire is
:mod:`rocketroute.protocol`'s.

    from rocketroute.net import RemotingClient
    from rocketroute.protocol import RemotingCommand, RequestCode

    with RemotingClient() as client:
        response = client.invoke("127.0.0.1:9876", RemotingCommand.request(RequestCode.GET_BROKER_CLUSTER_INFO))
"""

from __future__ import annotations

from .connection import parse_addr
from .runtime import RemotingClient
from .transport import AsyncRemotingClient

__all__ = ["AsyncRemotingClient", "RemotingClient", "parse_addr"]
