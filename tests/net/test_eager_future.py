"""``rocketroute._native._EagerFuture``, the native backend's future of a response: asyncio's tasks and helpers take
it as a future, ``wake`` resumes the awaiting task within the call (in its own context, as the loop's current task),
and everything else queues the callbacks on the loop as ``asyncio.Future`` does. The remoting client's connections
wake a task as its response is read, where no task runs, and fall back to the loop's queue where one does."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import sys
import traceback
from typing import Any

import pytest

import rocketroute
from rocketroute.net import AsyncRemotingClient, connection, transport
from rocketroute.protocol import RemotingCommand, RequestCode
from rocketroute.protocol.frame import encode_frame

from ._peer import FakePeer, PeerConn, build_frame

pytestmark = pytest.mark.skipif(rocketroute.BACKEND != "native", reason="the eager future is the native backend's")

LONG_MS = 30_000
var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")


def eager(loop: asyncio.AbstractEventLoop) -> Any:
    from rocketroute._native import _EagerFuture

    return _EagerFuture(loop)


def test_it_is_a_future_to_asyncio() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        f = eager(loop)
        assert asyncio.isfuture(f) and f.get_loop() is loop and not f.done() and not f._asyncio_future_blocking
        loop.call_later(0.01, f.set_result, "late")
        assert await asyncio.wait_for(f, 5) == "late"
        assert f.done() and not f.cancelled() and f.result() == "late" and f.exception() is None
        assert await f == "late"  # awaited again: the result at once
        g, h = eager(loop), eager(loop)
        loop.call_soon(g.set_result, 1)
        loop.call_soon(h.set_result, 2)
        assert await asyncio.gather(g, h) == [1, 2]

    asyncio.run(main())


def test_wake_resumes_the_task_within_the_call_in_its_context() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        f = eager(loop)
        seen: list[Any] = []

        async def waiter(name: str) -> Any:
            var.set(name)
            result = await f
            seen.append((name, result, var.get(), asyncio.current_task() is task_of[name]))
            return result

        task_of = {name: loop.create_task(waiter(name)) for name in ("a", "b")}
        await asyncio.sleep(0)  # both wait now

        def read_callback() -> None:  # as a transport's: no task runs here
            f.wake("answer")
            seen.append("wake returned")

        loop.call_soon(read_callback)
        assert await asyncio.gather(*task_of.values()) == ["answer", "answer"]
        assert seen == [("a", "answer", "a", True), ("b", "answer", "b", True), "wake returned"]
        f.wake("again")  # done already: nothing
        assert f.result() == "answer"

    asyncio.run(main())


def test_set_result_set_exception_and_cancel_queue_the_callbacks_on_the_loop() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        ran: list[str] = []
        for settle in ("result", "exception", "cancel"):
            f = eager(loop)
            f.add_done_callback(lambda fut, s=settle: ran.append(s))
            if settle == "result":
                f.set_result(1)
            elif settle == "exception":
                f.set_exception(ValueError("boom"))
            else:
                assert f.cancel("why") and not f.cancel()
            assert ran == [] or ran[-1] != settle  # not run within the call
            await asyncio.sleep(0)
            assert ran[-1] == settle
        assert ran == ["result", "exception", "cancel"]

        f = eager(loop)
        f.set_exception(ValueError)  # a class is instantiated, as asyncio does
        with pytest.raises(ValueError):
            f.result()
        assert isinstance(f.exception(), ValueError)
        with pytest.raises(asyncio.InvalidStateError):
            f.set_result(2)
        with pytest.raises(TypeError, match="StopIteration"):
            eager(loop).set_exception(StopIteration())
        with pytest.raises(TypeError, match="BaseException"):
            eager(loop).set_exception("not an exception")
        pending = eager(loop)
        with pytest.raises(asyncio.InvalidStateError, match="Result is not set"):
            pending.result()
        with pytest.raises(asyncio.InvalidStateError, match="Exception is not set"):
            pending.exception()
        cancelled = eager(loop)
        cancelled.cancel("the reason")
        with pytest.raises(asyncio.CancelledError, match="the reason"):
            cancelled.result()
        assert cancelled.cancelled() and "cancelled" in repr(cancelled)

    asyncio.run(main())


def test_a_callback_added_to_a_done_future_is_queued_and_callbacks_can_be_removed() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        ran: list[int] = []

        def one(fut: Any) -> None:
            ran.append(1)

        def two(fut: Any) -> None:
            ran.append(2)

        f = eager(loop)
        f.add_done_callback(one)
        f.add_done_callback(two)
        f.add_done_callback(one)
        assert f.remove_done_callback(one) == 2 and f.remove_done_callback(one) == 0
        f.wake(None)
        assert ran == [2]
        f.add_done_callback(one)
        assert ran == [2]  # queued, not run within the call
        await asyncio.sleep(0)
        assert ran == [2, 1]

    asyncio.run(main())


def test_cancelling_the_awaiting_task_cancels_the_future() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        f = eager(loop)
        task = loop.create_task(_await(f))
        await asyncio.sleep(0)
        task.cancel("stop")
        with pytest.raises(asyncio.CancelledError):
            await task
        assert f.cancelled()
        f.wake("too late")  # a response after the cancel: nothing
        assert f.cancelled()

    asyncio.run(main())


async def _await(f: Any) -> Any:
    return await f


def test_a_callback_that_raises_goes_to_the_loop_s_handler_and_the_others_still_run() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        reported: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _, context: reported.append(context))
        ran: list[str] = []

        def bad(fut: Any) -> None:
            raise RuntimeError("in a callback")

        f = eager(loop)
        f.add_done_callback(bad)
        f.add_done_callback(lambda fut: ran.append("after"))
        f.wake(1)
        assert ran == ["after"]
        assert len(reported) == 1 and isinstance(reported[0]["exception"], RuntimeError)
        assert reported[0]["future"] is f and "Exception in callback" in reported[0]["message"]

        # KeyboardInterrupt goes up from wake, the callbacks after it are queued on the loop
        def interrupt(fut: Any) -> None:
            raise KeyboardInterrupt

        g = eager(loop)
        g.add_done_callback(interrupt)
        g.add_done_callback(lambda fut: ran.append("queued"))
        with pytest.raises(KeyboardInterrupt):
            g.wake(2)
        assert ran == ["after"]
        await asyncio.sleep(0)
        assert ran == ["after", "queued"]

    asyncio.run(main())


def test_a_failure_to_report_a_callback_s_exception_does_not_stop_the_other_callbacks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)

    class Unprintable:
        def __call__(self, fut: Any) -> None:
            raise RuntimeError("in a callback")

        def __repr__(self) -> str:
            raise ValueError("no repr")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        ran: list[str] = []
        f = eager(loop)
        f.add_done_callback(Unprintable())
        f.add_done_callback(lambda fut: ran.append("after"))
        f.wake(1)
        assert ran == ["after"]

    asyncio.run(main())
    assert [type(u.exc_value) for u in unraisable] == [ValueError]


def test_gather_over_a_cancelled_future_raises_cancelled_error() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        f, g = eager(loop), eager(loop)
        loop.call_soon(f.cancel, "gone")
        loop.call_soon(g.set_result, 1)
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.gather(f, g), 5)

    asyncio.run(main())


def test_an_exception_is_raised_again_with_the_traceback_it_was_set_with() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        f = eager(loop)
        try:
            raise ValueError("boom")
        except ValueError as e:
            f.set_exception(e)
            depth = len(traceback.extract_tb(e.__traceback__))
        for _ in range(3):
            with pytest.raises(ValueError) as raised:
                f.result()
            # the frame of this raise on top of the ones it was set with, not piled up over the raises
            assert len(traceback.extract_tb(raised.value.__traceback__)) == depth + 1
        with pytest.raises(ValueError):
            await f

    asyncio.run(main())


def test_callbacks_kept_by_remove_are_queued_when_an_eq_settles_the_future() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        f = eager(loop)
        ran: list[str] = []

        class SettlesOnCompare:
            def __call__(self, fut: Any) -> None:
                ran.append("removed one ran")

            def __eq__(self, other: object) -> bool:
                if not f.done():
                    f.set_result("settled by __eq__")
                return False

            __hash__ = object.__hash__

        f.add_done_callback(lambda fut: ran.append("kept"))
        f.add_done_callback(SettlesOnCompare())
        assert f.remove_done_callback(lambda fut: None) == 0
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert sorted(ran) == ["kept", "removed one ran"]  # none lost

    asyncio.run(main())


def test_the_garbage_collector_sees_the_callbacks() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        f = eager(loop)

        def callback(fut: Any) -> None:
            pass

        f.add_done_callback(callback)
        assert callback in gc.get_referents(f)
        f.set_result(1)
        assert callback not in gc.get_referents(f)  # taken when done
        await asyncio.sleep(0)

    asyncio.run(main())


# -- in the remoting client ------------------------------------------------------------------------------------


def _answer_both_in_one_write(conn: PeerConn) -> None:
    first, second = conn.read_request(), conn.read_request()
    assert first is not None and second is not None
    frames = [build_frame(0, r["opaque"], 1) for r in (first, second)]
    conn.send(b"".join(frames))
    conn.wait_closed()


@pytest.mark.parametrize("kind", ["eager", "asyncio"])
def test_a_task_resumes_as_its_response_is_read(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two responses in one read: with the eager future the first request's task runs before the second response
    is handed out (its request is still in flight then); with ``asyncio.Future`` both are handed out first."""
    if kind == "asyncio":
        monkeypatch.setattr(connection, "EagerFuture", None)
        monkeypatch.setattr(transport, "response_future", connection.loop_future)

    async def main() -> list[int]:
        client = AsyncRemotingClient()
        in_flight_when_resumed: list[int] = []
        try:
            await client.connection(peer.addr)

            async def one() -> None:
                await client.invoke(peer.addr, RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {}), LONG_MS)
                in_flight_when_resumed.append(len(client._conns[peer.addr].pending))

            await asyncio.gather(one(), one())
        finally:
            await client.close()
        return in_flight_when_resumed

    with FakePeer(_answer_both_in_one_write) as peer:
        seen = asyncio.run(main())
    assert seen == ([1, 0] if kind == "eager" else [0, 0])


def test_a_read_handed_in_from_a_task_completes_the_future_through_the_loop() -> None:
    """A task cannot resume inside another: a connection fed from a task (as a test may) queues the wake-up."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        conn = connection.Connection(loop, "127.0.0.1:1", 1 << 20)
        request = RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, {})
        waiter = connection.response_future(loop)
        assert type(waiter) is connection.EagerFuture
        conn.pending[request.opaque] = (waiter, 1)
        awaiting = loop.create_task(_await(waiter))
        await asyncio.sleep(0)
        response = RemotingCommand.response_to(request, 0, None)
        response.mark_response()
        frame = encode_frame(response)
        conn.get_buffer(len(frame))[: len(frame)] = frame
        conn.buffer_updated(len(frame))  # from this task
        assert not awaiting.done()
        done, _ = await asyncio.wait({awaiting}, timeout=5)  # a task woken inside this one would never end
        assert done and awaiting.result().opaque == request.opaque and awaiting.result().is_response

    loop = asyncio.new_event_loop()  # not asyncio.run: it would wait for a stuck task at its end, not fail
    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
