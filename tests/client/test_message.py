"""rocketroute.client.message: the properties string, validation and a single message's encoding.

The literal property strings marked "recorded from Java" are what ``MessageDecoder.messageProperties2String``
of the unmodified RocketMQ classes (4.9.8 and 5.3.3, compiled from the apache/rocketmq tags) returned for the
same puts; the others are built here from the documented layout.
"""

from __future__ import annotations

import os
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.client import (
    COMPRESSED_FLAG,
    COMPRESSION_ZLIB_TYPE,
    SYSTEM_PROPERTY_NAMES,
    CompressionType,
    Message,
    MessageError,
    check_message,
    check_topic,
    compress_body,
    encode_for_send,
    properties_to_string,
    string_to_properties,
)
from rocketroute.client.message_properties import java_property_order
from rocketroute.errors import IllegalArgumentError
from rocketroute.reference.static_topic import hash_map_order

from .._java import string_hash

UNIQ = "0A000001303900000001000000000001"
COMPATS = ["5.3", "4.9"]


def bin16(name: str) -> int:
    """The bin of ``name`` in a 16-bin java.util.HashMap, from the independent String.hashCode oracle."""
    h = string_hash(name) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & 15


# --- the properties string ---------------------------------------------------------------------------------------


def test_properties_string_is_name_value_pairs_in_hashmap_bin_order():
    props = {"TAGS": "TagA", "KEYS": "k1 k2", "WAIT": "true", "UNIQ_KEY": UNIQ}
    order = sorted(props, key=bin16)  # stable: put order within a bin
    expected = "".join(f"{n}\x01{props[n]}\x02" for n in order)
    assert properties_to_string(props) == expected
    assert properties_to_string(props, compat="4.9") == expected[:-1]


@pytest.mark.parametrize("compat", COMPATS)
def test_properties_string_of_a_message_matches_java(compat):
    # recorded from Java: new Message("TopicTest", "TagA", "k1 k2", 0, body, true) + UNIQ_KEY
    java = "KEYS\x01k1 k2\x02UNIQ_KEY\x01" + UNIQ + "\x02WAIT\x01true\x02TAGS\x01TagA\x02"
    if compat == "4.9":
        java = java[:-1]  # 4.9.8's messageProperties2String deletes the last separator
    msg = Message("TopicTest", b"x", tags="TagA", keys=["k1", "k2"])
    enc = encode_for_send(msg, compat=compat, msg_id=UNIQ)
    assert enc.properties == java
    assert enc.msg_id == UNIQ


@pytest.mark.parametrize("compat", COMPATS)
def test_colliding_names_keep_their_put_order_as_java(compat):
    # "Aa" and "BB" have the same String.hashCode, so do "AaAa", "BBBB", "AaBB"; recorded from Java
    java = "Aa\x011\x02BB\x012\x02UNIQ_KEY\x01" + UNIQ + "\x02WAIT\x01true\x02AaAa\x013\x02BBBB\x014\x02AaBB\x015\x02"
    if compat == "4.9":
        java = java[:-1]
    msg = Message("T", b"x", properties={"Aa": "1", "BB": "2", "AaAa": "3", "BBBB": "4", "AaBB": "5"})
    assert encode_for_send(msg, compat=compat, msg_id=UNIQ).properties == java


@pytest.mark.parametrize("compat", COMPATS)
def test_twenty_properties_follow_the_resized_hashmap_as_java(compat):
    # 24 entries: the HashMap grows to 32 bins; recorded from Java (setDelayTimeLevel(3), waitStoreMsgOK=false)
    user = "".join(f"p{i}\x01v{i}\x02" for i in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 11, 14, 13, 16, 15, 18, 17, 19))
    java = user + "UNIQ_KEY\x01" + UNIQ + "\x02WAIT\x01false\x02DELAY\x013\x02TAGS\x01TagA\x02"
    if compat == "4.9":
        java = java[:-1]
    msg = Message(
        "T",
        b"x",
        tags="TagA",
        properties={f"p{i}": f"v{i}" for i in range(20)},
        delay_level=3,
        wait_store_msg_ok=False,
    )
    assert encode_for_send(msg, compat=compat, msg_id=UNIQ).properties == java


