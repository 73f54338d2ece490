"""Real RocketMQ servers for the cluster tests: name servers, brokers and proxies started as processes on 127.0.0.1.

Two implementations (:mod:`tests.cluster.impls`): Apache RocketMQ's own Java servers (``impl="apache-5.5.0"``,
``"apache-5.3.3"``, ``"apache-4.9.7"``: jars that ``make servers`` resolves from Maven Central, started with
``java -cp``) and RocketMQ-Rust's (``impl="rust-1.0.0"``: binaries that ``make servers`` builds with ``cargo
install``), both in a cache outside the checkout. A missing implementation is an error telling the user to run
``make servers``, never a skip: the cluster tests must run in CI.

:class:`Cluster` starts N name servers and M brokers (``broker-a``, ``broker-b``, ... in ``DefaultCluster``, each a
master registered with every name server through a ``;``-separated ``namesrvAddr``, as a Java broker's
``namesrvAddr`` is written) on free ports, each in its own temp dir with its log file, and waits until every name
server lists every broker (GET_BROKER_CLUSTER_INFO). It stops, kills, pauses (SIGSTOP), resumes (SIGCONT) and
restarts brokers (same ports and store), creates topics (UPDATE_AND_CREATE_TOPIC on the brokers, then waits for the
route on every name server) and reads a queue's max offset (GET_MAX_OFFSET). Every error about a server carries the
tail of its log.

Every server runs in its own process group, so a Ctrl-C at the terminal reaches only pytest, which then closes the
cluster. :meth:`Cluster.close` kills the servers by pid and removes the temp dirs; an ``atexit`` hook closes any
cluster still open, and a small reaper process (one per Python process) kills the servers' process groups when
the process that started them dies without running ``atexit`` (SIGKILL, a CI timeout).

The servers are reached with :mod:`rocketroute.protocol` (the library's own protocol client), so these tests also
exercise it against real servers.
"""

from __future__ import annotations

import atexit
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocketroute import Credentials, TopicRouteData
from rocketroute.net import RemotingClient
from rocketroute.net.tls import TLS
from rocketroute.protocol import RemotingCommand, RemotingError, RequestCode, ResponseCode
from rocketroute.reference.route_json import quote_numeric_keys

from .._java_peers import QUICK_JIT
from .impls import (
    BROKER_BINARY,
    CLUSTER_NAME,
    NAMESRV_BINARY,
    SERVERS_BIN_ENV,
    ApacheImpl,
    ExternalImpl,
    Launch,
    RustImpl,
    ServerImpl,
    ServersMissingError,
    get_impl,
    servers_bin_dir,
)

__all__ = [
    "BROKER_BINARY",
    "CLUSTER_NAME",
    "Cluster",
    "ControlNotAvailable",
    "HarnessError",
    "NAMESRV_BINARY",
    "QUICK_JIT",
    "SERVERS_BIN_ENV",
    "ServersMissingError",
    "servers_bin_dir",
    "find_binaries",
]

DEFAULT_IMPL = "apache-5.5.0"
"""The implementation a :class:`Cluster` starts when none is named: Apache's newest servers."""

KEEP_DIRS_ENV = "ROCKETROUTE_CLUSTER_KEEP"
"""Set to 1 to keep the cluster's temp dirs (configs, stores, logs) after close, for debugging."""
DEFAULT_TOPIC = "TBW102"
"""Java's TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, the ``defaultTopic`` of a create-topic request."""

_POLL_S = 0.05
_NUDGE_EVERY_S = 1.0
_GET_BROKER_CONFIG = 26  # Java's RequestCode.GET_BROKER_CONFIG: the broker's config as properties text
_UPDATE_BROKER_CONFIG = 25  # RequestCode.UPDATE_BROKER_CONFIG: a properties body of the keys to change
_LOG_TAIL_LINES = 30
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ADDR_IN_USE = re.compile(r"address already in use|os error 98|AddrInUse|BindException", re.IGNORECASE)


class HarnessError(RuntimeError):
    """A server did not start, answer or register as expected; the message carries the servers' log tails."""


class ControlNotAvailable(HarnessError):
    """A test asked to start, stop, kill or pause a server of an attached cluster (``ROCKETROUTE_CLUSTER_NAMESRV``),
    which the harness does not run; the cluster conftest turns it into a skip naming the test."""


def find_binaries(bin_dir: str | os.PathLike[str] | None = None) -> tuple[Path, Path]:
    """The Rust name server and broker executables in ``bin_dir`` (default :func:`servers_bin_dir`).

    Raises :class:`ServersMissingError` naming what is missing and telling the user to run ``make servers``."""
    return RustImpl(bin_dir=bin_dir).binaries()


# ---------------------------------------------------------------------------------------------------------------
# Process safety net: a reaper process that kills the servers' process groups when this process dies.

_REAPER_SOURCE = r"""
import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
groups = set()
for line in sys.stdin:
    line = line.strip()
    if line[:1] == "+":
        groups.add(int(line[1:]))
    elif line[:1] == "-":
        groups.discard(int(line[1:]))
for g in groups:
    try:
        os.killpg(g, signal.SIGKILL)
    except OSError:
        pass
"""


class _Reaper:
    """One per process: a child that reads ``+pgid`` / ``-pgid`` lines and, at EOF (this process is gone, however
    it died), SIGKILLs every process group still listed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner_pid = 0

    def _send(self, line: str) -> None:
        with self._lock:
            if self._proc is None or self._owner_pid != os.getpid() or self._proc.poll() is not None:
                self._proc = subprocess.Popen(
                    [sys.executable, "-c", _REAPER_SOURCE],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    close_fds=True,
                )
                self._owner_pid = os.getpid()
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write(line.encode() + b"\n")
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError):  # the reaper is gone; atexit and close() still work
                pass

    def watch(self, pgid: int) -> None:
        self._send(f"+{pgid}")

    def forget(self, pgid: int) -> None:
        self._send(f"-{pgid}")


_REAPER = _Reaper()
_OPEN_CLUSTERS: weakref.WeakSet[Cluster] = weakref.WeakSet()


@atexit.register
def _close_open_clusters() -> None:
    for c in list(_OPEN_CLUSTERS):
        try:
            c.close()
        except Exception:  # best effort at interpreter exit
            pass


# ---------------------------------------------------------------------------------------------------------------
# Ports


_TAKEN_PORTS: set[int] = set()
_PORTS_LOCK = threading.Lock()


def _port_range() -> tuple[int, int]:
    """Ports below the kernel's ephemeral range, so a port picked here is not handed out to an outgoing
    connection between the check and the server's bind."""
    lo, hi = 10000, 32768
    try:
        eph_lo = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
        hi = min(hi, eph_lo)
    except (OSError, ValueError, IndexError):
        pass
    return lo, hi


