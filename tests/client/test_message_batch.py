"""rocketroute.client.encode_batch: MessageBatch.encode and DefaultMQProducer.batch's checks.

The layout of each message (MessageDecoder.encodeMessage): TOTALSIZE int, MAGICCODE int 0, BODYCRC int 0,
FLAG int, body length int + body, properties length short + properties (UTF-8), all big-endian.
"""

from __future__ import annotations

import struct

import pytest

from rocketroute.client import Message, MessageError, encode_batch, encode_message, string_to_properties
from rocketroute.errors import NullPointerError

COMPATS = ["5.3", "4.9"]
ID1 = "0A0000013039000000010000000000AA"
ID2 = "0A0000013039000000010000000000AB"
BATCH_ID = "0A0000013039000000010000000000FF"


def layout(flag: int, body: bytes, props: str) -> bytes:
    p = props.encode("utf-8")
    total = 4 + 4 + 4 + 4 + 4 + len(body) + 2 + len(p)
    return struct.pack(">iiiii", total, 0, 0, flag, len(body)) + body + struct.pack(">h", len(p)) + p


def test_encode_message_is_the_documented_layout():
    assert encode_message(7, b"hello", "a\x01b\x02") == layout(7, b"hello", "a\x01b\x02")
    assert encode_message(-1, b"\x00", "").hex() == "000000170000000000000000ffffffff00000001000000"


def test_properties_length_counts_utf8_bytes():
    enc = encode_message(0, b"x", "标签")
    assert enc[-8:-6] == (6).to_bytes(2, "big") and enc[-6:] == "标签".encode()


@pytest.mark.parametrize("compat", COMPATS)
def test_batch_body_matches_javas_bytes(compat):
    # recorded from Java: DefaultMQProducer.batch() of these two messages (UNIQ_KEYs preset), then getBody()
    java = {
        "4.9": "000000600000000000000000000000070000000568656c6c6f00454b455953016b3102554e49515f4b4559013041303030"
        "3030313330333930303030303030313030303030303030303041410257414954017472756502544147530154616741000000"
        "4f000000000000000000000000000000020001003761016202554e49515f4b4559013041303030303031333033393030303030"
        "30303130303030303030303030414202574149540174727565",
        "5.3": "000000610000000000000000000000070000000568656c6c6f00464b455953016b3102554e49515f4b4559013041303030"
        "303031333033393030303030303031303030303030303030304141025741495401747275650254414753015461674102000000"
        "50000000000000000000000000000000020001003861016202554e49515f4b455901304130303030303133303339303030303030"
        "303130303030303030303030414202574149540174727565" + "02",
    }[compat]
    msgs = [
        Message("TopicTest", b"hello", tags="TagA", keys="k1", flag=7),
        Message("TopicTest", b"\x00\x01", properties={"a": "b"}),
    ]
    batch = encode_batch(msgs, compat=compat, msg_ids=[ID1, ID2], batch_msg_id=BATCH_ID)
    assert batch.body.hex() == java
    assert batch.msg_ids == (ID1, ID2)


@pytest.mark.parametrize("compat", COMPATS)
def test_batch_body_is_each_message_in_the_layout(compat):
    msgs = [Message("T", b"one", tags="x"), Message("T", "二".encode(), keys=["k"])]
    batch = encode_batch(msgs, compat=compat, msg_ids=[ID1, ID2], batch_msg_id=BATCH_ID)
    sep = "\x02" if compat == "5.3" else ""
    # each message's properties, in the HashMap order of TAGS/KEYS/WAIT/UNIQ_KEY
    p1 = f"UNIQ_KEY\x01{ID1}\x02WAIT\x01true\x02TAGS\x01x{sep}"
    p2 = f"KEYS\x01k\x02UNIQ_KEY\x01{ID2}\x02WAIT\x01true{sep}"
    assert batch.body == layout(0, b"one", p1) + layout(0, "二".encode(), p2)


def test_the_batch_itself_carries_wait_and_in_5_3_its_own_uniq_key():
    msgs = [Message("T", b"a", wait_store_msg_ok=False), Message("T", b"b", wait_store_msg_ok=False)]
    b53 = encode_batch(msgs, compat="5.3", batch_msg_id=BATCH_ID)
    assert b53.properties == f"UNIQ_KEY\x01{BATCH_ID}\x02WAIT\x01false\x02"  # HashMap order, as Java
    assert b53.msg_id == BATCH_ID
    b49 = encode_batch(msgs, compat="4.9")
    assert b49.properties == "WAIT\x01false"
    assert b49.msg_id is None
    for b in (b53, b49):
        assert (b.sys_flag, b.topic, b.wait_store_msg_ok) == (0, "T", False)


