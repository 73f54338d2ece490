"""Our small Java programs that call the real Java client (``tests/peers/java``): built with ``javac`` against a
``rocketmq-client`` jar that ``make clients`` resolved from Maven Central, and run with the same JVM settings.

The jars live in ``CLIENTS_DIR/rocketmq-client-VERSION/lib``: ``$ROCKETROUTE_CLIENTS_DIR``, else
``${XDG_CACHE_HOME:-~/.cache}/rocketroute/clients`` (the Makefile's ``CLIENTS_DIR``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

PEERS = Path(__file__).parent / "peers" / "java"
J_WRITER = Path(__file__).parent / "conformance" / "generator" / "src" / "common" / "J.java"
"""Our small JSON writer (the vector generator's), compiled in with the peers that answer in JSON."""

QUICK_JIT = "-XX:TieredStopAtLevel=1"
"""The JVM option of test servers and tools: C1 only. On a 2-core machine running several JVMs beside the tests,
C2's compilations are a third of a server's CPU in its first seconds; a name server takes ~2.8 s of CPU to start
instead of ~4.8 s. Benchmarks run the servers without it."""

SHORT_JVM = f"{QUICK_JIT} -XX:+UseSerialGC"
"""The JVM options of the Spark runs of the tests (the Spark tests' session and each CLI run's in a subprocess): a
JVM that lives for seconds over small data starts and finishes about twice as fast on 2 cores with C1 alone and the
serial GC. Tests only; the pipeline itself runs with the JVM's defaults."""


TEST_JVM = ("-Xmx256m", "-XX:+UseSerialGC", QUICK_JIT)
"""The JVM options of a test peer: small and quick to start. Never a benchmark's (``JavaPeer.command(production=)``),
except as the labelled ``java-test-jvm`` variant of ``make bench-clients``."""


def clients_dir() -> Path:
    configured = os.environ.get("ROCKETROUTE_CLIENTS_DIR")
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "rocketroute" / "clients"


def client_lib(version: str, artifact: str = "rocketmq-client") -> Path:
    """The folder of ``artifact``'s ``version`` jar and its dependencies; fails (never skips) when missing."""
    lib = clients_dir() / f"{artifact}-{version}" / "lib"
    jar = lib / f"{artifact}-{version}.jar"
    assert jar.is_file(), f"{jar} is missing: run `make clients` (it resolves the Java clients from Maven Central)"
    return lib


class JavaPeer:
    """``tests/peers/java/<main>.java`` (or ``<main lower-cased>/<main>.java``, or ``source``) and the ``extra``
    sources, compiled against ``artifact``'s ``version`` (the Java client, ``rocketmq-client-java`` for the gRPC
    client, or ``rocketmq-tools`` for the admin classes)."""

    def __init__(
        self,
        main: str,
        version: str,
        tmp_path_factory: pytest.TempPathFactory,
        *extra: Path,
        artifact: str = "rocketmq-client",
        source: Path | None = None,
    ) -> None:
        javac = shutil.which("javac")
        assert javac, "javac (JDK 17) is needed to build the Java peer"
        self.main, self.version, self.lib = main, version, client_lib(version, artifact)
        self.classes = tmp_path_factory.mktemp(f"java-{main}-{version}")
        if source is None:
            source = PEERS / f"{main}.java"
            if not source.is_file():
                source = PEERS / main.lower() / f"{main}.java"
        cmd = [javac, "-nowarn", "-encoding", "UTF-8", "-cp", f"{self.lib}/*", "-d", str(self.classes)]
        subprocess.run([*cmd, str(source), *map(str, extra)], check=True)

    def command(self, home: Path, *args: str, jvm: tuple[str, ...] = (), production: bool = False) -> list[str]:
        """The command line running the peer with ``args``; ``home`` keeps the client's own logs; ``jvm``: more
        JVM options (system properties the client reads). A test peer runs small (:data:`TEST_JVM`: a 256 MiB heap,
        the serial GC, C1 only: it starts on less CPU beside the tests); ``production`` (benchmarks) runs the Java
        client as production runs it: the JVM's own defaults (G1, a heap of a quarter of the machine's memory, C2)."""
        java = shutil.which("java")
        assert java
        return [
            java,
            *(() if production else TEST_JVM),
            "-Dfile.encoding=UTF-8",
            "-XX:-ShowCodeDetailsInExceptionMessages",  # implicit NPE messages stay null, as on Java 8
            f"-Duser.home={home}",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            *jvm,
            "-cp",
            f"{self.classes}:{self.lib}/*",
            self.main,
            *args,
        ]

    @staticmethod
    def env() -> dict[str, str]:
        """This process's environment without JVM options that would change the peer's JVM."""
        return {k: v for k, v in os.environ.items() if not k.startswith(("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"))}
