"""What a type checker and an IDE see of ``import rocketroute as rr``: the real classes behind the lazily imported
client names (``rr.Producer``, ``rr.Consumer``, ``rr.aio.*``, ``rr.Message``, ...), the native stub's routing
classes, the reference backend's names, and no ``Any`` in what a user's code infers.

One ``mypy --strict --disallow-any-expr`` run over a snippet written as the docs write it: it fails on any error
(``--disallow-any-expr`` makes every expression of type ``Any`` one), and the type each ``reveal_type`` shows is
compared with the one written beside it. Then pyright in strict mode on the same snippet (what VS Code's Pylance
shows): no error, and the same types by their short names."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rocketroute

from ._mypy import run_mypy

PACKAGE = Path(rocketroute.__file__).parent

# each `reveal_type(...)` line ends with `# <the type mypy must reveal>`
SNIPPET = """
from __future__ import annotations

import asyncio
from collections.abc import Sequence

import rocketroute as rr
import rocketroute.reference as ref
from rocketroute import Consumer, Message, Producer, SendResult

reveal_type(rr.BACKEND)  # str
reveal_type(rr.__version__)  # str
reveal_type(rr.MessageQueue("TopicTest", "broker-a", 0))  # rocketroute._native.MessageQueue
reveal_type(ref.MessageQueue("TopicTest", "broker-a", 0))  # rocketroute.reference.message_queue.MessageQueue
# a misspelt name is an error (were it not, --strict would report the ignore as unused)
rr.Prodcuer  # type: ignore[attr-defined]


def listener(msgs: list[rr.MessageExt], context: rr.ConsumeConcurrentlyContext) -> rr.ConsumeConcurrentlyStatus:
    for m in msgs:
        print(m.topic, m.tags, m.keys, m.body, m.queue_id, m.queue_offset, m.reconsume_times, m.msg_id)
    reveal_type(context.message_queue)  # rocketroute._native.MessageQueue
    context.ack_index = len(msgs) - 1
    return rr.ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def in_order(msgs: list[rr.MessageExt], context: rr.ConsumeOrderlyContext) -> rr.ConsumeOrderlyStatus:
    context.suspend_current_queue_time_millis = 100
    return rr.ConsumeOrderlyStatus.SUCCESS


async def async_listener(
    msgs: list[rr.MessageExt], context: rr.ConsumeConcurrentlyContext
) -> rr.ConsumeConcurrentlyStatus:
    return rr.ConsumeConcurrentlyStatus.RECONSUME_LATER


def rebalanced(topic: str, assigned: tuple[rr.MessageQueue, ...]) -> None:
    print(topic, [mq.queue_id for mq in assigned])


def by_order(mqs: Sequence[rr.MessageQueue], msg: rr.Message, arg: str) -> rr.MessageQueue:
    return mqs[len(arg) % len(mqs)]


class EveryQueue:  # a strategy of the user's own: any object with allocate(...)
    def allocate(
        self, group: str | None, cid: str | None, mqs: Sequence[rr.MessageQueue] | None, cids: Sequence[str] | None
    ) -> list[rr.MessageQueue]:
        return list(mqs or ())


