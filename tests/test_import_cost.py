"""What ``import rocketroute`` costs: the routing core and the response codes, never the asyncio client."""

from __future__ import annotations

import subprocess
import sys


def test_importing_rocketroute_imports_the_response_codes_but_not_the_asyncio_client():
    code = (
        "import sys, rocketroute\n"
        "print(sorted(m for m in ('asyncio', 'rocketroute.net.transport', 'rocketroute.protocol.response_code')"
        " if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "['rocketroute.protocol.response_code']"
