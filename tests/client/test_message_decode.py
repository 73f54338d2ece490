"""rocketroute.client.message_decode: stored messages of a PULL_MESSAGE response, read as MessageDecoder reads them.

The bodies are built by :func:`stored`, a store-format encoder written here from the documented layout. The two
messages of ``JAVA_ENCODED`` and their decoded fields were recorded from Java: ``MessageDecoder.encode`` and
``MessageDecoder.decodesBatch(buffer, true, true, true)`` of the unmodified 5.3.3 classes (compiled from the
apache/rocketmq tag), so the encoder and the decoder are both checked against Java there.
"""

from __future__ import annotations

import random
import zlib

import pytest

from rocketroute.client.message_decode import (
    BORNHOST_V6_FLAG,
    MESSAGE_MAGIC_CODE_V2,
    STOREHOSTADDRESS_V6_FLAG,
    MessageDecodeError,
    MessageExt,
    MessageId,
    decode_message_id,
    decode_messages,
    reset_retry_topic,
)
from rocketroute.errors import IllegalArgumentError, NumberFormatError, RocketRouteError

from ._stored import IPV6_LOOPBACK, LOCALHOST, stored


def one(data: bytes, **kw) -> MessageExt:
    msgs = decode_messages(data, **kw)
    assert len(msgs) == 1
    return msgs[0]


# --- recorded from Java ------------------------------------------------------------------------------------------

JAVA_ENCODED = [
    "000000BBDAA320A769C865ED0000000300000007000000000000002A00000000075BCD15000000000000018BCFE5687B0A000007"
    "0000D4310000018BCFE569C87F00000100002A9F0000000200000000000000000000000E48656C6C6F20526F636B65744D5109546F"
    "7069635465737400494B455953016B31206B3202554E49515F4B4559013746303030303031314639303138423441414332363430"
    "444531443230303030025741495401747275650254414753015461674102",
    "000000AEDAA320A7000000000000000000000000000000000000002B00000000075BCDE7000003310000018BCFE56B1520010DB8"
    "00000000000000000000000100009C400000018BCFE56BE7FE800000000000000000000000000ABC00002A9F00000000FFFFFFFF"
    "FFFFFFFF0000001A785EABCA2C50C84D5528C8494D2C4ED551A8C2C305004DE40F360954C3A973742DE4B8AD00184D41585F4F46"
    "465345540139025441475301C3A974C3A902",
]
JAVA_UNIQ = "7F0000011F9018B4AAC2640DE1D20000"
ZIPPED_TEXT = b"zip me please, zip me please, zip me please"


def java_messages() -> tuple[bytes, bytes]:
    a = stored(
        "TopicTest",
        b"Hello RocketMQ",
        properties={"KEYS": "k1 k2", "UNIQ_KEY": JAVA_UNIQ, "WAIT": "true", "TAGS": "TagA"},  # Java's HashMap order
        flag=7,
        queue_id=3,
        queue_offset=42,
        commit_log_offset=123456789,
        born_timestamp=1700000000123,
        born_ip=bytes([10, 0, 0, 7]),
        born_port=54321,
        store_timestamp=1700000000456,
        reconsume_times=2,
    )
    java_zipped = bytes.fromhex(JAVA_ENCODED[1])[0x70 : 0x70 + 0x1A]  # Java's Deflater output, level 5
    b = stored(
        "Tést-中",
        java_zipped,
        properties={"MAX_OFFSET": "9", "TAGS": "été"},
        queue_offset=43,
        commit_log_offset=123456999,
        sys_flag=0x301,
        born_timestamp=1700000000789,
        born_ip=bytes.fromhex("20010db8000000000000000000000001"),
        born_port=40000,
        store_timestamp=1700000000999,
        store_ip=bytes.fromhex("fe800000000000000000000000000abc"),
        prepared_transaction_offset=-1,
        body_crc=0,  # MessageDecoder.encode writes the CRC it was given
    )
    return a, b


