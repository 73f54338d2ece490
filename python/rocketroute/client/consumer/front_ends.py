"""The two front-ends' calls into a consumer, whatever it consumes with: :class:`BlockingCalls` (the threaded
classes run a coroutine on the consumer's loop and wait for it) and :class:`LoopCalls` (the asyncio classes check
they are awaited on the loop that started them). Mixins after the consumer's base, which holds the state they read."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ...net.bridge import loop_runs_here
from ...net.runtime import RemotingClient
from ..instance import ClientInstance
from ..instances import forked_error, release_instance
from ..workers import CallbackThread

__all__ = ["BlockingCalls", "LoopCalls"]


class _Leaving:
    """What both front-ends read to leave: the state the consumer's base holds."""

    _remoting: RemotingClient | None
    _instance: ClientInstance | None
    _state: str
    _callbacks: CallbackThread | None
    group: str

    def _log_lifecycle(self, what: str) -> None:  # pragma: no cover - the base's
        raise NotImplementedError

    def _left(self) -> None:
        # last: "shut down" means this consumer's part is over (and the instance closed when it was the last)
        self._state = "shut down"
        self._log_lifecycle("shut down")


class BlockingCalls(_Leaving):
    """The threaded front-end: :meth:`_call` runs a coroutine on the consumer's loop and waits for it."""

    _forked_from: int

    def _leave(self) -> None:
        """The end of a shutdown: the callback thread closed, the instance left (the last client of the instance
        closes its connections and loop thread)."""
        if self._callbacks is not None:
            self._callbacks.close()
        if self._instance is not None:
            release_instance(self._instance, "consumer", self.group)
        self._left()

    def _refuse_on_loop(self, what: str) -> None:
        remoting = self._remoting
        if remoting is not None and remoting.on_loop_thread():
            raise RuntimeError(
                f"{what} cannot be called on the consumer's event-loop thread (it would wait for that loop): call "
                "it from a listener, a callback or any other thread"
            )

    def _call(self, coro: Any, timeout: float | None = None) -> Any:
        if self._state == "forked":
            coro.close()
            raise forked_error("consumer", self._forked_from)
        remoting = self._remoting
        if remoting is None:
            coro.close()
            raise RuntimeError(f"the consumer is {self._state}: call start() first")
        if remoting.on_loop_thread():
            coro.close()
            self._refuse_on_loop(f"a blocking {type(self).__name__} method")
        return remoting.run(coro, timeout)


class LoopCalls(_Leaving):
    """The asyncio front-end: the consumer is used on the loop that started it."""

    settings: Any

    async def _leave(self) -> None:
        """The end of a stop: the callback thread closed, the instance left (its connections closed, awaited, when
        this was its last client)."""
        if self._callbacks is not None:
            self._callbacks.close()
        remoting = self._remoting
        if self._instance is not None and release_instance(self._instance, "consumer", self.group, close=False):
            assert remoting is not None
            await remoting.aclose()
        self._left()

    @property
    def running(self) -> bool:  # pragma: no cover - the base's
        raise NotImplementedError

    def _on_its_loop(self) -> None:
        if self._remoting is None or not self.running:
            raise RuntimeError(f"the consumer is {self._state}: await start() first (or use async with)")
        self._refuse_other_loop()

    def _refuse_other_loop(self) -> None:
        """Its connections' futures belong to the loop that started it: awaited from another they never wake. Asks
        the bridge about the client's loop directly (each message or batch of an ``async for`` comes here)."""
        remoting = self._remoting
        if remoting is not None and not loop_runs_here(remoting.loop):
            raise RuntimeError(
                f"a rocketroute.aio.{type(self).__name__} is used on the event loop that started it, not another"
            )

    async def _flush_callbacks(self) -> None:
        """Wait (the loop goes on) until the callback thread has run what was posted before: the callback thread
        wakes the loop when it reaches this point."""
        if self._callbacks is None:
            return
        loop = asyncio.get_running_loop()
        reached: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(lambda: reached.done() or reached.set_result(None))

        self._callbacks.post("flush", wake)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(reached, self.settings.mq_client_api_timeout / 1000)
