"""``make bench-instructions`` (benches/count_instructions.py) as a smoke test: a few hundred sends counted under
callgrind give a per-message count, and the larger run ran more instructions than the smaller. The counts of such
short runs are rough; the full run is ``make bench-instructions``."""

from __future__ import annotations

import json
from pathlib import Path

import count_instructions
import pytest


def test_a_send_path_is_counted_per_message(tmp_path: Path) -> None:
    out = tmp_path / "counts.json"
    args = ["--paths", "aio-send", "--small", "100", "--large", "300", "--json", str(out)]
    assert count_instructions.main(args) == 0
    [run] = json.loads(out.read_text())
    assert run["path"] == "aio-send" and (run["small"], run["large"]) == (100, 300)
    small, large = run["totals"]
    assert large > small > 0
    # a send costs tens of thousands of instructions (about 120k in a full run); the start-up, hundreds of millions,
    # cancels out of the difference
    assert 20_000 < run["per_message"] < 1_000_000, run


@pytest.mark.parametrize(
    "args",
    [["--paths", "aio-sned"], ["--small", "300", "--large", "100"], ["--small", "0"], ["--in-flight", "0"]],
)
def test_bad_arguments_are_refused(args: list[str]) -> None:
    with pytest.raises(SystemExit):
        count_instructions.main(args)