def test_encoder_matches_java():
    a, b = java_messages()
    assert a.hex().upper() == JAVA_ENCODED[0]
    assert b.hex().upper() == JAVA_ENCODED[1]
    assert zlib.decompress(b[0x70 : 0x70 + 0x1A]) == ZIPPED_TEXT


def test_decode_matches_java():
    data = bytes.fromhex("".join(JAVA_ENCODED))
    a, b = decode_messages(data)
    assert a == MessageExt(
        topic="TopicTest",
        body=b"Hello RocketMQ",
        flag=7,
        properties={"KEYS": "k1 k2", "UNIQ_KEY": JAVA_UNIQ, "WAIT": "true", "TAGS": "TagA"},
        queue_id=3,
        store_size=187,
        queue_offset=42,
        sys_flag=0,
        born_timestamp=1700000000123,
        born_host="10.0.0.7:54321",
        store_timestamp=1700000000456,
        store_host="127.0.0.1:10911",
        offset_msg_id="7F00000100002A9F00000000075BCD15",
        commit_log_offset=123456789,
        body_crc=1774740973,
        reconsume_times=2,
        prepared_transaction_offset=0,
    )
    assert a.msg_id == JAVA_UNIQ
    assert b.topic == "Tést-中"
    assert b.body == ZIPPED_TEXT
    assert b.properties == {"MAX_OFFSET": "9", "TAGS": "été"}
    assert (b.store_size, b.queue_offset, b.commit_log_offset) == (174, 43, 123456999)
    assert b.sys_flag == 816  # 0x331 as stored; 5.3.3 clears COMPRESSED_FLAG once it inflated the body
    # Java 17 prints /[2001:db8:0:0:0:0:0:1]:40000; the brackets are left out here (as JDK 8 and 11 print it)
    assert b.born_host == "2001:db8:0:0:0:0:0:1:40000"
    assert b.store_host == "fe80:0:0:0:0:0:0:abc:10911"
    assert b.offset_msg_id == b.msg_id == "FE800000000000000000000000000ABC00002A9F00000000075BCDE7"
    assert (b.body_crc, b.reconsume_times, b.prepared_transaction_offset) == (0, 0, -1)


# --- round trips -------------------------------------------------------------------------------------------------


def test_round_trip_of_several_messages():
    parts = [
        stored("TopicA", b"first", properties={"TAGS": "a", "KEYS": "k1 k2"}, queue_offset=0, commit_log_offset=0),
        stored("TopicA", b"", properties={"TAGS": "b"}, queue_offset=1, commit_log_offset=200, flag=-5),
        stored("主题-ü", "ünïcode 😀".encode(), properties={"clé": "välue 😀", "TAGS": "标签"}, queue_id=7),
        stored("TopicA", bytes(range(256)) * 4, properties="", reconsume_times=3, prepared_transaction_offset=99),
    ]
    msgs = decode_messages(b"".join(parts))
    assert [m.topic for m in msgs] == ["TopicA", "TopicA", "主题-ü", "TopicA"]
    assert [m.body for m in msgs] == [b"first", b"", "ünïcode 😀".encode(), bytes(range(256)) * 4]
    assert [m.store_size for m in msgs] == [len(p) for p in parts]
    assert msgs[0].properties == {"TAGS": "a", "KEYS": "k1 k2"}
    assert (msgs[0].tags, msgs[0].keys) == ("a", "k1 k2")
    assert (msgs[1].queue_offset, msgs[1].commit_log_offset, msgs[1].flag) == (1, 200, -5)
    assert msgs[2].properties == {"clé": "välue 😀", "TAGS": "标签"}
    assert msgs[2].queue_id == 7
    assert msgs[3].properties == {} and msgs[3].tags is None
    assert (msgs[3].reconsume_times, msgs[3].prepared_transaction_offset) == (3, 99)
    for m in msgs:
        assert m.born_host == "127.0.0.1:54321"
        assert m.store_host == "127.0.0.1:10911"
        assert (m.born_timestamp, m.store_timestamp) == (1_700_000_000_000, 1_700_000_000_100)
        assert m.broker_name is None
        assert m.body_crc == zlib.crc32(m.body) & 0x7FFFFFFF


