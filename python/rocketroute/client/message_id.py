"""Message ids (``UNIQ_KEY``) built as Java's ``MessageClientIDSetter.createUniqID`` builds them.

The layout (the same in RocketMQ 4.9.8 and 5.3.3), as upper-case hex:

====================  ============  ==================================================================
field                 bytes         value
====================  ============  ==================================================================
IP                    4 (IPv6: 16)  ``UtilAll.getIP()``, a local address (see :func:`choose_java_ip`)
pid                   2             ``(short) UtilAll.getPid()``
class-loader hash     4             ``MessageClientIDSetter.class.getClassLoader().hashCode()``
time                  4             ``(int) (now - start of the current month)``, in ms, local time zone
counter               2             ``AtomicInteger.getAndIncrement()``, low 16 bits
====================  ============  ==================================================================

so 32 hex chars with an IPv4 address, 56 with IPv6. The first three fields are computed once per process (the
static ``FIX_STRING``). The class-loader hash is an identity hash in Java; here it is a random 31-bit number
drawn once per process. The month starts in the local time zone (``Calendar.getInstance()``), and a month is
longer than ``Integer.MAX_VALUE`` ms: from day 25 on the time field wraps to a negative int, written as its 32
bits, which Java's ``getNearlyTimeFromID`` reads back unsigned; both are reproduced. A time slightly before the
month start (within 1,000,000 ms, a clock set back by NTP) is written as 0, as Java does.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from .._backend import native_twin
from ..errors import IllegalArgumentError
from ..reference.compat import parse_compat

__all__ = [
    "MessageIdGenerator",
    "UniqIdInfo",
    "choose_java_ip",
    "create_uniq_id",
    "local_ip_candidates",
    "month_start_ms",
    "parse_uniq_id",
]


def _current_time_millis() -> int:
    """``System.currentTimeMillis()``."""
    return time.time_ns() // 1_000_000


def month_start_ms(now_ms: int, tz: datetime.tzinfo | None = None, months: int = 0) -> int:
    """The first millisecond of the month holding ``now_ms`` (``months`` later, may be negative) in ``tz``
    (``None``: the local time zone, as Java's ``Calendar.getInstance()``): ``Calendar.set(DAY_OF_MONTH, 1)``,
    hour, minute, second and millisecond 0, then ``add(MONTH, months)``."""
    seconds = now_ms // 1000
    dt = datetime.datetime.fromtimestamp(seconds, tz) if tz is not None else datetime.datetime.fromtimestamp(seconds)
    index = dt.year * 12 + (dt.month - 1) + months
    start = dt.replace(year=index // 12, month=index % 12 + 1, day=1, hour=0, minute=0, second=0, microsecond=0)
    return int(start.timestamp()) * 1000


# --- the local address ---------------------------------------------------------------------------------------------


def _is_internal_v4(ip: bytes) -> bool:
    """``UtilAll.isInternalIP``: 10/8, 127/8, 172.16/12, 192.168/16."""
    return ip[0] in (10, 127) or (ip[0] == 172 and 16 <= ip[1] <= 31) or (ip[0] == 192 and ip[1] == 168)


def _is_internal_v6(ip: bytes) -> bool:
    """``UtilAll.isInternalV6IP``: any-local, link-local, loopback, site-local (``fec0::/10``)."""
    a = ipaddress.IPv6Address(ip)
    return a.is_unspecified or a.is_link_local or a.is_loopback or (ip[0] == 0xFE and ip[1] & 0xC0 == 0xC0)


def choose_java_ip(candidates: Iterable[bytes], compat: str | None = "5.3") -> bytes | None:
    """``UtilAll.getIP()`` over addresses in the order Java's ``NetworkInterface`` enumeration would give them:
    the first IPv4 address that is not internal, or the first IPv6 address that is not internal, whichever
    comes first; else an internal IPv4 address: 5.3.3 keeps the first one but replaces a ``127.x`` by a later
    one, 4.9.8 keeps the first one. ``None`` when there is none (Java then throws and
    ``MessageClientIDSetter`` uses ``createFakeIP()``)."""
    compat = parse_compat(compat)
    internal: bytes | None = None
    for ip in candidates:
        ip = bytes(ip)
        if len(ip) == 4:
            if not _is_internal_v4(ip):
                return ip
            if internal is None or (compat == "5.3" and internal[0] == 127):
                internal = ip
        elif len(ip) == 16:
            if not _is_internal_v6(ip):
                return ip
    return internal


def _linux_interface_addresses() -> list[bytes]:
    """The addresses in the order the JDK's ``NetworkInterface.getNetworkInterfaces()`` then
    ``getInetAddresses()`` give them on Linux: the JDK collects the IPv4 address of each interface (kernel
    order), then the IPv6 addresses of ``/proc/net/if_inet6`` (file order), putting each new interface at the
    head of its list and each address at the head of its interface's list. Empty when this is not Linux or the
    kernel refuses."""
    import fcntl
    import struct

    ifaces: list[tuple[str, list[bytes]]] = []

    def add(name: str, ip: bytes) -> None:
        for n, addrs in ifaces:
            if n == name:
                addrs.insert(0, ip)
                return
        ifaces.insert(0, (name, [ip]))

    siocgifaddr = 0x8915
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            try:
                res = fcntl.ioctl(s.fileno(), siocgifaddr, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue  # no IPv4 address
            add(name, bytes(res[20:24]))
    try:
        with open("/proc/net/if_inet6", encoding="ascii") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 6 and len(parts[0]) == 32:
                    add(parts[5], bytes.fromhex(parts[0]))
    except OSError:
        pass
    return [ip for _, addrs in ifaces for ip in addrs]


def local_ip_candidates() -> list[bytes]:
    """This host's addresses in the order Java's ``UtilAll.getIP()`` walks them, as far as the standard library
    can see them. On Linux: the JDK's interface enumeration order (checked against OpenJDK 17 on a host with
    ``lo`` and ``eth0`` holding IPv4, a global IPv6 and a link-local IPv6 address). Elsewhere, or when that
    finds nothing: the source address of a route to a public address (a connected UDP socket, which sends
    nothing), the host name's IPv4 addresses, then ``127.0.0.1``; with several public addresses this may pick
    another one than Java."""
    if sys.platform.startswith("linux"):
        try:
            found = _linux_interface_addresses()
        except (OSError, ImportError, ValueError):
            found = []
        if found:
            return found
    out: list[bytes] = []

    def add(addr: str) -> None:
        try:
            b = ipaddress.IPv4Address(addr).packed
        except ValueError:
            return
        if b not in out:
            out.append(b)

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: connect() on a UDP socket sends no packet
            add(s.getsockname()[0])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            add(str(info[4][0]))
    except OSError:
        pass
    add("127.0.0.1")
    return out


def _fake_ip(now_ms: int) -> bytes:
    """``MessageClientIDSetter.createFakeIP()``: the low 4 bytes of the current time in ms."""
    return (now_ms & 0xFFFFFFFF).to_bytes(4, "big")


def _ip_str(ip: bytes) -> str:
    """``UtilAll.ipToIPv4Str`` / ``ipToIPv6Str`` (eight groups of four lower-case hex digits, no ``::``)."""
    if len(ip) == 4:
        return ".".join(str(b) for b in ip)
    return ":".join(ip[i : i + 2].hex() for i in range(0, 16, 2))


# --- the generator -------------------------------------------------------------------------------------------------


class _MessageIdCounter:
    """The time window and the counter behind a generator's ids: ``createUniqID()``'s moving part. Thread-safe.
    The native backend's twin is ``rocketroute._native._MessageIdCounter`` (``rocketroute_core::message_id``,
    the same ids): the one a generator uses there, since an id is made on every send."""

    def __init__(self, prefix: str, start: int, next_start: int, counter: int = 0) -> None:
        self.prefix = prefix
        self._start = start
        self._next_start = next_start
        self._counter = counter & 0xFFFF
        self._lock = threading.Lock()

    def set_window(self, start: int, next_start: int) -> None:
        """Ids are written in the window ``[start, next_start)`` from now on."""
        with self._lock:
            self._start, self._next_start = start, next_start

    @property
    def counter(self) -> int:
        """The counter's next value (16 bits)."""
        return self._counter

    def _reserve(self, now_ms: int, n: int) -> tuple[int, int] | None:
        with self._lock:
            if now_ms >= self._next_start:
                return None
            diff = (now_ms - self._start) & 0xFFFFFFFF  # (int) cast, then 32 bits written as hex
            if diff >= 0xFFF0BDC1:  # -1_000_000 < (int) diff < 0: a clock set back a little (NTP)
                diff = 0
            first = self._counter
            self._counter = (first + n) & 0xFFFF
        return diff, first

    def create(self, now_ms: int | None = None) -> str | None:
        """A new id at ``now_ms`` (default ``System.currentTimeMillis()``), or ``None`` when that is past the
        window: set the next one, then ask again."""
        got = self._reserve(_current_time_millis() if now_ms is None else now_ms, 1)
        if got is None:
            return None
        return f"{self.prefix}{(got[0] << 16) | got[1]:012X}"  # one format: a third of the time of two

    def create_many(self, n: int, now_ms: int | None = None) -> list[str] | None:
        """``n`` ids as ``n`` calls of :meth:`create` in a row would give them, or ``None`` past the window."""
        if n < 0:
            raise ValueError(f"n must be >= 0, not {n}")
        got = self._reserve(_current_time_millis() if now_ms is None else now_ms, n)
        if got is None:
            return None
        diff, first = got
        head = f"{self.prefix}{diff:08X}"
        return [f"{head}{(first + i) & 0xFFFF:04X}" for i in range(n)]


