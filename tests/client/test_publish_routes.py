"""A producer's publish routes on their own (``topicPublishInfoTable``): what a send finds for a topic with a
route, for one the brokers create at its first send (``create_topic_key``'s route stands in), which new routes
are changes, and the static-topic endpoints a 5.3 route gives the send wire. The instance here is a stand-in
that answers each fetch from a table of routes, as the real one hands a fetched route to its producers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from rocketroute.client.producer.publish_routes import PublishRoutes
from rocketroute.client.producer.send_wire import SendWire
from rocketroute.client.producer.settings import ProducerSettings


def _route(backend: Any, brokers: dict[str, int]) -> Any:
    return backend.TopicRouteData.from_json(
        json.dumps(
            {
                "queueDatas": [
                    {"brokerName": b, "readQueueNums": n, "writeQueueNums": n, "perm": 6, "topicSysFlag": 0}
                    for b, n in brokers.items()
                ],
                "brokerDatas": [
                    {"cluster": "c", "brokerName": b, "brokerAddrs": {"0": f"10.0.0.{i}:10911"}}
                    for i, b in enumerate(brokers)
                ],
            }
        )
    )


class Routes:
    """The instance's part in a fetch: the route of ``topic`` (of ``create_topic_key`` with ``default``) is handed
    to the publish routes, or the name servers know none (False)."""

    def __init__(self, routes: PublishRoutes, known: dict[str, Any]) -> None:
        self.routes, self.known, self.fetched = routes, known, []

    async def update_route(self, topic: str, timeout_ms: int, *, default: tuple[str, int] | None = None) -> bool:
        self.fetched.append((topic, default))
        route = self.known.get(topic if default is None else default[0])
        if route is None:
            return False
        self.routes.update(topic, route, from_default=default is not None)
        return True


def _routes(backend: Any) -> tuple[PublishRoutes, SendWire]:
    settings = ProducerSettings.of("5.3")
    wire = SendWire("PG", None, "5.3", settings, backend)
    return PublishRoutes("5.3", settings, None, backend, wire), wire


def test_a_topic_with_a_route_and_one_the_brokers_create(backend) -> None:
    routes, _ = _routes(backend)
    instance = Routes(routes, {"Known": _route(backend, {"a": 2}), "TBW102": _route(backend, {"a": 8, "b": 8})})
    info = asyncio.run(routes.find(instance, "Known"))  # type: ignore[arg-type]
    assert info.ok() and [q.queue_id for q in info.message_queues] == [0, 1]
    new = asyncio.run(routes.find(instance, "New"))  # type: ignore[arg-type]
    # the default route's queues under the new topic's name (the instance caps their numbers before it hands it)
    assert {q.topic for q in new.message_queues} == {"New"} and len(new.message_queues) == 16
    assert instance.fetched == [("Known", None), ("New", None), ("New", ("TBW102", 4))]
    assert not routes.needs_route("Known") and not routes.needs_route("Unsent")


def test_a_second_route_that_differs_is_a_change_and_the_first_is_not(backend) -> None:
    routes, _ = _routes(backend)
    assert routes.update("T", _route(backend, {"a": 2}), from_default=False) is None
    before = routes.queues()
    change = routes.update("T", _route(backend, {"a": 2, "b": 2}), from_default=False)
    assert change is not None and change.topic == "T"
    assert [c.topic for c in routes.changes_since(before)] == ["T"]
    assert routes.update("T", _route(backend, {"a": 2, "b": 2}), from_default=False) is None  # the same again
    routes.known("TBW102")
    routes.update("TBW102", _route(backend, {"a": 8}), from_default=False)
    assert routes.update("TBW102", _route(backend, {"b": 8}), from_default=False) is None  # never sent to


def test_a_known_topic_without_a_route_needs_one(backend) -> None:
    routes, _ = _routes(backend)
    routes.known("T")
    assert routes.needs_route("T")
    routes.update("T", _route(backend, {"a": 1}), from_default=False)
    assert not routes.needs_route("T")