def threaded() -> None:
    with rr.Producer("127.0.0.1:9876", "my-producer-group", send_msg_timeout=1000) as producer:
        result = producer.send(rr.Message("TopicTest", b"hello", tags="TagA", keys="order-42"))
        reveal_type(result)  # rocketroute.client.producer.send_result.SendResult
        reveal_type(result.send_status)  # rocketroute.client.producer.send_result.SendStatus
        reveal_type(result.msg_id)  # str | None
        reveal_type(result.queue)  # rocketroute._native.MessageQueue
        reveal_type(result.queue_offset)  # int
        keyed = producer.send(Message("TopicTest", b"1"), rr.SelectMessageQueueByHash(), "order-42")
        by_reference = producer.send(Message("TopicTest", b"2"), ref.SelectMessageQueueByHash(), "order-42")
        by_function = producer.send(Message("TopicTest", b"3"), by_order, "order-42")
        future = producer.submit(Message("TopicTest", b"4"))
        reveal_type(future)  # concurrent.futures.Future[rocketroute.client.producer.send_result.SendResult]
        batch: SendResult = producer.send_batch([Message("TopicTest", b"a"), Message("TopicTest", b"b")])
        reveal_type(producer.publish_info("TopicTest"))  # rocketroute._native.TopicPublishInfo
        reveal_type(producer.route("TopicTest"))  # rocketroute._native.TopicRouteData | None
        reveal_type(producer.strategy)  # rocketroute._native.MQFaultStrategy
        for change in producer.refresh_routes():
            reveal_type(change.added)  # tuple[rocketroute._native.MessageQueue, ...]
        print(keyed.queue.queue_id, by_reference, by_function, batch, future.result(), producer.flush(1000))
    Producer("127.0.0.1:9876", "my-producer-group").shutdown()
    with Consumer(
        "127.0.0.1:9876",
        "my-consumer-group",
        ["TopicTest"],
        ref.AllocateMessageQueueAveragely(),
        listener=listener,
        on_rebalance=rebalanced,
    ) as consumer:
        reveal_type(consumer.assignment("TopicTest"))  # tuple[rocketroute._native.MessageQueue, ...]
        reveal_type(consumer.committed_offsets())  # dict[rocketroute._native.MessageQueue, int]
        reveal_type(consumer.settings.pull_batch_size)  # int
    with rr.LitePullConsumer("127.0.0.1:9876", "my-pull-group", ["TopicTest"]) as puller:
        polled = puller.poll(1000)
        reveal_type(polled)  # list[rocketroute.client.message_decode.MessageExt]
        reveal_type(puller.committed(rr.MessageQueue("TopicTest", "broker-a", 0)))  # int
        reveal_type(puller.fetch_message_queues("TopicTest"))  # list[rocketroute._native.MessageQueue]
        reveal_type(puller.settings.pull_batch_size)  # int
        puller.commit({rr.MessageQueue("TopicTest", "broker-a", 0): 42})
    rr.Consumer("127.0.0.1:9876", "orderly-group", {"TopicTest": "TagA || TagB"}, listener=in_order, orderly=True)
    rr.Consumer("127.0.0.1:9876", "own-strategy", ["TopicTest"], EveryQueue(), listener=listener)
    rr.Consumer("127.0.0.1:9876", "no-strategy", ["TopicTest"], 42, listener=listener)  # type: ignore[arg-type]


async def main() -> None:
    async with rr.aio.Producer("127.0.0.1:9876", "my-producer-group") as producer:
        reveal_type(producer)  # rocketroute.aio.producer.Producer
        result = await producer.send(rr.Message("TopicTest", b"hello"), rr.SelectMessageQueueByHash(), "k")
        reveal_type(result)  # rocketroute.client.producer.send_result.SendResult
        pending = await producer.enqueue(rr.Message("TopicTest", b"queued"))
        reveal_type(pending)  # asyncio.Future[rocketroute.client.producer.send_result.SendResult]
        reveal_type((await pending).queue_offset)  # int
    hashed = rr.AllocateMessageQueueConsistentHash()
    async with rr.aio.Consumer("127.0.0.1:9876", "my-consumer-group", ["TopicTest"], hashed) as consumer:
        reveal_type(consumer)  # rocketroute.aio.consumer.Consumer
        async for msg in consumer:
            reveal_type(msg)  # rocketroute.client.message_decode.MessageExt
            reveal_type(msg.body)  # bytes | None
            reveal_type(msg.tags)  # str | None
            reveal_type(msg.properties)  # dict[str, str]
            consumer.ack()
            break
        async for msgs in consumer.batches():
            reveal_type(msgs)  # list[rocketroute.client.message_decode.MessageExt]
            break
    async with rr.aio.Consumer("127.0.0.1:9876", "g", ["TopicTest"], listener=async_listener) as with_listener:
        reveal_type(with_listener.stats.consumed)  # int
    async with rr.aio.LitePullConsumer("127.0.0.1:9876", "my-pull-group", ["TopicTest"]) as lite:
        reveal_type(lite)  # rocketroute.aio.lite_pull_consumer.LitePullConsumer
        reveal_type(await lite.poll())  # list[rocketroute.client.message_decode.MessageExt]
        async for pulled in lite:
            reveal_type(pulled)  # rocketroute.client.message_decode.MessageExt
            break
        async for pulled_batch in lite.batches():
            reveal_type(pulled_batch)  # list[rocketroute.client.message_decode.MessageExt]
            break


