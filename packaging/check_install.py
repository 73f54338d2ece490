"""Checks an installed rocketroute the way a user meets it, from outside the checkout: the backend it runs, a
routing call, the UDF jar inside the package, and the console script. The release workflow runs it after installing
each wheel it built (``python packaging/check_install.py native`` / ``reference``); it exits non-zero with the reason
when one of them is wrong."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("backend", choices=("native", "reference"), help="the backend the wheel must give")
    args = parser.parse_args(argv)
    if os.environ.get("ROCKETROUTE_BACKEND"):
        return _fail("ROCKETROUTE_BACKEND is set: the check is of the backend the wheel gives by itself")
    import rocketroute as rr

    if rr.BACKEND != args.backend:
        return _fail(f"the backend is {rr.BACKEND}, not {args.backend} (native error: {rr._backend.native_error})")
    queues = [rr.MessageQueue("T", "b", i) for i in range(4)]
    picked = rr.SelectMessageQueueByHash().select(queues, None, "k").queue_id
    if picked != 3:  # Java: Math.abs("k".hashCode() % 4) = 107 % 4
        return _fail(f"SelectMessageQueueByHash picked queue {picked} for 'k' among 4, not 3")
    jar = Path(rr.__file__).parent / "spark" / "jars" / "rocketroute-udf.jar"
    if not jar.is_file():
        return _fail(f"{jar} is missing: the wheel was built without the JVM UDF jar")
    script = Path(sys.executable).parent / ("rocketroute.exe" if os.name == "nt" else "rocketroute")
    said = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if said != f"rocketroute {rr.__version__} ({args.backend} backend)":
        return _fail(f"rocketroute --version said {said!r}")
    print(f"ok: rocketroute {rr.__version__}, {args.backend} backend, {jar.name}")
    return 0


def _fail(why: str) -> int:
    print(f"check_install: {why}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