@given(st.lists(st.text(min_size=1, max_size=6), min_size=0, max_size=8, unique=True))
def test_small_maps_take_the_fast_path_that_agrees_with_the_hashmap_emulation(names):
    assert java_property_order(names) == hash_map_order(names)


@given(st.lists(st.text(min_size=1, max_size=6), min_size=9, max_size=60, unique=True))
def test_large_maps_follow_the_hashmap_emulation(names):
    try:
        expected = hash_map_order(names)
    except IllegalArgumentError:  # a tree bin: the put order is kept
        expected = list(names)
    assert java_property_order(names) == expected


def test_none_values_are_skipped_and_none_map_is_empty():
    assert properties_to_string(None) == ""
    assert properties_to_string({"a": None}) == ""
    assert properties_to_string({"a": None, "b": "1"}) == "b\x011\x02"
    assert properties_to_string({}, compat="4.9") == ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\x011\x02b\x012\x02", {"a": "1", "b": "2"}),
        ("a\x011\x02b\x012", {"a": "1", "b": "2"}),  # 4.9.8's form, no final separator
        ("", {}),
        ("a\x01\x02b\x012\x02", {"b": "2"}),  # an empty value is skipped
        ("\x011\x02b\x012", {"b": "2"}),  # an empty name is skipped
        ("ab\x02c\x01d\x02", {"c": "d"}),  # no name/value separator in the first entry
        ("a\x01b\x01c\x02", {"a": "b\x01c"}),  # the value runs to the property separator
        ("é\x01漢\x02", {"é": "漢"}),
    ],
)
def test_string_to_properties_reads_as_java(text, expected):
    assert string_to_properties(text) == expected


@pytest.mark.parametrize("compat", COMPATS)
def test_properties_round_trip(compat):
    props = {"TAGS": "TagA", "KEYS": "a b", "é": "漢字", "x": "1"}
    assert string_to_properties(properties_to_string(props, compat=compat)) == props


def test_non_ascii_values_stay_text_in_the_properties_string():
    msg = Message("T", b"x", tags="标签")
    enc = encode_for_send(msg, msg_id=UNIQ)
    assert "TAGS\x01标签\x02" in enc.properties


# --- the message -------------------------------------------------------------------------------------------------


def test_keys_iterable_is_joined_by_a_space_and_empty_tags_and_keys_are_not_set():
    assert Message("T", b"x", keys=("a", "b", "c")).keys == "a b c"
    assert Message("T", b"x", keys=iter(["a"])).keys == "a"
    items = dict(Message("T", b"x", tags="", keys=[]).property_items())
    assert items == {"WAIT": "true"}


def test_property_items_put_order_is_the_java_constructors():
    msg = Message("T", b"x", tags="t", keys="k", properties={"u": "1"}, delay_level=2)
    assert [n for n, _ in msg.property_items()] == ["TAGS", "KEYS", "WAIT", "DELAY", "u"]


def test_encoding_leaves_the_message_unchanged():
    msg = Message("T", b"y" * 5000, tags="t", properties={"u": "1"})
    before = (msg.body, dict(msg.properties))
    encode_for_send(msg)
    assert (msg.body, msg.properties) == before


