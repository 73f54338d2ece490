"""Refusals of the credentials: which responses are an AuthenticationError or a PermissionDeniedError, what they
say, and that the send loop raises them at once (the real servers' side is tests/cluster/test_auth.py).

The remarks are the ones Apache's brokers were seen sending: 4.9.7 with ``aclEnable=true`` (SYSTEM_ERROR, the
AclException and its first stack frame) and 5.5.0 with ACL 2.0 (NO_PERMISSION, the handler's message)."""

from __future__ import annotations

import asyncio
import pickle

import pytest

import rocketroute as rr
from rocketroute.client.producer.send_result import send_result_from_response
from rocketroute.errors import AccessDeniedError, AuthenticationError, BrokerResponseError, PermissionDeniedError
from rocketroute.protocol import RemotingCommand
from rocketroute.protocol.errors import RemotingCommandError, access_error, response_error

_FRAME = "org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:663)"
ACL_V1 = "org.apache.rocketmq.acl.common.AclException: "

REFUSALS = [
    # 4.9.7, plain ACL
    (1, f"{ACL_V1}No accessKey is configured, {_FRAME}", AuthenticationError, "No accessKey is configured"),
    (1, f"{ACL_V1}Check signature failed for accessKey=u, {_FRAME}", AuthenticationError, None),
    (1, f"{ACL_V1}No acl config for nobody, {_FRAME}", AuthenticationError, "No acl config for nobody"),
    (1, f"{ACL_V1}No default permission for topic:T, {_FRAME}", PermissionDeniedError, None),
    (1, f"{ACL_V1}Need admin permission for request code=17, but accessKey=u is not, {_FRAME}", PermissionDeniedError,
     None),
    # 5.5.0, ACL 2.0
    (16, "username cannot be null.", AuthenticationError, "username cannot be null."),
    (16, "check signature failed.", AuthenticationError, None),
    (16, "User:nobody is not found.", AuthenticationError, None),
    (16, "User:u is disabled.", AuthenticationError, None),
    (16, "User:u has no permission to access Topic:T from 127.0.0.1, no matched policies.", PermissionDeniedError,
     None),
    (16, "Authorization failed. Please verify your access rights and try again.", PermissionDeniedError, None),
]  # fmt: skip

NOT_REFUSALS = [
    (16, "the topic[T] sending message is forbidden"),  # a topic without the write perm: Java retries elsewhere
    (16, "the broker[broker-a] sending message is forbidden"),
    (16, "subscription group no permission, G"),  # a group switched off, not the credentials
    (1, "java.lang.NullPointerException, org.apache.rocketmq.broker.X.y(X.java:1)"),
    (1, None),
    (17, "No topic route info in name server for the topic: T"),
    (2, "[TIMEOUT_CLEAN_QUEUE]broker busy"),
]


@pytest.mark.parametrize(("code", "remark", "cls", "reason"), REFUSALS)
def test_refusals_of_the_credentials_are_classified(code, remark, cls, reason):
    e = access_error(code, remark, addr="127.0.0.1:10911", request_code=310)
    assert type(e) is cls
    assert isinstance(e, AccessDeniedError) and isinstance(e, PermissionError) and isinstance(e, rr.RocketRouteError)
    assert not isinstance(e, BrokerResponseError)  # the send loop must not take it for a broker failure
    assert (e.code, e.response_code, e.remark, e.addr, e.request_code) == (code, code, remark, "127.0.0.1:10911", 310)
    if reason is not None:
        assert e.reason == reason
    assert "PlainPermissionManager" not in e.reason and "AclException" not in e.reason
    assert str(e) == f"{cls.KIND}: SEND_MESSAGE_V2 (310) refused by 127.0.0.1:10911: {e.reason} (CODE: {code})"
    assert response_error(code, remark, "127.0.0.1:10911", request_code=310).__class__ is cls


@pytest.mark.parametrize(("code", "remark"), NOT_REFUSALS)
def test_other_errors_stay_broker_errors(code, remark):
    assert access_error(code, remark) is None
    e = response_error(code, remark, "127.0.0.1:10911", request_code=310)
    assert type(e) is RemotingCommandError and e.code == code


def test_the_message_without_a_request_code_or_address():
    e = access_error(16, "check signature failed.")
    assert str(e) == "authentication failed: a request refused: check signature failed. (CODE: 16)"
    e = access_error(16, "check signature failed.", request_code=9999)
    assert "request 9999 refused" in str(e)


