"""The Protocols a client instance talks to its producers and consumers through (``client/inner.py``, Java's
``MQProducerInner`` / ``MQConsumerInner``): a type checker confirms that the classes users build implement them,
and that a plain producer is not taken for a transactional one; the instance tells the two apart at run time."""

from __future__ import annotations

from rocketroute.client import Consumer, Producer, TransactionProducer
from rocketroute.client.inner import TransactionInner

from .._mypy import run_mypy

SNIPPET = """
import rocketroute.aio
from rocketroute.client import Consumer, LitePullConsumer, Producer, TransactionProducer
from rocketroute.client.inner import ConsumerInner, ProducerInner, TransactionInner


def producer(p: Producer) -> ProducerInner:
    return p


def aio_producer(p: rocketroute.aio.Producer) -> ProducerInner:  # it joins its instance itself
    return p


def transactional(p: TransactionProducer) -> TransactionInner:
    return p


def consumer(c: Consumer) -> ConsumerInner:
    return c


def aio_consumer(c: rocketroute.aio.Consumer) -> ConsumerInner:
    return c


def lite_pull_consumer(c: LitePullConsumer) -> ConsumerInner:
    return c


def aio_lite_pull_consumer(c: rocketroute.aio.LitePullConsumer) -> ConsumerInner:
    return c


def not_transactional(p: Producer) -> TransactionInner:
    return p  # type: ignore[return-value]
"""


def test_the_clients_implement_what_their_instance_asks_of_them(tmp_path):
    # --strict warns of an unused ignore: the last function fails the run if a plain Producer were a TransactionInner
    done = run_mypy(tmp_path, SNIPPET, "--strict", cache="rocketroute-test-inner-mypy-cache")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_instance_tells_a_transactional_producer_from_a_plain_one():
    plain = Producer("127.0.0.1:9876", "PG_PLAIN")
    transactional = TransactionProducer(
        "127.0.0.1:9876", "PG_TX", executor=lambda msg, arg: None, checker=lambda msg: None
    )
    assert isinstance(transactional, TransactionInner)
    assert not isinstance(plain, TransactionInner)
    assert not isinstance(Consumer("127.0.0.1:9876", "CG", ["T"], listener=lambda msgs: None), TransactionInner)
