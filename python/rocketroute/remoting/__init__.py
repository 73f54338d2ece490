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

# name -> the submodule that defines it: imported when first asked for, so ``import rocketroute`` (which needs the
# response codes) does not import the asyncio client
_WHERE = {
    "AsyncRemotingClient": "client",
    "RemotingClient": "client",
    "parse_addr": "client",
    "REQUEST_CODE_NAMES": "codes",
    "RequestCode": "codes",
    "ResponseCode": "response_code",
    "LANGUAGE_CODES": "command",
    "LANGUAGE_NAMES": "command",
    "MQ_VERSIONS": "command",
    "RPC_ONEWAY": "command",
    "RPC_RESPONSE": "command",
    "VERSION_4_9_8": "command",
    "VERSION_5_3_3": "command",
    "RemotingCommand": "command",
    "SerializeType": "command",
    "ext_fields_to_strings": "command",
    "next_opaque": "command",
    "FrameError": "errors",
    "RemotingCommandError": "errors",
    "RemotingConnectError": "errors",
    "RemotingError": "errors",
    "RemotingSendRequestError": "errors",
    "RemotingTimeoutError": "errors",
    "RemotingTooMuchRequestError": "errors",
    "DEFAULT_MAX_FRAME_SIZE": "frame",
    "FrameDecoder": "frame",
    "decode_frame": "frame",
    "decode_header": "frame",
    "encode_frame": "frame",
    "encode_header": "frame",
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
    value = getattr(import_module(f"{__name__}.{where}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
