"""A command run as a terminal runs it: its own process group, SIGINT at its default (a shell leaves it so), its
stdout and stderr read as they come, and :meth:`Terminal.ctrl_c` sending SIGINT to the whole group, as Ctrl-C
does. The command-line tests' Ctrl-C cases use it."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO


class Terminal:
    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            list(argv),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=None if env is None else dict(env),
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.proc.stdout, self.out), daemon=True),
            threading.Thread(target=self._read, args=(self.proc.stderr, self.err), daemon=True),
        ]
        for t in self._readers:
            t.start()

    @staticmethod
    def _read(stream: IO[str], into: list[str]) -> None:
        for line in stream:
            into.append(line)

    def wait_for(self, found: Callable[[], bool], timeout_s: float, what: str) -> None:
        """Until ``found()``; an AssertionError with the output when the command ends first or time runs out."""
        deadline = time.monotonic() + timeout_s
        while not found():
            if self.proc.poll() is not None:
                raise AssertionError(f"ended ({self.proc.returncode}) before {what}: {self.output()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"not within {timeout_s} s: {what}: {self.output()}")
            time.sleep(0.05)

    def ctrl_c(self, timeout_s: float = 60) -> float:
        """SIGINT to the process group; the seconds until the command exited (killed, and an AssertionError, when
        it is still running after ``timeout_s``)."""
        start = time.monotonic()
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running {timeout_s} s after Ctrl-C: {self.output()}") from None
        took = time.monotonic() - start
        for t in self._readers:
            t.join(5)
        return took

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def output(self) -> str:
        return "".join(self.out) + "".join(self.err)

    def stderr_lines(self) -> list[str]:
        return "".join(self.err).splitlines()
