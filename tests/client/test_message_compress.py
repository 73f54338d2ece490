"""LZ4 and ZSTD bodies on send: the bytes Java's compressors write (lz4-java's ``LZ4FrameOutputStream``, zstd-jni's
``ZstdOutputStream``, recorded from the Java classes: tests/client/test_message_decompress.py), what the consumer's
decoder reads back, and the checks of the type and level a producer is given."""

from __future__ import annotations

import os
import sys

import pytest

from rocketroute.client import Message, ProducerSettings, compress_body, encode_for_send
from rocketroute.client.compression import CompressionType, check_compression
from rocketroute.errors import IllegalArgumentError

from .test_message_decompress import JAVA_COMPRESSED, JAVA_TEXT, LZ4, ZLIB, ZSTD, one, patterned, stored

TYPES = {LZ4: "LZ4", ZSTD: "ZSTD", ZLIB: "ZLIB"}


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD, ZLIB], ids=TYPES.get)
def test_the_bytes_are_javas(sys_flag):
    assert compress_body(JAVA_TEXT, 5, TYPES[sys_flag]).hex().upper() == JAVA_COMPRESSED[sys_flag]


@pytest.mark.parametrize("sys_flag", [LZ4, ZSTD, ZLIB], ids=TYPES.get)
@pytest.mark.parametrize("size", [1, 4096, 70_000, 4 * 2**20 + 3])  # the last spans two 4 MiB LZ4 blocks
@pytest.mark.parametrize("kind", ["patterned", "random"])
def test_what_is_sent_is_what_the_consumer_reads(sys_flag, size, kind):
    raw = patterned(size) if kind == "patterned" else os.urandom(size)
    enc = encode_for_send(Message("T", raw), compress_type=TYPES[sys_flag], max_message_size=8 * 2**20)
    assert enc.sys_flag == sys_flag or size < 4096
    if enc.sys_flag:
        assert one(stored(body=enc.body, sys_flag=enc.sys_flag)).body == raw


@pytest.mark.parametrize("level", [-5, 1, 5, 19, 22])
def test_zstd_takes_its_levels(level):
    body = patterned(100_000)
    assert one(stored(body=compress_body(body, level, "ZSTD"), sys_flag=ZSTD)).body == body


@pytest.mark.parametrize(
    ("ctype", "level", "match"),
    [
        ("ZLIB", 10, "invalid compression level"),
        ("ZLIB", -2, "invalid compression level"),
        ("ZSTD", 23, "invalid ZSTD compression level 23"),
        ("ZSTD", -(2**17) - 1, "invalid ZSTD compression level"),
        ("LZ4", 9, "the LZ4 frame writer has no level"),
        ("SNAPPY", 5, "Unsupported compress type name: SNAPPY"),
    ],
)
def test_a_level_the_compressor_would_not_take_is_refused(ctype, level, match):
    with pytest.raises(IllegalArgumentError, match=match):
        check_compression(ctype, level)
    with pytest.raises(IllegalArgumentError, match=match):
        ProducerSettings.of("5.3", compress_type=ctype, compress_level=level)


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_the_producer_settings_take_lz4_and_zstd(compat):
    assert ProducerSettings.of(compat, compress_type="lz4").compress_type == "lz4"
    assert ProducerSettings.of(compat, compress_type=" ZSTD ", compress_level=12).compress_level == 12
    assert check_compression(" zstd ", 3) is CompressionType.ZSTD


@pytest.mark.parametrize(("ctype", "package"), [("LZ4", "lz4"), ("ZSTD", "zstandard")])
def test_without_the_codec_package_the_setting_says_what_to_install(monkeypatch, ctype, package):
    for name in list(sys.modules):
        if name == package or name.startswith(package + "."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)  # import fails
    with pytest.raises(ImportError, match=rf"needs the {package} package: pip install 'rocketroute\[compression\]'"):
        ProducerSettings.of("5.3", compress_type=ctype)
    assert ProducerSettings.of("5.3", compress_type="ZLIB").compress_type == "ZLIB"