def test_empty_response_body_gives_no_messages():
    assert decode_messages(b"") == []


def test_buffer_types_are_accepted():
    data = stored() + stored("T2")
    assert decode_messages(bytearray(data)) == decode_messages(memoryview(data)) == decode_messages(data)


def test_properties_without_the_last_separator_as_4_9_writes_them():
    m = one(stored(properties="TAGS\x01a\x02KEYS\x01k"))
    assert m.properties == {"TAGS": "a", "KEYS": "k"}


def test_extreme_values_of_the_numeric_fields():
    m = one(
        stored(
            flag=-(2**31),
            queue_id=2**31 - 1,
            queue_offset=2**63 - 1,
            commit_log_offset=-1,
            born_timestamp=-(2**63),
            born_port=0,
            store_port=65535,
            reconsume_times=-1,
        )
    )
    assert (m.flag, m.queue_id, m.queue_offset, m.commit_log_offset) == (-(2**31), 2**31 - 1, 2**63 - 1, -1)
    assert (m.born_timestamp, m.born_host, m.store_host, m.reconsume_times) == (
        -(2**63),
        "127.0.0.1:0",
        "127.0.0.1:65535",
        -1,
    )
    assert m.offset_msg_id == "7F0000010000FFFFFFFFFFFFFFFFFFFF"


# --- compression -------------------------------------------------------------------------------------------------


def test_zlib_body_is_inflated_and_5_3_clears_the_compressed_flag():
    raw = b"compress me " * 100
    data = stored(body=zlib.compress(raw, 5), sys_flag=0x301)
    m = one(data)
    assert m.body == raw
    assert m.sys_flag == 0x300
    assert m.body_crc == zlib.crc32(zlib.compress(raw, 5)) & 0x7FFFFFFF  # the CRC of the stored bytes


def test_zlib_body_keeps_the_sys_flag_as_stored_in_4_9():
    raw = b"compress me " * 100
    m = one(stored(body=zlib.compress(raw), sys_flag=0x301), compat="4.9")
    assert (m.body, m.sys_flag) == (raw, 0x301)


def test_compression_type_0_is_zlib():
    """``CompressionType.findByValue(0)``: producers older than the type bits set only COMPRESSED_FLAG."""
    raw = b"old producer " * 50
    m = one(stored(body=zlib.compress(raw), sys_flag=0x1))
    assert (m.body, m.sys_flag) == (raw, 0)


def test_decompress_body_false_keeps_the_compressed_bytes_and_flag():
    zipped = zlib.compress(b"compress me " * 100)
    m = one(stored(body=zipped, sys_flag=0x301), decompress_body=False)
    assert (m.body, m.sys_flag) == (zipped, 0x301)


def test_compression_type_bits_without_the_compressed_flag_are_ignored():
    m = one(stored(body=b"plain", sys_flag=0x300))
    assert (m.body, m.sys_flag) == (b"plain", 0x300)


@pytest.mark.parametrize(("sys_flag", "name"), [(0x101, "LZ4"), (0x201, "ZSTD")])
def test_corrupt_lz4_and_zstd_bodies(sys_flag, name):
    """LZ4 and ZSTD are decoded (tests/client/test_message_decompress.py); a corrupt one raises, and
    ``decompress_body=False`` / ``read_body=False`` still give the stored bytes / no body."""
    data = stored(body=b"\x04\x22\x4d\x18whatever", sys_flag=sys_flag)
    with pytest.raises(MessageDecodeError, match=f"the {name} body does not decompress"):
        decode_messages(data)
    m = one(data, decompress_body=False)
    assert (m.body, m.sys_flag) == (b"\x04\x22\x4d\x18whatever", sys_flag)
    assert one(data, read_body=False).body is None


