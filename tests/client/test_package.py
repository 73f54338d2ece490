"""The client package's public names: the classes users import are where the docs say, one object each."""

from __future__ import annotations

import importlib

import pytest


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
