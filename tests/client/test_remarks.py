"""Every exception made from a server's remark: its message is one line, and ``remark`` keeps what the server sent
(docs/servers.md). Apache's servers end many remarks with a second line, the FAQ link; a live 5.5.0 broker's:
tests/cluster/test_remarks.py."""

from __future__ import annotations

import pickle

import pytest

from rocketroute.client import NameServerError, TopicNotExistError, send_result_from_response
from rocketroute.errors import AuthenticationError, BrokerResponseError, PermissionDeniedError
from rocketroute.protocol.errors import RemotingCommandError, response_error

FAQ = "See https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details."
ADDR = "127.0.0.1:10911"


def _from_send(code: int, remark: str) -> Exception:
    try:
        send_result_from_response(code, None, topic="T", broker_name="b", msg_id="ID", remark=remark, broker_addr=ADDR)
    except Exception as e:
        return e
    raise AssertionError("no error")


MAKERS = {
    "send response": lambda remark: _from_send(17, remark),
    "BrokerResponseError": lambda remark: BrokerResponseError(17, remark, addr=ADDR),
    "invoke_checked": lambda remark: response_error(17, remark, ADDR, request_code=105),
    "TopicNotExistError": lambda remark: TopicNotExistError("T", remark, "127.0.0.1:9876"),
    "NameServerError": lambda remark: NameServerError(1, remark, "127.0.0.1:9876"),
    "4.9 ACL refusal": lambda remark: response_error(
        1, f"org.apache.rocketmq.acl.common.AclException: {remark}", ADDR, request_code=310
    ),
    "5.x authorization refusal": lambda remark: response_error(
        16, f"User:u has no permission to access Topic:T from 127.0.0.1, {remark}", ADDR, request_code=310
    ),
}


@pytest.mark.parametrize("made_by", list(MAKERS))
def test_a_remark_of_two_lines_makes_a_message_of_one_and_is_kept(made_by):
    remark = f"topic[T] not exist, apply first please!\n{FAQ}"
    e = MAKERS[made_by](remark)
    text = str(e)
    assert "\n" not in text and "\r" not in text, text
    assert f"apply first please! {FAQ}" in text, text
    assert remark in e.remark, e.remark  # the ACL ones carry the whole remark, prefix and all


def test_the_classes_are_the_ones_the_docs_name():
    remark = f"No accessKey is configured\n{FAQ}"
    assert type(MAKERS["send response"](remark)) is BrokerResponseError
    assert type(MAKERS["invoke_checked"](remark)) is RemotingCommandError
    assert type(MAKERS["4.9 ACL refusal"](remark)) is AuthenticationError
    assert type(MAKERS["5.x authorization refusal"](remark)) is PermissionDeniedError


def test_a_remotingcommanderror_is_a_brokerresponseerror_with_the_same_text():
    remark = f"topic[T] not exist, apply first please!\n{FAQ}"
    checked = RemotingCommandError(17, remark, ADDR)
    plain = BrokerResponseError(17, remark, addr=ADDR)
    assert str(checked) == str(plain) == f"CODE: 17  DESC: topic[T] not exist, apply first please! {FAQ} BROKER: {ADDR}"
    assert (checked.code, checked.remark, checked.addr) == (plain.code, plain.remark, plain.addr)
    back = pickle.loads(pickle.dumps(checked))
    assert (type(back), str(back), back.remark, back.addr) == (RemotingCommandError, str(checked), remark, ADDR)
