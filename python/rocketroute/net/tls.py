"""TLS on the remoting connections (Java's ``ClientConfig.useTLS`` / ``NettyClientConfig.useTLS``).

``tls=`` on the clients (:class:`~rocketroute.net.RemotingClient`, ``Producer``, ``Consumer``,
``fetch_route``) takes:

- ``None`` or ``False``: plain TCP (the default, as Java's);
- ``True``: TLS as Java's client does it by default (``tls.test.mode.enable=true``): the server's certificate is not
  checked (any certificate is trusted, the host name is not matched), no client certificate. A man in the middle is
  not noticed: each client instance made with it says so once in a WARNING;
- ``"verify"``: TLS with the server's certificate checked against the system's CA store and matched to the host of
  the address (a broker reached at 127.0.0.1 needs a certificate that names that IP);
- an :class:`ssl.SSLContext`: used as it is: a custom CA, a client certificate and key (a server with
  ``tls.server.need.client.auth=require``), host name checks. :func:`tls_context` makes one from PEM files.

Apache's servers switch TLS on with ``-Dtls.server.mode=enforcing`` (TLS only; a plain connection is closed at its
first bytes) or ``permissive`` (both). A plain client whose connection a server closes before answering anything
is told that the server may require TLS.
"""

from __future__ import annotations

import os
import ssl
from typing import Literal

from ..loggers import get_logger

__all__ = ["TLS", "VERIFY", "check_tls", "tls_context", "warn_unchecked"]

VERIFY = "verify"
"""``tls="verify"``: the server's certificate checked against the system's CAs, and its host name."""

TLS = bool | Literal["verify"] | ssl.SSLContext | None
"""What ``tls=`` takes."""

log = get_logger("net")


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

    - ``ca_file``: the certificates the server's must chain to; without it (and without ``check_hostname``) the
      server's certificate is not checked (Java's test mode).
    - ``cert_file`` / ``key_file`` (and the key's ``password``): the client's certificate, for a server that asks
      for one.
    - ``check_hostname``: check the server's certificate (against ``ca_file``, else the system's CA store) and match
      it to the address's host (off by default: Java's client does not check it; brokers are reached at the address
      they register, often an IP the certificate does not name). ``tls="verify"`` is this without files.

    A file that does not open raises what ``open`` raises (``FileNotFoundError``, ``PermissionError``,
    ``IsADirectoryError``), its message naming the argument, what the file is for and the file (also in
    ``filename``); one that opens but is not PEM (or a key the ``password`` does not open) raises
    :class:`ssl.SSLError` naming the arguments and their files.
    """
    if (cert_file is None) != (key_file is None):
        raise ValueError("a client certificate needs its key: give both cert_file and key_file, or neither")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if ca_file is not None or check_hostname:
        if ca_file is not None:
            ca = _readable("ca_file", ca_file, "the CA certificates the server's certificate must chain to")
            try:
                ctx.load_verify_locations(cafile=ca)
            except ssl.SSLError as e:
                raise ssl.SSLError(e.errno, f"tls_context(ca_file={ca!r}): no PEM CA certificate in it: {e}") from e
        else:
            ctx.load_default_certs(ssl.Purpose.SERVER_AUTH)
        ctx.check_hostname = check_hostname
        ctx.verify_mode = ssl.CERT_REQUIRED
    else:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if cert_file is not None and key_file is not None:
        cert = _readable("cert_file", cert_file, "the client's certificate")
        key = _readable("key_file", key_file, "the client certificate's private key")
        try:
            ctx.load_cert_chain(cert, key, password)
        except ssl.SSLError as e:
            raise ssl.SSLError(
                e.errno,
                f"tls_context(cert_file={cert!r}, key_file={key!r}): not a PEM certificate and its private key (or "
                f"the password does not open the key): {e}",
            ) from e
    return ctx


def _readable(name: str, path: str | os.PathLike[str], what: str) -> str:
    """``path`` as a string, once it opens for reading; else the ``OSError`` ``open`` raised (``FileNotFoundError``,
    ``PermissionError``, ``IsADirectoryError``, ...), saying which argument named the file and what it is for
    (OpenSSL's own error names neither)."""
    text = os.fspath(path)
    try:
        with open(text, "rb"):
            pass
    except OSError as e:
        raise type(e)(e.errno, f"{e.strerror}: tls_context's {name} ({what})", text) from None
    return text


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
    if isinstance(tls, str):
        if tls == VERIFY:
            return tls_context(check_hostname=True)
        raise ValueError(f'tls takes True, "verify", an ssl.SSLContext or None, not {tls!r}')
    raise TypeError(f'tls must be a bool, "verify" or an ssl.SSLContext, not {type(tls).__name__}')


def warn_unchecked(tls: object, what: str) -> None:
    """One WARNING for a client made with ``tls=True``: its servers' certificates are not checked."""
    if tls is True:
        log.warning(
            "%s: tls=True connects without checking the servers' certificates (Java's default, its test mode): a man "
            'in the middle is not noticed; tls="verify" checks them against the system\'s CAs and the host name, or '
            "pass an ssl.SSLContext (rocketroute.net.tls.tls_context(ca_file=..., check_hostname=True))",
            what,
        )