def _counter_class() -> type[_MessageIdCounter]:
    """The native backend's counter class, else :class:`_MessageIdCounter`."""
    return native_twin("_MessageIdCounter") or _MessageIdCounter


class MessageIdGenerator:
    """``MessageClientIDSetter``'s state: the fixed prefix, the month window and the counter. Thread-safe.

    - ``ip``: 4 or 16 bytes or an address string; default :func:`choose_java_ip` over
      :func:`local_ip_candidates` (``createFakeIP()`` if that finds nothing).
    - ``pid``: default ``os.getpid()``; written as a short (low 16 bits).
    - ``class_loader_hash``: default a random 31-bit number, drawn once (Java's is an identity hash).
    - ``clock``: ``System.currentTimeMillis()`` stand-in (ms since the epoch).
    - ``tz``: the time zone of the month start, default the local one.
    - ``counter``: the counter's first value (Java's starts at 0); its low 16 bits are written.

    With the native backend the counter and the id's text are the core's (``rocketroute_core::message_id``),
    which reads the system clock itself when ``clock`` is the default one.
    """

    def __init__(
        self,
        *,
        ip: bytes | str | None = None,
        pid: int | None = None,
        class_loader_hash: int | None = None,
        clock: Callable[[], int] = _current_time_millis,
        tz: datetime.tzinfo | None = None,
        compat: str | None = "5.3",
        counter: int = 0,
    ) -> None:
        self._clock = clock
        self._tz = tz
        if ip is None:
            ip_bytes = choose_java_ip(local_ip_candidates(), compat) or _fake_ip(clock())
        elif isinstance(ip, str):
            ip_bytes = ipaddress.ip_address(ip).packed
        else:
            ip_bytes = bytes(ip)
        if len(ip_bytes) not in (4, 16):
            raise IllegalArgumentError(f"ip must be 4 or 16 bytes, not {len(ip_bytes)}")
        if pid is None:
            pid = os.getpid()
        if class_loader_hash is None:
            class_loader_hash = secrets.randbits(31) or 1
        if isinstance(counter, bool) or not isinstance(counter, int):
            raise TypeError(f"counter must be an int, not {type(counter).__name__}")
        self.ip = ip_bytes
        self.pid = pid & 0xFFFF
        self.class_loader_hash = class_loader_hash & 0xFFFFFFFF
        self.prefix = (ip_bytes + self.pid.to_bytes(2, "big") + self.class_loader_hash.to_bytes(4, "big")).hex().upper()
        """``FIX_STRING``: IP, pid and class-loader hash as upper-case hex (20 chars for IPv4, 44 for IPv6)."""
        now = clock()
        self._ids = _counter_class()(self.prefix, *self._window(now), counter & 0xFFFF)
        # the default clock is the counter's own (one call fewer per id)
        self._own_clock = clock is _current_time_millis

    def _window(self, now_ms: int) -> tuple[int, int]:
        """``setStartTime``: the start of ``now_ms``'s month and of the next one."""
        return month_start_ms(now_ms, self._tz), month_start_ms(now_ms, self._tz, 1)

    @property
    def counter(self) -> int:
        """The counter's next value (16 bits)."""
        return self._ids.counter  # type: ignore[no-any-return]

    def create(self) -> str:
        """``createUniqID()``: the prefix, the time since the month start (8 hex chars) and the counter (4)."""
        if self._own_clock:
            uid = self._ids.create()
            while uid is None:  # a new month: its window, then again
                self._ids.set_window(*self._window(self._clock()))
                uid = self._ids.create()
            return uid  # type: ignore[no-any-return]
        now = self._clock()
        uid = self._ids.create(now)
        if uid is None:
            self._ids.set_window(*self._window(now))
            uid = self._ids.create(now)
        return uid  # type: ignore[no-any-return]

    def create_many(self, n: int) -> list[str]:
        """``n`` ids as ``n`` calls of :meth:`create` in a row would give them (one clock reading, one lock): a
        batch's messages' ids."""
        now = self._clock()
        ids = self._ids.create_many(n, now)
        if ids is None:
            self._ids.set_window(*self._window(now))
            ids = self._ids.create_many(n, now)
        return ids  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"MessageIdGenerator(prefix={self.prefix!r})"


