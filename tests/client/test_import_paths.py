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
    "rocketroute.bench_producer": "rocketroute.cli.bench_producer_run",
    "rocketroute.spark.cli.bench_producer": "rocketroute.cli.bench_producer",
    "rocketroute.sample_route": "rocketroute.examples.sample_route",
    "rocketroute.walkthrough": "rocketroute.examples.walkthrough",
    "rocketroute.response_code": "rocketroute.remoting.response_code",
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


def test_every_name_of_the_remoting_package_resolves_to_its_submodule_s():
    import rocketroute.remoting as remoting

    for name in remoting.__all__:
        value = getattr(remoting, name)
        module = importlib.import_module(remoting._WHERE[name])
        assert value is getattr(module, name), name
    assert sorted(remoting.__all__) == sorted(remoting._WHERE)
    with pytest.raises(AttributeError, match="no_such_name"):
        remoting.no_such_name  # noqa: B018


def test_importing_rocketroute_imports_the_response_codes_but_not_the_asyncio_client():
    import subprocess
    import sys

    code = (
        "import sys, rocketroute\n"
        "print(sorted(m for m in ('asyncio', 'rocketroute.net.transport', 'rocketroute.remoting.response_code')"
        " if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "['rocketroute.remoting.response_code']"