def _can_bind(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_ports(offsets: Iterable[int]) -> int:
    """A base port ``p`` such that every ``p + offset`` is free on 127.0.0.1 and not handed out before by this
    process (a broker listens on ``listenPort``, ``listenPort - 2`` (Java's fast/VIP channel) and the HA port)."""
    offs = sorted(set(offsets))
    lo, hi = _port_range()
    lo -= offs[0]
    hi -= offs[-1]
    with _PORTS_LOCK:
        for _ in range(500):
            base = random.randrange(lo, hi) if hi - lo > 100 else 0
            if base == 0:  # no usable range: let the kernel pick
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    base = s.getsockname()[1] - offs[0]
            ports = [base + o for o in offs]
            if any(p in _TAKEN_PORTS or not 0 < p < 65536 for p in ports):
                continue
            if all(_can_bind(p) for p in ports):
                _TAKEN_PORTS.update(ports)
                return base
    raise HarnessError(f"no free ports on 127.0.0.1 for offsets {offs}")


# ---------------------------------------------------------------------------------------------------------------
# Server processes


def _tail(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log file, colour codes removed."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 256 * 1024))
            text = f.read().decode("utf-8", errors="replace")
    except OSError as e:
        return f"<no log: {e}>"
    return "\n".join(_ANSI.sub("", text).splitlines()[-lines:])


def _dir_bytes(path: Path) -> int:
    """Disk space used by the files under ``path`` (allocated blocks, as ``du``; sparse files count what they use)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


@dataclass
class _Server:
    """One server process: its command line, its dir and log, and the running process (if any)."""

    name: str
    kind: str  # "namesrv", "broker" or "proxy"
    home: Path
    port: int
    argv: list[str]
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    paused: bool = False
    starts: int = 0
    extra_ports: list[int] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)
    """The server's own log files (Apache's), shown beside the captured stdout/stderr when it fails."""
    host: str = "127.0.0.1"
    attached: bool = False
    """A server of a cluster the harness attached to and does not run: control raises ControlNotAvailable."""

    @property
    def addr(self) -> str:
        return f"{self.host}:{self.port}"

    def _control(self, what: str) -> None:
        if self.attached:
            raise ControlNotAvailable(f"cannot {what} {self.name} at {self.addr}: the harness attached to this cluster")

    @property
    def log_path(self) -> Path:
        return self.home / "server.log"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def running(self) -> bool:
        return self.attached or (self.proc is not None and self.proc.poll() is None)

    def start(self) -> None:
        self._control("start")
        if self.running():
            raise HarnessError(f"{self.name} is already running (pid {self.pid})")
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(
                f"\n---- harness: start #{self.starts} of {self.name} at {time.strftime('%H:%M:%S')}: "
                f"{' '.join(self.argv)}\n".encode()
            )
            log.flush()
            self.proc = subprocess.Popen(
                self.argv,
                cwd=self.home,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                close_fds=True,
                start_new_session=True,  # its own process group: pgid == pid
            )
        self.paused = False
        _REAPER.watch(self.proc.pid)

    def _signal(self, sig: int) -> None:
        if self.running():
            assert self.proc is not None
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def _reap(self, timeout_s: float | None) -> bool:
        """Wait for the process to exit; True when it did."""
        assert self.proc is not None
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True

    def _forget(self) -> None:
        if self.proc is not None:
            _REAPER.forget(self.proc.pid)
        self.paused = False

    def stop(self, grace_s: float) -> int | None:
        """SIGTERM (a broker then unregisters from the name servers), SIGKILL after ``grace_s``. The exit status."""
        self._control("stop")
        if self.proc is None:
            return None
        if self.running():
            self._signal(signal.SIGTERM)
            if self.paused:  # a stopped process acts on SIGTERM only once continued
                self._signal(signal.SIGCONT)
            if not self._reap(grace_s):
                self._signal(signal.SIGKILL)
                self._reap(None)
        self._forget()
        return self.proc.returncode

    def kill(self) -> int | None:
        """SIGKILL the process group (works on a paused process too)."""
        if self.attached:
            return None
        if self.proc is None:
            return None
        self._signal(signal.SIGKILL)
        self._reap(None)
        self._forget()
        return self.proc.returncode

    def pause(self) -> None:
        self._control("pause")
        if not self.running():
            raise HarnessError(f"cannot pause {self.name}: not running\n{self.describe()}")
        self._signal(signal.SIGSTOP)
        self.paused = True
        self._wait_stopped()

    def _wait_stopped(self, timeout_s: float = 5.0) -> None:
        """Wait until every thread of the process is stopped: SIGSTOP reaches a JVM's many threads one by one,
        and a Netty thread was seen answering a request sent right after the signal."""
        assert self.proc is not None
        tasks = Path(f"/proc/{self.proc.pid}/task")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                states = [(t / "stat").read_text().rsplit(")", 1)[1].split()[0] for t in tasks.iterdir()]
            except (OSError, IndexError):  # a thread came or went while reading: look again
                continue
            if states and all(st in ("T", "t") for st in states):
                return
            time.sleep(0.01)

    def resume(self) -> None:
        if self.running():
            self._signal(signal.SIGCONT)
        self.paused = False

    def describe(self, lines: int = _LOG_TAIL_LINES) -> str:
        if self.attached:
            return f"--- {self.name} at {self.addr} (attached: not run by the harness)"
        if self.proc is None:
            state = "never started"
        elif self.proc.poll() is None:
            state = f"running, pid {self.proc.pid}" + (", paused (SIGSTOP)" if self.paused else "")
        else:
            state = f"exited with status {self.proc.returncode}"
        out = f"--- {self.name} at {self.addr} ({state}); last lines of {self.log_path}:\n{_tail(self.log_path, lines)}"
        for log in self.logs:
            if log.exists():
                out += f"\n--- last lines of {log}:\n{_tail(log, lines)}"
        return out


def _lost_port_race(srv: _Server) -> bool:
    """Whether a server that exited during start did so because another process holds one of its ports. The Rust
    servers then log only "Service lifecycle operation failed" (exit status 70), so the ports are checked."""
    logs = [srv.log_path, *srv.logs]
    return any(_ADDR_IN_USE.search(_tail(p, 200)) for p in logs) or not all(
        _can_bind(p) for p in (srv.port, *srv.extra_ports)
    )


def _broker_names(n: int) -> list[str]:
    """broker-a ... broker-z, then broker-aa, broker-ab, ..."""
    out = []
    for i in range(n):
        s = ""
        j = i
        while True:
            s = chr(ord("a") + j % 26) + s
            j = j // 26 - 1
            if j < 0:
                break
        out.append(f"broker-{s}")
    return out


def _parse_json(body: bytes | None) -> Any:
    """A name server's JSON body; fastjson's bare integer map keys (``{0:"addr"}``, Java's name server) are quoted
    first (the Rust name server writes standard JSON)."""
    text = (body or b"").decode("utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(quote_numeric_keys(text))


# ---------------------------------------------------------------------------------------------------------------
# The cluster


class Cluster:
    """N name servers, M brokers and P proxies on 127.0.0.1 (see the module docstring). Use as a context manager,
    or call :meth:`start` and :meth:`close`.

    ``impl``: the server implementation, a name from :data:`tests.cluster.impls.IMPLS` (default
    :data:`DEFAULT_IMPL`, Apache's newest) or a :class:`~tests.cluster.impls.ServerImpl`.
    ``namesrvs``/``brokers``/``proxies``: how many (proxies: Apache 5.x ``ProxyStartup -pm cluster`` or
    ``rocketmq-proxy-rust --mode cluster``).
    ``bin_dir``: where the Rust binaries are (default :func:`servers_bin_dir`; naming it picks ``rust-1.0.0``
    when ``impl`` is not given). ``base_dir``: the parent of the cluster's temp dir (default the system temp dir).
    ``start_timeout_s``: the deadline of each wait (a server up, every broker registered, a topic's route
    everywhere). ``request_timeout_ms``: the timeout of each request the harness sends. ``broker_log_filter`` /
    ``namesrv_log_filter``: the Rust servers' ``--log-filter``. ``keep_dirs``: keep the temp dirs after close
    (default: ``$ROCKETROUTE_CLUSTER_KEEP``). ``broker_names``: the brokers' names (default ``broker-a``,
    ``broker-b``, ...). ``broker_config``: extra broker config keys (Apache only: ``broker.conf`` properties).
    ``broker_files``: files written into each broker's home (``ROCKETMQ_HOME``) before it starts, path relative to
    it -> text (Apache 4.9's ``conf/plain_acl.yml``). ``credentials``: a :class:`rocketroute.Credentials` the
    harness signs its own requests with (a cluster whose brokers authenticate). ``jvm_options``: more options of
    the name servers' and brokers' JVMs (Apache only: ``-Dtls.server.mode=enforcing``, ...). ``tls``: the harness's
    own connections are TLS (``True`` or an :class:`ssl.SSLContext`, as the clients' ``tls=``). ``full_jit``: the
    JVMs compile with C2 as in production (benchmarks); by default they stop at C1 (:data:`QUICK_JIT`: the tests'
    servers start on less CPU).

    Facts of both implementations the harness relies on: a broker listens on ``listenPort``, ``listenPort - 2`` and
    its HA port (``listenPort + 1``); it unregisters from every name server on SIGTERM; a name server drops a broker
    as soon as its connection closes (a SIGKILL too, not after the 120 s expiry); a restarted broker binds the
    same ports at once and registers its stored topics again.

    The methods may be called from any thread (the protocol client is thread-safe), e.g. to kill a broker while a
    test sends; do not control one broker from two threads at once.
    """

    def __init__(
        self,
        namesrvs: int = 2,
        brokers: int = 2,
        *,
        impl: str | ServerImpl | None = None,
        proxies: int = 0,
        bin_dir: str | os.PathLike[str] | None = None,
        base_dir: str | os.PathLike[str] | None = None,
        start_timeout_s: float = 90.0,
        request_timeout_ms: int = 3000,
        broker_log_filter: str = "warn",
        namesrv_log_filter: str = "info",
        keep_dirs: bool | None = None,
        broker_names: Sequence[str] | None = None,
        broker_config: Mapping[str, str] | None = None,
        broker_files: Mapping[str, str] | None = None,
        credentials: Credentials | None = None,
        jvm_options: Sequence[str] = (),
        tls: TLS = None,
        full_jit: bool = False,
    ) -> None:
        if namesrvs < 1:
            raise ValueError("a cluster needs at least one name server")
        if brokers < 0:
            raise ValueError("brokers must be >= 0")
        if proxies < 0:
            raise ValueError("proxies must be >= 0")
        if impl is None:
            impl = "rust-1.0.0" if bin_dir is not None else DEFAULT_IMPL
        self.impl = get_impl(impl)
        if isinstance(self.impl, RustImpl):
            if bin_dir is not None or (broker_log_filter, namesrv_log_filter) != ("warn", "info"):
                self.impl = RustImpl(
                    self.impl.version,
                    bin_dir=bin_dir,
                    broker_log_filter=broker_log_filter,
                    namesrv_log_filter=namesrv_log_filter,
                )
        elif bin_dir is not None:
            raise ValueError(f"bin_dir names the Rust servers' binaries; {self.impl.name} is started from its jars")
        if proxies and not self.impl.has_proxy:
            raise ValueError(f"{self.impl.name} has no proxy the harness can start")
        self._n_namesrvs = namesrvs
        self._n_brokers = brokers
        self._n_proxies = proxies
        if broker_names is not None and len(broker_names) != brokers:
            raise ValueError(f"{brokers} brokers need {brokers} names, not {list(broker_names)}")
        self._broker_name_list = list(broker_names) if broker_names is not None else _broker_names(brokers)
        self._broker_config = dict(broker_config or {})
        self._broker_files = dict(broker_files or {})
        self.credentials = credentials
        self.jvm_options = tuple(jvm_options)
        self.full_jit = full_jit
        self._quick_jit: tuple[str, ...] = () if full_jit or not self.impl.runs_on_jvm else (QUICK_JIT,)
        self._server_jvm_options = (*self._quick_jit, *self.jvm_options)
        self.tls = tls
        self._base_parent = base_dir
        self.start_timeout_s = start_timeout_s
        self.request_timeout_ms = request_timeout_ms
        self._keep = keep_dirs if keep_dirs is not None else os.environ.get(KEEP_DIRS_ENV, "") not in ("", "0")
        self._namesrvs: list[_Server] = []
        self._brokers: dict[str, _Server] = {}
        self._proxies: list[_Server] = []
        self._client: RemotingClient | None = None
        self.base_dir: Path | None = None
        self.started_in_s: float | None = None
        """Seconds :meth:`start` took (processes up and every broker registered with every name server)."""
        self._closed = False
        # (broker, start) -> when it may be nudged next: a second after it first answered, then every second
        self._nudge_due: dict[tuple[str, int], float] = {}
        self.registration_nudges = 0
        """How many times a started broker that answered but was not listed everywhere was asked to register again
        (see :meth:`_nudge_registration`)."""

    @property
    def compat(self) -> str:
        """The client compat profile matching the servers (``"4.9"`` for Apache 4.9, else ``"5.3"``)."""
        return self.impl.compat

    # -- lifecycle -------------------------------------------------------------------------------------------

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _servers(self) -> list[_Server]:
        return [*self._proxies, *self._brokers.values(), *self._namesrvs]

    def start(self) -> Cluster:
        """Start the name servers, then the brokers, and wait until every name server lists every broker; then the
        proxies. On any failure everything started so far is killed and the error carries the servers' log tails."""
        if self.base_dir is not None or self._namesrvs:
            raise HarnessError("this cluster was started already")
        self.impl.check()
        t0 = time.monotonic()
        if isinstance(self.impl, ExternalImpl):
            self._attach(self.impl)
            self.started_in_s = time.monotonic() - t0
            return self
        self.base_dir = Path(tempfile.mkdtemp(prefix=f"rocketroute-{self.impl.name}-", dir=self._base_parent))
        _OPEN_CLUSTERS.add(self)
        try:
            for i in range(self._n_namesrvs):
                srv = self._new_server(f"namesrv-{i}", "namesrv")
                self._configure_namesrv(srv)
                self._namesrvs.append(srv)
            self._start_all(self._namesrvs, self._configure_namesrv)
            for name in self._broker_name_list:
                srv = self._new_server(name, "broker")
                self._configure_broker(srv)
                self._brokers[name] = srv
            self._start_all(list(self._brokers.values()), self._configure_broker)
            for i in range(self._n_proxies):
                srv = self._new_server(f"proxy-{i}", "proxy")
                self._configure_proxy(srv)
                self._proxies.append(srv)
            self._start_all(self._proxies, self._configure_proxy)
        except BaseException:
            self.close()
            raise
        self.started_in_s = time.monotonic() - t0
        return self

    def _attach(self, impl: ExternalImpl) -> None:
        """Take the name servers of ``impl`` and the brokers the first of them lists in ``DefaultCluster``."""
        self.base_dir = None
        for i, addr in enumerate(a.strip() for a in impl.namesrv_addr.split(";") if a.strip()):
            host, _, port = addr.rpartition(":")
            self._namesrvs.append(
                _Server(f"namesrv-{i}", "namesrv", Path("."), int(port), [], {}, host=host, attached=True)
            )
        for name, addr in sorted(self.registered_brokers(self.namesrv_addrs[0]).items()):
            if addr:
                host, _, port = addr.rpartition(":")
                self._brokers[name] = _Server(name, "broker", Path("."), int(port), [], {}, host=host, attached=True)
        if not self._brokers:
            raise HarnessError(f"the name server {self.namesrv_addrs[0]} lists no broker in {CLUSTER_NAME}")

    def _new_server(self, name: str, kind: str) -> _Server:
        assert self.base_dir is not None
        home = self.base_dir / name
        home.mkdir()
        return _Server(name=name, kind=kind, home=home, port=0, argv=[], env={})

    def close(self) -> None:
        """Kill every server by pid (SIGKILL: the stores are thrown away), close the client, remove the temp
        dirs (kept when ``keep_dirs`` / ``$ROCKETROUTE_CLUSTER_KEEP=1``). Idempotent."""
        if self._closed:
            return
        self._closed = True
        _OPEN_CLUSTERS.discard(self)
        for srv in self._servers():
            srv.kill()
        if self._client is not None:
            try:
                self._client.close()
            except Exception:  # closing after the servers are gone
                pass
            self._client = None
        with _PORTS_LOCK:
            for srv in self._servers():
                _TAKEN_PORTS.difference_update([srv.port, *srv.extra_ports])
        if self.base_dir is not None and not self._keep:
            shutil.rmtree(self.base_dir, ignore_errors=True)

    def _apply(self, srv: _Server, launch: Launch) -> None:
        srv.argv, srv.env, srv.extra_ports, srv.logs = launch.argv, launch.env, launch.extra_ports, launch.logs

    def _configure_namesrv(self, srv: _Server) -> None:
        srv.port = _free_ports([0])
        self._apply(srv, self.impl.namesrv(srv.home, srv.port, jvm_options=self._server_jvm_options))

    def _configure_broker(self, srv: _Server) -> None:
        for rel, text in self._broker_files.items():
            path = srv.home / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        srv.port = _free_ports(self.impl.broker_port_offsets)
        launch = self.impl.broker(
            srv.home,
            name=srv.name,
            port=srv.port,
            namesrv_addr=self.namesrv_addr,
            config=self._broker_config,
            jvm_options=self._server_jvm_options,
        )
        self._apply(srv, launch)

    def _configure_proxy(self, srv: _Server) -> None:
        # port: the remoting port (where the harness checks it answers); +1: the gRPC port
        srv.port = _free_ports([0, 1])
        launch = self.impl.proxy(
            srv.home,
            remoting_port=srv.port,
            grpc_port=srv.port + 1,
            namesrv_addr=self.namesrv_addr,
            jvm_options=self._quick_jit,
        )
        self._apply(srv, launch)

    def _start_all(self, servers: list[_Server], reconfigure: Callable[[_Server], None]) -> None:
        """Start ``servers`` together and wait until all are ready; a server that lost a race for its port (it
        exits saying the address is in use) gets new ports and another try (3 in all)."""
        for srv in servers:
            srv.start()
        for attempt in range(3):
            failed = self._wait_ready(servers, retry_addr_in_use=attempt < 2)
            if not failed:
                return
            for srv in failed:
                srv.kill()
                with _PORTS_LOCK:
                    _TAKEN_PORTS.difference_update([srv.port, *srv.extra_ports])
                reconfigure(srv)
                srv.start()

    def _wait_ready(self, servers: list[_Server], *, retry_addr_in_use: bool) -> list[_Server]:
        """Wait until each name server answers and each broker answers and is listed by every name server.
        Returns the servers that exited because their port was taken (when ``retry_addr_in_use``)."""
        deadline = time.monotonic() + self.start_timeout_s
        pending = list(servers)
        while True:
            died = [s for s in pending if not s.running()]
            if died:
                in_use = [s for s in died if _lost_port_race(s)]
                if retry_addr_in_use and in_use and len(in_use) == len(died):
                    return in_use
                raise HarnessError(
                    "server exited during start:\n" + "\n".join(s.describe() for s in died) + self._context()
                )
            pending = [s for s in pending if not self._is_ready(s)]
            if not pending:
                return []
            if time.monotonic() > deadline:
                raise HarnessError(
                    f"servers not ready after {self.start_timeout_s:.0f} s: {[s.name for s in pending]}; "
                    f"{self._registration_summary()}\n" + "\n".join(s.describe() for s in pending) + self._context()
                )
            time.sleep(_POLL_S)

    def _is_ready(self, srv: _Server) -> bool:
        try:
            if srv.kind == "namesrv":
                return self.invoke(srv.addr, RequestCode.GET_BROKER_CLUSTER_INFO).code == ResponseCode.SUCCESS
            if srv.kind == "proxy":  # both its ports accept connections
                for port in (srv.port, *srv.extra_ports):
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return True
            # A broker: it answers (a just-restarted one is not taken for the old registration), and every name
            # server lists it at its address.
            self.invoke(srv.addr, RequestCode.GET_MAX_OFFSET, {"topic": DEFAULT_TOPIC, "queueId": "0"})
            if all(self.registered_brokers(ns).get(srv.name) == srv.addr for ns in self.namesrv_addrs):
                return True
            self._nudge_registration(srv)
            return False
        except (RemotingError, OSError):  # not up yet: refused, reset, no answer in time
            return False

    def _nudge_registration(self, srv: _Server) -> None:
        """An Apache 5.x broker registers at start with the name servers its client has found reachable by then,
        and those are found by a scan every 3 s that can run before the broker knows their addresses: a broker
        that answers may be listed nowhere for 10 s, until its first periodic registration. While it answers
        but is not listed everywhere, ask it every second to register again, the way ``mqadmin
        updateBrokerConfig -k brokerPermission`` does: setting its permission (to the one it has) makes it register
        with every name server it has found at once."""
        if not self.impl.runs_on_jvm or self.compat == "4.9":
            return
        now = time.monotonic()
        key = (srv.name, srv.starts)
        if now < self._nudge_due.setdefault(key, now + _NUDGE_EVERY_S):
            return
        self._nudge_due[key] = now + _NUDGE_EVERY_S
        self.registration_nudges += 1
        resp = self.invoke(srv.addr, _GET_BROKER_CONFIG)
        perm = re.search(rb"^brokerPermission=(\d+)$", resp.body or b"", re.MULTILINE)
        if resp.code == ResponseCode.SUCCESS and perm:
            self.invoke(srv.addr, _UPDATE_BROKER_CONFIG, body=b"brokerPermission=" + perm.group(1) + b"\n")

    def _context(self) -> str:
        """Every other server's state and log tail, for an error message."""
        return "\n\nall servers:\n" + "\n".join(s.describe(lines=8) for s in self._servers())

    def _registration_summary(self) -> str:
        parts = []
        for ns in self.namesrv_addrs:
            try:
                parts.append(f"{ns} lists {sorted(self.registered_brokers(ns).items())}")
            except Exception as e:  # only for the message
                parts.append(f"{ns}: {type(e).__name__}: {e}")
        return "; ".join(parts)

    # -- addresses -------------------------------------------------------------------------------------------

    @property
    def namesrv_addrs(self) -> list[str]:
        """Each name server's ``127.0.0.1:port``."""
        return [s.addr for s in self._namesrvs]

    @property
    def namesrv_addr(self) -> str:
        """All name servers in one ``;``-separated string, as Java's ``namesrvAddr`` setting."""
        return ";".join(self.namesrv_addrs)

    @property
    def proxy_addrs(self) -> list[str]:
        """Each proxy's remoting ``127.0.0.1:port``."""
        return [s.addr for s in self._proxies]

    @property
    def proxy_grpc_endpoints(self) -> list[str]:
        """Each proxy's gRPC ``127.0.0.1:port`` (what the 5.x gRPC clients take as their endpoint)."""
        return [f"127.0.0.1:{s.extra_ports[0]}" for s in self._proxies]

    @property
    def broker_names(self) -> list[str]:
        return list(self._brokers)

    def broker_addr(self, name: str) -> str:
        """The broker's (master's) ``127.0.0.1:listenPort``."""
        return self._broker(name).addr

    def broker_pid(self, name: str) -> int | None:
        srv = self._broker(name)
        return srv.pid if srv.running() else None

    def namesrv_pids(self) -> list[int]:
        return [s.pid for s in self._namesrvs if s.running() and s.pid is not None]

    def broker_dir(self, name: str) -> Path:
        """The broker's temp dir (broker.toml, server.log, store/)."""
        return self._broker(name).home

    def disk_usage(self, name: str) -> int:
        """Bytes of disk the broker's dir uses (allocated blocks, as ``du``)."""
        return _dir_bytes(self._broker(name).home)

    def log_tail(self, name: str, lines: int = _LOG_TAIL_LINES) -> str:
        """The last lines of a server's log (``broker-a``, ``namesrv-0``, ...)."""
        for s in self._servers():
            if s.name == name:
                return _tail(s.log_path, lines)
        raise KeyError(name)

    def _broker(self, name: str) -> _Server:
        try:
            return self._brokers[name]
        except KeyError:
            raise KeyError(f"no broker {name!r} in this cluster ({self.broker_names})") from None

    # -- requests --------------------------------------------------------------------------------------------

    @property
    def client(self) -> RemotingClient:
        """The harness's :class:`rocketroute.net.RemotingClient` (created on first use, closed by close)."""
        if self._client is None:
            self._client = RemotingClient(credentials=self.credentials, tls=self.tls)
        return self._client

    def invoke(
        self,
        addr: str,
        code: int,
        ext_fields: Mapping[str, str] | None = None,
        body: bytes | None = None,
        *,
        timeout_ms: int | None = None,
    ) -> RemotingCommand:
        """Send one request to ``addr`` (a name server or broker address) and return the response as it is."""
        cmd = RemotingCommand.request(code, dict(ext_fields or {}), body)
        return self.client.invoke(addr, cmd, timeout_ms if timeout_ms is not None else self.request_timeout_ms)

    def _checked(self, addr: str, code: int, ext_fields: Mapping[str, str] | None = None) -> RemotingCommand:
        resp = self.invoke(addr, code, ext_fields)
        if resp.code != ResponseCode.SUCCESS:
            raise HarnessError(
                f"request {code} {dict(ext_fields or {})} to {addr} answered code {resp.code}: {resp.remark}"
                + self._context()
            )
        return resp

    def cluster_info(self, namesrv_addr: str) -> dict[str, Any]:
        """GET_BROKER_CLUSTER_INFO (106) from one name server: ``{"brokerAddrTable": {name: {"cluster",
        "brokerName", "brokerAddrs": {"0": addr}}}, "clusterAddrTable": {cluster: [names]}}``."""
        data = _parse_json(self._checked(namesrv_addr, RequestCode.GET_BROKER_CLUSTER_INFO).body)
        if not isinstance(data, dict):
            raise HarnessError(f"cluster info from {namesrv_addr} is not a JSON object: {data!r}")
        return data

    def registered_brokers(self, namesrv_addr: str) -> dict[str, str | None]:
        """Broker name -> master address (brokerId 0) that one name server lists in ``DefaultCluster``."""
        info = self.cluster_info(namesrv_addr)
        names = (info.get("clusterAddrTable") or {}).get(CLUSTER_NAME) or []
        table = info.get("brokerAddrTable") or {}
        out: dict[str, str | None] = {}
        for name in names:
            addrs = (table.get(name) or {}).get("brokerAddrs") or {}
            out[name] = addrs.get("0", addrs.get(0))  # type: ignore[call-overload]
        return out

    def wait_registered(self, names: Iterable[str] | None = None, *, timeout_s: float | None = None) -> None:
        """Wait until every name server lists each broker of ``names`` (default all) at its address."""
        want = {n: self.broker_addr(n) for n in (names if names is not None else self.broker_names)}
        self._wait(
            lambda: all(
                all(regs.get(n) == a for n, a in want.items())
                for regs in (self.registered_brokers(ns) for ns in self.namesrv_addrs)
            ),
            f"brokers {sorted(want)} registered with every name server",
            timeout_s,
        )

    def wait_unregistered(self, name: str, *, timeout_s: float | None = None) -> None:
        """Wait until no name server lists the broker (after it stopped or was killed)."""
        self._wait(
            lambda: all(name not in self.registered_brokers(ns) for ns in self.namesrv_addrs),
            f"broker {name} gone from every name server",
            timeout_s,
        )

    def _wait(self, cond: Callable[[], bool], what: str, timeout_s: float | None) -> None:
        deadline = time.monotonic() + (timeout_s if timeout_s is not None else self.start_timeout_s)
        last_error: BaseException | None = None
        while True:
            try:
                if cond():
                    return
                last_error = None
            except Exception as e:  # a refused connection, a timeout: poll until the deadline
                last_error = e
            if time.monotonic() > deadline:
                detail = f" (last error: {type(last_error).__name__}: {last_error})" if last_error else ""
                raise HarnessError(
                    f"timed out waiting for {what}{detail}; {self._registration_summary()}" + self._context()
                )
            time.sleep(_POLL_S)

    def route(self, topic: str, namesrv_addr: str | None = None) -> TopicRouteData | None:
        """GET_ROUTEINFO_BY_TOPIC (105) from one name server (default the first), parsed with
        ``rocketroute.TopicRouteData.from_json``; None when the name server answers TOPIC_NOT_EXIST (17)."""
        ns = namesrv_addr if namesrv_addr is not None else self.namesrv_addrs[0]
        resp = self.invoke(ns, RequestCode.GET_ROUTEINFO_BY_TOPIC, {"topic": topic})
        if resp.code == ResponseCode.TOPIC_NOT_EXIST:
            return None
        if resp.code != ResponseCode.SUCCESS:
            raise HarnessError(f"route of {topic} from {ns}: code {resp.code}: {resp.remark}")
        return TopicRouteData.from_json(resp.body or b"")

    def consumer_ids(self, broker_name: str, group: str) -> list[str]:
        """GET_CONSUMER_LIST_BY_GROUP (38) from one broker: the client ids of ``group`` it knows (empty when it
        knows none)."""
        resp = self.invoke(
            self.broker_addr(broker_name), RequestCode.GET_CONSUMER_LIST_BY_GROUP, {"consumerGroup": group}
        )
        if resp.code != ResponseCode.SUCCESS:
            return []
        return list(_parse_json(resp.body).get("consumerIdList") or [])

    def producer_ids(self, broker_name: str, group: str) -> list[str]:
        """GET_PRODUCER_CONNECTION_LIST (204) from one broker: the client ids of producer ``group`` it knows from
        their heartbeats (empty when it knows none)."""
        resp = self.invoke(self.broker_addr(broker_name), 204, {"producerGroup": group})
        if resp.code != ResponseCode.SUCCESS:
            return []
        return sorted(str(c.get("clientId")) for c in _parse_json(resp.body).get("connectionSet") or ())

    def create_topic(
        self,
        topic: str,
        queues: int = 8,
        brokers: Iterable[str] | None = None,
        *,
        read_queues: int | None = None,
        perm: int = 6,
        attributes: str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """UPDATE_AND_CREATE_TOPIC (17) on each broker of ``brokers`` (default all) with ``queues`` write queues
        and ``read_queues`` (default ``queues``) read queues, ``perm`` (6 = read+write, TopicConfig's default),
        ``attributes`` (e.g. ``"+message.type=FIFO"``); then wait until every name server's route shows the topic
        on each of those brokers with those numbers (the broker registers the change with the name servers
        itself). Also used to grow or shrink a topic."""
        targets = list(brokers) if brokers is not None else self.broker_names
        reads = queues if read_queues is None else read_queues
        ext = {
            "topic": topic,
            "defaultTopic": DEFAULT_TOPIC,
            "readQueueNums": str(reads),
            "writeQueueNums": str(queues),
            "perm": str(perm),
            "topicFilterType": "SINGLE_TAG",
            "topicSysFlag": "0",
            "order": "false",
        }
        if attributes is not None:
            ext["attributes"] = attributes
        for name in targets:
            self._checked(self.broker_addr(name), RequestCode.UPDATE_AND_CREATE_TOPIC, ext)

        def shown() -> bool:
            for ns in self.namesrv_addrs:
                route = self.route(topic, ns)
                if route is None:
                    return False
                qds = {q.broker_name: q for q in route.queue_datas or ()}
                for name in targets:
                    q = qds.get(name)
                    if q is None or (q.write_queue_nums, q.read_queue_nums, q.perm) != (queues, reads, perm):
                        return False
            return True

        self._wait(shown, f"route of {topic} with {queues} queues on {targets} on every name server", timeout_s)

    def admin(self, *args: str, timeout_s: float = 120.0) -> str:
        """Run Apache's admin tool (``MQAdminStartup``, the ``mqadmin`` command, from the implementation's jars)
        against this cluster's name servers: ``cluster.admin("updateStaticTopic", "-t", "T", "-qn", "8", "-c",
        CLUSTER_NAME)``. Returns its output; a failure is a :class:`HarnessError` with that output."""
        if not isinstance(self.impl, ApacheImpl):
            raise HarnessError(f"the admin tool is Apache's; {self.impl.name} has none the harness runs")
        assert self.base_dir is not None
        tmp = self.base_dir / "admin"
        tmp.mkdir(exist_ok=True)
        argv = [
            *self.impl.jvm(tmp, 256, 64, (QUICK_JIT,)),
            f"-Djava.io.tmpdir={tmp}",  # updateStaticTopic writes its before/after mapping files there
            "org.apache.rocketmq.tools.command.MQAdminStartup",
            args[0],
            "-n",
            self.namesrv_addr,
            *args[1:],
        ]
        done = subprocess.run(
            argv, cwd=tmp, env=self.impl.env(tmp), capture_output=True, text=True, timeout=timeout_s, check=False
        )
        out = done.stdout + done.stderr
        if done.returncode != 0 or "Exception" in out:
            raise HarnessError(f"mqadmin {' '.join(args)} failed (status {done.returncode}):\n{out[-4000:]}")
        return out

    def create_static_topic(self, topic: str, queues: int, *, timeout_s: float | None = None) -> None:
        """A static topic (RIP-21, Apache 5.x) of ``queues`` logic queues spread over the cluster's brokers, made
        by Apache's own admin code (``mqadmin updateStaticTopic -c DefaultCluster``); then wait until every name
        server's route carries its ``topicQueueMappingByBroker``."""
        self.admin("updateStaticTopic", "-t", topic, "-qn", str(queues), "-c", CLUSTER_NAME)

        def mapped() -> bool:
            for ns in self.namesrv_addrs:
                route = self.route(topic, ns)
                if route is None or not route.topic_queue_mapping_by_broker:
                    return False
            return True

        self._wait(mapped, f"the static topic {topic} mapped on every name server", timeout_s)

    def runtime_info(self, broker_name: str) -> dict[str, str]:
        """GET_BROKER_RUNTIME_INFO (28) from one broker: its ``table`` of runtime figures (Apache's brokers:
        ``dispatchBehindBytes``, ``msgPutTotalTodayNow``, ...)."""
        resp = self._checked(self.broker_addr(broker_name), RequestCode.GET_BROKER_RUNTIME_INFO)
        return dict((_parse_json(resp.body) or {}).get("table") or {})

    def wait_dispatched(self, broker_name: str, *, timeout_s: float = 10.0) -> None:
        """Wait until the broker has dispatched everything in its commit log to its consume queues. Apache's broker
        answers a send once the message is in the commit log and builds the consume queue behind it (its reput
        service), so a queue's max offset can lag a just-acknowledged send by a few milliseconds; its runtime info
        says how far (``dispatchBehindBytes``). RocketMQ-Rust's broker updates the queue before it answers."""
        if self.impl.family == "rust":
            return
        addr = self.broker_addr(broker_name)

        def dispatched() -> bool:
            resp = self.invoke(addr, RequestCode.GET_BROKER_RUNTIME_INFO)
            if resp.code != ResponseCode.SUCCESS:
                # 4.9's runtime info fails (NoSuchElementException) while its commit log has no file yet, that is
                # before the first message: nothing to dispatch; an attached cluster's broker may not answer it
                return "NoSuchElementException" in (resp.remark or "") or self.impl.family == "external"
            table = (_parse_json(resp.body) or {}).get("table") or {}
            return table.get("dispatchBehindBytes") == "0"

        self._wait(
            dispatched,
            f"{broker_name} dispatched its commit log to its consume queues",
            timeout_s,
        )

    def max_offset(self, broker_name: str, topic: str, queue_id: int, *, logic: bool | None = None) -> int:
        """GET_MAX_OFFSET (30): the queue's max offset on that broker (the number of messages it stored there,
        for a queue that has never been cleaned), read once the broker has dispatched every message it
        acknowledged (:meth:`wait_dispatched`). For a static topic a 5.x broker reads ``queue_id`` as a logic
        queue; ``logic=False`` sends ``lo=false`` so it reads its own physical queue."""
        self.wait_dispatched(broker_name)
        ext = {"topic": topic, "queueId": str(queue_id)}
        if logic is not None:
            ext["lo"] = "true" if logic else "false"
        resp = self._checked(self.broker_addr(broker_name), RequestCode.GET_MAX_OFFSET, ext)
        return int((resp.ext_fields or {})["offset"])

    def consumer_offset(self, broker_name: str, group: str, topic: str, queue_id: int) -> int:
        """QUERY_CONSUMER_OFFSET (14): the offset the group committed for the queue on that broker; 0 when it has
        committed none (the broker answers QUERY_NOT_FOUND)."""
        ext = {"consumerGroup": group, "topic": topic, "queueId": str(queue_id)}
        resp = self.invoke(self.broker_addr(broker_name), RequestCode.QUERY_CONSUMER_OFFSET, ext)
        if resp.code == ResponseCode.QUERY_NOT_FOUND:
            return 0
        if resp.code != ResponseCode.SUCCESS:
            raise HarnessError(f"QUERY_CONSUMER_OFFSET {ext} answered code {resp.code}: {resp.remark}")
        return int((resp.ext_fields or {})["offset"])

    # -- broker control --------------------------------------------------------------------------------------

    def is_running(self, name: str) -> bool:
        return self._broker(name).running()

    def is_paused(self, name: str) -> bool:
        return self._broker(name).paused

    def stop_broker(self, name: str, *, grace_s: float | None = None, wait_unregistered: bool = True) -> int | None:
        """SIGTERM the broker (it unregisters from the name servers on the way out), SIGKILL after ``grace_s``;
        then (by default) wait until no name server lists it. Returns its exit status."""
        status = self._broker(name).stop(self.impl.stop_grace_s if grace_s is None else grace_s)
        if wait_unregistered:
            self.wait_unregistered(name)
        return status

    def kill_broker(self, name: str, *, wait_unregistered: bool = False) -> int | None:
        """SIGKILL the broker (a crash: no unregistration; the Rust name server drops it when its connection
        closes). Returns its exit status (``-9``)."""
        srv = self._broker(name)
        srv._control("kill")
        status = srv.kill()
        if wait_unregistered:
            self.wait_unregistered(name)
        return status

    def pause_broker(self, name: str) -> None:
        """SIGSTOP the broker: its connections stay open but nothing is answered until :meth:`resume_broker`
        (the name servers keep listing it until its registration expires, 120 s in Java)."""
        self._broker(name).pause()

    def resume_broker(self, name: str) -> None:
        """SIGCONT a paused broker."""
        self._broker(name).resume()

    def start_broker(self, name: str, *, wait: bool = True) -> None:
        """Start a stopped (or killed) broker again with the same config, ports and store dir; by default wait
        until it answers and every name server lists it."""
        srv = self._broker(name)
        srv.start()
        if wait:
            self._wait_ready([srv], retry_addr_in_use=False)

    def stop_namesrv(self, index: int, *, grace_s: float = 10.0) -> int | None:
        """SIGTERM name server ``index`` (SIGKILL after ``grace_s``); returns its exit status."""
        return self._namesrvs[index].stop(grace_s)

    def start_namesrv(self, index: int) -> None:
        """Start a stopped name server again on its port and wait until it answers. Brokers register with it again
        only at their next heartbeat (30 s in Java): until then it knows no route, so stop name servers only in a
        cluster of the test's own (``make_cluster``)."""
        srv = self._namesrvs[index]
        srv.start()
        self._wait_ready([srv], retry_addr_in_use=False)

    def ensure_all_up(self) -> None:
        """Resume paused brokers, start stopped ones, and wait until every broker is registered everywhere: a
        test that stopped a broker and failed before restarting it leaves a whole cluster to the next test."""
        for srv in self._brokers.values():
            if srv.paused:
                srv.resume()
            if not srv.running():
                srv.start()
        if self._brokers:
            self._wait_ready(list(self._brokers.values()), retry_addr_in_use=False)

    def __repr__(self) -> str:
        return (
            f"Cluster(impl={self.impl.name!r}, namesrvs={self.namesrv_addrs}, brokers="
            f"{ {n: s.addr for n, s in self._brokers.items()} }, dir={self.base_dir})"
        )