def test_each_message_gets_a_fresh_uniq_key_by_default():
    batch = encode_batch([Message("T", b"a"), Message("T", b"b")])
    assert len(set(batch.msg_ids)) == 2 and batch.msg_id not in batch.msg_ids
    # the ids are in the encoded messages
    offset = 0
    for uid in batch.msg_ids:
        total = int.from_bytes(batch.body[offset : offset + 4], "big")
        entry = batch.body[offset : offset + total]
        body_len = int.from_bytes(entry[16:20], "big")
        props = entry[20 + body_len + 2 :].decode()
        assert string_to_properties(props)["UNIQ_KEY"] == uid
        offset += total
    assert offset == len(batch.body)


def test_large_bodies_are_not_compressed_in_a_batch():
    body = b"z" * 10_000
    batch = encode_batch([Message("T", body)], msg_ids=[ID1])
    assert body in batch.body and batch.sys_flag == 0


@pytest.mark.parametrize(
    ("msgs", "cause"),
    [
        ([Message("T", b"a"), Message("T", b"b", delay_level=2)], "TimeDelayLevel is not supported for batching"),
        ([Message("%RETRY%g", b"a")], "Retry Group is not supported for batching"),
        ([Message("T", b"a"), Message("U", b"b")], "The topic of the messages in one batch should be the same"),
        (
            [Message("T", b"a"), Message("T", b"b", wait_store_msg_ok=False)],
            "The waitStoreMsgOK of the messages in one batch should the same",
        ),
        ([Message("T", b"a"), Message("T", b"")], "CODE: 13  DESC: the message body length is zero"),
        ([Message("T", b"a" * 101)], "CODE: 13  DESC: the message body size over max value, MAX: 100"),
        (
            [Message("a b", b"a")],
            "The specified topic[a b] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
        ),
    ],
)
@pytest.mark.parametrize("compat", COMPATS)
def test_batch_errors_are_failed_to_initiate_with_javas_cause(msgs, cause, compat):
    with pytest.raises(MessageError) as info:
        encode_batch(msgs, compat=compat, max_message_size=100)
    e = info.value
    assert (e.response_code, e.error_message) == (-1, "Failed to initiate the MessageBatch")
    assert str(e) == f"Failed to initiate the MessageBatch: {cause}"


def test_the_first_failing_check_of_generate_from_list_wins_over_message_checks():
    # generateFromList runs over all messages before any Validators.checkMessage
    with pytest.raises(MessageError, match="TimeDelayLevel"):
        encode_batch([Message("T", b""), Message("T", b"b", delay_level=1)])


def test_a_checked_message_error_is_chained():
    with pytest.raises(MessageError) as info:
        encode_batch([Message("T", b"")])
    assert isinstance(info.value.__cause__, MessageError) and info.value.__cause__.response_code == 13


def test_empty_batch():
    with pytest.raises(MessageError) as info:
        encode_batch([])
    assert isinstance(info.value.__cause__, NullPointerError)


@pytest.mark.parametrize("compat", COMPATS)
def test_an_encoded_batch_over_the_maximum_is_message_illegal_not_wrapped(compat):
    # each body fits, the batch (2 x (20 + 60 + 2 + properties)) does not
    msgs = [Message("T", b"x" * 60), Message("T", b"y" * 60)]
    with pytest.raises(MessageError) as info:
        encode_batch(msgs, compat=compat, max_message_size=100)
    assert info.value.response_code == 13
    assert str(info.value) == "CODE: 13  DESC: the message body size over max value, MAX: 100"


def test_properties_over_short_max_are_refused():
    big = {"p": "v" * 40_000}
    with pytest.raises(MessageError, match=r"Short\.MAX_VALUE"):
        encode_batch([Message("T", b"x", properties=big)])


def test_msg_ids_must_match_the_messages():
    from rocketroute.errors import IllegalArgumentError

    with pytest.raises(IllegalArgumentError):
        encode_batch([Message("T", b"x")], msg_ids=[ID1, ID2])
