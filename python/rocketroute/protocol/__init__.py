"""RocketMQ's remoting protocol, encoded and decoded, with no I/O: the request and response codes
(:mod:`.codes`, :mod:`.response_code`), the command (:mod:`.command`), frames and their JSON and ROCKETMQ headers
(:mod:`.frame`, with native twins), the typed request headers (:mod:`.headers`), the request signature
(:mod:`.acl`) and the errors (:mod:`.errors`). Nothing here imports asyncio, a socket or the client: the network
is :mod:`rocketroute.net`'s, and ``tests/test_layers.py`` keeps it so.

    from rocketroute.net import RemotingClient
    from rocketroute.protocol import RemotingCommand, RequestCode

    with RemotingClient() as client:
        response = client.invoke("127.0.0.1:9876", RemotingCommand.request(RequestCode.GET_BROKER_CLUSTER_INFO))
        print(response.code, response.body)

The names below are imported from their submodules when first used (``import rocketroute`` needs the response
codes only).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# name -> the module that defines it: imported when first asked for
_WHERE = {
    "REQUEST_CODE_NAMES": "rocketroute.protocol.codes",
    "RequestCode": "rocketroute.protocol.codes",
    "ResponseCode": "rocketroute.protocol.response_code",
    "LANGUAGE_CODES": "rocketroute.protocol.command",
    "LANGUAGE_NAMES": "rocketroute.protocol.command",
    "MQ_VERSIONS": "rocketroute.protocol.command",
    "RPC_ONEWAY": "rocketroute.protocol.command",
    "RPC_RESPONSE": "rocketroute.protocol.command",
    "VERSION_4_9_8": "rocketroute.protocol.command",
    "VERSION_5_3_3": "rocketroute.protocol.command",
    "RemotingCommand": "rocketroute.protocol.command",
    "SerializeType": "rocketroute.protocol.command",
    "ext_fields_to_strings": "rocketroute.protocol.command",
    "next_opaque": "rocketroute.protocol.command",
    "FrameError": "rocketroute.protocol.errors",
    "RemotingCommandError": "rocketroute.protocol.errors",
    "RemotingConnectError": "rocketroute.protocol.errors",
    "RemotingError": "rocketroute.protocol.errors",
    "RemotingSendRequestError": "rocketroute.protocol.errors",
    "RemotingTimeoutError": "rocketroute.protocol.errors",
    "RemotingTooMuchRequestError": "rocketroute.protocol.errors",
    "DEFAULT_MAX_FRAME_SIZE": "rocketroute.protocol.frame",
    "FrameDecoder": "rocketroute.protocol.frame",
    "decode_frame": "rocketroute.protocol.frame",
    "decode_header": "rocketroute.protocol.frame",
    "encode_frame": "rocketroute.protocol.frame",
    "encode_header": "rocketroute.protocol.frame",
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
    "FrameDecoder",
    "FrameError",
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
