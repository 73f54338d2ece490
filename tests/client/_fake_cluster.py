"""A scriptable fake name server and broker for the client's unit tests, on the raw-socket peer of the remoting tests
(:mod:`tests.net._peer`): real TCP on 127.0.0.1, frames parsed and built by the peer's own code.

They keep what a real cluster keeps in memory (routes; per queue the stored messages in the commit-log format,
the committed offsets, the members that heartbeat) and answer the requests the producer and the consumer send:
routes, sends, heartbeats, member lists, offsets, pulls, locks, send-backs, unregisters. ``broker.script[code]``
replaces the answer to one request code (a function of the request returning ``(code, ext, body)``, or ``None``
to answer as usual), so a test can make a broker fail, stall or answer oddly; ``requests(code)`` lists what was
received. Pulls are not held (no long polling): an empty pull is answered PULL_NOT_FOUND after a short pause.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from ..net._peer import FakePeer, PeerConn, build_frame
from ._stored import stored

# request codes (RequestCode) and response codes (ResponseCode), written out
SEND_MESSAGE_V2, PULL_MESSAGE, QUERY_CONSUMER_OFFSET, UPDATE_CONSUMER_OFFSET = 310, 11, 14, 15
GET_MAX_OFFSET, GET_MIN_OFFSET, SEARCH_OFFSET, HEART_BEAT, UNREGISTER_CLIENT = 30, 31, 29, 34, 35
CONSUMER_SEND_MSG_BACK, GET_CONSUMER_LIST_BY_GROUP, LOCK_BATCH_MQ, UNLOCK_BATCH_MQ = 36, 38, 41, 42
GET_ROUTEINFO_BY_TOPIC, LITE_PULL_MESSAGE = 105, 361
SUCCESS, SYSTEM_ERROR, TOPIC_NOT_EXIST, PULL_NOT_FOUND, QUERY_NOT_FOUND = 0, 1, 17, 19, 22

Answer = tuple[int, dict[str, Any], bytes]
Script = Callable[[dict[str, Any]], "Answer | None"]


class _Served:
    """A fake peer that answers each request with ``handle`` (oneway requests get no answer)."""

    def __init__(self) -> None:
        self.script: dict[int, Script] = {}
        self.lock = threading.Lock()
        self.conns: list[PeerConn] = []
        self.responses: list[dict[str, Any]] = []
        self._opaque = 1_000_000
        self.peer = FakePeer(*[self._serve] * 64)
        self.addr = self.peer.addr

    def requests(self, code: int) -> list[dict[str, Any]]:
        return [r for r in list(self.peer.received) if r["code"] == code]

    def ask(self, code: int, ext: dict[str, str], timeout_s: float = 5.0) -> dict[str, Any]:
        """Send a request to the client over its latest connection (as a broker asks a client for its running
        info) and return the client's response (the frame as a dict)."""
        with self.lock:
            self._opaque += 1
            opaque = self._opaque
        self.conns[-1].send(build_frame(code, opaque, 0, ext=ext))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for response in list(self.responses):
                if response["opaque"] == opaque:
                    return response
            time.sleep(0.01)
        raise TimeoutError(f"no response to request code {code}")

    def _serve(self, conn: PeerConn) -> None:
        self.conns.append(conn)
        while (request := conn.read_request()) is not None:
            if request["flag"] & 1:  # the client's response to ask()
                self.responses.append(request)
                continue
            scripted = self.script.get(request["code"])
            answer = scripted(request) if scripted is not None else None
            if answer is None:
                answer = self.handle(request)
            if request["flag"] & 2:  # oneway
                continue
            code, ext, body = answer
            fields = {k: str(v) for k, v in ext.items()}
            conn.send(
                build_frame(code, request["opaque"], 1, ext=fields, body=body, remark=fields.pop("_remark", None))
            )

    def handle(self, request: dict[str, Any]) -> Answer:
        raise NotImplementedError

    def close(self) -> None:
        self.peer.close()


class FakeNameServer(_Served):
    """Answers GET_ROUTEINFO_BY_TOPIC from ``routes`` (topic -> route JSON dict); TOPIC_NOT_EXIST otherwise."""

    def __init__(self) -> None:
        super().__init__()
        self.routes: dict[str, dict[str, Any]] = {}

    def handle(self, request: dict[str, Any]) -> Answer:
        if request["code"] != GET_ROUTEINFO_BY_TOPIC:
            return SYSTEM_ERROR, {"_remark": f"fake name server: code {request['code']}"}, b""
        topic = request["extFields"]["topic"]
        route = self.routes.get(topic)
        if route is None:
            return TOPIC_NOT_EXIST, {"_remark": f"No topic route info in name server for the topic: {topic}"}, b""
        return SUCCESS, {}, json.dumps(route).encode()


