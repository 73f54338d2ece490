"""``rocketroute bench-producer`` refuses what it cannot run before it connects anywhere: a mistake in the options is
one line on stderr and exit status 2, never a traceback, an endless run or a failure per message; a run whose first
sends all fail stops with one line naming the first error. (Ctrl-C and the runs themselves are in
tests/cluster/test_cli.py, against real servers.)"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from typing import Any, ClassVar

import pytest

from rocketroute.cli import main
from rocketroute.cli.bench_producer_run import FAIL_FAST_SENDS, BenchConfig, _Stats, check_namesrv, run_bench
from rocketroute.errors import RocketRouteError

# a port nothing listens on: a check that is not made before connecting ends in "cannot reach the cluster"
UNREACHABLE = "127.0.0.1:1"
MAX = 4 * 1024 * 1024


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["bench-producer", *argv])
    except SystemExit as e:  # argparse's own refusals
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("rocketroute bench-producer: error: "), err
    assert "Traceback" not in err and "cannot reach the cluster" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("namesrv", "says"),
    [
        ("", "namesrv is empty"),
        (";", "namesrv is empty"),
        ("foo", "host:port, not 'foo'"),
        ("127.0.0.1:99999", "host:port, not '127.0.0.1:99999'"),
        ("127.0.0.1:0", "host:port, not '127.0.0.1:0'"),
        ("127.0.0.1:", "host:port, not '127.0.0.1:'"),
        (":9876", "host:port, not ':9876'"),
        ("127.0.0.1:port", "host:port, not '127.0.0.1:port'"),
        ("127.0.0.1:9876;nohost", "host:port, not 'nohost'"),
        ("127.0.0.1:9876,127.0.0.1:9877", "not ',': '127.0.0.1:9876,127.0.0.1:9877'; did you mean '127.0.0.1:9876;"),
    ],
)
def test_a_bad_namesrv_is_a_usage_error_in_one_line(capsys, namesrv, says):
    code, out, err = _run(capsys, "--namesrv", namesrv, "--topic", "T")
    assert code == 2
    line = _one_line_error(err)
    assert line.startswith("rocketroute bench-producer: error: argument --namesrv: ") and says in line, line
    assert out == ""


def test_the_namesrv_rule_is_the_producers(capsys):
    """What the option accepts, the producer accepts: IPv6 and several name servers."""
    from rocketroute.client.namesrv import parse_namesrv_addrs

    for ok in ("127.0.0.1:9876", "[::1]:9876", "a:1; b:65535"):
        assert check_namesrv(ok) == parse_namesrv_addrs(ok)


@pytest.mark.parametrize(
    ("topic", "says"),
    [
        ("", "The specified topic is blank"),
        ("   ", "The specified topic is blank"),
        ("has space", "contains illegal characters"),
        ("t" * 128, "longer than topic max length 127"),
        ("SCHEDULE_TOPIC_XXXX", "is forbidden"),
    ],
)
def test_a_bad_topic_is_refused_up_front_by_the_producers_check(capsys, topic, says):
    code, _, err = _run(capsys, "--namesrv", UNREACHABLE, "--topic", topic)
    assert code == 2
    line = _one_line_error(err)
    assert line.startswith("rocketroute bench-producer: error: argument --topic: ") and says in line, line


@pytest.mark.parametrize("option", ["--duration", "--interval"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "ten"])
def test_times_must_be_finite_and_positive(capsys, option, value):
    code, _, err = _run(capsys, "--namesrv", UNREACHABLE, "--topic", "T", f"{option}={value}")
    assert code == 2
    line = _one_line_error(err)
    assert line.startswith(f"rocketroute bench-producer: error: argument {option}: "), line


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--size", "0"], "argument --size: must be at least 1, not 0"),
        (["--size", "1k"], "argument --size: must be an integer, not '1k'"),
        (["--threads", "0"], "argument --threads: must be at least 1, not 0"),
        (["--in-flight", "0"], "argument --in-flight: must be at least 1, not 0"),
        (["--batch-size", "-3"], "argument --batch-size: must be at least 1, not -3"),
        (["--messages", "0"], "argument --messages: must be at least 1, not 0"),
        (["--compat", "5.0"], "argument --compat: invalid choice: '5.0'"),
    ],
)
def test_counts_are_checked_with_clear_messages(capsys, argv, says):
    code, _, err = _run(capsys, "--namesrv", UNREACHABLE, "--topic", "T", *argv)
    assert code == 2
    assert says in _one_line_error(err)


def test_a_size_over_the_producers_max_message_size_is_refused_up_front(capsys):
    code, _, err = _run(capsys, "--namesrv", UNREACHABLE, "--topic", "T", "--size", str(MAX + 1))
    assert code == 2
    line = _one_line_error(err)
    assert f"--size {MAX + 1:,} is over the producer's max_message_size ({MAX:,} bytes)" in line
    BenchConfig(UNREACHABLE, "T", size=MAX).check()  # the largest body the producer sends is allowed


def test_a_batch_over_max_message_size_is_refused_up_front(capsys):
    code, _, err = _run(
        capsys, "--namesrv", UNREACHABLE, "--topic", "T", "--mode", "batch", "--size", "200000", "--batch-size", "32"
    )
    assert code == 2
    assert "a batch of 32 messages of 200,000 bytes is over the producer's max_message_size" in _one_line_error(err)
    # bodies that fit but whose encoded batch (each message's header and properties) does not: the client's rule
    with pytest.raises(RocketRouteError, match="a batch of 2 messages"):
        BenchConfig(UNREACHABLE, "T", mode="batch", size=MAX // 2 - 8, batch_size=2).check()
    BenchConfig(UNREACHABLE, "T", mode="batch", size=MAX // 2 - 1024, batch_size=2, keys=True).check()


@pytest.mark.parametrize("where", ["missing", "folder"])
def test_json_into_a_missing_folder_or_onto_a_folder_is_refused_before_the_run(capsys, tmp_path, where):
    target = tmp_path / "no" / "such" / "summary.json" if where == "missing" else tmp_path
    code, out, err = _run(capsys, "--namesrv", UNREACHABLE, "--topic", "T", "--json", str(target))
    assert code == 2
    line = _one_line_error(err)
    assert line.startswith(f"rocketroute bench-producer: error: cannot write --json {str(target)!r}: "), line
    assert out == ""  # nothing was run


def test_a_bad_option_in_a_real_process_is_one_line_without_traceback():
    """The same refusal through ``python -m rocketroute.cli``, as a user sees it."""
    done = subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "bench-producer", "--namesrv", "127.0.0.1:99999", "--topic", "T"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("rocketroute bench-producer: error: argument --namesrv: ")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


# --- a run whose first sends all fail ----------------------------------------------------------------------------


class _RefusingProducer:
    """A producer whose route lookup works and whose every send is refused, as a broker refusing the topic would."""

    instances: ClassVar[list[_RefusingProducer]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sends = 0
        self.shut_down = False
        _RefusingProducer.instances.append(self)

    def start(self) -> None:
        pass

    def shutdown(self) -> None:
        self.shut_down = True

    def publish_info(self, topic: str) -> object:
        return object()

    def _refuse(self, *args: Any) -> Any:
        self.sends += 1
        raise RocketRouteError(f"CODE: 1  DESC: refused send {self.sends}")

    send = send_oneway = send_batch = _refuse

    async def send_async(self, *args: Any) -> Any:
        self._refuse()


@pytest.mark.parametrize("mode", ["sync", "async", "batch"])
def test_a_run_whose_first_sends_all_fail_stops_with_one_summarised_error(monkeypatch, capsys, mode):
    import rocketroute.client

    monkeypatch.setattr(rocketroute.client, "Producer", _RefusingProducer)
    _RefusingProducer.instances.clear()
    cfg = BenchConfig(UNREACHABLE, "T", mode=mode, threads=2, in_flight=8, batch_size=4, duration=60, interval=0.05)
    with pytest.raises(RocketRouteError) as e:
        run_bench(cfg, sys.stdout)
    text = str(e.value)
    assert "\n" not in text
    assert text.startswith("stopped: the first ") and "sends all failed and none succeeded" in text
    assert text.endswith("the first error: RocketRouteError: CODE: 1  DESC: refused send 1"), text
    (producer,) = _RefusingProducer.instances
    assert producer.shut_down
    # stopped at the bound, not after 60 s of failures: only the sends already under way (2 threads, or 8 in
    # flight) may still have been made
    per_send = 4 if mode == "batch" else 1
    assert FAIL_FAST_SENDS <= producer.sends * per_send <= FAIL_FAST_SENDS + 8 * per_send
    out = capsys.readouterr().out
    assert "refused send" not in out  # no error per message


def test_the_cli_says_a_failing_start_in_one_line(monkeypatch, capsys):
    import rocketroute.client

    monkeypatch.setattr(rocketroute.client, "Producer", _RefusingProducer)
    code, _, err = _run(capsys, "--namesrv", UNREACHABLE, "--topic", "T", "--duration", "60")
    assert code == 2
    assert "sends all failed and none succeeded; the first error: RocketRouteError" in _one_line_error(err)


# --- the latencies take constant memory --------------------------------------------------------------------------


def test_the_response_times_take_the_same_memory_however_many_sends_succeed():
    """``_Stats`` keeps the response times in fixed-size histograms: a million more acknowledged sends allocate
    nothing that stays (a list of floats would hold 8 MB more)."""
    stats = _Stats()
    for i in range(10_000):
        stats.ok(1, 1.0 + i % 500 / 10)
    stats.take_window()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for i in range(1_000_000):
            stats.ok(1, 1.0 + i % 500 / 10)
        _, _, avg, p99, mx = stats.take_window()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert grown < 64 * 1024, grown
    assert stats.sent == 1_010_000 and stats.total.count == 1_010_000
    assert 25.0 < avg < 26.0 and 49.0 < p99 <= mx == pytest.approx(50.9)
