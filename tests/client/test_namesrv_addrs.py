"""Name server lists: ``"host:port;host:port"`` as Java's ``namesrvAddr``. A ``,`` (another client's habit) is
refused where the list is given, with the ``;`` string as the hint: every client and ``fetch_route`` go through
the one parser, ``rocketroute.client.namesrv.parse_namesrv_addrs`` (the CLI's ``--namesrv``:
tests/test_cli_bench_args.py)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import fetch_route, parse_namesrv_addrs

COMMA = "127.0.0.1:9876,127.0.0.1:9877"
SAYS = re.escape(
    "name server addresses are separated by ';' (as Java's namesrvAddr), not ',': "
    "'127.0.0.1:9876,127.0.0.1:9877'; did you mean '127.0.0.1:9876;127.0.0.1:9877'?"
)


def _aio(cls: type, *args: Any) -> Callable[[str], Any]:
    async def make(namesrv: str) -> Any:
        return cls(namesrv, *args)

    return lambda namesrv: asyncio.run(make(namesrv))


MAKERS: dict[str, Callable[[str], Any]] = {
    "parse_namesrv_addrs": parse_namesrv_addrs,
    "Producer": lambda ns: rr.Producer(ns, "PG"),
    "TransactionProducer": lambda ns: rr.client.TransactionProducer(
        ns, "PG", executor=lambda m, a: None, checker=lambda m: None
    ),
    "Consumer": lambda ns: rr.Consumer(ns, "CG", ["T"], listener=lambda msgs: None),
    "aio.Producer": _aio(rr.aio.Producer, "PG"),
    "aio.Consumer": _aio(rr.aio.Consumer, "CG", ["T"]),
    "fetch_route": lambda ns: fetch_route(ns, "T", timeout_ms=100),
}


@pytest.mark.parametrize("made_by", list(MAKERS))
@pytest.mark.parametrize("namesrv", [COMMA, f" {COMMA} ", [COMMA]])
def test_a_comma_is_refused_with_the_semicolon_string(made_by, namesrv):
    with pytest.raises(ValueError, match=SAYS):
        MAKERS[made_by](namesrv)


def test_a_comma_among_semicolons_names_the_entry():
    with pytest.raises(ValueError, match=re.escape("not ',': 'b:2, c:3'; did you mean 'b:2;c:3'?")):
        parse_namesrv_addrs("a:1;b:2, c:3")


def test_semicolons_and_lists_are_the_java_forms():
    assert parse_namesrv_addrs("127.0.0.1:9876;127.0.0.1:9877") == ["127.0.0.1:9876", "127.0.0.1:9877"]
    assert parse_namesrv_addrs(" 127.0.0.1:9876 ; 127.0.0.1:9877 ;") == ["127.0.0.1:9876", "127.0.0.1:9877"]
    assert parse_namesrv_addrs(["127.0.0.1:9876", "127.0.0.1:9877"]) == ["127.0.0.1:9876", "127.0.0.1:9877"]
