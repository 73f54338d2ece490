"""``tls=``: what the clients take (:mod:`rocketroute.net.tls`), TLS against a Python TLS peer, and the one-line
hints when one side speaks TLS and the other does not. Apache's servers with TLS on: tests/cluster/test_tls.py."""

from __future__ import annotations

import asyncio
import re
import ssl
from pathlib import Path

import pytest

from rocketroute.client import Consumer, Producer
from rocketroute.net import AsyncRemotingClient
from rocketroute.net.tls import check_tls, tls_context
from rocketroute.protocol import RemotingCommand, RemotingConnectError, RemotingError
from rocketroute.protocol.frame import FrameDecoder, encode_frame

from .._tls_certs import Certs, make_certs
from ..client._fake_cluster import FakeCluster


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("tls-unit") / "certs")


def test_what_tls_takes():
    assert check_tls(None) is None and check_tls(False) is None
    java_default = check_tls(True)
    assert java_default.verify_mode == ssl.CERT_NONE and not java_default.check_hostname  # Java's test mode
    ctx = ssl.create_default_context()
    assert check_tls(ctx) is ctx
    with pytest.raises(ValueError, match=r'tls takes True, "verify", an ssl\.SSLContext or None, not \'yes\''):
        check_tls("yes")
    verified = check_tls("verify")  # the system's CA store, the host name matched
    assert verified.verify_mode == ssl.CERT_REQUIRED and verified.check_hostname
    with pytest.raises(TypeError, match=r'tls must be a bool, "verify" or an ssl\.SSLContext, not int'):
        check_tls(1)
    with pytest.raises(ValueError, match="not a server one"):
        check_tls(ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER))
    with pytest.raises(TypeError, match="tls must be"):
        Producer("127.0.0.1:9876", "PG", tls=1)
    with pytest.raises(ValueError, match="tls takes"):
        Consumer("127.0.0.1:9876", "CG", ["T"], tls="on")


def test_tls_context_from_pem_files(certs: Certs):
    ctx = tls_context(ca_file=certs.ca, cert_file=certs.client_cert, key_file=certs.client_key)
    assert ctx.verify_mode == ssl.CERT_REQUIRED and not ctx.check_hostname
    assert tls_context(ca_file=certs.ca, check_hostname=True).check_hostname
    with pytest.raises(ValueError, match="needs its key"):
        tls_context(cert_file=certs.client_cert)
    system = tls_context(check_hostname=True)  # no ca_file: the system's CA store
    assert system.verify_mode == ssl.CERT_REQUIRED and system.check_hostname


@pytest.mark.parametrize(
    ("given", "names", "what"),
    [
        ({"ca_file": "missing-ca.pem"}, "ca_file", "the CA certificates the server's certificate must chain to"),
        ({"cert_file": "missing-cert.pem", "key_file": "KEY"}, "cert_file", "the client's certificate"),
        ({"cert_file": "CERT", "key_file": "missing-key.pem"}, "key_file", "the client certificate's private key"),
    ],
)
def test_a_missing_pem_file_is_named_with_what_it_was_for(certs: Certs, tmp_path: Path, given, names, what):
    files = {"KEY": str(certs.client_key), "CERT": str(certs.client_cert)}
    kwargs = {k: files.get(v, str(tmp_path / v)) for k, v in given.items()}
    missing = kwargs[names]
    with pytest.raises(FileNotFoundError) as info:
        tls_context(**kwargs)
    assert str(info.value) == f"[Errno 2] No such file or directory: tls_context's {names} ({what}): {missing!r}"
    assert info.value.filename == missing


def test_a_pem_file_that_is_not_one_is_named(certs: Certs, tmp_path: Path):
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(ssl.SSLError, match=re.escape(f"tls_context(ca_file={str(junk)!r}): no PEM CA certificate")):
        tls_context(ca_file=junk)
    with pytest.raises(ssl.SSLError, match=re.escape(f"tls_context(cert_file={str(junk)!r}, key_file=")):
        tls_context(cert_file=junk, key_file=certs.client_key)
    with pytest.raises(IsADirectoryError, match="tls_context's ca_file"):
        tls_context(ca_file=tmp_path)


def test_tls_true_says_once_per_client_that_certificates_are_not_checked(caplog):
    import logging

    from rocketroute.net import RemotingClient

    for tls, warned in ((True, 1), ("verify", 0), (tls_context(), 0), (None, 0)):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="rocketroute.net"), RemotingClient(tls=tls):
            pass
        said = [r for r in caplog.records if "without checking the servers' certificates" in r.getMessage()]
        assert len(said) == warned, (tls, [r.getMessage() for r in caplog.records])


async def _peer(certs: Certs | None, *, require_cert: bool = False) -> asyncio.AbstractServer:
    """A peer that answers every request with SUCCESS, over TLS when ``certs`` are given."""
    server_ctx = None
    if certs is not None:
        server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_ctx.load_cert_chain(certs.server_cert, certs.server_key)
        if require_cert:
            server_ctx.load_verify_locations(certs.ca)
            server_ctx.verify_mode = ssl.CERT_REQUIRED

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decoder = FrameDecoder()
        try:
            while data := await reader.read(65536):
                for cmd in decoder.feed(data):
                    writer.write(encode_frame(RemotingCommand.response_to(cmd, 0, "ok")))
        except (ConnectionError, ssl.SSLError, ValueError):
            pass
        finally:
            writer.close()

    return await asyncio.start_server(serve, "127.0.0.1", 0, ssl=server_ctx)