def test_bytearray_body_is_copied_to_bytes_and_bad_types_are_type_errors():
    assert Message("T", bytearray(b"ab")).body == b"ab"
    assert Message("T", b"x", properties=None).properties == {}
    with pytest.raises(TypeError):
        Message("T", "text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Message("T", b"x", keys=[1])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        Message("T", b"x", flag=True)
    with pytest.raises(IllegalArgumentError):
        Message("T", b"x", flag=2**31)
    with pytest.raises(IllegalArgumentError):
        Message("T", b"x", delay_level=-1)


@pytest.mark.parametrize(
    ("compat", "name"),
    [("5.3", "KEYS"), ("4.9", "KEYS"), ("5.3", "UNIQ_KEY"), ("5.3", "DUP_INFO"), ("5.3", "__CRC32#")],
)
def test_reserved_property_names_are_refused_as_put_user_property(compat, name):
    msg = Message("T", b"x", properties={name: "v"})
    with pytest.raises(IllegalArgumentError, match=rf"^The Property<{name}> is used by system, input another please$"):
        encode_for_send(msg, compat=compat)


def test_reserved_names_differ_per_version():
    assert len(SYSTEM_PROPERTY_NAMES["4.9"]) == 31
    assert len(SYSTEM_PROPERTY_NAMES["5.3"]) == 51
    # DUP_INFO became reserved in 5.x: a 4.9 producer may still set it
    enc = encode_for_send(Message("T", b"x", properties={"DUP_INFO": "1"}), compat="4.9", msg_id=UNIQ)
    assert "DUP_INFO\x011" in enc.properties


@pytest.mark.parametrize("props", [{"a": " "}, {" ": "a"}, {"a": ""}, {"a": "\t\n"}])
def test_blank_property_names_or_values_are_refused(props):
    with pytest.raises(IllegalArgumentError, match=r"^The name or value of property can not be null or blank string!$"):
        encode_for_send(Message("T", b"x", properties=props))


def test_a_value_blank_only_in_unicode_is_not_blank_in_java():
    # String.trim() drops chars <= U+0020 only
    encode_for_send(Message("T", b"x", properties={"a": "\u00a0"}))


@pytest.mark.parametrize(
    "kwargs",
    [{"tags": "a\x01b"}, {"keys": "a\x02"}, {"properties": {"a\x01": "b"}}, {"properties": {"a": "b\x02c"}}],
)
def test_separators_inside_properties_are_refused(kwargs):
    with pytest.raises(IllegalArgumentError, match="separators"):
        encode_for_send(Message("T", b"x", **kwargs))


# --- validation (Validators.checkMessage) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("topic", "code", "text"),
    [
        (None, -1, "The specified topic is blank"),
        ("", -1, "The specified topic is blank"),
        (" \t", -1, "The specified topic is blank"),
        ("\u3000", -1, "The specified topic is blank"),  # an ideographic space is whitespace to Java
        ("a" * 128, -1, "The specified topic is longer than topic max length 127."),
        ("é" * 128, -1, "The specified topic is longer than topic max length 127."),  # length before characters
        ("a b", -1, "The specified topic[a b] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
        ("\u00a0", -1, "The specified topic[\u00a0] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
        ("a/b", -1, "The specified topic[a/b] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
        ("SCHEDULE_TOPIC_XXXX", -1, "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden."),
        ("RMQ_SYS_TRANS_HALF_TOPIC", -1, "Sending message to topic[RMQ_SYS_TRANS_HALF_TOPIC] is forbidden."),
    ],
)
def test_topic_errors_carry_javas_text_and_no_response_code(topic, code, text):
    with pytest.raises(MessageError) as info:
        check_message(Message(topic, b"x"))
    assert info.value.response_code == code
    assert info.value.error_message == text
    assert str(info.value) == text
    assert isinstance(info.value, ValueError)
    assert info.value.java_class == "org.apache.rocketmq.client.exception.MQClientException"


@pytest.mark.parametrize("topic", ["a" * 127, "a|b%c-d_e", "TBW102", "%RETRY%group", "rmq_sys_x", "BenchmarkTest"])
def test_legal_topics_pass(topic):
    check_topic(topic)  # system topics other than the six forbidden ones may be sent to, as in Java


@pytest.mark.parametrize(
    ("body", "text"),
    [
        (None, "the message body is null"),
        (b"", "the message body length is zero"),
        (b"x" * 101, "the message body size over max value, MAX: 100"),
    ],
)
@pytest.mark.parametrize("compat", COMPATS)
def test_body_errors_are_message_illegal(body, text, compat):
    with pytest.raises(MessageError) as info:
        check_message(Message("T", body), max_message_size=100, compat=compat)
    assert info.value.response_code == 13
    assert info.value.error_message == text
    assert str(info.value) == f"CODE: 13  DESC: {text}"


def test_body_at_the_maximum_passes():
    check_message(Message("T", b"x" * 100), max_message_size=100)


def test_null_message():
    with pytest.raises(MessageError, match=r"^CODE: 13  DESC: the message is null$"):
        check_message(None)


def test_inner_multi_dispatch_path_separator_only_in_5_3():
    msg = Message("T", b"x", properties={"INNER_MULTI_DISPATCH": f"a{os.sep}b"})
    with pytest.raises(MessageError) as info:
        check_message(msg, compat="5.3")
    assert info.value.error_message == f"INNER_MULTI_DISPATCH a{os.sep}b can not contains {os.sep} character"
    check_message(msg, compat="4.9")


def test_encode_for_send_validates_unless_told_not_to():
    with pytest.raises(MessageError):
        encode_for_send(Message("T", b""))
    assert encode_for_send(Message("T", b""), check=False, msg_id=UNIQ).body == b""


# --- compression -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compat", COMPATS)
def test_bodies_of_the_threshold_or_more_are_zlib_compressed_with_both_flags(compat):
    body = b"abcd" * 1024  # 4096 bytes: Java compresses when body.length >= compressMsgBodyOverHowmuch
    enc = encode_for_send(Message("T", body), compat=compat)
    assert enc.sys_flag == COMPRESSED_FLAG | COMPRESSION_ZLIB_TYPE == 0x301
    assert zlib.decompress(enc.body) == body
    assert enc.body == zlib.compress(body, 5)


@pytest.mark.parametrize("compat", COMPATS)
def test_bodies_below_the_threshold_are_sent_as_they_are(compat):
    body = b"a" * 4095
    enc = encode_for_send(Message("T", body), compat=compat)
    assert (enc.body, enc.sys_flag) == (body, 0)


def test_threshold_and_level_are_settings():
    body = b"hello hello hello"
    enc = encode_for_send(Message("T", body), compress_over=10, compress_level=9)
    assert enc.sys_flag == 0x301
    assert enc.body == zlib.compress(body, 9)


def test_zlib_output_matches_javas_deflater():
    # recorded from Java: new ZlibCompressor().compress("abc" * 100, 5), 4.9.8 and 5.3.3 alike
    assert compress_body(b"abc" * 100, 5).hex() == "785e4b4c4a4e1c45c42100884d72d9"


@pytest.mark.parametrize(("name", "flag"), [("LZ4", 0x101), ("zstd", 0x201), (CompressionType.LZ4, 0x101)])
def test_lz4_and_zstd_are_sent_with_their_flag(name, flag):
    enc = encode_for_send(Message("T", b"x" * 5000), compress_type=name)
    assert enc.sys_flag == flag and enc.body == compress_body(b"x" * 5000, 5, name)
    # a small body is not compressed, so the type is not used (as in Java)
    assert encode_for_send(Message("T", b"x"), compress_type=name).sys_flag == 0


def test_unknown_compression_type_has_javas_text():
    with pytest.raises(IllegalArgumentError, match=r"^Unsupported compress type name: brotli$"):
        CompressionType.of("brotli")
    assert CompressionType.of(" zlib ") is CompressionType.ZLIB
    assert [t.compression_flag for t in CompressionType] == [0x100, 0x200, 0x300]


def test_invalid_compression_level():
    with pytest.raises(IllegalArgumentError):
        compress_body(b"x", 10)


# --- 5.x timer messages --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "prop"),
    [("delay_sec", "TIMER_DELAY_SEC"), ("delay_ms", "TIMER_DELAY_MS"), ("deliver_time_ms", "TIMER_DELIVER_MS")],
)
def test_a_timer_field_sets_its_property_as_java_5s_setter(field, prop):
    msg = Message("T", b"x", tags="TagA", **{field: 1_700_000_000_123})
    assert msg.property_items() == [("TAGS", "TagA"), ("WAIT", "true"), (prop, "1700000000123")]
    enc = encode_for_send(msg, msg_id=UNIQ)
    assert string_to_properties(enc.properties)[prop] == "1700000000123"
    assert prop in SYSTEM_PROPERTY_NAMES["5.3"]  # so a user property of that name is refused, as putUserProperty
    # a delay of 0 is a property too (Java puts whatever long it is given)
    assert (prop, "0") in Message("T", b"x", **{field: 0}).property_items()


@pytest.mark.parametrize("field", ["delay_sec", "delay_ms", "deliver_time_ms"])
def test_the_49_client_has_no_timer_messages(field):
    msg = Message("T", b"x", **{field: 5})
    with pytest.raises(IllegalArgumentError, match=f"{field}: the 4.9 client has no timer messages"):
        encode_for_send(msg, compat="4.9", msg_id=UNIQ)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"delay_level": 2, "delay_ms": 10},
        {"delay_ms": 0, "delay_sec": 1},
        {"delay_sec": 1, "deliver_time_ms": 1},
        {"delay_level": 1, "deliver_time_ms": 0},
    ],
)
def test_a_message_takes_one_delay(kwargs):
    with pytest.raises(IllegalArgumentError, match="a message takes one of delay_level, delay_sec"):
        Message("T", b"x", **kwargs)


