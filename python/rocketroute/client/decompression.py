"""A pulled body's decompression, bounded: zlib, LZ4 and zstd as the sysFlag names them (Java's
``Compressor.decompress``), read in steps so that a body inflating past ``max_body_size`` stops there, and a codec
that is not installed or data that does not decompress said in one line."""

from __future__ import annotations

import zlib

from .message_const import (
    COMPRESSION_TYPE_COMPARATOR,
)

_INSTALL_CODECS = "pip install 'rocketroute[compression]'"


_INFLATE_STEP = 1024 * 1024  # output asked of a codec per call: the most a body may overshoot the limit by


_ZSTD_MAGIC = 0xFD2FB528


class _BodyError(Exception):
    """Why a compressed body cannot be decompressed: a :class:`MessageDecodeError`, or with ``undecodable="mark"``
    the message's ``decode_error``."""


def _too_large(name: str, limit: int) -> _BodyError:
    return _BodyError(f"the {name} body inflates to more than {limit} bytes (max_body_size={limit})")


def _truncated(name: str) -> _BodyError:
    return _BodyError(f"the {name} body does not decompress: the compressed data is truncated")


def _step(size: int, limit: int | None) -> int:
    """The output to ask of a codec next: never more than one byte past ``limit`` in all."""
    return _INFLATE_STEP if limit is None else min(_INFLATE_STEP, limit + 1 - size)


def _join(parts: list[bytes]) -> bytes:
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _inflate_zlib(body: bytes, limit: int | None) -> bytes:
    """``ZlibCompressor.decompress``: ``InflaterInputStream`` over a zlib stream, read to its end."""
    inflater = zlib.decompressobj()
    parts: list[bytes] = []
    size = 0
    data = body
    try:
        while True:
            step = _step(size, limit)
            chunk = inflater.decompress(data, step)
            size += len(chunk)
            if limit is not None and size > limit:
                raise _too_large("ZLIB", limit)
            parts.append(chunk)
            if inflater.eof:
                return _join(parts)
            data = inflater.unconsumed_tail
            if not data and len(chunk) < step:  # all input read, no output pending, no end of stream
                raise _BodyError("the ZLIB body does not inflate: the compressed data is truncated")
    except zlib.error as e:
        raise _BodyError(f"the ZLIB body does not inflate: {e}") from None


def _missing_codec(name: str, package: str, sys_flag: int) -> _BodyError:
    return _BodyError(
        f"the body is compressed with {name} (sysFlag 0x{sys_flag & 0xFFFFFFFF:X}) and the {package} package is "
        f"not installed: {_INSTALL_CODECS} (or decode with decompress_body=False to get the compressed bytes)"
    )


def _inflate_lz4(body: bytes, limit: int | None, sys_flag: int) -> bytes:
    """``Lz4Compressor.decompress``: ``LZ4FrameInputStream``, LZ4 frames one after the other to the end."""
    try:
        import lz4.frame as lz4_frame
    except ImportError:
        raise _missing_codec("LZ4", "lz4", sys_flag) from None
    parts: list[bytes] = []
    size = 0
    data = body
    try:
        while data:
            decompressor = lz4_frame.LZ4FrameDecompressor()
            while True:
                step = _step(size, limit)
                chunk = decompressor.decompress(data, max_length=step)
                data = b""
                size += len(chunk)
                if limit is not None and size > limit:
                    raise _too_large("LZ4", limit)
                parts.append(chunk)
                if decompressor.eof:
                    break
                if decompressor.needs_input or not chunk:  # all input read before the end of the frame
                    raise _truncated("LZ4")
            data = decompressor.unused_data or b""
    except RuntimeError as e:  # lz4's error for a corrupt frame
        raise _BodyError(f"the LZ4 body does not decompress: {e}") from None
    return _join(parts)