_default: MessageIdGenerator | None = None
_default_lock = threading.Lock()


def _generator() -> MessageIdGenerator:
    global _default
    gen = _default
    if gen is None:
        with _default_lock:
            if _default is None:
                _default = MessageIdGenerator()
            gen = _default
    return gen


def _forget_after_fork() -> None:
    """A forked child builds its own generator: its ids carry its own pid."""
    global _default, _default_lock
    _default = None
    _default_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def create_uniq_id() -> str:
    """A new message id from the process-wide generator (built on first use, as Java's static initializer)."""
    return _generator().create()


def default_counter() -> Any:
    """The counter of the process-wide generator (``_native._MessageIdCounter`` with the native backend, whose
    encoder makes a send's id with it)."""
    gen = _default  # read first: once built, no call to _generator (one per send)
    return (gen if gen is not None else _generator())._ids


def create_uniq_ids(n: int) -> list[str]:
    """``n`` new message ids from the process-wide generator, in a row (a batch's)."""
    return _generator().create_many(n)


# --- parsing -------------------------------------------------------------------------------------------------------


class UniqIdInfo(NamedTuple):
    """What ``getIPStrFromID``, ``getPidFromID`` and ``getNearlyTimeFromID`` read from a message id."""

    ip: str
    pid: int
    timestamp_ms: int


