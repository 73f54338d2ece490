"""The server implementations the cluster harness starts: Apache RocketMQ's own Java servers and RocketMQ-Rust's.

Each :class:`ServerImpl` knows where its programs are installed, how to lay out a name server's, a broker's and a
proxy's home directory (config files, logs) and the command line and environment that start it; the
:class:`~tests.cluster.harness.Cluster` does the rest (ports, processes, waiting, control) the same way for all.

- ``apache-5.5.0``, ``apache-5.3.3``, ``apache-4.9.7``: ``org.apache.rocketmq`` jars resolved from Maven Central by
  ``make servers`` (``servers/apache/pom.xml``) into ``SERVERS_DIR/apache-VERSION/lib``, started as ``java -cp
  'lib/*' org.apache.rocketmq.namesrv.NamesrvStartup`` / ``broker.BrokerStartup`` / ``proxy.ProxyStartup``.
- ``rust-1.0.0``: RocketMQ-Rust's ``rocketmq-namesrv-rust``, ``rocketmq-broker-rust`` and ``rocketmq-proxy-rust``
  (its gRPC proxy, ``--mode cluster``) built by ``make servers`` (``cargo install --locked``) into
  ``SERVERS_DIR/bin``.

``SERVERS_DIR`` is ``$ROCKETROUTE_SERVERS_DIR``, else ``${XDG_CACHE_HOME:-~/.cache}/rocketroute/servers``
(``$ROCKETROUTE_SERVERS_BIN`` still names the Rust binaries' directory on its own).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "APACHE_VERSIONS",
    "BROKER_BINARY",
    "CLUSTER_NAME",
    "IMPLS",
    "NAMESRV_BINARY",
    "PROXY_BINARY",
    "SERVERS_BIN_ENV",
    "SERVERS_DIR_ENV",
    "ApacheImpl",
    "ExternalImpl",
    "Launch",
    "RustImpl",
    "ServerImpl",
    "ServersMissingError",
    "get_impl",
    "servers_bin_dir",
    "servers_dir",
]

SERVERS_DIR_ENV = "ROCKETROUTE_SERVERS_DIR"
SERVERS_BIN_ENV = "ROCKETROUTE_SERVERS_BIN"
NAMESRV_BINARY = "rocketmq-namesrv-rust"
BROKER_BINARY = "rocketmq-broker-rust"
PROXY_BINARY = "rocketmq-proxy-rust"
CLUSTER_NAME = "DefaultCluster"
"""The cluster name (RocketMQ-Rust's gRPC proxy finds routes only in a cluster of that name)."""

APACHE_VERSIONS = ("5.5.0", "5.3.3", "4.9.7")
"""The Apache RocketMQ server versions ``make servers`` resolves (the newest of each line Maven Central serves
here: rocketmq-namesrv and rocketmq-proxy 5.5.1 and rocketmq-namesrv/-broker 4.9.8 are not published there)."""
RUST_VERSION = "1.0.0"


class ServersMissingError(RuntimeError):
    """A server implementation is not installed: run ``make servers``."""


def servers_dir() -> Path:
    """``$ROCKETROUTE_SERVERS_DIR``, else the cache ``make servers`` installs into by default."""
    env = os.environ.get(SERVERS_DIR_ENV)
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "rocketroute" / "servers"


def servers_bin_dir() -> Path:
    """``$ROCKETROUTE_SERVERS_BIN``, else ``servers_dir()/bin`` (where ``make servers`` puts the Rust binaries)."""
    env = os.environ.get(SERVERS_BIN_ENV)
    return Path(env).expanduser() if env else servers_dir() / "bin"


@dataclass(frozen=True)
class Launch:
    """How to start one server: its command line, its environment, the ports it listens on besides its own and
    the log files worth showing when it fails (beside the harness's capture of its stdout and stderr)."""

    argv: list[str]
    env: dict[str, str]
    extra_ports: list[int]
    logs: list[Path]


class ServerImpl:
    """One server implementation at one version (see the module docstring)."""

    name: str
    """``apache-5.5.0``, ``rust-1.0.0``, ..."""
    family: str
    """``apache`` or ``rust``."""
    version: str
    compat: str
    """The client compat profile that matches these servers (``"4.9"`` for a 4.9 broker, else ``"5.3"``)."""
    has_proxy: bool = False
    broker_port_offsets: tuple[int, ...] = (-2, 0, 1)
    """A broker listens on ``listenPort``, ``listenPort - 2`` (the fast / VIP channel) and the HA port, which the
    harness puts at ``listenPort + 1`` (Java's default)."""
    stop_grace_s: float = 10.0
    runs_on_jvm: bool = False
    """Its servers are Java processes (they take ``jvm_options``)."""

    def check(self) -> None:
        """Raise :class:`ServersMissingError` when the implementation is not installed."""
        raise NotImplementedError

    def namesrv(self, home: Path, port: int, *, jvm_options: Sequence[str] = ()) -> Launch:
        raise NotImplementedError

    def broker(
        self,
        home: Path,
        *,
        name: str,
        port: int,
        namesrv_addr: str,
        config: Mapping[str, str] | None = None,
        jvm_options: Sequence[str] = (),
    ) -> Launch:
        raise NotImplementedError

    def proxy(
        self, home: Path, *, remoting_port: int, grpc_port: int, namesrv_addr: str, jvm_options: Sequence[str] = ()
    ) -> Launch:
        raise ServersMissingError(f"{self.name} has no proxy")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


# ---------------------------------------------------------------------------------------------------------------
# Apache RocketMQ


# The 4.9 line loads these from ROCKETMQ_HOME/conf and exits when they are missing; one file appender each.
_LOGBACK_49 = """<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>{log}</file>
    <encoder><pattern>%d{{HH:mm:ss.SSS}} %-5level [%thread] %logger{{40}} - %msg%n</pattern></encoder>
  </appender>
  <logger name="RocketmqStoreError" level="INFO"/>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
"""


def _properties(values: Mapping[str, object]) -> str:
    """A Java properties file (values are plain: paths, numbers, names; no escapes needed)."""
    return "".join(f"{k}={v}\n" for k, v in values.items())


class ApacheImpl(ServerImpl):
    """Apache RocketMQ's Java servers from Maven Central (``SERVERS_DIR/apache-VERSION/lib``)."""

    family = "apache"
    runs_on_jvm = True
    stop_grace_s = 30.0
    """A 5.x broker's shutdown hook (unregister, flush, stop every service) was seen taking over 10 s on a loaded
    2-core machine."""

    def __init__(self, version: str, *, java: str | None = None) -> None:
        self.version = version
        self.name = f"apache-{version}"
        self.compat = "4.9" if version.startswith("4.") else "5.3"
        self.has_proxy = not version.startswith("4.")
        self._java = java

    @property
    def lib_dir(self) -> Path:
        return servers_dir() / self.name / "lib"

    @property
    def java(self) -> str:
        java = self._java or os.environ.get("ROCKETROUTE_JAVA") or shutil.which("java")
        if not java:
            raise ServersMissingError(f"{self.name} needs java (17 or newer) on PATH")
        return java

    def check(self) -> None:
        jars = {p.name for p in self.lib_dir.glob("rocketmq-*.jar")} if self.lib_dir.is_dir() else set()
        want = ["namesrv", "broker"] + (["proxy"] if self.has_proxy else [])
        missing = [a for a in want if f"rocketmq-{a}-{self.version}.jar" not in jars]
        if missing:
            raise ServersMissingError(
                f"Apache RocketMQ {self.version} is not installed: no rocketmq-{'/'.join(missing)}-{self.version}.jar "
                f"in {self.lib_dir}. Run `make servers` (it resolves the jars from Maven Central into "
                f"{servers_dir()}), or set {SERVERS_DIR_ENV} to the directory that holds apache-{self.version}/lib."
            )
        self.java  # noqa: B018 (raises when there is no java)

    def jvm(self, home: Path, heap_mb: int, direct_mb: int, extra: Sequence[str] = ()) -> list[str]:
        opts = [
            self.java,
            "-server",
            f"-Xms{min(heap_mb, 128)}m",
            f"-Xmx{heap_mb}m",
            f"-XX:MaxDirectMemorySize={direct_mb}m",
            "-XX:+UseSerialGC",  # 2 cores, several JVMs: no parallel GC threads fighting the tests
            "-XX:-UsePerfData",
            "-Djava.net.preferIPv4Stack=true",
            f"-Duser.home={home}",  # logs (5.x: ~/logs/rocketmqlogs) and any default store stay in the temp dir
            f"-Drocketmq.home.dir={home}",
        ]
        if self.version.startswith("4."):
            # 4.9's MappedFile unmaps through DirectByteBuffer.attachment()/cleaner() by reflection; on Java 17 that
            # throws InaccessibleObjectException in the shutdown hook (which then never unregisters the broker)
            # unless java.nio is opened.
            opts += [
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            ]
        return [*opts, *extra, "-cp", str(self.lib_dir / "*")]

    def env(self, home: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"))}
        env["ROCKETMQ_HOME"] = str(home)
        return env

    def _logs(self, home: Path, kind: str) -> list[Path]:
        if self.version.startswith("4."):
            return [home / "logs" / f"{kind}.log"]
        return [home / "logs" / "rocketmqlogs" / f"{kind}.log"]

    def _conf_dir(self, home: Path) -> None:
        if self.version.startswith("4."):
            conf = home / "conf"
            conf.mkdir(exist_ok=True)
            for k in ("namesrv", "broker", "tools"):
                (conf / f"logback_{k}.xml").write_text(_LOGBACK_49.format(log=home / "logs" / f"{k}.log"))

    def namesrv(self, home: Path, port: int, *, jvm_options: Sequence[str] = ()) -> Launch:
        self._conf_dir(home)
        conf = home / "namesrv.properties"
        conf.write_text(_properties({"listenPort": port, "bindAddress": "127.0.0.1"}))
        argv = [
            *self.jvm(home, 256, 64, jvm_options),
            "org.apache.rocketmq.namesrv.NamesrvStartup",
            "-c",
            str(conf),
        ]
        return Launch(argv, self.env(home), [], self._logs(home, "namesrv"))

    def broker(
        self,
        home: Path,
        *,
        name: str,
        port: int,
        namesrv_addr: str,
        config: Mapping[str, str] | None = None,
        jvm_options: Sequence[str] = (),
    ) -> Launch:
        self._conf_dir(home)
        store = home / "store"
        values: dict[str, object] = {
            "brokerClusterName": CLUSTER_NAME,
            "brokerName": name,
            "brokerId": 0,
            "brokerRole": "ASYNC_MASTER",
            "flushDiskType": "ASYNC_FLUSH",
            "brokerIP1": "127.0.0.1",
            "brokerIP2": "127.0.0.1",  # the HA address it registers (default: the machine's first address)
            "bindAddress": "127.0.0.1",  # 5.x; the 4.9 broker binds every interface whatever this says
            "listenPort": port,
            "haListenPort": port + 1,  # 5.x; the 4.9 broker always takes listenPort + 1
            "namesrvAddr": namesrv_addr,
            "storePathRootDir": store,
            "storePathCommitLog": store / "commitlog",
            # a test broker's store: 16 MiB commit log files and a small index instead of 1 GiB + 400 MB
            "mappedFileSizeCommitLog": 16 * 2**20,
            "mappedFileSizeConsumeQueue": 60000,
            "maxIndexNum": 4000,
            "maxHashSlotNum": 1000,
            "diskMaxUsedSpaceRatio": 95,
            "autoCreateTopicEnable": "true",
            "traceTopicEnable": "false",
            # a send that waited 200 ms in the broker's queue is refused ("[TIMEOUT_CLEAN_QUEUE] broker busy",
            # SYSTEM_BUSY) by default; on a 2-core test machine running the client, the JVMs and pytest, a burst of
            # async sends waits longer than that without the broker being in trouble
            "waitTimeMillsInSendQueue": 3000,
        }
        if not self.version.startswith("4."):
            # the 5.x timer wheel takes ~37 MiB of direct memory and ~140 MB of files; tests of timer messages
            # switch it on through ``config``
            values["timerWheelEnable"] = "false"
            # the 5.x broker's TransactionFlushService spins on the clock, a whole core, until its first flush
            # (10 s after start by default; apache/rocketmq#10515): 10 s of CPU per broker start on a 2-core
            # machine. Half a second bounds the spin; the flush that then runs twice a second costs ~1 ms.
            values["transactionMetricFlushInterval"] = 500
        values.update(config or {})
        conf = home / "broker.conf"
        conf.write_text(_properties(values))
        argv = [*self.jvm(home, 512, 256, jvm_options), "org.apache.rocketmq.broker.BrokerStartup", "-c", str(conf)]
        return Launch(argv, self.env(home), [port - 2, port + 1], self._logs(home, "broker"))

    def proxy(
        self, home: Path, *, remoting_port: int, grpc_port: int, namesrv_addr: str, jvm_options: Sequence[str] = ()
    ) -> Launch:
        if not self.has_proxy:
            raise ServersMissingError(f"{self.name} has no proxy (the proxy came with RocketMQ 5.0)")
        conf = home / "rmq-proxy.json"
        conf.write_text(
            json.dumps(
                {
                    "rocketMQClusterName": CLUSTER_NAME,
                    "namesrvAddr": namesrv_addr,
                    "remotingListenPort": remoting_port,
                    "grpcServerPort": grpc_port,
                    "localServeAddr": "127.0.0.1",
                    "proxyMode": "cluster",
                },
                indent=2,
            )
        )
        argv = [
            *self.jvm(home, 512, 128, jvm_options),
            "org.apache.rocketmq.proxy.ProxyStartup",
            "-pc",
            str(conf),
            "-pm",
            "cluster",
        ]
        return Launch(argv, self.env(home), [grpc_port], self._logs(home, "proxy"))


# ---------------------------------------------------------------------------------------------------------------
# RocketMQ-Rust


def _broker_toml(*, name: str, namesrv_addr: str, port: int, ha_port: int, store: Path) -> str:
    """The Rust broker's config, only keys the Rust broker 1.0.0 was seen to accept (it rejects unknown keys; the
    send queue's wait is its ``BrokerConfig.wait_time_mills_in_send_queue``, 200 ms by default). The last four
    keys of [store] keep a test broker's store near 17 MB (the defaults take 1.5 GB: a 1 GiB commit log file and a
    400 MB index file)."""
    store_s = json.dumps(str(store))
    return f"""[broker]
namesrvAddr = {json.dumps(namesrv_addr)}
brokerIp1 = "127.0.0.1"
listenPort = {port}
storePathRootDir = {store_s}
autoCreateTopicEnable = true
# as Apache's below: a send that waited 200 ms in the broker's queue is refused with SYSTEM_BUSY by default, and
# on a 2-core test machine a burst of async sends waits longer than that without the broker being in trouble
waitTimeMillsInSendQueue = 3000

[broker.brokerServerConfig]
bindAddress = "127.0.0.1"

[broker.brokerIdentity]
brokerName = {json.dumps(name)}
brokerClusterName = {json.dumps(CLUSTER_NAME)}
brokerId = 0

[store]
storeType = "LocalFile"
brokerRole = "ASYNC_MASTER"
storePathRootDir = {store_s}
haListenAddress = "127.0.0.1"
haListenPort = {ha_port}
mappedFileSizeCommitLog = 16777216
mappedFileSizeConsumeQueue = 60000
maxHashSlotNum = 1000
maxIndexNum = 4000
"""


class RustImpl(ServerImpl):
    """RocketMQ-Rust's name server, broker and gRPC proxy (``servers_bin_dir()``, or ``bin_dir``)."""

    family = "rust"
    has_proxy = True

    def __init__(
        self,
        version: str = RUST_VERSION,
        *,
        bin_dir: str | os.PathLike[str] | None = None,
        broker_log_filter: str = "warn",
        namesrv_log_filter: str = "info",
    ) -> None:
        self.version = version
        self.name = f"rust-{version}"
        self.compat = "5.3"
        self._bin_dir = bin_dir
        self.broker_log_filter = broker_log_filter
        self.namesrv_log_filter = namesrv_log_filter

    @property
    def bin_dir(self) -> Path:
        return Path(self._bin_dir) if self._bin_dir is not None else servers_bin_dir()

    def binaries(self) -> tuple[Path, Path]:
        """The name server and broker executables; :class:`ServersMissingError` naming what is missing."""
        d = self.bin_dir
        paths = (d / NAMESRV_BINARY, d / BROKER_BINARY)
        missing = [p.name for p in paths if not (p.is_file() and os.access(p, os.X_OK))]
        if missing:
            raise ServersMissingError(
                f"the RocketMQ servers for the cluster tests are not installed: {', '.join(missing)} not found in "
                f"{d} (${SERVERS_BIN_ENV}={os.environ.get(SERVERS_BIN_ENV, '<unset>')}). Run `make servers` to "
                f"build them (once, into a cache outside the checkout), or set {SERVERS_BIN_ENV} to the directory "
                f"that holds them."
            )
        return paths

    def check(self) -> None:
        self.binaries()

    def namesrv(self, home: Path, port: int, *, jvm_options: Sequence[str] = ()) -> Launch:
        if jvm_options:
            raise ValueError(f"{self.name}: JVM options are for Apache's servers")
        argv = [
            str(self.binaries()[0]),
            "--rocketmqHome",  # without it the name server may fail with "Service lifecycle operation failed"
            str(home),
            "--listenPort",
            str(port),
            "--bindAddress",
            "127.0.0.1",
            "--log-filter",
            self.namesrv_log_filter,
        ]
        return Launch(argv, {**os.environ, "ROCKETMQ_HOME": str(home)}, [], [])

    def broker(
        self,
        home: Path,
        *,
        name: str,
        port: int,
        namesrv_addr: str,
        config: Mapping[str, str] | None = None,
        jvm_options: Sequence[str] = (),
    ) -> Launch:
        if config or jvm_options:
            raise ValueError(
                f"{self.name}: extra broker config and JVM options are not supported (the Rust broker rejects keys)"
            )
        (home / "broker.toml").write_text(
            _broker_toml(name=name, namesrv_addr=namesrv_addr, port=port, ha_port=port + 1, store=home / "store")
        )
        argv = [
            str(self.binaries()[1]),
            "-c",
            str(home / "broker.toml"),
            "-n",
            namesrv_addr,
            "--log-filter",
            self.broker_log_filter,
        ]
        env = {
            **os.environ,
            "ROCKETMQ_HOME": str(home),
            "ROCKETMQ_SECURITY_PROFILE": "development-insecure-loopback",
        }
        return Launch(argv, env, [port - 2, port + 1], [])

    def proxy(
        self, home: Path, *, remoting_port: int, grpc_port: int, namesrv_addr: str, jvm_options: Sequence[str] = ()
    ) -> Launch:
        """``rocketmq-proxy-rust --mode cluster``: gRPC on ``grpc_port`` and remoting on ``remoting_port``, routes
        from the name server (it finds them only in a cluster named ``DefaultCluster``, which the harness's
        brokers join)."""
        if jvm_options:
            raise ValueError(f"{self.name}: JVM options are for Apache's servers")
        binary = self.bin_dir / PROXY_BINARY
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            raise ServersMissingError(
                f"{PROXY_BINARY} not found in {self.bin_dir}: run `make servers` (it builds RocketMQ-Rust's proxy)"
            )
        argv = [
            str(binary),
            "--mode",
            "cluster",
            "--namesrvAddr",
            namesrv_addr,
            "--grpcListenAddr",
            f"127.0.0.1:{grpc_port}",
            "--enableRemoting",
            "--remotingListenAddr",
            f"127.0.0.1:{remoting_port}",
            "--log-filter",
            self.broker_log_filter,
        ]
        env = {
            **os.environ,
            "ROCKETMQ_HOME": str(home),
            "ROCKETMQ_SECURITY_PROFILE": "development-insecure-loopback",
        }
        return Launch(argv, env, [grpc_port], [])


class ExternalImpl(ServerImpl):
    """A cluster someone else runs (``ROCKETROUTE_CLUSTER_NAMESRV``): the harness attaches to its name servers and
    brokers and starts, stops and configures nothing."""

    family = "external"

    def __init__(self, namesrv_addr: str, compat: str = "5.3") -> None:
        if compat not in ("5.3", "4.9"):
            raise ValueError(f"compat must be '5.3' or '4.9', not {compat!r}")
        self.namesrv_addr = namesrv_addr
        self.name = "external"
        self.version = "external"
        self.compat = compat

    def check(self) -> None:
        if not [a for a in self.namesrv_addr.split(";") if a.strip()]:
            raise ValueError("an external cluster needs at least one name server address")


IMPLS = (*(f"apache-{v}" for v in APACHE_VERSIONS), f"rust-{RUST_VERSION}")
"""Every implementation name :func:`get_impl` knows, newest Apache first."""


def get_impl(name: str | ServerImpl) -> ServerImpl:
    """The implementation called ``name`` (one of :data:`IMPLS`); a :class:`ServerImpl` is returned as it is."""
    if isinstance(name, ServerImpl):
        return name
    family, _, version = name.partition("-")
    if family == "apache" and version in APACHE_VERSIONS:
        return ApacheImpl(version)
    if family == "rust" and version == RUST_VERSION:
        return RustImpl(version)
    raise ValueError(f"unknown server implementation {name!r}; known: {', '.join(IMPLS)}")
