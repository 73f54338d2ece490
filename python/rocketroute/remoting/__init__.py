"""RocketMQ's remoting protocol in pure Python: frames, the JSON and ROCKETMQ headers, and a client (asyncio, with
a thread-safe synchronous facade) that keeps one connection per address with many requests in flight on it.

    from rocketroute.remoting import RemotingClient, RemotingCommand, RequestCode

    with RemotingClient() as client:
        response = client.invoke("127.0.0.1:9876", RemotingCommand.request(RequestCode.GET_BROKER_CLUSTER_INFO))
        print(response.code, response.body)

The response codes (:mod:`.response_code`) are next to the request codes (:mod:`.codes`). The names below are
imported from their submodules when first used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# name -> the module that defines it: imported when first asked for, so ``import rocketroute`` (which needs the
# response codes) does not import the asyncio client
_WHERE = {
    "AsyncRemotingClient": "rocketroute.net.transport",
    "RemotingClient": "rocketroute.net.runtime",
    "parse_addr": "rocketroute.net.connection",
    "REQUEST_CODE_NAMES": "rocketroute.remoting.codes",
    "RequestCode": "rocketroute.remoting.codes",
    "ResponseCode": "rocketroute.remoting.response_code",
    "LANGUAGE_CODES": "rocketroute.remoting.command",
    "LANGUAGE_NAMES": "rocketroute.remoting.command",
    "MQ_VERSIONS": "rocketroute.remoting.command",
    "RPC_ONEWAY": "rocketroute.remoting.command",
    "RPC_RESPONSE": "rocketroute.remoting.command",
    "VERSION_4_9_8": "rocketroute.remoting.command",
    "VERSION_5_3_3": "rocketroute.remoting.command",
    "RemotingCommand": "rocketroute.remoting.command",
    "SerializeType": "rocketroute.remoting.command",
    "ext_fields_to_strings": "rocketroute.remoting.command",
    "next_opaque": "rocketroute.remoting.command",
    "FrameError": "rocketroute.remoting.errors",
    "RemotingCommandError": "rocketroute.remoting.errors",
    "RemotingConnectError": "rocketroute.remoting.errors",
    "RemotingError": "rocketroute.remoting.errors",
    "RemotingSendRequestError": "rocketroute.remoting.errors",
    "RemotingTimeoutError": "rocketroute.remoting.errors",
    "RemotingTooMuchRequestError": "rocketroute.remoting.errors",
    "DEFAULT_MAX_FRAME_SIZE": "rocketroute.remoting.frame",
    "FrameDecoder": "rocketroute.remoting.frame",
    "decode_frame": "rocketroute.remoting.frame",
    "decode_header": "rocketroute.remoting.frame",
    "encode_frame": "rocketroute.remoting.frame",
    "encode_header": "rocketroute.remoting.frame",
}

__all__ = [
    "DEFAULT_MAX_FRAME_SIZE",
    "LANGUAGE_CODES",
    "LANGUAGE_NAMES",
    "MQ_VERSIONS",
    "REQUEST_CODE_NAMES",
    "RPC_ONEWAY",
    "RPC_RESPONSE",
    "VERSION_4_9_8",
    "VERSION_5_3_3",
    "AsyncRemotingClient",
    "FrameDecoder",
    "FrameError",
    "RemotingClient",
    "RemotingCommand",
    "RemotingCommandError",
    "RemotingConnectError",
    "RemotingError",
    "RemotingSendRequestError",
    "RemotingTimeoutError",
    "RemotingTooMuchRequestError",
    "RequestCode",
    "ResponseCode",
    "SerializeType",
    "decode_frame",
    "decode_header",
    "encode_frame",
    "encode_header",
    "ext_fields_to_strings",
    "next_opaque",
    "parse_addr",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(where), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