def hex_id_bytes(msg_id: str, what: str) -> bytes:
    """The bytes of a message id of 32 or 56 hex chars (an IPv4 or an IPv6 host): ``TypeError`` for a non-str,
    :class:`IllegalArgumentError` naming ``what`` for another length or a non-hex char."""
    if not isinstance(msg_id, str):
        raise TypeError(f"msg_id must be a str, not {type(msg_id).__name__}")
    if len(msg_id) not in (32, 56):
        raise IllegalArgumentError(f"{what} has 32 or 56 hex chars, not {len(msg_id)}: {msg_id!r}")
    try:
        return bytes.fromhex(msg_id)
    except ValueError:
        raise IllegalArgumentError(f"{what} is hex: {msg_id!r}") from None


def parse_uniq_id(msg_id: str, *, now_ms: int | None = None, tz: datetime.tzinfo | None = None) -> UniqIdInfo:
    """The IP (``getIPStrFromID``), pid (``getPidFromID``) and time (``getNearlyTimeFromID``) of a message id.

    The time field holds ms since a month start, so Java adds it to the start of the current month (of
    ``now_ms``, in ``tz``), or of the previous month when that would not be before now. Ids of 32 hex chars
    carry an IPv4 address, of 56 an IPv6 one; any other length or a non-hex char raises
    :class:`IllegalArgumentError` (Java would read garbage)."""
    raw = hex_id_bytes(msg_id, "a message id")
    ip_len = 16 if len(raw) == 28 else 4
    pid = int.from_bytes(raw[ip_len : ip_len + 2], "big")
    span = int.from_bytes(raw[ip_len + 6 : ip_len + 10], "big")
    now = _current_time_millis() if now_ms is None else now_ms
    start = month_start_ms(now, tz)
    if start + span >= now:
        start = month_start_ms(now, tz, -1)
    return UniqIdInfo(_ip_str(raw[:ip_len]), pid, start + span)