def _run(certs: Certs | None, tls: object, *, require_cert: bool = False) -> RemotingCommand:
    async def main() -> RemotingCommand:
        server = await _peer(certs, require_cert=require_cert)
        addr = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
        client = AsyncRemotingClient(tls=tls, connect_timeout_ms=2000)
        try:
            return await client.invoke(addr, RemotingCommand.request(105, {"topic": "T"}), 2000)
        finally:
            await client.close()
            server.close()

    return asyncio.run(main())


@pytest.mark.parametrize("tls", ["java-default", "verified", "verified-with-cert"])
def test_requests_over_tls(certs: Certs, tls: str):
    ctx = {
        "java-default": True,
        "verified": certs.client_context(with_cert=False),
        "verified-with-cert": certs.client_context(),
    }[tls]
    assert _run(certs, ctx, require_cert=tls == "verified-with-cert").remark == "ok"


def test_a_server_certificate_from_another_ca_is_refused_when_checked(certs: Certs, tmp_path: Path):
    other = make_certs(tmp_path / "other")
    with pytest.raises(RemotingConnectError, match=r"TLS handshake failed: .*CERTIFICATE_VERIFY_FAILED"):
        _run(certs, other.client_context(with_cert=False))


def test_a_tls_client_to_a_plain_peer_says_so_in_one_line():
    with pytest.raises(RemotingConnectError) as info:
        _run(None, True)
    message = str(info.value)
    assert "does the server speak TLS?" in message and "\n" not in message, message


def test_a_plain_client_to_a_tls_peer_says_so_in_one_line(certs: Certs):
    with pytest.raises(RemotingError) as info:
        _run(certs, None)
    message = str(info.value)
    assert "does the server require TLS? tls=True" in message and "\n" not in message, message


def test_clients_of_one_instance_must_have_the_same_tls():
    same = {"instance_name": "shared-tls", "client_ip": "10.1.2.3"}
    with FakeCluster() as cluster, Producer(cluster.namesrv_addr, "PG1", **same):
        with pytest.raises(ValueError, match="tls"):
            Producer(cluster.namesrv_addr, "PG2", tls=True, **same).start()


def test_the_command_line_tls_options(certs: Certs, tmp_path: Path):
    import argparse

    from rocketroute.cli.args import tls_from_args
    from rocketroute.errors import RocketRouteError

    def args(**kw: object) -> argparse.Namespace:
        return argparse.Namespace(
            **{"tls": False, "tls_verify": False, "tls_ca": None, "tls_cert": None, "tls_key": None, **kw}
        )

    assert tls_from_args(args()) is None
    assert tls_from_args(args(tls=True)) is True
    assert tls_from_args(args(tls_verify=True)) == "verify"
    checked = tls_from_args(args(tls_verify=True, tls_ca=str(certs.ca)))
    assert isinstance(checked, ssl.SSLContext) and checked.check_hostname
    assert not tls_from_args(args(tls_ca=str(certs.ca))).check_hostname  # --tls-ca alone: the CA, not the host
    ctx = tls_from_args(args(tls_ca=str(certs.ca), tls_cert=str(certs.client_cert), tls_key=str(certs.client_key)))
    assert isinstance(ctx, ssl.SSLContext) and ctx.verify_mode == ssl.CERT_REQUIRED
    with pytest.raises(RocketRouteError, match="give both --tls-cert and --tls-key"):
        tls_from_args(args(tls_cert=str(certs.client_cert)))
    with pytest.raises(RocketRouteError, match="cannot load the TLS files"):
        tls_from_args(args(tls_ca=str(tmp_path / "missing.pem")))


def test_the_live_plan_connects_with_tls_and_the_offline_commands_refuse_it(certs: Certs, capsys, tmp_path: Path):
    """``plan --namesrv ... --tls-ca --tls-cert --tls-key`` against a TLS peer would need a name server; here the
    options reach the client: a plain peer is answered with the one-line TLS hint, and an offline plan refuses
    them."""
    import argparse

    from rocketroute.cli import main

    with FakeCluster() as cluster:
        cluster.topic("T", queues=4)
        argv = ["plan", "--namesrv", cluster.namesrv_addr, "--topic", "T", "--group", "G", "--timeout-ms", "2000"]
        assert main([*argv, "--tls"]) == 2  # the fake cluster speaks plain TCP
        assert "does the server speak TLS?" in capsys.readouterr().err
        main(argv)
        assert "does the server speak TLS?" not in capsys.readouterr().err
    capsys.readouterr()
    offline = ["plan", "--load", str(tmp_path / "load.csv"), "--topic", "T", "--out", str(tmp_path / "o")]
    assert main([*offline, "--tls"]) == 2
    assert "--tls: only for the live plan" in capsys.readouterr().err
    from rocketroute.errors import RocketRouteError
    from rocketroute.spark.cli.common import queue_spec_from_args

    route_args = argparse.Namespace(namesrv=None, topic="T", queues=4, route=None, compat="5.3", tls_ca=str(certs.ca))
    with pytest.raises(RocketRouteError, match="--tls-ca: only with --namesrv"):
        queue_spec_from_args(route_args)


def test_tls_false_and_none_are_the_same_plain_connection_in_one_instance():
    same = {"instance_name": "shared-plain", "client_ip": "10.1.2.3"}
    with FakeCluster() as cluster, Producer(cluster.namesrv_addr, "PG1", tls=False, **same) as first:
        with Producer(cluster.namesrv_addr, "PG2", tls=None, **same) as second:
            assert second.instance is first.instance
