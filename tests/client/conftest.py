"""Fixtures of the client tests that talk to one fake broker over TCP (``_fake_cluster.FakeBroker``) through a real
remoting client: the request layer (``test_api``) and the consumer's parts built alone (``test_puller``,
``test_consume_services``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rocketroute.net import RemotingClient

from ._fake_cluster import FakeBroker


@pytest.fixture
def broker() -> Iterator[FakeBroker]:
    """A fake master broker ``broker-a``, closed after the test."""
    b = FakeBroker("broker-a")
    yield b
    b.close()


@pytest.fixture
def client() -> Iterator[RemotingClient]:
    """A remoting client with its own loop thread, closed after the test."""
    with RemotingClient() as c:
        yield c
