"""Where a consumer's progress is kept: the next offset to consume of each queue.

- :class:`RemoteBrokerOffsetStore` (clustering, Java's ``RemoteBrokerOffsetStore``): offsets live on the broker
  of each queue; read with QUERY_CONSUMER_OFFSET (14), written with UPDATE_CONSUMER_OFFSET (15), oneway, by the
  consumer's persist task (every ``persist_consumer_offset_interval`` ms) and when a queue is given up.
- :class:`LocalFileOffsetStore` (broadcasting, Java's ``LocalFileOffsetStore``): offsets live in
  ``<dir>/<client id>/<group>/offsets.json``, ``dir`` defaulting to Java's ``~/.rocketmq_offsets``, written in the
  format Java's fastjson writes (an ``offsetTable`` whose keys are message-queue objects) and read back from it.

Both keep the offsets in memory first (thread-safe: listener threads update them, the event loop persists).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...protocol.errors import RemotingConnectError
from ...protocol.message_queue_json import message_queue_fields, message_queue_json
from ..api import BrokerAPI

__all__ = ["LocalFileOffsetStore", "OffsetStore", "RemoteBrokerOffsetStore", "default_offset_store_dir"]


class OffsetStore:
    """The in-memory offset table (``offsetTable``) both stores share."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: dict[Any, int] = {}

    def update_offset(self, mq: Any, offset: int, increase_only: bool = False) -> None:
        """``updateOffset``: set the queue's offset; with ``increase_only`` never move it back.

        Every consume pool thread calls this once per listener call. The lock is held over operators only, no
        call: the interpreter hands the GIL to another thread at calls and loops, and a thread that lost the GIL
        while holding this lock had every other pool thread queue on the lock and the lock then passed from thread
        to thread, two context switches a message (seen as a consumer running at half speed, for seconds)."""
        table = self._table
        with self._lock:
            if not increase_only or mq not in table or offset > table[mq]:
                table[mq] = offset

    def read_memory(self, mq: Any) -> int:
        """``readOffset(mq, READ_FROM_MEMORY)``: the offset held, or -1."""
        with self._lock:
            return self._table.get(mq, -1)

    def remove_offset(self, mq: Any) -> None:
        """``removeOffset``: forget the queue (after its offset was persisted, when the queue is given up)."""
        with self._lock:
            self._table.pop(mq, None)

    def offsets(self) -> dict[Any, int]:
        """A copy of the table."""
        with self._lock:
            return dict(self._table)

    async def read_from_store(self, mq: Any) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    async def persist(self, mq: Any) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    async def persist_all(self, mqs: Iterable[Any], *, oneway: bool = True) -> None:  # pragma: no cover
        raise NotImplementedError


class RemoteBrokerOffsetStore(OffsetStore):
    """Offsets of ``group`` on the brokers. ``addr_of(broker_name)`` gives the broker's master address (``None``
    when unknown); requests go through ``api`` (use it from its loop)."""

    def __init__(
        self, group: str, api: BrokerAPI, addr_of: Callable[[str], str | None], *, timeout_ms: int = 3000
    ) -> None:
        super().__init__()
        self.group = group
        self.api = api
        self.addr_of = addr_of
        self.timeout_ms = timeout_ms

    def _addr(self, mq: Any) -> str:
        addr = self.addr_of(mq.broker_name)
        if addr is None:
            raise RemotingConnectError(f"<{mq.broker_name}>", f"The broker[{mq.broker_name}] not exist")
        return addr

    async def read_from_store(self, mq: Any) -> int:
        """``readOffset(mq, READ_FROM_STORE)``: QUERY_CONSUMER_OFFSET; -1 when the broker has none
        (QUERY_NOT_FOUND). The offset read is also put in memory. Other failures raise."""
        offset = await self.api.query_consumer_offset(self._addr(mq), self.group, mq, self.timeout_ms)
        if offset is None:
            return -1
        self.update_offset(mq, offset)
        return offset

    async def _update_on_broker(self, mq: Any, offset: int, oneway: bool) -> None:
        await self.api.update_consumer_offset(
            self._addr(mq), self.group, mq, offset, oneway=oneway, timeout_ms=self.timeout_ms
        )

    async def persist(self, mq: Any) -> None:
        """``persist(mq)``: write the queue's offset to its broker (acknowledged), if one is held."""
        offset = self.read_memory(mq)
        if offset >= 0:
            await self._update_on_broker(mq, offset, oneway=False)

    async def persist_all(self, mqs: Iterable[Any], *, oneway: bool = True) -> None:
        """``persistAll``: write the offsets of ``mqs`` (the queues owned now) to their brokers; entries of other
        queues are dropped from memory, as Java's ``unusedMQ``. Java writes oneway; ``oneway=False`` waits for each
        acknowledgement (the consumer does so at shutdown, so that the last commit is not lost with the
        connection). A broker that cannot be reached is skipped (its offsets are tried again next time); the
        first failure is raised after the rest were tried."""
        owned = set(mqs)
        first: BaseException | None = None
        for mq in self.offsets():
            if mq not in owned:
                self.remove_offset(mq)
                continue
            # read now, not from the snapshot: while an earlier write was awaited, a queue may have been given up
            # (its own commit written, acknowledged, and forgotten) and a newer owner may be about to read the
            # broker's offset, which a stale value written now would move back (its messages consumed twice)
            offset = self.read_memory(mq)
            if offset < 0:
                continue
            try:
                await self._update_on_broker(mq, offset, oneway)
            except Exception as e:  # a broker that is down must not stop the others' commits
                first = first or e
        if first is not None:
            raise first


