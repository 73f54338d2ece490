"""The locks every consume pool thread takes once per listener call are held over operators only (a queue's
cache, ``ProcessQueue``'s maps and counts, is one call into an object that locks itself, with no lock held around
it): the interpreter hands the GIL to another thread at calls and loops, and a pool thread that lost the GIL while
holding one of these locks had the other threads queue on the lock, which then went from thread to thread (two
context switches a message: a consumer at half speed for seconds, found in the benchmarks with
``OffsetStore.update_offset``). These tests read the bytecode of each locked region: a call added there fails them."""

from __future__ import annotations

import dis
from collections.abc import Callable
from typing import Any

import pytest

from rocketroute.client.consumer.offset_store import OffsetStore
from rocketroute.client.consumer.process_queue import ProcessQueue
from rocketroute.client.consumer.stats import ConsumerStats


def _calls_under_the_lock(fn: Callable[..., Any]) -> list[list[str]]:
    """For each ``with`` block of ``fn``: its body's calls (each named by the last value loaded before it: an
    argument, or the callee when it takes none) before the one that exits the block (which follows three
    ``LOAD_CONST None``), and ``"a loop"`` for a backward jump."""
    blocks: list[list[str]] = []
    body: list[str] | None = None
    recent: list[dis.Instruction] = []
    for ins in dis.get_instructions(fn):
        if ins.opname == "BEFORE_WITH":
            body = []
        elif body is not None:
            if ins.opname == "CALL":
                exits = len(recent) >= 3 and all(r.opname == "LOAD_CONST" and r.argval is None for r in recent[-3:])
                if exits:
                    blocks.append(body)
                    body = None
                else:
                    body.append(str(recent[-1].argval) if recent else "?")
            elif ins.opname.startswith("JUMP_BACKWARD"):
                body.append("a loop")
        if ins.opname not in ("PRECALL", "CACHE", "PUSH_NULL"):
            recent.append(ins)
    return blocks


@pytest.mark.parametrize(
    ("fn", "allowed"),
    [
        (OffsetStore.update_offset, 0),
        (ConsumerStats.add_result, 0),
    ],
    ids=lambda v: getattr(v, "__qualname__", str(v)),
)
def test_the_consume_path_locks_are_held_over_no_call(fn: Callable[..., Any], allowed: int) -> None:
    blocks = _calls_under_the_lock(fn)
    assert blocks, f"{fn.__qualname__} takes no lock any more: update this test"
    for calls in blocks:
        assert "a loop" not in calls, f"{fn.__qualname__} loops under its lock"
        assert len(calls) <= allowed, f"{fn.__qualname__} calls {calls} under its lock"


@pytest.mark.parametrize(
    "fn",
    [ProcessQueue.put_messages, ProcessQueue.remove_messages, ProcessQueue.take_messages, ProcessQueue.commit],
    ids=lambda f: f.__qualname__,
)
def test_the_queue_cache_is_reached_without_a_lock_held_here(fn: Callable[..., Any]) -> None:
    """A queue's cache locks itself over each operation (the native one runs no Python code then): ProcessQueue
    holds no lock of its own around the call, which the GIL could leave with (found in a test of the consume pool
    on one queue: 1.75 context switches and 30.6 us of CPU a listener call, 12.3 us without the lock)."""
    assert "BEFORE_WITH" not in {ins.opname for ins in dis.get_instructions(fn)}


def test_a_single_counter_is_added_without_a_call_under_the_lock() -> None:
    # ConsumerStats.add has two with blocks: one counter (the usual call, no call under the lock) and several
    first, *_ = _calls_under_the_lock(ConsumerStats.add)
    assert first == []
