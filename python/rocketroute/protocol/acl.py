"""Signed requests, as Java's ``AclClientRPCHook`` signs them (RocketMQ's ACL: 4.x ``plain_acl.yml`` users, 5.x
ACL 2.0 users): :class:`Credentials` and :func:`sign_request`.

Java 5.x's hook, run on every request a client sends (name servers and brokers alike), just before it is written:

1. the ext fields get ``AccessKey`` (and ``SecurityToken`` when the credentials have one);
2. the content is the values of every ext field but ``Signature``, in the order of their names (Java's
   ``TreeMap``: ``String.compareTo``, UTF-16 code units), concatenated and encoded in UTF-8, then the body;
3. ``Signature`` = Base64(HMAC-SHA1(secret key in UTF-8, content)).

Signing a request twice (a retry) gives the same ext fields: ``Signature`` is never part of the content.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..reference.java import java_string_key, java_utf8
from .command import RemotingCommand

__all__ = [
    "ACCESS_KEY",
    "SECURITY_TOKEN",
    "SIGNATURE",
    "Credentials",
    "check_credentials",
    "request_content",
    "sign_request",
    "signature",
]

ACCESS_KEY = "AccessKey"
SECURITY_TOKEN = "SecurityToken"
SIGNATURE = "Signature"


@dataclass(frozen=True, slots=True)
class Credentials:
    """An ACL user's keys (Java's ``SessionCredentials``): ``access_key``, ``secret_key`` and an optional
    ``security_token`` (a temporary credential's token, sent as is). The secret never leaves the process: only
    the signature it makes is sent, and ``repr`` does not show it."""

    access_key: str
    secret_key: str = field(repr=False)
    security_token: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for name in ("access_key", "secret_key"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"Credentials.{name} must be a str, not {type(value).__name__}")
            if not value:
                raise ValueError(f"Credentials.{name} is empty")
        token = self.security_token
        if token is not None and not isinstance(token, str):
            raise TypeError(f"Credentials.security_token must be a str or None, not {type(token).__name__}")


def check_credentials(credentials: object) -> Credentials | None:
    """``credentials`` as a client takes it: a :class:`Credentials` or ``None``, anything else a ``TypeError``."""
    if credentials is not None and not isinstance(credentials, Credentials):
        raise TypeError(f"credentials must be a rocketroute.Credentials, not {type(credentials).__name__}")
    return credentials


def request_content(ext_fields: Mapping[str, str], body: bytes | None) -> bytes:
    """What is signed: the values of ``ext_fields`` but ``Signature``, in the order of their names, in UTF-8,
    then ``body`` (Java's ``AclUtils.combineRequestContent``: ``getBytes(UTF_8)``, so a lone surrogate is ``?``,
    as in the header the server reads)."""
    values = "".join(ext_fields[k] for k in sorted(ext_fields, key=java_string_key) if k != SIGNATURE)
    return java_utf8(values) + (body or b"")


def signature(content: bytes, secret_key: str) -> str:
    """Base64(HMAC-SHA1(``secret_key``, ``content``)) (Java's ``AclSigner.calSignature``)."""
    digest = hmac.new(java_utf8(secret_key), content, hashlib.sha1).digest()
    return base64.b64encode(digest).decode("ascii")


def sign_request(request: RemotingCommand, credentials: Credentials) -> None:
    """``AclClientRPCHook.doBeforeRequest``: add ``AccessKey`` (``SecurityToken``) and ``Signature`` to
    ``request``'s ext fields."""
    ext = request.ext_fields
    ext[ACCESS_KEY] = credentials.access_key
    if credentials.security_token is not None:
        ext[SECURITY_TOKEN] = credentials.security_token
    ext[SIGNATURE] = signature(request_content(ext, request.body), credentials.secret_key)
