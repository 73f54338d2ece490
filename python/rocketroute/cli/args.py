"""What every command of the ``rocketroute`` command line parses with: the parser (a mistake in one line), the
argument types, the ``--json`` check and the progress line. Needs neither pyspark nor matplotlib."""

from __future__ import annotations

import argparse
import math
import os
import ssl
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ..errors import RocketRouteError
from ..net.tls import TLS
from ..protocol.acl import Credentials

__all__ = [
    "JAVA_INT_MAX",
    "DefaultsHelpFormatter",
    "Parser",
    "CREDENTIALS_ENV",
    "ACCESS_OPTIONS",
    "TLS_OPTIONS",
    "add_access_args",
    "given_access_options",
    "tls_from_args",
    "check_json_out",
    "credentials_from_args",
    "int_arg",
    "log",
    "positive_float_arg",
]

JAVA_INT_MAX = 2**31 - 1


class Parser(argparse.ArgumentParser):
    """The command line's parser: a mistake is one line (``rocketroute replay: error: argument --retries: ...``,
    exit 2) that points at ``--help`` instead of repeating the usage, and every help text shows its default."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Adds ``(default: X)`` to an option's help unless the help already says its default or it has none."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if default is None or default is False or default == argparse.SUPPRESS or "default" in text:
            return text
        if not action.option_strings:
            return text
        shown = f"{default:,}" if isinstance(default, int) and not isinstance(default, bool) else "%(default)s"
        return f"{text} (default: {shown})" if text else f"default: {shown}"


def int_arg(low: int, high: int = JAVA_INT_MAX) -> Callable[[str], int]:
    """An ``argparse`` type: an integer in ``[low, high]`` (a Java ``int`` unless ``high`` says otherwise), the
    mistake said in one line (``must be at least 1, not 0``)."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", ""), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, not {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low:,}, not {value:,}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, not {value:,}")
        return value

    return parse


def positive_float_arg(text: str) -> float:
    """An ``argparse`` type: a finite number above 0 (``nan``, ``inf``, 0 and negatives refused in one line)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, not {text!r}")
    return value


def check_json_out(option: str, path: str) -> None:
    """Before a run: the file ``path`` (``--json``) can be written, its folder existing (not made)."""
    target = Path(path)
    if target.is_dir():
        raise RocketRouteError(f"cannot write {option} {path!r}: it is a folder")
    parent = target.parent
    if not parent.is_dir():
        raise RocketRouteError(f"cannot write {option} {path!r}: the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise RocketRouteError(f"cannot write {option} {path!r}: permission denied")


def log(msg: str) -> None:
    """A progress line on stderr (``[rocketroute] ...``)."""
    print(f"[rocketroute] {msg}", file=sys.stderr, flush=True)


CREDENTIALS_ENV = {
    "access_key": "ROCKETROUTE_ACCESS_KEY",
    "secret_key": "ROCKETROUTE_SECRET_KEY",
    "security_token": "ROCKETROUTE_SECURITY_TOKEN",
}
"""The environment variables the credentials options fall back on (a secret there stays out of ``ps``)."""


TLS_OPTIONS = {"tls": False, "tls_verify": False, "tls_ca": None, "tls_cert": None, "tls_key": None}
"""The TLS options (argparse names) and their defaults."""
ACCESS_OPTIONS = {**dict.fromkeys(CREDENTIALS_ENV), **TLS_OPTIONS}
"""Every option of :func:`add_access_args` and its default: options that only a command asking a cluster reads."""


def given_access_options(args: argparse.Namespace) -> list[str]:
    """The :data:`ACCESS_OPTIONS` given on the command line (``--tls``, ``--access-key``, ...)."""
    return [f"--{k.replace('_', '-')}" for k, default in ACCESS_OPTIONS.items() if getattr(args, k, default) != default]


def add_access_args(p: argparse.ArgumentParser) -> None:
    """The options of a command that asks a cluster: ``--access-key``, ``--secret-key``, ``--security-token`` (an
    ACL user's keys, for clusters that check signatures; each falls back on its ``ROCKETROUTE_*`` variable:
    :data:`CREDENTIALS_ENV`) and ``--tls``, ``--tls-verify``, ``--tls-ca``, ``--tls-cert``, ``--tls-key``
    (:func:`tls_from_args`)."""
    g = p.add_argument_group(
        "credentials", "for a cluster with ACL: every request is signed as Java's AclClientRPCHook signs it"
    )
    g.add_argument("--access-key", help=f"the access key (default: ${CREDENTIALS_ENV['access_key']})")
    g.add_argument(
        "--secret-key",
        help=f"the secret key (default: ${CREDENTIALS_ENV['secret_key']}, which keeps it off the command line)",
    )
    g.add_argument("--security-token", help=f"a session's token (default: ${CREDENTIALS_ENV['security_token']})")
    t = p.add_argument_group("TLS", "for a cluster whose servers run with -Dtls.server.mode=enforcing or permissive")
    t.add_argument(
        "--tls", action="store_true", help="connect with TLS, trusting any server certificate (Java's default)"
    )
    t.add_argument(
        "--tls-verify",
        action="store_true",
        help="check the servers' certificates and host names, against --tls-ca or the system's CAs (implies --tls)",
    )
    t.add_argument("--tls-ca", metavar="PEM", help="check the servers' certificates against this CA (implies --tls)")
    t.add_argument("--tls-cert", metavar="PEM", help="this client's certificate, for servers that ask for one")
    t.add_argument("--tls-key", metavar="PEM", help="the key of --tls-cert (PKCS#8 or PKCS#1, not encrypted)")


def tls_from_args(args: argparse.Namespace) -> TLS:
    """What ``tls=`` gets from the TLS options: ``None`` (plain), ``True`` (``--tls`` alone), ``"verify"``
    (``--tls-verify`` alone: the system's CAs and the host name) or a context from the PEM files (host names checked
    with ``--tls-verify``); a file that cannot be read is refused in one line."""
    ca, cert, key = (getattr(args, k, None) for k in ("tls_ca", "tls_cert", "tls_key"))
    verify = bool(getattr(args, "tls_verify", False))
    if ca is None and cert is None and key is None:
        if verify:
            return "verify"
        return True if getattr(args, "tls", False) else None
    from ..net.tls import tls_context

    try:
        return tls_context(ca_file=ca, cert_file=cert, key_file=key, check_hostname=verify)
    except ValueError as e:
        raise RocketRouteError(str(e).replace("cert_file and key_file", "--tls-cert and --tls-key")) from None
    except (OSError, ssl.SSLError) as e:
        raise RocketRouteError(f"cannot load the TLS files: {e}") from None


def credentials_from_args(args: argparse.Namespace) -> Credentials | None:
    """The :class:`~rocketroute.Credentials` of the options (or their variables), ``None`` when neither key is
    given; one key without the other is refused in one line."""
    values = {name: getattr(args, name, None) or os.environ.get(env) or None for name, env in CREDENTIALS_ENV.items()}
    if values["access_key"] is None and values["secret_key"] is None:
        if values["security_token"] is not None:
            raise RocketRouteError("--security-token needs --access-key and --secret-key")
        return None
    if values["access_key"] is None or values["secret_key"] is None:
        raise RocketRouteError(
            f"--access-key and --secret-key go together (or ${CREDENTIALS_ENV['access_key']} and "
            f"${CREDENTIALS_ENV['secret_key']})"
        )
    return Credentials(values["access_key"], values["secret_key"], values["security_token"])
