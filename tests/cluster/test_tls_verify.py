"""TLS that checks who it talks to, on Apache RocketMQ 5.5.0 with ``-Dtls.server.mode=enforcing`` (issue 52, item 7):
a server certificate from another CA is refused, one for another host is refused, the right one is accepted; from
``tls="verify"`` (the system's CA store: ``SSL_CERT_FILE`` points OpenSSL's at the test CA here), from an
``SSLContext`` with the CA and host name checks, and from the command line's ``--tls-verify``."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from typing import Any

import pytest

from rocketroute.cli import main
from rocketroute.client import Consumer, Message, Producer
from rocketroute.client.namesrv import fetch_route
from rocketroute.net.tls import tls_context

from .._tls_certs import Certs, make_certs, server_tls_options
from .harness import Cluster

pytestmark = pytest.mark.servers("apache-5.5.0")

TOPIC = "TlsVerifyTopic"


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Certs]:
    root = tmp_path_factory.mktemp("tls-verify")
    right = make_certs(root / "right")  # names 127.0.0.1 and localhost
    return {
        "right": right,
        # the same CA, a certificate for another host
        "other-host": make_certs(root / "other-host", server_names="DNS:broker.elsewhere.example", ca_of=right),
        "other-ca": make_certs(root / "other-ca"),
    }


@pytest.fixture(scope="module", params=["right", "other-host"])
def served(request: pytest.FixtureRequest, server_impl: str, certs: dict[str, Certs]) -> Iterator[tuple[str, Cluster]]:
    """A name server and a broker with TLS only, serving the ``request.param`` certificate."""
    served_certs = certs[request.param]
    options = server_tls_options(served_certs, "enforcing")
    with Cluster(1, 1, impl=server_impl, jvm_options=options, tls=served_certs.client_context()) as c:
        c.create_topic(TOPIC, 2)
        yield request.param, c


def _sends(cluster: Cluster, tls: Any) -> str:
    try:
        with Producer(
            cluster.namesrv_addrs, "pg_tls_verify", tls=tls, retry_times_when_send_failed=0, send_msg_timeout=5000
        ) as producer:
            return producer.send(Message(TOPIC, b"checked")).send_status.name
    except Exception as e:
        return f"refused: {e!r}"


def test_a_checked_connection_accepts_the_right_certificate_only(
    served: tuple[str, Cluster], certs: dict[str, Certs], monkeypatch: pytest.MonkeyPatch
) -> None:
    which, cluster = served
    right_ca = tls_context(ca_file=certs["right"].ca, check_hostname=True)
    other_ca = tls_context(ca_file=certs["other-ca"].ca, check_hostname=True)
    # another CA's trust: refused whatever the server serves (the route lookup is the first request)
    with pytest.raises(Exception, match=r"CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
        fetch_route(cluster.namesrv_addrs, TOPIC, tls=other_ca, timeout_ms=5000)
    # the right CA: a certificate naming 127.0.0.1 is accepted, one naming another host refused
    if which == "right":
        assert _sends(cluster, right_ca) == "SEND_OK"
    else:
        with pytest.raises(Exception, match=r"IP address mismatch"):
            fetch_route(cluster.namesrv_addrs, TOPIC, tls=right_ca, timeout_ms=5000)
    # tls=True: Java's test mode, any certificate (the other host's too)
    assert _sends(cluster, True) == "SEND_OK"
    # tls="verify": the system's store, which does not hold the test CA...
    monkeypatch.setenv("SSL_CERT_FILE", str(certs["other-ca"].ca))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    assert _sends(cluster, "verify").startswith("refused")
    # ... unless it does: then host names decide
    monkeypatch.setenv("SSL_CERT_FILE", str(certs["right"].ca))
    assert ssl.get_default_verify_paths().openssl_cafile_env == "SSL_CERT_FILE"
    outcome = _sends(cluster, "verify")
    assert (outcome == "SEND_OK") if which == "right" else outcome.startswith("refused"), outcome


def test_the_command_line_checks_host_names_with_tls_verify(
    served: tuple[str, Cluster], certs: dict[str, Certs], capsys: pytest.CaptureFixture[str]
) -> None:
    which, cluster = served
    ns = ";".join(cluster.namesrv_addrs)
    with Consumer(cluster.namesrv_addrs, "cg_tls_cli", [TOPIC], listener=lambda m, c: None, tls=True):
        base = ["plan", "--namesrv", ns, "--topic", TOPIC, "--group", "cg_tls_cli", "--timeout-ms", "5000"]
        ca = ["--tls-ca", str(certs["right"].ca)]
        # --tls-ca alone checks the CA, not the host: both servers pass
        assert main([*base, *ca]) == 0, capsys.readouterr().err
        code = main([*base, *ca, "--tls-verify"])
        err = capsys.readouterr().err
        assert code == (0 if which == "right" else 2), err
        code = main([*base, "--tls-ca", str(certs["other-ca"].ca)])
        assert code == 2, capsys.readouterr().err
