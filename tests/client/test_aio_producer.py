"""``rocketroute.aio.Producer`` against the instant peer: the send path of the threaded producer, run on the
caller's loop with no thread of its own."""

from __future__ import annotations

import asyncio
import threading
import warnings

import pytest

import rocketroute as rr
from rocketroute.client import SendStatus
from rocketroute.protocol import RemotingTooMuchRequestError

from .._instant_peer import instant_peer


def test_every_send_runs_on_the_caller_s_loop_without_a_thread(backend) -> None:
    before = {t.ident for t in threading.enumerate()}

    async def main(addr: str) -> list[int]:
        async with rr.aio.Producer(addr, "pg-aio", poll_name_server_interval=100, backend=backend) as producer:
            one = await producer.send(rr.Message("T", b"one"))
            await producer.send_oneway(rr.Message("T", b"two"))
            batch = await producer.send_batch([rr.Message("T", b"3"), rr.Message("T", b"4")])
            later = await (await producer.enqueue(rr.Message("T", b"five")))
            keyed = await producer.send(rr.Message("T", b"six"), rr.SelectMessageQueueByHash(), "order-42")
            await asyncio.sleep(0.3)  # the route poll runs on this loop too
            new_threads = [t.name for t in threading.enumerate() if t.ident not in before]
            assert not [n for n in new_threads if n.startswith("rocketroute-remoting")], new_threads
            assert {r.send_status for r in (one, batch, later, keyed)} == {SendStatus.SEND_OK}
            queues = list((await producer.publish_info("T")).message_queues)
            chosen = backend.SelectMessageQueueByHash().select(queues, None, "order-42")
            assert keyed.queue == chosen and type(keyed.queue) is backend.MessageQueue  # the producer's backend's
            return [one.queue_offset, batch.queue_offset, later.queue_offset]

    with instant_peer("--queues", "1") as addr:
        offsets = asyncio.run(main(addr))
    assert offsets == [0, 2, 4]  # the oneway send was stored between the first and the batch


def test_stop_closes_the_connections_on_the_loop_and_later_sends_raise() -> None:
    async def main(addr: str) -> None:
        producer = await rr.aio.Producer(addr, "pg-aio").start()
        await producer.send(rr.Message("T", b"x"))
        await producer.stop()
        with pytest.raises(RuntimeError, match="shut down"):
            await producer.send(rr.Message("T", b"y"))
        await producer.stop()  # idempotent

    with instant_peer() as addr, warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        warnings.simplefilter("error", RuntimeWarning)  # a coroutine never awaited
        asyncio.run(main(addr))


def test_enqueue_runs_at_the_broker_s_pace_under_back_pressure() -> None:
    async def main(addr: str) -> tuple[list[int], int]:
        settings = {
            "enable_backpressure_for_async_mode": True,
            "back_pressure_for_async_send_num": 10,
            "back_pressure_for_async_send_size": 1024 * 1024,
        }
        async with rr.aio.Producer(addr, "pg-aio", **settings) as producer:
            futures, peak = [], 0
            for i in range(40):
                futures.append(await producer.enqueue(rr.Message("T", b"%d" % i)))
                peak = max(peak, producer.async_sends_in_flight[0])
            results = await asyncio.gather(*futures)
            with pytest.raises(RemotingTooMuchRequestError, match="never fits"):
                await producer.enqueue(rr.Message("T", b"z" * (2 * 1024 * 1024)))
            return [r.queue_offset for r in results], peak

    with instant_peer("--queues", "1", "--delay-us", "2000") as addr:
        offsets, peak = asyncio.run(main(addr))
    assert offsets == list(range(40)) and peak == 10


def test_it_is_used_on_the_loop_that_started_it_only() -> None:
    async def other_loop(producer: rr.aio.Producer) -> None:
        with pytest.raises(RuntimeError, match="the event loop that started it"):
            await producer.send(rr.Message("T", b"x"))

    async def main(addr: str) -> None:
        async with rr.aio.Producer(addr, "pg-aio") as producer:
            await producer.send(rr.Message("T", b"here"))
            await asyncio.to_thread(asyncio.run, other_loop(producer))
            with pytest.raises(RuntimeError, match="call start"):
                await rr.aio.Producer(addr, "pg-unstarted").enqueue(rr.Message("T", b"y"))

    with instant_peer() as addr:
        asyncio.run(main(addr))


