"""Issue 29, authentication: signed requests against brokers that check them, Apache 4.9's plain ACL (ACL 1.0:
``aclEnable=true`` and ``conf/plain_acl.yml``) and Apache 5.5's ACL 2.0 (``authenticationEnabled`` /
``authorizationEnabled``; the user and its policy made through the admin requests AUTH_CREATE_USER (3001) and
AUTH_CREATE_ACL (3006), signed by the initial super user).

Right credentials: sends and consumption work. Wrong secret, unknown user, no credentials, no permission on the
topic or the group: an :class:`~rocketroute.AuthenticationError` / :class:`~rocketroute.PermissionDeniedError`
naming the request and the broker's remark, raised by the first attempt (not retried on the other broker, not
reported as a broker failure) and with nothing stored."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, Message, Producer
from rocketroute.protocol import RequestCode

from .harness import Cluster
from .test_consumer import FAST, wait_until

pytestmark = pytest.mark.servers("apache-5.5.0", "apache-4.9.7")

ADMIN = rr.Credentials("rocketadmin", "admin-secret-1")
USER = rr.Credentials("rocketuser", "user-secret-1")
TOPIC = "AuthTopic"  # the user may publish and subscribe
SUB_ONLY = "AuthSubOnly"  # the user may only subscribe
CLOSED = "AuthClosed"  # the user may do nothing
GROUP = "AuthGroup"  # the user's consumer group
OTHER_GROUP = "AuthOtherGroup"  # a group the user may not use

PLAIN_ACL = f"""globalWhiteRemoteAddresses:
accounts:
- accessKey: {ADMIN.access_key}
  secretKey: {ADMIN.secret_key}
  admin: true
- accessKey: {USER.access_key}
  secretKey: {USER.secret_key}
  admin: false
  defaultTopicPerm: DENY
  defaultGroupPerm: DENY
  topicPerms:
  - {TOPIC}=PUB|SUB
  - {SUB_ONLY}=SUB
  groupPerms:
  - {GROUP}=SUB