def test_refusals_pickle_with_their_fields():
    e = access_error(1, f"{ACL_V1}No default permission for topic:T, {_FRAME}", addr="a:1", request_code=11)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is PermissionDeniedError and str(back) == str(e)
    assert (back.code, back.remark, back.addr, back.request_code, back.reason) == (
        e.code, e.remark, e.addr, e.request_code, e.reason
    )  # fmt: skip


def test_a_refused_send_response_raises_the_refusal():
    with pytest.raises(PermissionDeniedError) as info:
        send_result_from_response(
            16,
            None,
            topic="T",
            broker_name="broker-a",
            msg_id="ID",
            remark="User:u has no permission to access Topic:T from 127.0.0.1, no matched policies.",
            broker_addr="127.0.0.1:10911",
            request_code=320,
        )
    assert info.value.request_code == 320 and "SEND_BATCH_MESSAGE (320)" in str(info.value)
    # a topic that is not writable stays Java's MQBrokerException
    with pytest.raises(BrokerResponseError):
        send_result_from_response(16, None, topic="T", broker_name="b", msg_id="ID", remark="the topic[T] is forbidden")


def _loop(backend):
    mqs = [backend.MessageQueue("T", b, i) for b in ("broker-a", "broker-b") for i in range(2)]
    tp = backend.TopicPublishInfo(mqs, compat="5.3")
    clock = backend.ManualClock(1_700_000_000_000)
    strategy = backend.MQFaultStrategy("5.3", send_latency_fault_enable=True, clock=clock)
    return tp, strategy, clock


@pytest.mark.parametrize("cls", [AuthenticationError, PermissionDeniedError])
def test_the_send_loop_raises_a_refusal_at_once_without_isolating_the_broker(backend, cls):
    tp, strategy, clock = _loop(backend)
    calls = []

    def send(mq):
        calls.append(mq)
        raise cls(16, "refused", addr="a:1", request_code=310)

    attempts: list = []
    with pytest.raises(cls) as info:
        backend.send_default(tp, strategy, send, clock=clock, attempts=attempts, retry_times_when_send_failed=5)
    assert len(calls) == 1 and len(attempts) == 1 and attempts[0].error is info.value
    assert not getattr(info.value, "__notes__", None)
    assert strategy.latency_fault_tolerance.is_available(calls[0].broker_name)  # not isolated: it answered

    async def send_async(mq):
        calls.append(mq)
        raise cls(16, "refused", addr="a:1", request_code=310)

    with pytest.raises(cls):
        asyncio.run(backend.send_default_async(tp, strategy, send_async, clock=clock))
    assert len(calls) == 2


def test_a_remoting_client_raises_the_refusal_from_invoke_checked():
    """The asyncio client against a peer that refuses every request as a 5.x broker does."""
    from rocketroute.net import AsyncRemotingClient
    from rocketroute.protocol import decode_frame, encode_frame

    async def main() -> None:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                size = int.from_bytes(await reader.readexactly(4), "big")
                request = decode_frame(size.to_bytes(4, "big") + await reader.readexactly(size))
                response = RemotingCommand.response_to(request, 16, "check signature failed.")
                writer.write(encode_frame(response))
                await writer.drain()
                await reader.read()  # until the client closes its side
            finally:
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        addr = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
        client = AsyncRemotingClient()
        try:
            with pytest.raises(AuthenticationError) as info:
                await client.invoke_checked(addr, RemotingCommand.request(34, {}), 3000)
            assert info.value.request_code == 34 and info.value.addr == addr and "HEART_BEAT (34)" in str(info.value)
        finally:
            await client.close()
            server.close()
            await server.wait_closed()

    asyncio.run(main())


def test_a_refusal_after_a_not_stored_result_returns_that_result(backend):
    """As for a broker's error answer: the loop ends with the earlier not-stored result (Java returns it)."""
    tp, strategy, clock = _loop(backend)
    calls = []

    def send(mq):
        calls.append(mq)
        if len(calls) == 1:
            return "FLUSH_DISK_TIMEOUT"
        raise PermissionDeniedError(16, "refused", addr="a:1", request_code=310)

    result = backend.send_default(tp, strategy, send, clock=clock, retry_result=lambda r: r != "SEND_OK")
    assert result == "FLUSH_DISK_TIMEOUT" and len(calls) == 2


def test_a_group_snapshot_records_a_refusing_source_and_goes_on():
    from rocketroute.client.group_plan import _failure

    refused = access_error(16, "check signature failed.", addr="a:1", request_code=38)
    assert _failure(refused) == f"AuthenticationError: {refused}"
