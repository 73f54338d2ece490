"""TLS on the remoting connections (Java's ``ClientConfig.useTLS`` / ``NettyClientConfig.useTLS``).

``tls=`` on the clients (:class:`~rocketroute.remoting.RemotingClient`, ``Producer``, ``Consumer``,
``fetch_route``) takes:

- ``None`` or ``False``: plain TCP (the default, as Java's);
- ``True``: TLS as Java's client does it by default (``tls.test.mode.enable=true``): the server's certificate is not
  checked (any certificate is trusted, the host name is not matched), no client certificate;
- an :class:`ssl.SSLContext`: used as it is: a custom CA, a client certificate and key (a server with
  ``tls.server.need.client.auth=require``), host name checks. :func:`tls_context` makes one from PEM files.

Apache's servers switch TLS on with ``-Dtls.server.mode=enforcing`` (TLS only; a plain connection is closed at its
first bytes) or ``permissive`` (both). A plain client whose connection a server closes before answering anything
is told that the server may require TLS.
"""

from __future__ import annotations

import os
import ssl

__all__ = ["TLS", "check_tls", "tls_context"]

TLS = bool | ssl.SSLContext | None
"""What ``tls=`` takes."""


def tls_context(
    *,
    ca_file: str | os.PathLike[str] | None = None,
    cert_file: str | os.PathLike[str] | None = None,
    key_file: str | os.PathLike[str] | None = None,
    password: str | None = None,
    check_hostname: bool = False,
) -> ssl.SSLContext:
    """A client :class:`ssl.SSLContext` from PEM files (Java's ``tls.client.trustCertPath``,
    ``tls.client.certPath``, ``tls.client.keyPath``, ``tls.client.keyPassword``).

    - ``ca_file``: the certificates the server's must chain to; without it the server's certificate is not checked
      (Java's test mode).
    - ``cert_file`` / ``key_file`` (and the key's ``password``): the client's certificate, for a server that asks
      for one.
    - ``check_hostname``: match the server's certificate to the address's host (off by default: Java's client does
      not check it; brokers are reached at the address they register, often an IP the certificate does not name).
    """
    if (cert_file is None) != (key_file is None):
        raise ValueError("a client certificate needs its key: give both cert_file and key_file, or neither")
    if check_hostname and ca_file is None:
        raise ValueError("check_hostname needs ca_file: a host name is only worth checking on a verified certificate")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if ca_file is not None:
        ctx.load_verify_locations(cafile=os.fspath(ca_file))
        ctx.check_hostname = check_hostname
        ctx.verify_mode = ssl.CERT_REQUIRED
    else:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if cert_file is not None and key_file is not None:
        ctx.load_cert_chain(os.fspath(cert_file), os.fspath(key_file), password)
    return ctx


def check_tls(tls: object) -> ssl.SSLContext | None:
    """The context a client connects with for ``tls`` (see the module), or ``None`` for plain TCP."""
    if tls is None or tls is False:
        return None
    if tls is True:
        return tls_context()
    if isinstance(tls, ssl.SSLContext):
        if tls.protocol == ssl.PROTOCOL_TLS_SERVER:
            raise ValueError("tls= takes a client context (ssl.PROTOCOL_TLS_CLIENT), not a server one")
        return tls
    raise TypeError(f"tls must be a bool or an ssl.SSLContext, not {type(tls).__name__}")