@pytest.mark.parametrize(
    ("value", "error"),
    [(-1, IllegalArgumentError), (2**63, IllegalArgumentError), (1.5, TypeError), (True, TypeError), ("5", TypeError)],
)
@pytest.mark.parametrize("field", ["delay_sec", "delay_ms", "deliver_time_ms"])
def test_timer_fields_are_non_negative_java_longs(field, value, error):
    with pytest.raises(error, match=field):
        Message("T", b"x", **{field: value})


def test_a_batch_refuses_timer_messages():
    from rocketroute.client import encode_batch

    with pytest.raises(MessageError, match=r"a timer message \(delay_ms\) is not supported for batching"):
        encode_batch([Message("T", b"a"), Message("T", b"b", delay_ms=100)])


def test_check_topic_remembers_only_the_topics_that_passed():
    from rocketroute.client import message as message_module

    for _ in range(2):  # a refused topic is checked (and refused) every time, never remembered
        with pytest.raises(MessageError, match="illegal characters"):
            check_topic("bad topic")
    assert "bad topic" not in message_module._CHECKED_TOPICS
    check_topic("GoodTopic")
    assert "GoodTopic" in message_module._CHECKED_TOPICS


@pytest.mark.parametrize("text", ["0", "007", "123456789", "2147483647", "2147483648", "-1", "+5", "", "1_000"])
def test_the_number_parsers_fast_path_answers_as_java(text):
    from rocketroute.errors import NumberFormatError
    from rocketroute.protocol.headers.send import java_parse_long
    from rocketroute.reference.java import java_parse_int

    java_int = int(text) if text.lstrip("+-").isascii() and text.lstrip("+-").isdigit() else None
    if java_int is not None and -(2**31) <= java_int < 2**31:
        assert java_parse_int(text) == java_int
    else:
        with pytest.raises(NumberFormatError):
            java_parse_int(text)
    if java_int is not None:
        assert java_parse_long(text) == java_int
    else:
        with pytest.raises(NumberFormatError):
            java_parse_long(text)


def test_a_usual_message_gets_its_own_properties_dict_and_keeps_its_fields():
    props = {"a": "1"}
    msg = Message("T", b"b", tags="t", keys="k", properties=props, delay_level=3, flag=-5)
    props["b"] = "2"
    assert msg.properties == {"a": "1"} and msg.properties is not props
    assert (msg.topic, msg.body, msg.tags, msg.keys, msg.delay_level, msg.flag) == ("T", b"b", "t", "k", 3, -5)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"flag": 2**31}, IllegalArgumentError),
        ({"delay_level": -1}, IllegalArgumentError),
        ({"flag": True}, TypeError),
        ({"wait_store_msg_ok": 1}, TypeError),
        ({"delay_level": 2, "delay_ms": 5}, IllegalArgumentError),
        ({"properties": [("a", "b")]}, TypeError),
    ],
)
def test_the_checks_still_run_on_an_unusual_message(kwargs, error):
    with pytest.raises(error):
        Message("T", b"b", **kwargs)