def default_offset_store_dir() -> Path:
    """Java's ``rocketmq.client.localOffsetStoreDir`` default: ``~/.rocketmq_offsets``."""
    return Path(os.path.expanduser("~")) / ".rocketmq_offsets"


def dumps_offset_table(offsets: dict[Any, int]) -> str:
    """``OffsetSerializeWrapper`` as Java's fastjson writes it: ``{"offsetTable":{{...mq...}:offset,...}}``."""
    entries = ",".join(f"{message_queue_json(mq)}:{int(off)}" for mq, off in offsets.items())
    return f'{{"offsetTable":{{{entries}}}}}'


def loads_offset_table(text: str) -> list[tuple[str, str, int, int]]:
    """Read what :func:`dumps_offset_table` (or Java) wrote: ``(topic, broker_name, queue_id, offset)`` tuples.
    Raises ``ValueError`` on anything else."""
    decoder = json.JSONDecoder()
    s = text.strip()
    prefix = '{"offsetTable":{'
    compact = s.replace(" ", "").replace("\n", "").replace("\t", "").replace("\r", "")
    if not compact.startswith(prefix):
        raise ValueError("not an offsets.json: no offsetTable")
    s = compact
    i = len(prefix)
    out: list[tuple[str, str, int, int]] = []
    while s[i] != "}":
        key, i = decoder.raw_decode(s, i)
        if s[i] != ":":
            raise ValueError(f"offsets.json: ':' expected at {i}")
        value, i = decoder.raw_decode(s, i + 1)
        if not isinstance(key, dict) or not isinstance(value, int):
            raise ValueError("offsets.json: an entry is not {message queue}: offset")
        out.append((*message_queue_fields(key), value))
        if s[i] == ",":
            i += 1
    return out


class LocalFileOffsetStore(OffsetStore):
    """Offsets of a broadcasting consumer in ``path`` (see the module docstring). ``make_mq(topic, broker_name,
    queue_id)`` builds the queue objects read back (the backend's ``MessageQueue``)."""

    def __init__(self, path: str | os.PathLike[str], make_mq: Callable[[str, str, int], Any]) -> None:
        super().__init__()
        self.path = Path(path)
        self._make_mq = make_mq
        self._stored: dict[Any, int] = {}
        self.load()

    def load(self) -> None:
        """Read the file (or its ``.bak``, as Java falls back to it); a missing file is an empty table."""
        for candidate in (self.path, self.path.with_name(self.path.name + ".bak")):
            try:
                text = candidate.read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            entries = loads_offset_table(text)
            self._stored = {self._make_mq(t, b, q): off for t, b, q, off in entries}
            with self._lock:
                for mq, off in self._stored.items():
                    self._table.setdefault(mq, off)
            return

    async def read_from_store(self, mq: Any) -> int:
        """The offset in the file (read at start), or -1."""
        offset = self._stored.get(mq, -1)
        if offset >= 0:
            self.update_offset(mq, offset)
        return offset

    async def persist(self, mq: Any) -> None:
        self._write()

    async def persist_all(self, mqs: Iterable[Any], *, oneway: bool = True) -> None:
        """Write every held offset of ``mqs`` to the file (written aside, the old one kept as ``.bak``, then
        renamed into place)."""
        owned = set(mqs)
        with self._lock:
            keep = {mq: off for mq, off in self._table.items() if mq in owned}
        if keep:
            self._stored.update(keep)
            self._write()

    def _write(self) -> None:
        with self._lock:
            table = dict(self._stored)
            table.update(self._table)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(dumps_offset_table(table), encoding="utf-8")
        if self.path.exists():
            os.replace(self.path, self.path.with_name(self.path.name + ".bak"))
        os.replace(tmp, self.path)
