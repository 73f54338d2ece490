"""A send request in its wire form (``EncodedRequest``, ``rocketroute.protocol.headers.send.send_request``): the
frame is the command's, byte for byte, whichever encoder wrote it, and every path of the remoting clients writes it
as it is (the loop's, the sync facade's, the direct connections, oneway), against fake peers. A client that signs
its requests takes commands only."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.net import AsyncRemotingClient, RemotingClient
from rocketroute.net.direct import direct_connection_class
from rocketroute.protocol import RemotingCommand, RequestCode
from rocketroute.protocol.acl import Credentials
from rocketroute.protocol.command import RPC_ONEWAY, EncodedRequest, next_opaque
from rocketroute.protocol.frame import encode_frame
from rocketroute.protocol.headers import send as send_module
from rocketroute.protocol.headers.send import send_header_v2, send_request

from ._peer import FakePeer

LONG_MS = 30_000

_ints = st.one_of(st.integers(-(2**31), 2**31 - 1), st.integers(-(2**63), 2**63 - 1), st.just(0))
_texts = st.text(max_size=40)  # lone surrogates and control characters included


def _args(**over: Any) -> list[Any]:
    fields = {
        "code": RequestCode.SEND_MESSAGE_V2,
        "opaque": 7,
        "flag": 0,
        "language": "PYTHON",
        "version": 479,
        "producer_group": "group",
        "topic": "Topic",
        "default_topic": "TBW102",
        "default_topic_queue_nums": 4,
        "queue_id": 3,
        "sys_flag": 0,
        "born_timestamp": 1_764_000_000_000,
        "msg_flag": 0,
        "properties": "WAIT\x01true\x02UNIQ_KEY\x01ID\x02",
        "unit_mode": False,
        "batch": False,
        "broker_name": "broker-a",
        "body": b"body",
    }
    fields.update(over)
    return list(fields.values())


def _command_frame(args: list[Any]) -> bytes:
    """The frame the remoting client writes for the command ``send_request`` stands for."""
    (code, opaque, flag, language, version, group, topic, default_topic, nums, queue_id, sys_flag, born, msg_flag,
     properties, unit_mode, batch, broker_name, body) = args  # fmt: skip
    fields = send_header_v2(
        producer_group=group, topic=topic, queue_id=queue_id, born_timestamp=born, sys_flag=sys_flag,
        flag=msg_flag, properties=properties, default_topic=default_topic, default_topic_queue_nums=nums,
        unit_mode=unit_mode, batch=batch, broker_name=broker_name,
    )  # fmt: skip
    return encode_frame(RemotingCommand(code, opaque, flag, language, version, None, fields, body))


def _python_only(args: list[Any]) -> EncodedRequest:
    saved, send_module._native_frame = send_module._native_frame, None
    try:
        return send_request(*args)
    finally:
        send_module._native_frame = saved


def _outcome(make: Any, args: list[Any]) -> Any:
    try:
        return make(args)
    except Exception as e:
        return type(e), str(e)


def test_the_native_backend_writes_the_frame_in_one_call() -> None:
    assert (send_module._native_frame is not None) == (rocketroute.BACKEND == "native")
    if send_module._native_frame is not None:
        assert send_module._native_frame(*_args()) == _command_frame(_args())


@settings(max_examples=300, deadline=None)
@given(
    opaque=_ints,
    flag=st.sampled_from([0, RPC_ONEWAY]),
    language=st.sampled_from(["PYTHON", "JAVA", "GO"]),
    group=_texts,
    topic=_texts,
    nums=_ints,
    queue_id=_ints,
    sys_flag=st.sampled_from([0, 0x301, 0x101]),
    born=_ints,
    msg_flag=st.one_of(_ints, st.just(True)),
    properties=st.one_of(st.none(), _texts),
    unit_mode=st.booleans(),
    batch=st.booleans(),
    broker_name=st.one_of(st.none(), _texts),
    body=st.one_of(st.none(), st.binary(max_size=64), st.just(bytearray(b"ba"))),
)
def test_the_frame_is_the_commands_whichever_encoder_writes_it(**kw: Any) -> None:
    args = _args(
        opaque=kw["opaque"], flag=kw["flag"], language=kw["language"], producer_group=kw["group"],
        topic=kw["topic"], default_topic_queue_nums=kw["nums"], queue_id=kw["queue_id"], sys_flag=kw["sys_flag"],
        born_timestamp=kw["born"], msg_flag=kw["msg_flag"], properties=kw["properties"],
        unit_mode=kw["unit_mode"], batch=kw["batch"], broker_name=kw["broker_name"], body=kw["body"],
    )  # fmt: skip
    expected = _outcome(_command_frame, args)
    for make in (lambda a: send_request(*a), _python_only):
        got = _outcome(make, args)
        if isinstance(got, EncodedRequest):
            assert (got.frame, got.code, got.opaque, got.body_size) == (
                expected,
                args[0],
                kw["opaque"],
                len(kw["body"] or b""),
            )
        else:
            assert got == expected  # the same error, with the same words


def _encoded(i: int, *, flag: int = 0, language: str = "PYTHON", body: bytes = b"b") -> EncodedRequest:
    return send_request(*_args(opaque=next_opaque(), flag=flag, language=language, queue_id=i, body=body))


def _check_received(peer: FakePeer, queue_ids: list[int], flags: list[int], language: str = "PYTHON") -> None:
    assert [r["extFields"]["e"] for r in peer.received] == [str(i) for i in queue_ids]
    assert [r["flag"] for r in peer.received] == flags
    assert {r["language"] for r in peer.received} == {language}
    assert {r["body"] for r in peer.received} == {b"b"}


def test_the_loop_writes_an_encoded_request_as_it_is() -> None:
    async def main(peer: FakePeer) -> None:
        client = AsyncRemotingClient(language="GO")
        try:
            assert client.frame_language() == "GO"
            first = await client.invoke(peer.addr, _encoded(1, language="GO"), LONG_MS)  # connects
            waiter = client.start_invoke(peer.addr, _encoded(2, language="GO"), LONG_MS)
            assert waiter is not None
            second = await waiter
            await client.invoke_oneway(peer.addr, _encoded(3, flag=RPC_ONEWAY, language="GO"))
            third = await client.invoke(peer.addr, _encoded(4, language="GO"), LONG_MS)
        finally:
            await client.close()
        assert [r.ext_fields["e"] for r in (first, second, third)] == ["1", "2", "4"]
        assert {r.body for r in (first, second, third)} == {b"b"}

    with FakePeer() as peer:
        asyncio.run(main(peer))
    _check_received(peer, [1, 2, 3, 4], [0, 0, RPC_ONEWAY, 0], "GO")


def test_the_language_and_credentials_of_a_client_are_read_only() -> None:
    """Requests are encoded ahead in the language the client says: a client whose language or credentials could
    change after it was built would write frames it no longer agrees with."""
    client = AsyncRemotingClient(language="GO")
    assert (client.language, client.credentials, client.frame_language()) == ("GO", None, "GO")
    with pytest.raises(AttributeError):
        client.language = "JAVA"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        client.credentials = Credentials("ak", "sk")  # type: ignore[misc]
    signing = AsyncRemotingClient(credentials=Credentials("ak", "sk"))
    assert signing.credentials == Credentials("ak", "sk") and signing.frame_language() is None


@pytest.mark.parametrize("direct", [False, True], ids=["through the loop", "direct"])
def test_the_sync_client_writes_an_encoded_request_as_it_is(direct: bool) -> None:
    conns = direct_connection_class(rocketroute) if direct else None
    if direct and conns is None:
        pytest.skip("direct connections are the native core's (the loop's path runs on both backends)")
    with FakePeer() as peer, RemotingClient(direct=conns) as client:
        assert client.async_client.frame_language() == "PYTHON"
        answer = client.invoke(peer.addr, _encoded(5), LONG_MS, direct=direct)
        client.invoke_oneway(peer.addr, _encoded(6, flag=RPC_ONEWAY), direct=direct)
        again = client.invoke(peer.addr, _encoded(7), LONG_MS, direct=direct)
        assert client.connected(peer.addr) != direct  # the loop's connection, or the direct one alone
    assert (answer.ext_fields["e"], answer.body, again.ext_fields["e"]) == ("5", b"b", "7")
    _check_received(peer, [5, 6, 7], [0, RPC_ONEWAY, 0])
    assert peer.connections == 1


def test_a_client_that_signs_its_requests_takes_commands_only() -> None:
    creds = Credentials("ak", "sk")
    conns = direct_connection_class(rocketroute)
    with FakePeer() as peer, RemotingClient(credentials=creds, direct=conns) as client:
        assert client.async_client.frame_language() is None
        for direct in (False, True):
            with pytest.raises(ValueError, match="signs its requests"):
                client.invoke(peer.addr, _encoded(1), LONG_MS, direct=direct)
            with pytest.raises(ValueError, match="signs its requests"):
                client.invoke_oneway(peer.addr, _encoded(2, flag=RPC_ONEWAY), direct=direct)
        signed = RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {"e": "3"}, b"b")
        assert client.invoke(peer.addr, signed, LONG_MS).ext_fields["e"] == "3"
    [sent] = peer.received  # nothing unsigned was written
    assert sent["extFields"]["AccessKey"] == "ak" and sent["extFields"]["Signature"]