def test_an_aio_client_and_a_threaded_one_cannot_share_a_client_id() -> None:
    async def main(addr: str) -> None:
        async with rr.aio.Producer(addr, "pg-a", instance_name="shared"):
            with pytest.raises(ValueError, match="cannot share a client id"):
                rr.Producer(addr, "pg-b", instance_name="shared").start()

    with instant_peer() as addr:
        asyncio.run(main(addr))
    with pytest.raises(TypeError, match="instance= is not taken"):
        rr.aio.Producer("127.0.0.1:1", "pg", instance=object())


def test_a_cancelled_send_is_forgotten_and_its_late_answer_dropped() -> None:
    async def main(addr: str) -> None:
        async with rr.aio.Producer(addr, "pg-aio") as producer:
            await producer.send(rr.Message("T", b"connects"))
            remoting = producer._life.remoting
            conns = remoting.async_client._conns
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(producer.send(rr.Message("T", b"slow")), 0.05)
            assert [c.pending for c in conns.values()] == [{}]  # forgotten at once, not at its deadline
            late = await producer.send(rr.Message("T", b"after"))  # answered after the cancelled one's answer
            assert late.send_status is SendStatus.SEND_OK and late.queue_offset == 2

    with instant_peer("--queues", "1", "--delay-us", "150000") as addr:
        asyncio.run(main(addr))


def _compressible(size: int, tag: str) -> bytes:
    return (f"{tag} compressed off the loop. " * (size // 20 + 1)).encode()[:size]


def test_large_compressed_bodies_are_encoded_off_the_loop_and_small_ones_on_it(monkeypatch, backend) -> None:
    from rocketroute.client.producer import send_wire
    from rocketroute.client.producer import sender as sender_module

    ran_on: dict[bytes, str] = {}
    real = send_wire.encode_for_send

    def spy(msg, **kwargs):  # the real encoding, and the thread that ran it
        ran_on[msg.body] = threading.current_thread().name
        return real(msg, **kwargs)

    monkeypatch.setattr(send_wire, "encode_for_send", spy)
    big = {n: _compressible(sender_module.OFF_LOOP_MIN_BODY, n) for n in ("send", "oneway", "enqueue", "async")}
    small = _compressible(sender_module.OFF_LOOP_MIN_BODY - 1, "small")  # compressed (over 4 KiB), on the loop

    async def main(addr: str) -> list[rr.SendResult]:
        loop_thread = threading.current_thread().name
        async with rr.aio.Producer(addr, "pg-aio", backend=backend) as producer:
            results = [
                await producer.send(rr.Message("T", big["send"])),
                await (await producer.enqueue(rr.Message("T", big["enqueue"]))),
                await producer.send(rr.Message("T", small)),
            ]
            await producer.send_oneway(rr.Message("T", big["oneway"]))
        with rr.Producer(addr, "pg-threaded", backend=backend) as threaded:
            results.append(await threaded.send_async(rr.Message("T", big["async"])))
        assert ran_on[small] == loop_thread
        return results

    with instant_peer() as addr:
        results = asyncio.run(main(addr))
    assert {r.send_status for r in results} == {SendStatus.SEND_OK}
    assert all(ran_on[body].startswith("rocketroute-encoders-pg-") for body in big.values()), ran_on


def test_the_encoding_off_the_loop_counts_against_the_send_s_budget() -> None:
    body = _compressible(2 * 1024 * 1024, "budget")  # zlib takes well over 1 ms for it

    async def main(addr: str) -> rr.SendResult:
        async with rr.aio.Producer(addr, "pg-aio") as producer:
            with pytest.raises(RemotingTooMuchRequestError, match="DEFAULT ASYNC send call timeout"):
                await producer.send(rr.Message("T", body), timeout_ms=1)
            return await producer.send(rr.Message("T", body))  # the default budget leaves room

    with instant_peer() as addr:
        assert asyncio.run(main(addr)).send_status is SendStatus.SEND_OK


def test_stop_ends_the_encoder_threads() -> None:
    async def main(addr: str) -> list[threading.Thread]:
        async with rr.aio.Producer(addr, "pg-encoders-end") as producer:
            await producer.send(rr.Message("T", _compressible(64 * 1024, "end")))
            return [t for t in threading.enumerate() if t.name.startswith("rocketroute-encoders-pg-encoders-end")]

    with instant_peer() as addr:
        encoders = asyncio.run(main(addr))
    assert encoders
    for t in encoders:
        t.join(5)
        assert not t.is_alive(), t.name
