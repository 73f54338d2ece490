"""Issue 29, TLS: ``tls=`` on the clients against Apache's name server and broker with TLS switched on
(``-Dtls.server.mode=...``, ``TlsSystemConfig``) and certificates made here by openssl (``tls_certs.py``).

- ``enforcing``, client certificates required: a client with the CA and a client certificate sends, consumes and
  reads routes; ``tls=True`` (no certificate) and a plain client are refused, the plain one told in one line that
  the server may require TLS.
- ``enforcing``, no client authentication: ``tls=True`` (Java's default: any server certificate trusted) and a
  client that checks the server's certificate against the CA both work; a plain one is refused.
- ``permissive``: TLS and plain clients side by side.

The broker reaches the name server over TLS too (enforcing mode), with the client certificate."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, Message, Producer
from rocketroute.protocol import RemotingError

from .._tls_certs import Certs, make_certs, server_tls_options
from .harness import Cluster
from .test_consumer import FAST, wait_until

pytestmark = pytest.mark.servers("apache-5.5.0", "apache-4.9.7")

TOPIC = "TlsTopic"
MODES = {
    "enforcing-client-auth": ("enforcing", "require"),
    "enforcing": ("enforcing", "none"),
    "permissive": ("permissive", "none"),
}


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("tls") / "certs")


@pytest.fixture(scope="module", params=list(MODES))
def tls_cluster(request: pytest.FixtureRequest, server_impl: str, certs: Certs) -> Iterator[tuple[str, Cluster]]:
    mode, client_auth = MODES[request.param]
    options = server_tls_options(certs, mode, need_client_auth=client_auth)
    with Cluster(1, 1, impl=server_impl, jvm_options=options, tls=certs.client_context()) as c:
        c.create_topic(TOPIC, 2)
        yield request.param, c


def _send(cluster: Cluster, tls: Any) -> str:
    with Producer(
        cluster.namesrv_addrs, "pg_tls", tls=tls, compat=cluster.compat, retry_times_when_send_failed=0
    ) as producer:
        return producer.send(Message(TOPIC, b"over tls" if tls else b"in the clear")).send_status.name


def test_a_client_with_the_ca_and_its_certificate_sends_consumes_and_reads_routes(
    tls_cluster: tuple[str, Cluster], certs: Certs
) -> None:
    _, cluster = tls_cluster
    ctx = certs.client_context()  # the server's certificate checked against the CA, the client's presented
    route = rr.client.fetch_route(cluster.namesrv_addrs, TOPIC, tls=ctx)
    assert [b.broker_name for b in route.broker_datas] == ["broker-a"]
    body = f"tls {time.monotonic_ns()}".encode()
    with Producer(cluster.namesrv_addrs, "pg_tls", tls=ctx, compat=cluster.compat) as producer:
        assert producer.send(Message(TOPIC, body)).send_status.name == "SEND_OK"
    got: list[bytes] = []

    def listener(msgs: list[Any], context: Any) -> Any:
        got.extend(m.body for m in msgs)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    with Consumer(
        cluster.namesrv_addrs,
        f"cg_tls_{time.monotonic_ns()}",
        [TOPIC],
        listener=listener,
        tls=ctx,
        compat=cluster.compat,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        **FAST,
    ):
        wait_until(lambda: body in got, 60, "the message consumed over TLS")


def test_tls_true_trusts_any_server_certificate(tls_cluster: tuple[str, Cluster]) -> None:
    """``tls=True``: Java's default client TLS (test mode): no check of the server, no client certificate. A
    server that requires client certificates refuses it, and says so."""
    name, cluster = tls_cluster
    if name == "enforcing-client-auth":
        with pytest.raises(rr.SendFailedError) as info:
            _send(cluster, True)
        assert "certificate" in str(info.value).lower(), info.value
    else:
        assert _send(cluster, True) == "SEND_OK"


def test_a_plain_client(tls_cluster: tuple[str, Cluster]) -> None:
    """Refused by an enforcing server (closed at its first bytes) with a one-line hint; served by a permissive
    one."""
    name, cluster = tls_cluster
    if name == "permissive":
        assert _send(cluster, None) == "SEND_OK"
        assert rr.client.fetch_route(cluster.namesrv_addrs, TOPIC).broker_datas
        return
    with pytest.raises(RemotingError) as info:
        rr.client.fetch_route(cluster.namesrv_addrs, TOPIC)
    message = str(info.value)
    assert "does the server require TLS? tls=True" in message and "\n" not in message, message
    with pytest.raises(rr.SendFailedError, match="does the server require TLS"):
        _send(cluster, None)


@pytest.mark.parametrize("tls_cluster", ["enforcing-client-auth"], indirect=True)
def test_the_production_guide_example_runs(
    tls_cluster: tuple[str, Cluster], certs: Certs, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/guide/production.md's `<!-- test: tls-cluster -->` block, with this test's CA and client certificate, on the
    servers that ask for the client's certificate."""
    from ..test_docs import ROOT, python_blocks

    _, cluster = tls_cluster
    (block,) = python_blocks(ROOT / "docs" / "guide" / "production.md", "tls-cluster")
    code = block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs)).replace("TopicTest", TOPIC)
    for file, path in (("ca.pem", certs.ca), ("client.pem", certs.client_cert), ("client.key", certs.client_key)):
        code = code.replace(f'"{file}"', repr(str(path)))
    exec(compile(code, "production.md tls-cluster block", "exec"), {})
    assert capsys.readouterr().out == "SEND_OK\n"