class FakeBroker(_Served):
    """A master broker ``name`` with ``queues`` queues for each topic it is given (:meth:`FakeCluster.topic`)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.store: dict[tuple[str, int], list[bytes]] = {}  # (topic, queue) -> messages, in queue-offset order
        self.offsets: dict[tuple[str, str, int], int] = {}  # (group, topic, queue) -> committed offset
        self.members: dict[str, list[str]] = {}  # group -> client ids, in heartbeat order
        self.min_offsets: dict[tuple[str, int], int] = {}  # (topic, queue) -> the oldest offset kept (default 0)

    def append(
        self, topic: str, queue_id: int, body: bytes, properties: dict[str, str] | None = None, sys_flag: int = 0
    ) -> int:
        """Store a message as a send would (``sys_flag``: 1 for a compressed body); returns its queue offset."""
        with self.lock:
            queue = self.store.setdefault((topic, queue_id), [])
            offset = len(queue)
            props = {"UNIQ_KEY": f"{self.name}-{topic}-{queue_id}-{offset}", **(properties or {})}
            queue.append(
                stored(
                    topic,
                    body,
                    properties=props,
                    queue_id=queue_id,
                    queue_offset=offset,
                    commit_log_offset=offset,
                    sys_flag=sys_flag,
                )
            )
            return offset

    def handle(self, request: dict[str, Any]) -> Answer:
        ext = request.get("extFields") or {}
        code = request["code"]
        with self.lock:
            if code == SEND_MESSAGE_V2:
                topic, queue_id = ext["b"], int(ext["e"])
                props = dict(p.split("\x01", 1) for p in ext.get("i", "").split("\x02") if "\x01" in p)
            elif code == HEART_BEAT:
                body = json.loads(request["body"])
                for consumer in body.get("consumerDataSet", []):
                    ids = self.members.setdefault(consumer["groupName"], [])
                    if body["clientID"] not in ids:
                        ids.append(body["clientID"])
                return SUCCESS, {}, b""
            elif code == UNREGISTER_CLIENT:
                group = ext.get("consumerGroup")
                if group in self.members and ext["clientID"] in self.members[group]:
                    self.members[group].remove(ext["clientID"])
                return SUCCESS, {}, b""
            elif code == GET_CONSUMER_LIST_BY_GROUP:
                ids = self.members.get(ext["consumerGroup"], [])
                return SUCCESS, {}, json.dumps({"consumerIdList": ids}).encode()
            elif code == QUERY_CONSUMER_OFFSET:
                key = (ext["consumerGroup"], ext["topic"], int(ext["queueId"]))
                if key not in self.offsets:
                    return QUERY_NOT_FOUND, {"_remark": "Not found, maybe this group consumer boot first"}, b""
                return SUCCESS, {"offset": self.offsets[key]}, b""
            elif code == UPDATE_CONSUMER_OFFSET:
                self.offsets[(ext["consumerGroup"], ext["topic"], int(ext["queueId"]))] = int(ext["commitOffset"])
                return SUCCESS, {}, b""
            elif code == GET_MIN_OFFSET:
                return SUCCESS, {"offset": self.min_offsets.get((ext["topic"], int(ext["queueId"])), 0)}, b""
            elif code in (GET_MAX_OFFSET, SEARCH_OFFSET):
                return SUCCESS, {"offset": len(self.store.get((ext["topic"], int(ext["queueId"])), []))}, b""
            elif code == LOCK_BATCH_MQ:
                return SUCCESS, {}, json.dumps({"lockOKMQSet": json.loads(request["body"])["mqSet"]}).encode()
            elif code in (UNLOCK_BATCH_MQ, CONSUMER_SEND_MSG_BACK):
                return SUCCESS, {}, b""
            elif code in (PULL_MESSAGE, LITE_PULL_MESSAGE):
                queue = self.store.get((ext["topic"], int(ext["queueId"])), [])
                start, count = int(ext["queueOffset"]), int(ext["maxMsgNums"])
                found = queue[start : start + count]
                offsets = {"minOffset": 0, "maxOffset": len(queue), "suggestWhichBrokerId": 0}
                if found:
                    return SUCCESS, {"nextBeginOffset": start + len(found), **offsets}, b"".join(found)
            else:
                return SYSTEM_ERROR, {"_remark": f"fake broker: code {code}"}, b""
        if code in (PULL_MESSAGE, LITE_PULL_MESSAGE):  # nothing new: a short pause stands for the long poll
            time.sleep(0.05)
            return PULL_NOT_FOUND, {"nextBeginOffset": start, **offsets}, b""
        offset = self.append(topic, queue_id, request["body"], props)
        msg_id = f"{offset:032X}"
        return (
            SUCCESS,
            {"msgId": msg_id, "queueId": queue_id, "queueOffset": offset, "MSG_REGION": "DefaultRegion"},
            b"",
        )


class FakeCluster:
    """One fake name server and ``brokers`` fake brokers (``broker-a``, ``broker-b``, ...). Use as a context
    manager."""

    def __init__(self, brokers: int = 1) -> None:
        self.namesrv = FakeNameServer()
        self.brokers = {f"broker-{chr(97 + i)}": FakeBroker(f"broker-{chr(97 + i)}") for i in range(brokers)}

    @property
    def namesrv_addr(self) -> str:
        return self.namesrv.addr

    def topic(self, topic: str, queues: int = 4, perm: int = 6) -> None:
        """Give ``topic`` ``queues`` queues on every broker, in the name server's route."""
        self.namesrv.routes[topic] = {
            "brokerDatas": [
                {"cluster": "FakeCluster", "brokerName": name, "brokerAddrs": {"0": b.addr}}
                for name, b in self.brokers.items()
            ],
            "queueDatas": [
                {"brokerName": name, "readQueueNums": queues, "writeQueueNums": queues, "perm": perm, "topicSysFlag": 0}
                for name in self.brokers
            ],
        }

    def close(self) -> None:
        for peer in (self.namesrv, *self.brokers.values()):
            peer.close()

    def __enter__(self) -> FakeCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