@pytest.mark.parametrize("ctype", [4, 5, 6, 7])
def test_unknown_compression_type(ctype):
    with pytest.raises(MessageDecodeError, match=f"unknown compression type {ctype}"):
        decode_messages(stored(body=b"x", sys_flag=(ctype << 8) | 1))


def test_corrupt_zlib_body():
    zipped = zlib.compress(b"compress me " * 100)
    with pytest.raises(MessageDecodeError, match="does not inflate"):
        decode_messages(stored(body=zipped[:-5], sys_flag=0x301))
    with pytest.raises(MessageDecodeError, match="does not inflate"):
        decode_messages(stored(body=b"not zlib at all", sys_flag=0x301))


def test_empty_compressed_body_is_not_inflated():
    """Java inflates only when BODYLEN > 0."""
    m = one(stored(body=b"", sys_flag=0x301))
    assert (m.body, m.sys_flag) == (b"", 0x301)


# --- read_body, CRC ----------------------------------------------------------------------------------------------


def test_read_body_false_skips_the_body():
    zipped = zlib.compress(b"x" * 1000)
    data = stored(body=b"one", properties={"TAGS": "a"}) + stored(body=zipped, sys_flag=0x301) + stored(body=b"")
    msgs = decode_messages(data, read_body=False)
    assert [m.body for m in msgs] == [None, None, None]
    assert msgs[0].tags == "a"
    assert msgs[1].sys_flag == 0x301  # nothing inflated, nothing cleared
    assert [m.topic for m in msgs] == ["TopicTest"] * 3


def test_read_body_false_skips_even_a_bad_crc_and_a_corrupt_body():
    data = stored(body=b"garbage", sys_flag=0x301, body_crc=1)
    assert one(data, read_body=False, check_crc=True).body is None


def test_check_crc():
    good = stored(body=b"checked")
    assert one(good, check_crc=True).body == b"checked"
    bad = stored(body=b"checked", body_crc=12345)
    assert one(bad).body == b"checked"  # not checked by default, as Java's client
    with pytest.raises(MessageDecodeError, match="CRC"):
        decode_messages(bad, check_crc=True)
    assert one(stored(body=b"", body_crc=99), check_crc=True).body == b""  # Java checks only a non-empty body


def test_crc_is_of_the_stored_compressed_bytes():
    zipped = zlib.compress(b"x" * 1000)
    assert one(stored(body=zipped, sys_flag=0x301), check_crc=True).body == b"x" * 1000
    crc_of_raw = zlib.crc32(b"x" * 1000) & 0x7FFFFFFF
    with pytest.raises(MessageDecodeError, match="CRC"):
        decode_messages(stored(body=zipped, sys_flag=0x301, body_crc=crc_of_raw), check_crc=True)


# --- hosts, magic codes ------------------------------------------------------------------------------------------


def test_ipv6_born_and_store_hosts():
    data = stored(born_ip=bytes.fromhex("20010db8000000000000000000000001"), store_ip=IPV6_LOOPBACK)
    assert len(data) == len(stored()) + 24
    m = one(data, check_crc=True)
    assert m.sys_flag == BORNHOST_V6_FLAG | STOREHOSTADDRESS_V6_FLAG
    assert m.born_host == "2001:db8:0:0:0:0:0:1:54321"
    assert m.store_host == "0:0:0:0:0:0:0:1:10911"
    assert m.offset_msg_id == "00000000000000000000000000000001" + "00002A9F" + "0000000000000000"
    assert m.body == b"hello"


def test_only_one_host_ipv6():
    m = one(stored(store_ip=IPV6_LOOPBACK))
    assert (m.sys_flag, m.born_host, m.store_host) == (
        STOREHOSTADDRESS_V6_FLAG,
        "127.0.0.1:54321",
        "0:0:0:0:0:0:0:1:10911",
    )
    m = one(stored(born_ip=IPV6_LOOPBACK))
    assert (m.sys_flag, m.born_host, m.offset_msg_id) == (
        BORNHOST_V6_FLAG,
        "0:0:0:0:0:0:0:1:54321",
        "7F00000100002A9F0000000000000000",
    )


