"""rocketroute.client.message_decode: compressed bodies (issue 27 items 5 and 11).

LZ4 and ZSTD bodies as Java's ``Lz4Compressor`` (lz4-java's ``LZ4FrameOutputStream``: the LZ4 frame format) and
``ZstdCompressor`` (zstd-jni's ``ZstdOutputStream``: the Zstandard frame format) write them, decoded with the
``rocketroute[compression]`` extra (``lz4``, ``zstandard``); the limit on what a body may inflate to; and
``undecodable="mark"``, which lets the other messages of a response through when one body cannot be read.

``JAVA_COMPRESSED`` was recorded from Java: ``CompressorFactory.getCompressor(type).compress(JAVA_TEXT, 5)`` of
the unmodified RocketMQ 5.3.3 classes (rocketmq-common 5.3.3, lz4-java 1.8.0, zstd-jni 1.5.2-2). The behaviours
on concatenated frames, trailing bytes and truncation are Java's decompressors' there too.
"""

from __future__ import annotations

import functools
import random
import sys
import tracemalloc
import zlib

import lz4.frame
import pytest
import zstandard

from rocketroute.client.message_decode import (
    DEFAULT_MAX_BODY_SIZE,
    MessageDecodeError,
    MessageExt,
    decode_messages,
)
from rocketroute.errors import IllegalArgumentError

from ._stored import stored

LZ4, ZSTD, ZLIB = 0x101, 0x201, 0x301  # COMPRESSED_FLAG | COMPRESSION_*_TYPE
NAMES = {LZ4: "LZ4", ZSTD: "ZSTD", ZLIB: "ZLIB"}

JAVA_TEXT = b"Hello LZ4 and ZSTD from Java, Hello LZ4 and ZSTD from Java, Hello again!"
JAVA_COMPRESSED = {
    LZ4: "04224D186070732A000000FF0F48656C6C6F204C5A3420616E64205A5354442066726F6D204A6176612C201E00116061676169"
    "6E2100000000",
    ZSTD: "28B52FFD0058640100440248656C6C6F204C5A3420616E64205A5354442066726F6D204A6176612C20616761696E2101000E"
    "A47202010000",
    ZLIB: "785EF348CDC9C957F089325148CC4B51880A0E7151482BCACF55F04A2C4BD451F0204236313D31334F1100421F1706",
}


def compress(sys_flag: int, raw: bytes) -> bytes:
    """``raw`` in the format Java's compressor of that type writes."""
    if sys_flag == LZ4:
        return lz4.frame.compress(raw)
    if sys_flag == ZSTD:
        return zstandard.ZstdCompressor(level=5, write_content_size=False).compress(raw)  # as a stream: no size
    return zlib.compress(raw, 5)


def one(data: bytes, **kw) -> MessageExt:
    msgs = decode_messages(data, **kw)
    assert len(msgs) == 1
    return msgs[0]


def patterned(n: int) -> bytes:
    return bytes(i * 7 % 251 for i in range(251)) * (n // 251) + bytes(n % 251)


# --- LZ4 and ZSTD, as Java writes them ---------------------------------------------------------------------------


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD, ZLIB], ids=NAMES.get)
def test_bodies_java_compressed_decode_to_the_text(sys_flag):
    m = one(stored(body=bytes.fromhex(JAVA_COMPRESSED[sys_flag]), sys_flag=sys_flag))
    assert m.body == JAVA_TEXT
    assert m.sys_flag == sys_flag & ~1  # 5.3.3 clears COMPRESSED_FLAG and keeps the type bits
    assert m.decode_error is None
    m = one(stored(body=bytes.fromhex(JAVA_COMPRESSED[sys_flag]), sys_flag=sys_flag), compat="4.9")
    assert (m.body, m.sys_flag) == (JAVA_TEXT, sys_flag)


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD], ids=NAMES.get)
@pytest.mark.parametrize("size", [0, 1, 4095, 100_000, 5 * 1024 * 1024 + 7])
def test_round_trip_of_bodies_compressed_in_javas_format(sys_flag, size):
    """lz4.frame and zstandard write the formats lz4-java and zstd-jni write (a 5 MiB body spans two of
    lz4-java's 4 MiB blocks and many zstd blocks)."""
    raw = patterned(size)
    assert one(stored(body=compress(sys_flag, raw), sys_flag=sys_flag)).body == raw


