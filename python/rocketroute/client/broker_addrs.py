"""The broker address table a client keeps from the routes it fetched (Java's ``MQClientInstance
.brokerAddrTable``), and the address choices made from it. One class for the producer and the consumer, as Java
has one table per client instance."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .namesrv import MASTER_ID, master_or_first

__all__ = ["BrokerAddrTable"]


class BrokerAddrTable:
    """Broker name -> {broker id -> address}, as the latest route naming the broker gave it. Not thread-safe:
    a client touches it from its own loop only."""

    __slots__ = ("_table",)

    def __init__(self) -> None:
        self._table: dict[str, dict[int, str | None]] = {}

    def update(self, route: Any) -> None:
        """Take each broker's addresses from ``route`` (a ``TopicRouteData``), replacing what was known of it."""
        for b in route.broker_datas or ():
            self._table[b.broker_name] = dict(b.broker_addrs or {})

    def retain(self, broker_names: Iterable[str]) -> None:
        """``cleanOfflineBroker``: forget every broker not in ``broker_names`` (those some route still names)."""
        keep = set(broker_names)
        for name in [n for n in self._table if n not in keep]:
            del self._table[name]

    def master(self, broker_name: str) -> str | None:
        """``findBrokerAddressInPublish``: the broker's master address (``None``: no master known)."""
        addrs = self._table.get(broker_name)
        return None if addrs is None else addrs.get(MASTER_ID)

    def master_or_first(self, broker_name: str) -> str | None:
        """The master's address, else the node with the lowest id: for what any node of the broker knows."""
        return master_or_first(self._table.get(broker_name))

    def subscribe_addr(self, broker_name: str, broker_id: int) -> tuple[str | None, bool]:
        """``findBrokerAddressInSubscribe(brokerName, brokerId, false)``: node ``broker_id``'s address, else any
        of the broker's; and whether the address is a slave's."""
        addrs = self._table.get(broker_name) or {}
        addr = addrs.get(broker_id)
        if addr is not None:
            return addr, broker_id != MASTER_ID
        for bid, a in addrs.items():
            if a is not None:
                return a, bid != MASTER_ID
        return None, False

    def nodes(self, *, masters_only: bool = False) -> Iterator[tuple[str, str]]:
        """(broker name, address) of every known node, masters and slaves, or the masters only (a snapshot: safe
        to await between)."""
        return iter(
            [
                (name, a)
                for name, addrs in self._table.items()
                for bid, a in addrs.items()
                if a is not None and (bid == MASTER_ID or not masters_only)
            ]
        )

    def addresses(self) -> set[str | None]:
        """Every known node's address."""
        return {a for addrs in self._table.values() for a in addrs.values()}

    def __len__(self) -> int:
        return len(self._table)

    def __contains__(self, broker_name: object) -> bool:
        return broker_name in self._table