def test_ipv4_mapped_ipv6_host_reads_as_ipv4_as_in_java():
    """``InetAddress.getByAddress`` makes an ``Inet4Address`` of ``::ffff:a.b.c.d``; ``createMessageId`` then
    writes 4 address bytes into the 28-byte id buffer, which keeps 12 zero bytes at its end."""
    mapped = bytes(10) + b"\xff\xff" + bytes([192, 168, 1, 2])
    m = one(stored(born_ip=mapped, store_ip=mapped, commit_log_offset=5))
    assert m.born_host == "192.168.1.2:54321"
    assert m.store_host == "192.168.1.2:10911"
    assert m.offset_msg_id == "C0A8010200002A9F0000000000000005" + "00" * 12


def test_magic_v2_has_a_two_byte_topic_length():
    long_topic = "t" * 200
    data = stored(long_topic, b"body", properties={"TAGS": "x"}, magic=MESSAGE_MAGIC_CODE_V2)
    assert len(data) == len(stored(long_topic[:100], b"body", properties={"TAGS": "x"})) + 101
    m = one(data)
    assert (m.topic, m.body, m.tags) == (long_topic, b"body", "x")
    msgs = decode_messages(stored("short", magic=MESSAGE_MAGIC_CODE_V2) + stored("v1") + data)
    assert [m.topic for m in msgs] == ["short", "v1", long_topic]


def test_v1_topic_length_is_a_signed_byte():
    """Java's ``buffer.get()``: a V1 topic of 128 bytes or more reads as a negative length."""
    with pytest.raises(MessageDecodeError, match="TOPICLEN -128"):
        decode_messages(stored(b"t" * 128, topic_len=-128))


def test_bad_magic_code():
    for magic in (0, 1, -626843480, 0x12345678):
        with pytest.raises(MessageDecodeError, match="invalid magic code") as ei:
            decode_messages(stored(magic=magic))
        assert ei.value.offset == 0
    with pytest.raises(MessageDecodeError, match="blank magic code"):
        decode_messages(stored(magic=-875286124))
    with pytest.raises(MessageDecodeError, match=r"at offset \d+: invalid magic code 0 \(0x00000000\)"):
        decode_messages(stored() + stored(magic=0))


# --- malformed input ---------------------------------------------------------------------------------------------


def test_truncated_at_every_byte_raises_decode_error():
    first = stored("TopicA", b"body one", properties={"TAGS": "a", "UNIQ_KEY": "X"})
    second = stored(
        "TopicB", zlib.compress(b"two" * 50), properties={"KEYS": "k"}, sys_flag=0x301, store_ip=IPV6_LOOPBACK
    )
    data = first + second
    assert len(decode_messages(data)) == 2
    for cut in range(1, len(data)):
        if cut == len(first):
            assert len(decode_messages(data[:cut])) == 1  # a whole first message: nothing to notice
            continue
        with pytest.raises(MessageDecodeError) as ei:
            decode_messages(data[:cut])
        assert ei.value.offset == (0 if cut < len(first) else len(first))
        assert "truncated" in str(ei.value) or "TOTALSIZE" in str(ei.value)


def test_total_size_smaller_than_the_fixed_part():
    for size in (0, -1, 8, 90):
        with pytest.raises(MessageDecodeError, match="smaller than the fixed part"):
            decode_messages(stored(total_size=size))
    # 91 is enough for IPv4 hosts, not for IPv6 ones
    with pytest.raises(MessageDecodeError, match="smaller than the fixed part"):
        decode_messages(stored(born_ip=IPV6_LOOPBACK, store_ip=IPV6_LOOPBACK, total_size=91) + bytes(100))