@pytest.mark.parametrize(
    "frame",
    [
        lambda raw: lz4.frame.compress(raw, block_linked=False, content_checksum=True, store_size=False),
        lambda raw: lz4.frame.compress(raw, block_size=lz4.frame.BLOCKSIZE_MAX64KB, compression_level=9),
    ],
    ids=["independent-blocks-checksum", "64kb-blocks-hc"],
)
def test_lz4_frame_options(frame):
    raw = patterned(300_000)
    assert one(stored(body=frame(raw), sys_flag=LZ4)).body == raw


def test_zstd_frame_options():
    raw = patterned(300_000)
    for compressor in (
        zstandard.ZstdCompressor(level=19, write_checksum=True),
        zstandard.ZstdCompressor(level=1, write_content_size=True),
        zstandard.ZstdCompressor(level=3, write_content_size=False, write_dict_id=False),
    ):
        assert one(stored(body=compressor.compress(raw), sys_flag=ZSTD)).body == raw
    chunks = zstandard.ZstdCompressor().compressobj()  # streamed, as ZstdOutputStream writes
    body = chunks.compress(raw[:1000]) + chunks.compress(raw[1000:]) + chunks.flush()
    assert one(stored(body=body, sys_flag=ZSTD)).body == raw


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD], ids=NAMES.get)
def test_concatenated_and_skippable_frames_are_read_as_java_reads_them(sys_flag):
    """``LZ4FrameInputStream`` and ``ZstdInputStream`` read frame after frame (Java gave the text twice for two
    frames of it) and skip skippable frames."""
    two = bytes.fromhex(JAVA_COMPRESSED[sys_flag]) * 2
    assert one(stored(body=two, sys_flag=sys_flag)).body == JAVA_TEXT * 2
    skippable = (0x184D2A50).to_bytes(4, "little") + (2).to_bytes(4, "little") + b"\x09\x09"
    body = skippable + compress(sys_flag, b"first") + skippable + compress(sys_flag, b" second")
    assert one(stored(body=body, sys_flag=sys_flag)).body == b"first second"


def test_trailing_bytes_as_java():
    """Java's ZSTD stream ignores fewer than 5 bytes after a whole frame and fails on more; its LZ4 stream fails on
    any; ZLIB's ``InflaterInputStream`` ignores them."""
    zstd_body = bytes.fromhex(JAVA_COMPRESSED[ZSTD])
    for junk in (b"\x00", b"AAA", b"\x00" * 4):
        assert one(stored(body=zstd_body + junk, sys_flag=ZSTD)).body == JAVA_TEXT
    for junk in (b"\x00" * 5, b"A" * 20):
        with pytest.raises(MessageDecodeError, match="ZSTD body does not decompress"):
            decode_messages(stored(body=zstd_body + junk, sys_flag=ZSTD))
    for junk in (b"\x00", b"AAA", b"\x00" * 4, b"A" * 20):
        with pytest.raises(MessageDecodeError, match="LZ4 body does not decompress"):
            decode_messages(stored(body=bytes.fromhex(JAVA_COMPRESSED[LZ4]) + junk, sys_flag=LZ4))
    zlib_body = bytes.fromhex(JAVA_COMPRESSED[ZLIB])
    assert one(stored(body=zlib_body + b"junk" * 5, sys_flag=ZLIB)).body == JAVA_TEXT


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD, ZLIB], ids=NAMES.get)
def test_truncated_bodies_raise_at_every_length(sys_flag):
    """Java raises for each ("Stream ended prematurely", "Read error or truncated source", "Unexpected end of
    ZLIB input stream"); zstandard's streaming decoder alone would not notice."""
    full = compress(sys_flag, patterned(20_000))
    for cut in range(1, len(full)):
        with pytest.raises(MessageDecodeError, match=f"{NAMES[sys_flag]} body does not (inflate|decompress)"):
            decode_messages(stored(body=full[:cut], sys_flag=sys_flag))


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD, ZLIB], ids=NAMES.get)
def test_corrupt_bodies_raise_decode_errors_only(sys_flag):
    full = compress(sys_flag, patterned(20_000))
    rng = random.Random(sys_flag)
    for _ in range(300):
        body = bytearray(full)
        for _ in range(rng.randint(1, 3)):
            body[rng.randrange(len(body))] = rng.randrange(256)
        try:
            decode_messages(stored(body=bytes(body), sys_flag=sys_flag))
        except MessageDecodeError as e:
            assert NAMES[sys_flag] in str(e)


