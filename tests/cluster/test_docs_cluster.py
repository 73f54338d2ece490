"""The docs' "Send to a real cluster" and "Consume from a real cluster" examples (the ```python blocks tagged
``<!-- test: cluster -->``, in the pages' nav order) run against the real servers."""

from __future__ import annotations

import time

from ..test_docs import nav_pages, python_blocks


def _cluster_blocks() -> list[str]:
    return [b for page in nav_pages() for b in python_blocks(page, "cluster")]


def test_the_readme_cluster_example_runs(cluster, fresh_topic, capsys):
    blocks = _cluster_blocks()
    assert len(blocks) == 2, "the producer and consumer pages each have a <!-- test: cluster --> block"
    topic = fresh_topic(queues=4)
    namespace: dict[str, object] = {}
    for i, block in enumerate(blocks):
        code = block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs)).replace("TopicTest", topic)
        exec(compile(code, f"docs python cluster block {i}", "exec"), namespace)
    printed = capsys.readouterr().out
    assert printed.startswith("SEND_OK ")
    assert f"{topic} TagA order-42 b'hello' " in printed  # the consumer block got the first message

    def stored() -> int:
        return sum(cluster.max_offset(b, topic, q) for b in cluster.broker_names for q in range(4))

    deadline = time.monotonic() + 5  # the oneway send is not acknowledged: give the broker a moment
    while stored() < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stored() == 1 + 1 + 1 + 2  # send, ordered send, oneway, a batch of two


def test_the_back_pressure_example_runs(cluster, fresh_topic, capsys):
    from ..test_docs import ROOT

    (block,) = python_blocks(ROOT / "docs" / "guide" / "producer.md", "bp-cluster")
    topic = fresh_topic(queues=4)
    code = block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs)).replace("TopicTest", topic)
    exec(compile(code, "the producer guide's back-pressure block", "exec"), {})
    assert capsys.readouterr().out == "10000 (0, 0)\n"
    assert sum(cluster.max_offset(b, topic, q) for b in cluster.broker_names for q in range(4)) == 10_000


def test_the_asyncio_example_runs(cluster, fresh_topic, capsys):
    from ..test_docs import ROOT

    (block,) = python_blocks(ROOT / "docs" / "guide" / "producer.md", "aio-cluster")
    topic = fresh_topic(queues=4)
    code = block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs)).replace("TopicTest", topic)
    exec(compile(code, "the producer guide's asyncio block", "exec"), {"__name__": "docs"})
    printed = capsys.readouterr().out
    assert printed.startswith("SEND_OK MessageQueue [topic=") and printed.endswith(" 100\n"), printed
    assert sum(cluster.max_offset(b, topic, q) for b in cluster.broker_names for q in range(4)) == 102


def test_the_asyncio_consumer_example_runs(cluster, fresh_topic, capsys):
    from ..test_docs import ROOT

    (block,) = python_blocks(ROOT / "docs" / "guide" / "consumer.md", "aio-consumer-cluster")
    topic = fresh_topic(queues=4)
    code = block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs)).replace("TopicTest", topic)
    code = code.replace("my-aio-group", f"cg_docs_aio_{time.monotonic_ns()}")
    exec(compile(code, "the consumer guide's asyncio block", "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out == "[b'event 0', b'event 1', b'event 2']\n"


def test_the_pull_consumer_examples_run(cluster, fresh_topic, capsys):
    from ..test_docs import ROOT

    page = ROOT / "docs" / "guide" / "consumer.md"
    for tag, expected in (
        ("pull-cluster", "[b'order 0', b'order 1', b'order 2', b'order 3', b'order 4']\n5\nTrue\n"),
        ("aio-pull-cluster", "[b'tick 0', b'tick 1', b'tick 2']\n"),
    ):
        (block,) = python_blocks(page, tag)
        topic = fresh_topic(queues=4)
        code = block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs)).replace("TopicTest", topic)
        code = code.replace("my-pull-group", f"cg_docs_pull_{time.monotonic_ns()}")
        code = code.replace("my-aio-pull-group", f"cg_docs_aio_pull_{time.monotonic_ns()}")
        exec(compile(code, f"the consumer guide's {tag} block", "exec"), {"__name__": "docs"})
        assert capsys.readouterr().out == expected


def test_every_production_example_is_run_against_the_servers():
    """Each ```python block of the production guide tagged ``<!-- test: <feature>-cluster -->`` is run by a
    cluster test (the one that proves its feature, against the servers with the feature switched on): a new
    example without its test fails here."""
    from ..test_docs import ROOT, code_blocks

    page = (ROOT / "docs" / "guide" / "production.md").read_text()
    tags = {b.tag for b in code_blocks(page) if b.tag and b.language == "python"}
    assert tags >= {"acl-cluster", "tls-cluster", "tx-cluster", "ns-cluster"}
    tests = "\n".join(p.read_text() for p in (ROOT / "tests" / "cluster").glob("test_*.py"))
    runners = {tag for tag in tags if f'"{tag}"' in tests}
    assert runners == tags, sorted(tags - runners)
