"""Certificates for the TLS tests (tests/net/test_tls.py, tests/cluster/test_tls.py), made by Debian's
``openssl`` in a temp dir: a CA, a server certificate for 127.0.0.1 / localhost and a client certificate, both
signed by the CA (RSA 2048, PEM, keys in PKCS#8 as Netty reads them); and the JVM options that switch TLS on in
Apache's name servers and brokers (``TlsSystemConfig``)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rocketroute.net.tls import tls_context

__all__ = ["Certs", "make_certs", "server_tls_options"]


@dataclass(frozen=True)
class Certs:
    dir: Path
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path

    def client_context(self, *, with_cert: bool = True, verify: bool = True):  # type: ignore[no-untyped-def]
        """A client context: the server's certificate checked against the CA (``verify``), the client
        certificate presented (``with_cert``)."""
        return tls_context(
            ca_file=self.ca if verify else None,
            cert_file=self.client_cert if with_cert else None,
            key_file=self.client_key if with_cert else None,
        )


def _openssl(*args: str, cwd: Path) -> None:
    openssl = shutil.which("openssl")
    assert openssl, "the TLS tests make their certificates with openssl (Debian's openssl package)"
    subprocess.run([openssl, *args], cwd=cwd, check=True, capture_output=True)


def make_certs(
    directory: Path, *, server_names: str = "IP:127.0.0.1,DNS:localhost", ca_of: Certs | None = None
) -> Certs:
    """A CA and its server and client certificates in ``directory``; the server's names the hosts
    ``server_names`` (a subjectAltName value). ``ca_of``: sign with that set's CA instead of a new one."""
    d = directory
    d.mkdir(parents=True, exist_ok=True)
    if ca_of is None:
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                 "-subj", "/CN=rocketroute test CA", cwd=d)  # fmt: skip
    else:
        shutil.copy(ca_of.ca, d / "ca.pem")
        shutil.copy(ca_of.dir / "ca.key", d / "ca.key")
    for name, ext in (
        ("server", f"subjectAltName={server_names}\nextendedKeyUsage=serverAuth,clientAuth\n"),
        ("client", "extendedKeyUsage=clientAuth,serverAuth\n"),
    ):
        (d / f"{name}.ext").write_text(ext)
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj",
                 f"/CN=rocketroute test {name}", cwd=d)  # fmt: skip
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=d)  # fmt: skip
    return Certs(d, d / "ca.pem", d / "server.pem", d / "server.key", d / "client.pem", d / "client.key")


def server_tls_options(certs: Certs, mode: str, *, need_client_auth: str = "none") -> list[str]:
    """``-D`` options of Apache's ``TlsSystemConfig`` for a server in ``mode`` (``enforcing``: TLS only;
    ``permissive``: TLS and plain) with the test certificates (not its "test mode", which would make a self-signed
    certificate at start): clients are asked for a certificate per ``need_client_auth`` (``none``, ``optional``,
    ``require``) and one is checked against the CA. A broker's own client (to the name servers) uses TLS in
    ``enforcing`` mode, with the client certificate."""
    return [
        f"-Dtls.server.mode={mode}",
        "-Dtls.test.mode.enable=false",
        f"-Dtls.server.certPath={certs.server_cert}",
        f"-Dtls.server.keyPath={certs.server_key}",
        f"-Dtls.server.need.client.auth={need_client_auth}",
        "-Dtls.server.authClient=true",
        f"-Dtls.server.trustCertPath={certs.ca}",
        f"-Dtls.client.certPath={certs.client_cert}",
        f"-Dtls.client.keyPath={certs.client_key}",
        "-Dtls.client.authServer=true",
        f"-Dtls.client.trustCertPath={certs.ca}",
    ]