def _zstd_frames(data: bytes) -> list[tuple[int, int]]:
    """Where each Zstandard frame of ``data`` starts and ends, skippable frames left out, read from the frame
    structure (RFC 8878: frame header, block headers, checksum) without decoding anything. Raises
    :class:`_BodyError` unless ``data`` is whole frames end to end, as ``ZstdInputStream`` does ("truncated
    source"): zstandard's streaming decoder would read a truncated frame as far as it goes without a word, and
    stops after the first frame. As in Java, fewer than 5 bytes after a whole frame are ignored."""
    frames: list[tuple[int, int]] = []
    n = len(data)
    pos = 0
    whole = False  # a frame ended at pos
    while pos < n:
        if n - pos < 5:  # less than a frame header's first 5 bytes
            if whole:
                break  # ZstdInputStream ends there without a word
            raise _truncated("ZSTD")
        start = pos
        magic = int.from_bytes(data[pos : pos + 4], "little")
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # a skippable frame: magic, 4-byte length, that many bytes
            if n - pos < 8:
                raise _truncated("ZSTD")
            pos += 8 + int.from_bytes(data[pos + 4 : pos + 8], "little")
            whole = True
            continue
        if magic != _ZSTD_MAGIC:
            raise _BodyError(f"the ZSTD body does not decompress: no frame at byte {pos} (magic 0x{magic:08X})")
        descriptor = data[pos + 4]
        single_segment = descriptor >> 5 & 1
        content_size_bytes = (single_segment, 2, 4, 8)[descriptor >> 6]
        pos += 5 + (1 - single_segment) + (0, 1, 2, 4)[descriptor & 3] + content_size_bytes
        last = False
        while not last:
            if pos + 3 > n:
                raise _truncated("ZSTD")
            header = int.from_bytes(data[pos : pos + 3], "little")
            last = bool(header & 1)
            block_type = header >> 1 & 3
            if block_type == 3:
                raise _BodyError(f"the ZSTD body does not decompress: reserved block type at byte {pos}")
            pos += 3 + (1 if block_type == 1 else header >> 3)  # an RLE block holds one byte
        if descriptor & 0x4:
            pos += 4  # the content checksum
        frames.append((start, pos))
        whole = True
    if pos > n:
        raise _truncated("ZSTD")
    return frames


def _inflate_zstd(body: bytes, limit: int | None, sys_flag: int) -> bytes:
    """``ZstdCompressor.decompress``: ``ZstdInputStream``, Zstandard frames one after the other to the end."""
    try:
        import zstandard
    except ImportError:
        raise _missing_codec("ZSTD", "zstandard", sys_flag) from None
    frames = _zstd_frames(body)
    parts: list[bytes] = []
    size = 0
    try:
        decompressor = zstandard.ZstdDecompressor()
        view = memoryview(body)
        for start, end in frames:
            for chunk in decompressor.read_to_iter(view[start:end], write_size=_step(size, limit)):
                size += len(chunk)
                if limit is not None and size > limit:
                    raise _too_large("ZSTD", limit)
                parts.append(chunk)
    except zstandard.ZstdError as e:
        raise _BodyError(f"the ZSTD body does not decompress: {e}") from None
    return _join(parts) if parts else b""


def _decompress(body: bytes, sys_flag: int, limit: int | None) -> bytes:
    """``CompressorFactory.getCompressor(MessageSysFlag.getCompressionType(sysFlag)).decompress(body)``, refusing
    more than ``limit`` bytes of output. Raises :class:`_BodyError`."""
    ctype = (sys_flag & COMPRESSION_TYPE_COMPARATOR) >> 8
    if ctype in (0, 3):  # CompressionType.findByValue: 0 is ZLIB, for producers older than the type bits
        return _inflate_zlib(body, limit)
    if ctype == 1:
        return _inflate_lz4(body, limit, sys_flag)
    if ctype == 2:
        return _inflate_zstd(body, limit, sys_flag)
    raise _BodyError(f"unknown compression type {ctype} (sysFlag 0x{sys_flag & 0xFFFFFFFF:X})")
