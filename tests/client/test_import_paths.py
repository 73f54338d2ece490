"""The client's old import paths keep working after the move into the producer/ and consumer/ packages: each old
module name is the new module object itself (so a monkeypatch or an isinstance check through either name sees the
same thing), and the names users imported from it are still there."""

from __future__ import annotations

import importlib

import pytest

MOVED = {
    "rocketroute.client.send_result": "rocketroute.client.producer.send_result",
    "rocketroute.client.route_change": "rocketroute.client.producer.route_change",
    "rocketroute.client.process_queue": "rocketroute.client.consumer.process_queue",
    "rocketroute.client.offset_store": "rocketroute.client.consumer.offset_store",
    "rocketroute.client.pull": "rocketroute.client.consumer.pull",
    "rocketroute.client.listener": "rocketroute.client.consumer.listener",
    "rocketroute.client.running_info": "rocketroute.client.consumer.running_info",
    "rocketroute.client.subscription": "rocketroute.client.consumer.subscription",
    "rocketroute.grpc": "rocketroute.integrations.grpc",
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_is_the_new_module(old):
    new = importlib.import_module(MOVED[old])
    assert importlib.import_module(old) is new
    for name in new.__all__:
        assert getattr(importlib.import_module(old), name) is getattr(new, name)


def test_the_old_send_header_path_has_every_public_name_of_the_new_module():
    old = importlib.import_module("rocketroute.client.send_header")
    new = importlib.import_module("rocketroute.remoting.headers.send")
    assert {n: getattr(old, n) for n in new.__all__} == {n: getattr(new, n) for n in new.__all__}


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("rocketroute.client.producer", ["Producer", "SendResult", "SendStatus", "RouteChange"]),
        ("rocketroute.client.consumer", ["Consumer", "ConsumerStats", "DuplicateClientIdError"]),
        (
            "rocketroute.client",
            ["Producer", "Consumer", "Message", "SendResult", "ProcessQueue", "ConsumeConcurrentlyStatus"],
        ),
    ],
)
def test_the_classes_users_import_are_where_they_were(module, names):
    from rocketroute.client.consumer.consumer import Consumer
    from rocketroute.client.producer.producer import Producer

    m = importlib.import_module(module)
    for name in names:
        assert hasattr(m, name), name
    if hasattr(m, "Producer"):
        assert m.Producer is Producer
    if hasattr(m, "Consumer"):
        assert m.Consumer is Consumer