def test_total_size_must_match_the_fields():
    data = stored()
    with pytest.raises(MessageDecodeError, match="but the fields take"):
        decode_messages(stored(total_size=len(data) + 1) + b"\0")
    with pytest.raises(MessageDecodeError, match=r"fit in TOTALSIZE|ends before"):
        decode_messages(stored(total_size=len(data) - 1))
    with pytest.raises(MessageDecodeError, match="truncated"):
        decode_messages(stored(total_size=len(data) + 1))


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"body_len": -1}, "BODYLEN -1"),
        ({"body_len": 6}, r"PROPERTIESLEN|TOPICLEN|ends before"),  # a length past the message's end
        ({"body_len": 2**31 - 1}, "BODYLEN 2147483647"),
        ({"topic_len": 100}, "TOPICLEN 100"),
        ({"topic_len": -1}, "TOPICLEN -1"),
        ({"props_len": -1}, "PROPERTIESLEN -1"),
        ({"props_len": 5000}, "PROPERTIESLEN 5000"),
        ({"born_port": 65536}, "born host port out of range: 65536"),
        ({"store_port": -1}, "store host port out of range: -1"),
    ],
)
def test_malformed_lengths_and_ports(kw, match):
    with pytest.raises(MessageDecodeError, match=match):
        decode_messages(stored(**kw))


def test_the_error_names_the_offset_and_is_a_value_error():
    data = stored() + stored() + b"\x00\x00"
    with pytest.raises(MessageDecodeError) as ei:
        decode_messages(data)
    err = ei.value
    assert err.offset == 2 * len(stored())
    assert f"at offset {err.offset}" in str(err)
    assert isinstance(err, RocketRouteError) and isinstance(err, ValueError)


def test_random_corruption_raises_only_decode_errors():
    base = (
        stored("TopicA", b"payload", properties={"TAGS": "a"})
        + stored("TopicB", zlib.compress(b"zz" * 40), sys_flag=0x301, born_ip=IPV6_LOOPBACK)
        + stored("t" * 150, b"", magic=MESSAGE_MAGIC_CODE_V2)
    )
    rng = random.Random(20240611)
    for i in range(3000):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if i % 3 == 0:
            data = data[: rng.randrange(len(data) + 1)]
        try:
            decode_messages(bytes(data), check_crc=bool(i & 1))
        except MessageDecodeError:
            pass
    for _ in range(500):
        try:
            decode_messages(rng.randbytes(rng.randrange(300)))
        except MessageDecodeError:
            pass


# --- message ids -------------------------------------------------------------------------------------------------


def test_offset_msg_id_of_a_known_store_host_and_offset():
    # 7F000001 (127.0.0.1) + 00002A9F (port 10911) + 0000000000000000 (offset 0)
    m = one(stored(store_ip=LOCALHOST, store_port=10911, commit_log_offset=0))
    assert m.offset_msg_id == "7F00000100002A9F0000000000000000"
    assert m.msg_id == m.offset_msg_id
    m = one(stored(store_ip=bytes([10, 1, 2, 3]), store_port=10911, commit_log_offset=0x0123456789ABCDEF))
    assert m.offset_msg_id == "0A01020300002A9F0123456789ABCDEF"


def test_decode_message_id_round_trip():
    for ip, port, offset, host in [
        (LOCALHOST, 10911, 0, "127.0.0.1"),
        (bytes([10, 0, 0, 200]), 65535, 2**63 - 1, "10.0.0.200"),
        (bytes([1, 2, 3, 4]), 0, -1, "1.2.3.4"),
        (bytes.fromhex("20010db8000000000000000000000001"), 10911, 123456789, "2001:db8:0:0:0:0:0:1"),
    ]:
        m = one(stored(store_ip=ip, store_port=port, commit_log_offset=offset))
        got = decode_message_id(m.offset_msg_id)
        assert got == MessageId(host, port, offset) == (host, port, offset)
        assert f"{got.host}:{got.port}" == m.store_host