# --- without the codecs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sys_flag", "modules", "package"), [(LZ4, ["lz4", "lz4.frame"], "lz4"), (ZSTD, ["zstandard"], "zstandard")]
)
def test_without_the_codec_the_error_names_the_package(monkeypatch, sys_flag, modules, package):
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)  # `import` now raises ImportError
    data = stored(body=bytes.fromhex(JAVA_COMPRESSED[sys_flag]), sys_flag=sys_flag)
    with pytest.raises(MessageDecodeError) as info:
        decode_messages(data)
    text = str(info.value)
    assert f"compressed with {NAMES[sys_flag]}" in text
    assert f"the {package} package is not installed" in text
    assert "pip install 'rocketroute[compression]'" in text
    assert "decompress_body=False" in text
    m = one(data, decompress_body=False)  # the stored bytes are still there
    assert (m.body, m.sys_flag) == (bytes.fromhex(JAVA_COMPRESSED[sys_flag]), sys_flag)
    m = one(data, undecodable="mark")
    assert m.body == bytes.fromhex(JAVA_COMPRESSED[sys_flag]) and "pip install" in m.decode_error
    # a ZLIB body needs no package
    assert one(stored(body=bytes.fromhex(JAVA_COMPRESSED[ZLIB]), sys_flag=ZLIB)).body == JAVA_TEXT


# --- the limit on inflated bodies --------------------------------------------------------------------------------

BOMB_SIZE = 64 * 1024 * 1024


@functools.cache
def bomb(sys_flag: int) -> bytes:
    """64 MiB of zeros, compressed (64 KiB to 300 KiB)."""
    return compress(sys_flag, bytes(BOMB_SIZE))


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD, ZLIB], ids=NAMES.get)
def test_a_compression_bomb_is_refused_without_inflating_it(sys_flag):
    """Issue 27 item 11: 64 MiB of zeros in a small body is refused at the default limit, 16 MiB, and the decoder
    never holds much more than the limit: the codecs are asked for one byte past it, no more."""
    assert DEFAULT_MAX_BODY_SIZE == 16 * 1024 * 1024
    data = stored("T", b"plain") + stored(body=bomb(sys_flag), sys_flag=sys_flag)
    tracemalloc.start()
    try:
        with pytest.raises(MessageDecodeError) as info:
            decode_messages(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1.25 * DEFAULT_MAX_BODY_SIZE, peak
    err = info.value
    assert err.offset == len(stored("T", b"plain"))
    assert str(err) == (
        f"cannot decode the message at offset {err.offset}: the {NAMES[sys_flag]} body inflates to more than "
        f"16777216 bytes (max_body_size=16777216)"
    )


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD, ZLIB], ids=NAMES.get)
def test_a_smaller_limit_bounds_memory_the_same_way(sys_flag):
    limit = 2 * 1024 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(MessageDecodeError, match=f"more than {limit} bytes \\(max_body_size={limit}\\)"):
            decode_messages(stored(body=bomb(sys_flag), sys_flag=sys_flag), max_body_size=limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * limit, peak


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD, ZLIB], ids=NAMES.get)
@pytest.mark.parametrize("size", [0, 1, 1000, 1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024])
def test_the_limit_is_exact(sys_flag, size):
    """A body of exactly ``max_body_size`` bytes decodes, one more byte does not (sizes around the codecs' 1 MiB
    steps)."""
    raw = patterned(size)
    data = stored(body=compress(sys_flag, raw), sys_flag=sys_flag)
    assert one(data, max_body_size=size).body == raw
    if size:
        with pytest.raises(MessageDecodeError, match=f"more than {size - 1} bytes"):
            decode_messages(data, max_body_size=size - 1)


