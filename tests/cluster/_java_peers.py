"""Our small Java programs that drive the real Java client (``tests/peers/java``): built with ``javac`` against the
``rocketmq-client`` jar of an Apache version that ``make servers`` resolved, and run with the same JVM settings."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .impls import ApacheImpl

PEERS = Path(__file__).parents[1] / "peers" / "java"


class JavaPeer:
    """``tests/peers/java/<main>.java`` compiled against the Java client ``version``."""

    def __init__(self, main: str, version: str, tmp_path_factory: pytest.TempPathFactory) -> None:
        javac = shutil.which("javac")
        assert javac, "javac (JDK 17) is needed to build the Java peer"
        self.main, self.lib = main, ApacheImpl(version).lib_dir
        jar = self.lib / f"rocketmq-client-{version}.jar"
        assert jar.is_file(), f"{jar} is missing: run `make servers` (it resolves the Java client with the servers)"
        self.classes = tmp_path_factory.mktemp(f"java-{main}-{version}")
        source = PEERS / f"{main}.java"
        subprocess.run([javac, "-nowarn", "-cp", f"{self.lib}/*", "-d", str(self.classes), str(source)], check=True)

    def command(self, home: Path, *args: str) -> list[str]:
        """The command line running the peer with ``args``; ``home`` keeps the client's own logs."""
        java = shutil.which("java")
        assert java
        return [
            java,
            "-Xmx256m",
            "-XX:+UseSerialGC",
            f"-Duser.home={home}",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "-cp",
            f"{self.classes}:{self.lib}/*",
            self.main,
            *args,
        ]

    @staticmethod
    def env() -> dict[str, str]:
        """This process's environment without JVM options that would change the peer's JVM."""
        return {k: v for k, v in os.environ.items() if not k.startswith(("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"))}
