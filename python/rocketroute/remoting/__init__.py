"""RocketMQ's remoting protocol in pure Python: frames, the JSON and ROCKETMQ headers, and a client (asyncio, with
a thread-safe synchronous facade) that keeps one connection per address with many requests in flight on it.

    from rocketroute.remoting import RemotingClient, RemotingCommand, RequestCode

    with RemotingClient() as client:
        response = client.invoke("127.0.0.1:9876", RemotingCommand.request(RequestCode.GET_BROKER_CLUSTER_INFO))
        print(response.code, response.body)
"""

from __future__ import annotations

from .client import AsyncRemotingClient, RemotingClient, parse_addr
from .codes import REQUEST_CODE_NAMES, RequestCode, ResponseCode
from .command import (
    LANGUAGE_CODES,
    LANGUAGE_NAMES,
    MQ_VERSIONS,
    RPC_ONEWAY,
    RPC_RESPONSE,
    VERSION_4_9_8,
    VERSION_5_3_3,
    RemotingCommand,
    SerializeType,
    ext_fields_to_strings,
    next_opaque,
)
from .errors import (
    FrameError,
    RemotingCommandError,
    RemotingConnectError,
    RemotingError,
    RemotingSendRequestError,
    RemotingTimeoutError,
)
from .frame import DEFAULT_MAX_FRAME_SIZE, FrameDecoder, decode_frame, decode_header, encode_frame, encode_header

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
