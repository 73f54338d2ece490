"""The transaction's pieces without a broker: the half message's encoding, END_TRANSACTION's and
CHECK_TRANSACTION_STATE's headers per compat profile, the states and the producer's arguments (on the real brokers:
tests/cluster/test_transactions.py)."""

from __future__ import annotations

import pytest

import rocketroute as rr
from rocketroute.client import (
    LocalTransactionState,
    Message,
    TransactionProducer,
    encode_for_send,
    string_to_properties,
)
from rocketroute.client.producer.transaction import _commit_log_offset
from rocketroute.errors import IllegalArgumentError
from rocketroute.protocol.headers import CheckTransactionStateRequestHeader, EndTransactionRequestHeader

UNIQ = "0A000001303900000001000000000001"


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_a_half_message_carries_tran_msg_pgroup_and_the_prepared_flag(compat):
    msg = Message("T", b"x", tags="TagA", properties={"order": "42"})
    enc = encode_for_send(msg, compat=compat, msg_id=UNIQ, transaction_group="PG")
    props = string_to_properties(enc.properties)
    assert props == {
        "TAGS": "TagA",
        "WAIT": "true",
        "order": "42",
        "TRAN_MSG": "true",
        "PGROUP": "PG",
        "UNIQ_KEY": UNIQ,
    }
    assert enc.sys_flag == 0x4  # TRANSACTION_PREPARED_TYPE
    big = encode_for_send(Message("T", b"y" * 5000), compat=compat, msg_id=UNIQ, transaction_group="PG")
    assert big.sys_flag == 0x4 | 0x301  # compressed too
    plain = encode_for_send(msg, compat=compat, msg_id=UNIQ)
    assert plain.sys_flag == 0 and "TRAN_MSG" not in string_to_properties(plain.properties)


@pytest.mark.parametrize("kwargs", [{"delay_level": 3}, {"delay_ms": 0}, {"deliver_time_ms": 1}])
def test_a_half_message_is_not_delayed(kwargs):
    with pytest.raises(IllegalArgumentError, match="a transactional message cannot be delayed"):
        encode_for_send(Message("T", b"x", **kwargs), msg_id=UNIQ, transaction_group="PG")


def test_end_transaction_header_per_compat():
    header = EndTransactionRequestHeader(
        producer_group="PG",
        tran_state_table_offset=7,
        commit_log_offset=1234,
        commit_or_rollback=LocalTransactionState.COMMIT_MESSAGE.end_type,
        msg_id=UNIQ,
        transaction_id=UNIQ,
        topic="T",
        broker_name="broker-a",
    )
    common = {
        "producerGroup": "PG",
        "tranStateTableOffset": "7",
        "commitLogOffset": "1234",
        "commitOrRollback": "8",
        "fromTransactionCheck": "false",
        "msgId": UNIQ,
        "transactionId": UNIQ,
    }
    assert header.request("5.3").ext_fields == {**common, "topic": "T", "bname": "broker-a"}
    assert header.request("4.9").ext_fields == common  # 4.9's header has neither
    assert header.request("5.3").code == 37


def test_the_states_end_types_and_javas_spelling():
    assert [s.end_type for s in LocalTransactionState] == [8, 12, 0]
    assert LocalTransactionState.UNKNOWN is LocalTransactionState.UNKNOW
    assert rr.LocalTransactionState is LocalTransactionState and rr.TransactionProducer is TransactionProducer


def test_check_header_from_a_brokers_request():
    ext = {"tranStateTableOffset": "3", "commitLogOffset": "99", "msgId": UNIQ, "transactionId": UNIQ, "bname": "b"}
    h = CheckTransactionStateRequestHeader.from_ext_fields(ext)
    assert (h.tran_state_table_offset, h.commit_log_offset, h.broker_name, h.topic) == (3, 99, "b", None)
    with pytest.raises(ValueError, match="CHECK_TRANSACTION_STATE request without a valid"):
        CheckTransactionStateRequestHeader.from_ext_fields({"commitLogOffset": "x", "tranStateTableOffset": "1"})


def test_the_commit_log_offset_is_the_end_of_the_brokers_message_id():
    assert _commit_log_offset("7F00000100002A3C0000000000001A1C") == 0x1A1C  # IPv4 store host
    assert _commit_log_offset("00" * 16 + "00002A3C" + "0000000000000010") == 16  # IPv6 store host
    with pytest.raises(ValueError, match="no broker message id"):
        _commit_log_offset(None)


def test_a_transaction_producer_needs_its_callables():
    with pytest.raises(TypeError, match="needs an executor"):
        TransactionProducer("127.0.0.1:9876", "PG", executor=None, checker=lambda m: None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="check_threads must be a positive int"):
        TransactionProducer("127.0.0.1:9876", "PG", executor=print, checker=print, check_threads=0)
    p = TransactionProducer("127.0.0.1:9876", "PG", executor=print, checker=print, send_msg_timeout=1000)
    assert p.settings.send_msg_timeout == 1000  # the producer's settings, read as a Producer reads them
