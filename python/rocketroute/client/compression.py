"""A body's compression, as Java's ``CompressionType`` and ``Compressor`` classes (same in 4.9.8 and 5.3.3):
zlib (the default, level 5), LZ4 and zstd, the sysFlag bits that name them, and the checks of a level."""

from __future__ import annotations

import enum
import zlib

from ..errors import IllegalArgumentError

__all__ = [
    "CompressionType",
    "compress_body",
]


class CompressionType(enum.Enum):
    """``org.apache.rocketmq.common.compression.CompressionType`` (same in 4.9.8 and 5.3.3): the body's
    compressor, named in the sysFlag bits 8-10 (:attr:`compression_flag`)."""

    LZ4 = 1
    ZSTD = 2
    ZLIB = 3

    @property
    def compression_flag(self) -> int:
        """``getCompressionFlag()``: the sysFlag bits of the type (``value << 8``)."""
        return self.value << 8

    @classmethod
    def of(cls, name: str | CompressionType) -> CompressionType:
        """``CompressionType.of(name)``: trimmed, case-insensitive."""
        if isinstance(name, CompressionType):
            return name
        if not isinstance(name, str):
            raise TypeError(f"compress type must be a str, not {type(name).__name__}")
        try:
            return cls[name.strip().upper()]
        except KeyError:
            raise IllegalArgumentError(f"Unsupported compress type name: {name}") from None


DEFAULT_COMPRESS_LEVEL = 5
"""Java's ``compressLevel`` (the ``rocketmq.message.compressLevel`` property's default), for every type."""


ZSTD_LEVELS = (-(2**17), 22)
"""The levels libzstd takes (``ZSTD_minCLevel()`` .. ``ZSTD_maxCLevel()``)."""


_CODEC_PACKAGES = {CompressionType.LZ4: "lz4", CompressionType.ZSTD: "zstandard"}


def check_compression(compress_type: str | CompressionType, level: int) -> CompressionType:
    """The type and level a producer compresses with, checked as the compressor would take them:

    - ZLIB: ``java.util.zip.Deflater``'s levels, -1 .. 9;
    - ZSTD: libzstd's, -131072 .. 22 (zstd-jni's ``ZstdOutputStream(out, level)``);
    - LZ4: lz4-java's ``LZ4FrameOutputStream`` has no level and Java ignores ``compressLevel``; rocketroute
      refuses a level other than the default rather than ignore it.

    LZ4 and ZSTD need the optional packages ``lz4`` / ``zstandard`` (``pip install 'rocketroute[compression]'``),
    the same the consumer decodes with: without them, an ``ImportError`` that says so."""
    ctype = CompressionType.of(compress_type)
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"compress level must be an int, not {type(level).__name__}")
    if ctype is CompressionType.ZLIB and not -1 <= level <= 9:
        raise IllegalArgumentError("invalid compression level")  # java.util.zip.Deflater's text
    if ctype is CompressionType.ZSTD and not ZSTD_LEVELS[0] <= level <= ZSTD_LEVELS[1]:
        raise IllegalArgumentError(f"invalid ZSTD compression level {level} (libzstd takes {ZSTD_LEVELS[0]} .. 22)")
    if ctype is CompressionType.LZ4 and level != DEFAULT_COMPRESS_LEVEL:
        raise IllegalArgumentError(
            f"compress level {level} with LZ4: the LZ4 frame writer has no level (Java ignores compressLevel for "
            f"LZ4); leave it at {DEFAULT_COMPRESS_LEVEL}"
        )
    package = _CODEC_PACKAGES.get(ctype)
    if package is not None:
        try:
            __import__(package)
        except ImportError:
            raise ImportError(
                f"compress type {ctype.name} needs the {package} package: pip install 'rocketroute[compression]'",
                name=package,
            ) from None
    return ctype


def compress_body(
    body: bytes, level: int = DEFAULT_COMPRESS_LEVEL, compress_type: str | CompressionType = "ZLIB"
) -> bytes:
    """``Compressor.compress(body, level)`` of the type (:func:`check_compression` checks both):

    - ZLIB (``ZlibCompressor``): a zlib stream (``java.util.zip.Deflater(level)`` behind a
      ``DeflaterOutputStream``), which Python's ``zlib`` writes too;
    - LZ4 (``Lz4Compressor``): one LZ4 frame as lz4-java's ``LZ4FrameOutputStream`` writes it by default
      (independent blocks of up to 4 MiB, no content size, no checksums);
    - ZSTD (``ZstdCompressor``): one Zstandard frame at ``level``, as zstd-jni's ``ZstdOutputStream`` writes it
      (a stream: no content size, the level's window, the data block then an empty last block; no checksum).

    The bytes are Java's for the bodies checked (tests/client/test_message_compress.py); any valid frame would
    decode the same."""
    ctype = check_compression(compress_type, level)
    if ctype is CompressionType.LZ4:
        import lz4.frame as lz4_frame

        # the streaming writer: LZ4F_compressFrame would shrink the block size to fit a small body
        lz4_out = lz4_frame.LZ4FrameCompressor(
            block_size=lz4_frame.BLOCKSIZE_MAX4MB,
            block_linked=False,
            content_checksum=False,
            block_checksum=False,
            auto_flush=False,
        )
        return bytes(lz4_out.begin() + lz4_out.compress(body) + lz4_out.flush())
    if ctype is CompressionType.ZSTD:
        import zstandard

        # a stream of unknown size, flushed, then ended with an empty last block: ZstdOutputStream's write,
        # flush and close (its window is the level's, not one fitted to the body)
        zstd_out = zstandard.ZstdCompressor(level=level, write_content_size=False).compressobj(size=-1)
        return bytes(zstd_out.compress(body) + zstd_out.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK) + zstd_out.flush())
    return zlib.compress(body, level)