asyncio.run(main())
"""

REVEALED = re.compile(r'^snippet\.py:(\d+): note: Revealed type is "(.*)"$')
# where a class is defined varies with the Python version (typeshed's private modules): its public name
PUBLIC = {
    "_asyncio.Future": "asyncio.Future",
    "asyncio.futures.Future": "asyncio.Future",
    "concurrent.futures._base.Future": "concurrent.futures.Future",
    "builtins.": "",  # mypy before 2.0 names the builtins so
}
QUALIFIED = re.compile(r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])")


def _expected() -> dict[int, str]:
    return {
        number: line.rsplit("  # ", 1)[1]
        for number, line in enumerate(SNIPPET.splitlines(), start=1)
        if "reveal_type(" in line
    }


def _public(revealed: str) -> str:
    for private, public in PUBLIC.items():
        revealed = revealed.replace(private, public)
    return revealed


def test_type_checkers_see_each_lazy_name_where_the_package_imports_it_from():
    """``import rocketroute`` imports the client when first used (``__getattr__``, hidden from type checkers); its
    ``if TYPE_CHECKING:`` block must import every one of those names, from the module ``_CLIENT_NAMES`` names."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    seen: dict[str, str] = {}
    for node in block.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                seen[alias.asname or alias.name] = node.module or ""
    assert seen.pop("aio") == ""  # `from . import aio as aio`
    assert seen.pop("*") == "_native"
    assert seen == rocketroute._CLIENT_NAMES
    for name, module in rocketroute._CLIENT_NAMES.items():
        assert getattr(rocketroute, name) is getattr(importlib.import_module(f"rocketroute.{module}"), name), name
    assert not any(isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in tree.body)


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"{module} is not installed; install the test extra (pip install -e '.[test]')", pytrace=False)


def test_mypy_strict_sees_the_documented_style_with_no_any(tmp_path):
    _need("mypy")
    done = run_mypy(tmp_path, SNIPPET, "--strict", "--disallow-any-expr", cache="rocketroute-test-typing-mypy-cache")
    out = done.stdout + done.stderr
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert not errors, out
    revealed = {int(m[1]): _public(m[2]) for m in map(REVEALED.match, out.splitlines()) if m}
    assert revealed == _expected(), out
    assert not any("Any" in t for t in revealed.values())
    assert done.returncode == 0, out


def test_pyright_strict_sees_the_same_types(tmp_path):
    """Pyright (its PyPI wheel carries it; it runs on the system's Node) in strict mode, which also reports a
    ``# type: ignore`` that ignores nothing: no error, and each revealed type is the one mypy shows, unqualified."""
    _need("pyright")
    (tmp_path / "snippet.py").write_text(SNIPPET)
    config = {"typeCheckingMode": "strict", "extraPaths": [str(PACKAGE.parent)]}
    config["reportUnnecessaryTypeIgnoreComment"] = "error"
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config))
    done = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable, "snippet.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    diagnostics = report["generalDiagnostics"]
    errors = [d for d in diagnostics if d["severity"] != "information"]
    assert not errors, json.dumps(errors, indent=1)
    revealed = {}
    for d in diagnostics:
        m = re.fullmatch(r'Type of ".*" is "(.*)"', d["message"], re.S)
        assert m, d
        revealed[d["range"]["start"]["line"] + 1] = m[1]
    assert revealed == {line: QUALIFIED.sub("", t) for line, t in _expected().items()}
    assert not any("Any" in t or "Unknown" in t for t in revealed.values())
    assert done.returncode == 0, done.stdout + done.stderr
