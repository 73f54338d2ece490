"""Signed requests (ACL): a client given ``credentials`` signs every request it sends (name servers and brokers,
routes, sends, heartbeats, pulls, offsets) as Java's ``AclClientRPCHook`` does, and a client without them signs
none. Checked on the fake name server and brokers the way a broker checks a signature (Java's
``PlainAccessValidator``: the values of the ext fields but ``Signature`` in name order, then the body, under
HMAC-SHA1 of the secret); the signature itself is checked against the released hooks by
``tests/conformance/test_acl_signature.py``."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, Message, Producer

from ._fake_cluster import FakeCluster

CREDS = rr.Credentials("rocketmq2", "12345678")
FAST = {"rebalance_interval": 200, "persist_consumer_offset_interval": 100, "heartbeat_broker_interval": 200}


def _verified(request: dict[str, Any], secret: str) -> bool:
    """A broker's check of a request's signature."""
    ext = request["extFields"]
    names = sorted((k for k in ext if k != "Signature"), key=lambda k: k.encode("utf-16-be", "surrogatepass"))
    content = "".join(ext[k] for k in names).encode() + (request.get("body") or b"")
    expected = base64.b64encode(hmac.new(secret.encode(), content, hashlib.sha1).digest()).decode()
    return ext.get("Signature") == expected


def _received(cluster: FakeCluster) -> list[dict[str, Any]]:
    peers = [cluster.namesrv, *cluster.brokers.values()]
    return [r for p in peers for r in list(p.peer.received) if not r["flag"] & 1]  # requests, not responses


def test_every_request_of_a_producer_and_a_consumer_with_credentials_is_signed():
    with FakeCluster(brokers=2) as cluster:
        cluster.topic("T", queues=2)
        cluster.topic("%RETRY%G", queues=1)
        got: list[Any] = []

        def listener(msgs: list[Any], context: Any) -> Any:
            got.extend(msgs)
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        with Producer(cluster.namesrv_addr, "PG", credentials=CREDS, heartbeat_broker_interval=200) as producer:
            with Consumer(cluster.namesrv_addr, "G", ["T"], listener=listener, credentials=CREDS, **FAST):
                producer.send(Message("T", b"signed"))  # after the consumer took its queues at their last offset
                deadline = time.monotonic() + 5
                while not got and time.monotonic() < deadline:
                    time.sleep(0.02)
        assert [m.body for m in got] == [b"signed"]
        requests = _received(cluster)
        codes = {r["code"] for r in requests}
        # routes (105), a send (310), heartbeats (34), pulls (11), offsets, members (38), unregister (35)
        assert {105, 310, 34, 11, 38, 35} <= codes, codes
        for r in requests:
            assert r["extFields"].get("AccessKey") == "rocketmq2", r
            assert "SecurityToken" not in r["extFields"]
            assert _verified(r, "12345678"), r
            assert not _verified(r, "another secret")


def test_a_client_without_credentials_signs_nothing_and_a_token_is_sent_as_given():
    with FakeCluster() as cluster:
        cluster.topic("T", queues=1)
        with Producer(cluster.namesrv_addr, "PG") as producer:
            producer.send(Message("T", b"plain"))
        assert all("Signature" not in r["extFields"] for r in _received(cluster))
        token = rr.Credentials("ak", "sk", security_token="session-token")
        route = rr.fetch_route(cluster.namesrv_addr, "T", credentials=token)
        assert [q.broker_name for q in route.queue_datas] == ["broker-a"]
        (last, *_) = reversed(cluster.namesrv.requests(105))
        assert last["extFields"]["SecurityToken"] == "session-token" and _verified(last, "sk")


def test_clients_of_one_instance_must_have_the_same_credentials():
    same = {"instance_name": "shared", "client_ip": "10.1.2.3"}
    with FakeCluster() as cluster, Producer(cluster.namesrv_addr, "PG1", credentials=CREDS, **same):
        with pytest.raises(ValueError, match="other credentials") as refused:
            Producer(cluster.namesrv_addr, "PG2", credentials=rr.Credentials("rocketmq2", "s3cr3t-two"), **same).start()
        assert "s3cr3t" not in str(refused.value) and "12345678" not in str(refused.value)  # no secret shown
        with Producer(cluster.namesrv_addr, "PG3", credentials=rr.Credentials("rocketmq2", "12345678"), **same):
            pass  # equal credentials share it


def test_credentials_are_checked_and_keep_their_secret_out_of_repr():
    c = rr.Credentials("ak", "sk-secret", "tok-secret")
    assert "secret" not in repr(c) and repr(c) == "Credentials(access_key='ak')"
    with pytest.raises(ValueError, match="secret_key is empty"):
        rr.Credentials("ak", "")
    with pytest.raises(TypeError, match="access_key must be a str"):
        rr.Credentials(b"ak", "sk")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="security_token must be a str or None"):
        rr.Credentials("ak", "sk", 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"credentials must be a rocketroute\.Credentials"):
        Producer("127.0.0.1:1", credentials=("ak", "sk"))  # type: ignore[arg-type]


def test_the_command_line_takes_credentials_from_options_or_the_environment(monkeypatch):
    import argparse

    from rocketroute.cli.args import credentials_from_args
    from rocketroute.errors import RocketRouteError

    def args(**kw: Any) -> argparse.Namespace:
        return argparse.Namespace(**{"access_key": None, "secret_key": None, "security_token": None, **kw})

    for name in ("ROCKETROUTE_ACCESS_KEY", "ROCKETROUTE_SECRET_KEY", "ROCKETROUTE_SECURITY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    assert credentials_from_args(args()) is None
    assert credentials_from_args(args(access_key="ak", secret_key="sk")) == rr.Credentials("ak", "sk")
    with pytest.raises(RocketRouteError, match="go together"):
        credentials_from_args(args(access_key="ak"))
    with pytest.raises(RocketRouteError, match="--security-token needs"):
        credentials_from_args(args(security_token="t"))
    monkeypatch.setenv("ROCKETROUTE_SECRET_KEY", "from-env")
    monkeypatch.setenv("ROCKETROUTE_SECURITY_TOKEN", "tok")
    assert credentials_from_args(args(access_key="ak")) == rr.Credentials("ak", "from-env", "tok")


def test_the_live_plan_signs_its_requests_and_the_offline_commands_refuse_credentials(capsys, tmp_path):
    from rocketroute.cli import main

    with FakeCluster() as cluster:
        cluster.topic("T", queues=4)
        argv = ["plan", "--namesrv", cluster.namesrv_addr, "--topic", "T", "--group", "G", "--timeout-ms", "2000"]
        main([*argv, "--access-key", "ak", "--secret-key", "sk"])
        requests = _received(cluster)
        assert {r["code"] for r in requests} >= {105, 38}  # the route, the members
        assert all(r["extFields"]["AccessKey"] == "ak" and _verified(r, "sk") for r in requests)
    capsys.readouterr()
    offline = ["plan", "--load", str(tmp_path / "load.csv"), "--topic", "T", "--out", str(tmp_path / "o")]
    assert main([*offline, "--access-key", "ak"]) == 2
    assert "--access-key: only for the live plan" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
