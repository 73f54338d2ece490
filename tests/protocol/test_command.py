"""RemotingCommand, the opaque counter, the codes and the exception classes."""

from __future__ import annotations

import itertools
import threading

import pytest

import rocketroute
import rocketroute.protocol.command as command_module
from rocketroute.errors import BrokerResponseError, RocketRouteError
from rocketroute.net import parse_addr
from rocketroute.protocol import (
    MQ_VERSIONS,
    REQUEST_CODE_NAMES,
    FrameError,
    RemotingCommand,
    RemotingCommandError,
    RemotingConnectError,
    RemotingError,
    RemotingSendRequestError,
    RemotingTimeoutError,
    RequestCode,
    ResponseCode,
    SerializeType,
    ext_fields_to_strings,
    next_opaque,
)


def test_request_defaults() -> None:
    cmd = RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {"a": "b"}, b"x")
    assert (cmd.code, cmd.flag, cmd.language, cmd.version, cmd.remark) == (310, 0, "PYTHON", 479, None)
    assert cmd.ext_fields == {"a": "b"} and cmd.body == b"x" and cmd.serialize_type is SerializeType.JSON
    assert MQ_VERSIONS == {"5.3": 479, "4.9": 409}


def test_each_request_draws_a_new_opaque() -> None:
    a, b = RemotingCommand.request(10), RemotingCommand.request(10)
    c = RemotingCommand(10)  # the field default draws one too, as Java's field initializer
    assert len({a.opaque, b.opaque, c.opaque}) == 3


def test_opaque_wraps_as_a_java_int(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command_module, "_opaque_counter", itertools.count(2**31 - 2))
    assert [next_opaque() for _ in range(4)] == [2**31 - 2, 2**31 - 1, -(2**31), -(2**31) + 1]
    monkeypatch.setattr(command_module, "_opaque_counter", itertools.count(2**32 - 1))
    assert [next_opaque() for _ in range(2)] == [-1, 0]


def test_opaques_from_many_threads_are_unique() -> None:
    results: list[list[int]] = [[] for _ in range(8)]

    def draw(out: list[int]) -> None:
        out.extend(next_opaque() for _ in range(20000))

    threads = [threading.Thread(target=draw, args=(out,)) for out in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    drawn = [o for out in results for o in out]
    assert len(set(drawn)) == len(drawn) == 160000


def test_ext_fields_to_strings_as_java_sends_them() -> None:
    assert ext_fields_to_strings({"s": "x", "t": True, "f": False, "i": -12, "big": 2**40, "none": None}) == {
        "s": "x",
        "t": "true",
        "f": "false",
        "i": "-12",
        "big": "1099511627776",
    }
    assert ext_fields_to_strings(None) == {}
    with pytest.raises(TypeError, match="float"):
        ext_fields_to_strings({"x": 1.5})
    with pytest.raises(TypeError):
        ext_fields_to_strings({1: "x"})  # type: ignore[dict-item]


def test_response_to_a_request() -> None:
    request = RemotingCommand.request(39, {"k": "v"}, serialize_type=SerializeType.ROCKETMQ)
    response = RemotingCommand.response_to(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, "no")
    assert response.opaque == request.opaque and response.is_response and not response.is_oneway
    assert (response.code, response.remark, response.serialize_type) == (3, "no", SerializeType.ROCKETMQ)


def test_repr_does_not_print_the_body() -> None:
    text = repr(RemotingCommand(10, opaque=1, body=b"z" * 5000))
    assert "<5000 bytes>" in text and "zzz" not in text


def test_request_codes() -> None:
    expected = {
        "SEND_MESSAGE": 10,
        "SEND_MESSAGE_V2": 310,
        "SEND_BATCH_MESSAGE": 320,
        "UPDATE_AND_CREATE_TOPIC": 17,
        "GET_MAX_OFFSET": 30,
        "GET_MIN_OFFSET": 31,
        "SEARCH_OFFSET_BY_TIMESTAMP": 29,
        "GET_ROUTEINFO_BY_TOPIC": 105,
        "GET_BROKER_CLUSTER_INFO": 106,
        "HEART_BEAT": 34,
        "UNREGISTER_CLIENT": 35,
        "GET_CONSUMER_LIST_BY_GROUP": 38,
        "QUERY_CONSUMER_OFFSET": 14,
        "UPDATE_CONSUMER_OFFSET": 15,
        "PULL_MESSAGE": 11,
    }
    assert {name: getattr(RequestCode, name) for name in expected} == expected
    assert REQUEST_CODE_NAMES[310] == "SEND_MESSAGE_V2"
    assert len(REQUEST_CODE_NAMES) == len([n for n in vars(RequestCode) if n.isupper()])  # no two share a value
    assert ResponseCode is rocketroute.ResponseCode


def test_parse_addr() -> None:
    assert parse_addr("127.0.0.1:9876") == ("127.0.0.1", 9876)
    assert parse_addr("[::1]:10911") == ("::1", 10911)
    assert parse_addr("::1:10911") == ("::1", 10911)
    for bad in ("127.0.0.1", "host:", ":9876", "host:port", "host:99999"):
        with pytest.raises(RemotingConnectError, match="not a host:port"):
            parse_addr(bad)


def test_exception_classes() -> None:
    connect = RemotingConnectError("h:1", "refused")
    send = RemotingSendRequestError("h:1", "closed")
    timeout = RemotingTimeoutError("h:1", 3000, 310)
    frame = FrameError("bad", addr="h:1")
    checked = RemotingCommandError(17, "Topic route was not found", "h:1")
    assert str(connect) == "connect to h:1 failed: refused"
    assert str(send) == "send request to <h:1> failed: closed"
    assert str(timeout) == "wait response on the channel <h:1> timeout, 3000(ms), request code 310"
    assert str(checked) == "CODE: 17  DESC: Topic route was not found BROKER: h:1"
    assert (timeout.addr, timeout.timeout_ms, timeout.code) == ("h:1", 3000, 310)
    assert (checked.code, checked.response_code, checked.remark, checked.addr) == (17, 17, checked.remark, "h:1")
    for error in (connect, send, timeout, frame, checked):
        assert isinstance(error, RemotingError) and isinstance(error, RocketRouteError)
        assert error.addr == "h:1"
    # what rocketroute.send_default keys on: ConnectionError/TimeoutError isolate, BrokerResponseError by code
    assert isinstance(connect, ConnectionError) and isinstance(send, ConnectionError)
    assert isinstance(timeout, TimeoutError) and not isinstance(timeout, ConnectionError)
    assert isinstance(frame, ValueError)
    assert isinstance(checked, BrokerResponseError)
    assert {type(e).java_class.rsplit(".", 1)[1] for e in (connect, send, timeout, frame, checked)} == {
        "RemotingConnectException",
        "RemotingSendRequestException",
        "RemotingTimeoutException",
        "RemotingCommandException",
        "MQBrokerException",
    }
    assert RemotingError.java_class == "org.apache.rocketmq.remoting.exception.RemotingException"
