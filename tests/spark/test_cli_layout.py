"""The command line's layout: :mod:`rocketroute.cli` (the commands that need no Spark) and
:mod:`rocketroute.spark.cli` (the pipeline's), one module per command, import no pyspark; without
pyspark (or matplotlib) a command that needs it says so in one line, and the commands that need neither
(``bench-producer``, ``plan --namesrv``) still work. Each case without pyspark runs in a subprocess whose import
system refuses it, as an interpreter without the ``spark`` extra would."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

import pytest

import rocketroute.cli
import rocketroute.spark.cli

COMMANDS = ["route", "plan", "replay", "report", "demo", "bench-spark", "bench-producer"]
MODULES = [
    "rocketroute.spark.cli.route",
    "rocketroute.spark.cli.plan",
    "rocketroute.spark.cli.replay",
    "rocketroute.spark.cli.report",
    "rocketroute.spark.cli.demo",
    "rocketroute.spark.cli.bench_spark",
    "rocketroute.cli.bench_producer",  # no Spark: in the command line's own package
]
NEEDS = "this command needs {}: pip install 'rocketroute[spark]'"

# argv[1]: the top-level modules to hide (comma-separated); the rest: rocketroute's command line
_WITHOUT = """
import sys

HIDDEN = tuple(sys.argv[1].split(","))


class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Missing())
from rocketroute.cli import main

sys.exit(main(sys.argv[2:]))
"""


def _without(hidden: str, *argv: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT, hidden, *argv],
        capture_output=True, text=True, timeout=120, check=False, cwd=cwd,
    )  # fmt: skip


def _imported_after(imports: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules starting with one of ``prefixes`` that a fresh interpreter has after ``import <imports>``."""
    found = f"sorted(m for m in sys.modules if m.startswith({prefixes!r}))"
    code = f"import json, sys, {imports}\nprint(json.dumps({found}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_importing_the_cli_imports_neither_pyspark_nor_matplotlib():
    assert _imported_after("rocketroute.cli, rocketroute.spark.cli", ("pyspark", "py4j", "matplotlib")) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["route", "--input", "x", "--topic", "t", "--queues", "a:4", "--out", "o"],
        ["plan", "--load", "x", "--topic", "t", "--out", "o"],
        ["plan", "--topic", "t"],  # before any other check
        ["replay", "--trace", "x", "--sends", "y", "--topic", "t", "--queues", "a:4", "--out", "o"],
        ["demo", "--rows", "10", "--out", "o"],
        ["bench-spark", "--rows", "10"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_spark_command_without_pyspark_says_so_in_one_line(argv, tmp_path):
    done = _without("pyspark", *argv, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"rocketroute {argv[0]}: error: {NEEDS.format('pyspark')}\n"
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_the_report_without_matplotlib_says_so_in_one_line(tmp_path):
    (tmp_path / "route").mkdir()
    done = _without("matplotlib", "report", "--route", "route", "--out", "r.html", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"rocketroute report: error: {NEEDS.format('matplotlib')}\n"
    assert not (tmp_path / "r.html").exists()


def test_help_needs_no_pyspark():
    for argv in ([], *([c] for c in COMMANDS)):
        done = _without("pyspark,matplotlib", *argv, "--help")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("usage: rocketroute"), done.stdout


def test_bench_producer_runs_without_pyspark():
    done = _without(
        "pyspark,matplotlib", "bench-producer", "--namesrv", "127.0.0.1:1", "--topic", "t", "--duration", "0.5"
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("rocketroute bench-producer: error: cannot reach the cluster at 127.0.0.1:1")
    assert "pyspark" not in done.stderr and "Traceback" not in done.stderr


def test_the_live_plan_runs_without_pyspark():
    argv = ["plan", "--namesrv", "127.0.0.1:1", "--topic", "t", "--group", "g", "--timeout-ms", "200"]
    done = _without("pyspark,matplotlib", *argv)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("[rocketroute] asking 127.0.0.1:1 for the route of t")
    assert len(lines) == 2 and lines[1].startswith("rocketroute plan: error: no name server gave a route for 't'")
    assert "pyspark" not in done.stderr


def test_one_module_per_command_in_the_order_of_before():
    parser = rocketroute.cli.build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == COMMANDS
    for command, module in zip(COMMANDS, MODULES, strict=True):
        mod = importlib.import_module(module)
        assert callable(mod.add_parser)
        func = sub.choices[command].get_default("func")
        assert func.__module__ == mod.__name__, command
    assert [m.__name__ for m in rocketroute.cli.COMMANDS] == MODULES


def test_importing_the_commands_that_need_no_spark_imports_nothing_of_the_spark_package():
    imports = "rocketroute.cli, rocketroute.cli.bench_producer, rocketroute.cli.plan_live"
    assert _imported_after(imports, ("rocketroute.spark",)) == []


def test_the_command_line_has_one_entry_point():
    """``rocketroute.cli`` is the command line; the Spark package holds commands only, and no second name for it."""
    assert rocketroute.cli.__doc__.splitlines()[0] == rocketroute.cli.DESCRIPTION
    assert rocketroute.cli.build_parser().description == rocketroute.cli.DESCRIPTION
    for name in ("main", "build_parser", "COMMANDS", "DESCRIPTION", "INTERRUPTED"):
        assert not hasattr(rocketroute.spark.cli, name), name
    done = subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("rocketroute "), done.stderr


def test_no_function_shadows_its_module():
    """``rocketroute.spark.plan`` is the function; its module is ``rocketroute.spark.jobs.plan``, and importing
    that name gives the module (it gave the function when the module was ``rocketroute.spark.plan``)."""
    import importlib
    import types

    import rocketroute.spark as spark

    for name in ("route", "plan", "replay"):
        module = importlib.import_module(f"rocketroute.spark.jobs.{name}")
        assert isinstance(module, types.ModuleType)
        assert getattr(spark, name) is getattr(module, name) and callable(getattr(spark, name))
        assert not isinstance(getattr(spark, name), types.ModuleType)
