"""A store-format encoder for tests: one message as the broker's commit log holds it (and a PULL_MESSAGE
response body carries it), written here from the documented layout; test_message_decode checks it against bytes
Java's ``MessageDecoder.encode`` wrote."""

from __future__ import annotations

import struct
import zlib

from rocketroute.client.message_decode import (
    BORNHOST_V6_FLAG,
    MESSAGE_MAGIC_CODE,
    MESSAGE_MAGIC_CODE_V2,
    STOREHOSTADDRESS_V6_FLAG,
)

LOCALHOST = bytes([127, 0, 0, 1])
IPV6_LOOPBACK = bytes(15) + b"\x01"


def stored(
    topic: str | bytes = "TopicTest",
    body: bytes = b"hello",
    *,
    properties: dict[str, str] | str = "",
    flag: int = 0,
    queue_id: int = 0,
    queue_offset: int = 0,
    commit_log_offset: int = 0,
    sys_flag: int = 0,
    born_timestamp: int = 1_700_000_000_000,
    born_ip: bytes = LOCALHOST,
    born_port: int = 54321,
    store_timestamp: int = 1_700_000_000_100,
    store_ip: bytes = LOCALHOST,
    store_port: int = 10911,
    reconsume_times: int = 0,
    prepared_transaction_offset: int = 0,
    body_crc: int | None = None,
    magic: int = MESSAGE_MAGIC_CODE,
    total_size: int | None = None,
    body_len: int | None = None,
    topic_len: int | None = None,
    props_len: int | None = None,
) -> bytes:
    """One message in the commit-log format (the body as given: compress it first for a compressed sysFlag).
    The length fields and TOTALSIZE can be overridden to build malformed messages."""
    if len(born_ip) == 16:
        sys_flag |= BORNHOST_V6_FLAG
    if len(store_ip) == 16:
        sys_flag |= STOREHOSTADDRESS_V6_FLAG
    topic_b = topic.encode() if isinstance(topic, str) else topic
    if isinstance(properties, dict):
        properties = "".join(f"{k}\x01{v}\x02" for k, v in properties.items())
    props_b = properties.encode()
    crc = zlib.crc32(body) & 0x7FFFFFFF if body_crc is None else body_crc
    tl = len(topic_b) if topic_len is None else topic_len
    rest = b"".join(
        [
            struct.pack(">iiiqqiq", crc, queue_id, flag, queue_offset, commit_log_offset, sys_flag, born_timestamp),
            born_ip,
            struct.pack(">iq", born_port, store_timestamp),
            store_ip,
            struct.pack(
                ">iiqi",
                store_port,
                reconsume_times,
                prepared_transaction_offset,
                len(body) if body_len is None else body_len,
            ),
            body,
            struct.pack(">b" if magic != MESSAGE_MAGIC_CODE_V2 else ">h", tl),
            topic_b,
            struct.pack(">h", len(props_b) if props_len is None else props_len),
            props_b,
        ]
    )
    size = 8 + len(rest) if total_size is None else total_size
    return struct.pack(">ii", size, magic) + rest


stored_message = stored