"""

_AUTH = "org.apache.rocketmq.auth."
ACL_2 = {
    "authenticationEnabled": "true",
    "authenticationProvider": _AUTH + "authentication.provider.DefaultAuthenticationProvider",
    "authenticationMetadataProvider": _AUTH + "authentication.provider.LocalAuthenticationMetadataProvider",
    "initAuthenticationUser": json.dumps({"username": ADMIN.access_key, "password": ADMIN.secret_key}),
    "innerClientAuthenticationCredentials": json.dumps({"accessKey": ADMIN.access_key, "secretKey": ADMIN.secret_key}),
    "authorizationEnabled": "true",
    "authorizationProvider": _AUTH + "authorization.provider.DefaultAuthorizationProvider",
    "authorizationMetadataProvider": _AUTH + "authorization.provider.LocalAuthorizationMetadataProvider",
}


def _create_user_and_policy(cluster: Cluster) -> None:
    """ACL 2.0: the user and what it may do, on every broker (each keeps its own users and ACLs)."""
    user = {"username": USER.access_key, "password": USER.secret_key, "userType": "Normal"}
    entries = [
        {"resource": f"Topic:{TOPIC}", "actions": ["Pub", "Sub"], "sourceIps": [], "decision": "Allow"},
        {"resource": f"Topic:{SUB_ONLY}", "actions": ["Sub"], "sourceIps": [], "decision": "Allow"},
        {"resource": f"Group:{GROUP}", "actions": ["Sub"], "sourceIps": [], "decision": "Allow"},
    ]
    acl = {"subject": f"User:{USER.access_key}", "policies": [{"policyType": "Custom", "entries": entries}]}
    for name in cluster.broker_names:
        addr = cluster.broker_addr(name)
        for code, ext, body in (
            (3001, {"username": USER.access_key}, user),  # AUTH_CREATE_USER
            (3006, {"subject": f"User:{USER.access_key}"}, acl),  # AUTH_CREATE_ACL
        ):
            resp = cluster.invoke(addr, code, ext, json.dumps(body).encode())
            assert resp.code == 0, f"request {code} to {name}: {resp.code} {resp.remark}"


@pytest.fixture(scope="module")
def acl_cluster(server_impl: str) -> Iterator[Cluster]:
    """One name server (no authentication in either version) and two brokers that authenticate every request;
    the harness signs its own requests as the admin."""
    if server_impl.startswith("apache-4."):
        kwargs: dict[str, Any] = {
            "broker_config": {"aclEnable": "true"},
            "broker_files": {"conf/plain_acl.yml": PLAIN_ACL},
        }
    else:
        kwargs = {"broker_config": ACL_2}
    with Cluster(1, 2, impl=server_impl, credentials=ADMIN, **kwargs) as c:
        if not server_impl.startswith("apache-4."):
            _create_user_and_policy(c)
        for topic in (TOPIC, SUB_ONLY, CLOSED):
            c.create_topic(topic, 2)
        yield c


def _stored(cluster: Cluster, topic: str) -> int:
    """Messages of ``topic`` on all brokers (the sum of its queues' max offsets, read as the admin)."""
    total = 0
    for name in cluster.broker_names:
        cluster.wait_dispatched(name)
        total += sum(cluster.max_offset(name, topic, q) for q in range(2))
    return total


def _producer(cluster: Cluster, credentials: rr.Credentials | None, **kw: Any) -> Producer:
    return Producer(cluster.namesrv_addrs, "AuthProducer", credentials=credentials, compat=cluster.compat, **kw)


REFUSED_SENDS = [
    pytest.param(rr.Credentials(USER.access_key, "wrong-secret-1"), TOPIC, rr.AuthenticationError, id="wrong-secret"),
    pytest.param(rr.Credentials("nobody-at-all", "whatever-1"), TOPIC, rr.AuthenticationError, id="unknown-user"),
    pytest.param(None, TOPIC, rr.AuthenticationError, id="no-credentials"),
    pytest.param(USER, SUB_ONLY, rr.PermissionDeniedError, id="subscribe-only-topic"),
    pytest.param(USER, CLOSED, rr.PermissionDeniedError, id="closed-topic"),
]


def test_right_credentials_send_and_consume(acl_cluster: Cluster) -> None:
    got: list[bytes] = []

    def listener(msgs: list[Any], context: Any) -> Any:
        got.extend(m.body for m in msgs)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    before = _stored(acl_cluster, TOPIC)
    with _producer(acl_cluster, USER) as producer:
        results = [producer.send(Message(TOPIC, f"m{i}".encode())) for i in range(6)]
        # its heartbeats are signed too: both brokers list it under its group
        for name in acl_cluster.broker_names:
            wait_until(
                lambda name=name: producer.client_id in acl_cluster.producer_ids(name, "AuthProducer"),
                10,
                f"the producer registered on {name}",
            )
    assert {r.send_status for r in results} == {rr.client.SendStatus.SEND_OK}
    assert {r.queue.broker_name for r in results} == set(acl_cluster.broker_names)
    assert _stored(acl_cluster, TOPIC) == before + 6
    with Consumer(
        acl_cluster.namesrv_addrs,
        GROUP,
        [TOPIC],
        listener=listener,
        credentials=USER,
        compat=acl_cluster.compat,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        **FAST,
    ):
        wait_until(lambda: {f"m{i}".encode() for i in range(6)} <= set(got), 60, "the 6 messages consumed")


@pytest.mark.parametrize(("credentials", "topic", "error"), REFUSED_SENDS)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_refused_sends_raise_at_once_and_store_nothing(
    acl_cluster: Cluster, credentials: rr.Credentials | None, topic: str, error: type[Exception], mode: str
) -> None:
    before = _stored(acl_cluster, topic)
    # 2 retries each way: a refusal that were retried would go to the other broker
    with _producer(
        acl_cluster, credentials, retry_times_when_send_failed=2, retry_times_when_send_async_failed=2
    ) as producer:
        t0 = time.monotonic()
        with pytest.raises(error) as info:
            if mode == "sync":
                producer.send(Message(topic, b"refused"))
            else:
                asyncio.run(producer.send_async(Message(topic, b"refused")))
        elapsed = time.monotonic() - t0
    e = info.value
    assert isinstance(e, rr.AccessDeniedError) and isinstance(e, PermissionError)
    assert e.request_code == RequestCode.SEND_MESSAGE_V2
    assert e.addr in {acl_cluster.broker_addr(n) for n in acl_cluster.broker_names}
    assert "SEND_MESSAGE_V2 (310) refused by " in str(e) and e.reason and e.reason in str(e)
    assert not getattr(e, "__notes__", None), "a retried send gets the 'Send [n] times' note"
    assert elapsed < 5, elapsed
    assert _stored(acl_cluster, topic) == before


@pytest.mark.parametrize(
    ("credentials", "group", "error"),
    [
        pytest.param(rr.Credentials(USER.access_key, "wrong-secret-1"), GROUP, rr.AuthenticationError, id="wrong"),
        pytest.param(None, GROUP, rr.AuthenticationError, id="no-credentials"),
        pytest.param(USER, OTHER_GROUP, rr.PermissionDeniedError, id="other-group"),
    ],
)
def test_a_refused_consumer_does_not_start(
    acl_cluster: Cluster, credentials: rr.Credentials | None, group: str, error: type[Exception]
) -> None:
    consumer = Consumer(
        acl_cluster.namesrv_addrs,
        group,
        [TOPIC],
        listener=lambda msgs, ctx: ConsumeConcurrentlyStatus.CONSUME_SUCCESS,
        credentials=credentials,
        compat=acl_cluster.compat,
    )
    with pytest.raises(error) as info:
        consumer.start()
    assert info.value.request_code == RequestCode.HEART_BEAT
    assert not consumer.running and consumer._state == "shut down"


def test_the_route_needs_no_credentials_and_names_the_refusal_not_the_route(acl_cluster: Cluster) -> None:
    """The name server does not authenticate (neither version): a producer without credentials gets the route and
    the broker's refusal, never "No route info"."""
    route = rr.client.fetch_route(acl_cluster.namesrv_addrs, TOPIC)
    assert {b.broker_name for b in route.broker_datas} == set(acl_cluster.broker_names)
    with _producer(acl_cluster, None) as producer, pytest.raises(rr.AuthenticationError) as info:
        producer.send(Message(TOPIC, b"x"))
    assert "No route info" not in str(info.value)


def test_the_production_guide_example_runs(acl_cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/guide/production.md's `<!-- test: acl-cluster -->` block, as written (its user, secret and topics are the
    ones this cluster has), against this cluster's name server."""
    from ..test_docs import ROOT, python_blocks

    (block,) = python_blocks(ROOT / "docs" / "guide" / "production.md", "acl-cluster")
    assert f'rr.Credentials("{USER.access_key}", "{USER.secret_key}")' in block and CLOSED in block
    code = block.replace("127.0.0.1:9876", ";".join(acl_cluster.namesrv_addrs))
    exec(compile(code, "production.md acl-cluster block", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "SEND_OK"
    assert lines[1].startswith("PermissionDeniedError 310 ") and CLOSED in lines[1]