def test_no_limit_with_none_and_none_on_stored_bodies():
    raw = bytes(DEFAULT_MAX_BODY_SIZE + 1)
    assert one(stored(body=zlib.compress(raw), sys_flag=ZLIB), max_body_size=None).body == raw
    # the limit is on what a body inflates to: an uncompressed body is as large as its message
    assert one(stored(body=b"x" * 100), max_body_size=10).body == b"x" * 100
    assert one(stored(body=zlib.compress(b"x" * 100), sys_flag=ZLIB), max_body_size=10, decompress_body=False)


@pytest.mark.parametrize(
    "kw",
    [{"max_body_size": -1}, {"max_body_size": 1.5}, {"max_body_size": "16"}, {"undecodable": "skip"}],
)
def test_bad_arguments(kw):
    with pytest.raises(IllegalArgumentError) as info:
        decode_messages(b"", **kw)
    assert isinstance(info.value, ValueError)


# --- undecodable="mark" ------------------------------------------------------------------------------------------


def test_mark_returns_every_message_and_says_why_a_body_is_not_decoded():
    good_lz4 = bytes.fromhex(JAVA_COMPRESSED[LZ4])
    corrupt = zlib.compress(b"x" * 1000)[:-5]
    unknown = b"whatever"
    parts = [
        (stored("A", b"plain"), None),
        (stored("B", bomb(ZSTD), sys_flag=ZSTD, queue_offset=1), "the ZSTD body inflates to more than"),
        (stored("C", good_lz4, sys_flag=LZ4, queue_offset=2), None),
        (stored("D", corrupt, sys_flag=ZLIB, queue_offset=3), "the ZLIB body does not inflate"),
        (stored("E", unknown, sys_flag=0x501, queue_offset=4), "unknown compression type 5"),
        (stored("F", zlib.compress(b"fine"), sys_flag=ZLIB, queue_offset=5), None),
    ]
    data = b"".join(p for p, _ in parts)
    with pytest.raises(MessageDecodeError, match="ZSTD body inflates"):
        decode_messages(data)  # the default: the whole response fails, as before
    msgs = decode_messages(data, undecodable="mark")
    assert [m.topic for m in msgs] == list("ABCDEF")
    assert [m.body for m in msgs] == [b"plain", bomb(ZSTD), JAVA_TEXT, corrupt, unknown, b"fine"]
    assert [m.sys_flag for m in msgs] == [0, ZSTD, 0x100, ZLIB, 0x501, 0x300]  # a failed body keeps its flag
    for m, (_, why) in zip(msgs, parts, strict=True):
        if why is None:
            assert m.decode_error is None
        else:
            assert m.decode_error.startswith(why), m.decode_error
    assert msgs[1].decode_error == f"the ZSTD body inflates to more than {DEFAULT_MAX_BODY_SIZE} bytes " + (
        f"(max_body_size={DEFAULT_MAX_BODY_SIZE})"
    )


def test_mark_still_raises_for_a_malformed_message_or_a_bad_crc():
    """Only the body is in question with "mark": a broken layout leaves the rest of the response unreadable, and
    a wrong CRC (``check_crc``) is the stored bytes themselves."""
    good = stored("A", b"plain")
    with pytest.raises(MessageDecodeError, match="truncated"):
        decode_messages(good + stored("B", b"x")[:-3], undecodable="mark")
    with pytest.raises(MessageDecodeError, match="CRC"):
        decode_messages(good + stored(body=b"x" * 10, sys_flag=ZLIB, body_crc=1), undecodable="mark", check_crc=True)


def test_mark_does_not_touch_messages_read_without_decompression():
    data = stored(body=bomb(ZLIB), sys_flag=ZLIB)
    assert one(data, undecodable="mark", read_body=False).decode_error is None
    m = one(data, undecodable="mark", decompress_body=False)
    assert (m.body, m.decode_error) == (bomb(ZLIB), None)
    assert MessageExt().decode_error is None