def test_decode_message_id_of_known_ids():
    assert decode_message_id("7F00000100002A9F0000000000000000") == ("127.0.0.1", 10911, 0)
    assert decode_message_id("7f00000100002a9f00000000075bcd15") == ("127.0.0.1", 10911, 123456789)
    assert decode_message_id("FE800000000000000000000000000ABC00002A9F00000000075BCDE7") == (
        "fe80:0:0:0:0:0:0:abc",
        10911,
        123456999,
    )


def test_decode_message_id_refuses_malformed_ids():
    for bad in ("", "7F000001", "7F00000100002A9F00000000000000", "7F00000100002A9F000000000000000Z"):
        with pytest.raises(IllegalArgumentError):
            decode_message_id(bad)
    with pytest.raises(IllegalArgumentError, match="port out of range"):
        decode_message_id("7F000001FFFFFFFF0000000000000000")
    with pytest.raises(TypeError):
        decode_message_id(b"7F00000100002A9F0000000000000000")  # type: ignore[arg-type]


def test_msg_id_prefers_uniq_key():
    uniq = "0A000001303901020304000004D20000"
    m = one(stored(properties={"UNIQ_KEY": uniq}))
    assert m.msg_id == uniq
    assert m.offset_msg_id == "7F00000100002A9F0000000000000000"
    del m.properties["UNIQ_KEY"]
    assert m.msg_id == m.offset_msg_id


# --- the message -------------------------------------------------------------------------------------------------


def test_property_accessors():
    m = one(stored(properties={"TAGS": "tagA", "KEYS": "k1 k2", "DELAY": "3", "WAIT": "false", "color": "red"}))
    assert (m.tags, m.keys, m.delay_time_level, m.wait_store_msg_ok) == ("tagA", "k1 k2", 3, False)
    assert m.get_property("color") == m.user_property("color") == "red"
    assert m.get_property("missing") is None
    m.put_property("MIN_OFFSET", "0")
    assert m.properties["MIN_OFFSET"] == "0"
    bare = one(stored())
    assert (bare.tags, bare.keys, bare.delay_time_level, bare.wait_store_msg_ok) == (None, None, 0, True)
    assert one(stored(properties={"WAIT": "TRUE"})).wait_store_msg_ok is True  # Boolean.parseBoolean
    assert one(stored(properties={"WAIT": "yes"})).wait_store_msg_ok is False
    with pytest.raises(NumberFormatError, match='For input string: "x"'):
        _ = one(stored(properties={"DELAY": "x"})).delay_time_level


def test_message_ext_is_a_mutable_slotted_dataclass():
    m = one(stored("%RETRY%group"))
    m.topic = "other"
    m.broker_name = "broker-a"
    assert (m.topic, m.broker_name) == ("other", "broker-a")
    assert not hasattr(m, "__dict__")
    with pytest.raises(AttributeError):
        m.not_a_field = 1  # type: ignore[attr-defined]
    assert MessageExt().properties is not MessageExt().properties


def test_reset_retry_topic():
    m = one(stored("%RETRY%my_group", properties={"RETRY_TOPIC": "OrderTopic"}))
    reset_retry_topic(m, "my_group")
    assert m.topic == "OrderTopic"
    reset_retry_topic(m, "my_group")  # no longer the retry topic: left alone
    assert m.topic == "OrderTopic"


def test_reset_retry_topic_leaves_other_messages_alone():
    other_group = one(stored("%RETRY%other", properties={"RETRY_TOPIC": "OrderTopic"}))
    reset_retry_topic(other_group, "my_group")
    assert other_group.topic == "%RETRY%other"
    no_property = one(stored("%RETRY%my_group"))
    reset_retry_topic(no_property, "my_group")
    assert no_property.topic == "%RETRY%my_group"
    plain = one(stored("OrderTopic", properties={"RETRY_TOPIC": "Elsewhere"}))
    reset_retry_topic(plain, "my_group")
    assert plain.topic == "OrderTopic"
