"""What the command line prints reads as plain English: ``--help`` is plain text (no reST or Markdown markup
from the docstrings it is written beside), and a count agrees with its noun (``1 queue``, ``2 queues``)."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import pytest

import rocketroute as rr
from rocketroute._plural import counted, noun
from rocketroute.cli import DESCRIPTION, build_parser
from rocketroute.client.group_plan import GroupSnapshot, describe_group_plan, plan_group

# ``code`` and `code` (reST and Markdown), :role:`x` (Sphinx), **bold**, [text](link)
MARKUP = re.compile(r"`|:[a-z]+:`|\*\*|\]\(")


def _helps() -> dict[str, str]:
    """Every ``--help`` the command line prints, by command (``rocketroute`` itself as ``""``)."""
    parser = build_parser()
    helps = {"": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                helps[name] = sub.format_help()
            # the one-line help each command has in the list of commands
            helps.update({f"{c.dest} (in the list)": c.help or "" for c in action._choices_actions})
    return helps


def test_every_help_is_plain_text():
    helps = _helps()
    assert len(helps) > 10, sorted(helps)  # the top level, each command's help, each command's line in the list
    marked = {name: MARKUP.findall(text) for name, text in helps.items() if MARKUP.search(text)}
    assert marked == {}


def test_the_first_line_of_rocketroute_help_is_plain_text():
    done = subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    description = done.stdout.split("\n\n")[1]  # after the usage paragraph
    assert description.startswith("The rocketroute command line: the Spark pipeline, "), description
    assert DESCRIPTION.startswith("The rocketroute command line: ") and not MARKUP.search(DESCRIPTION)


@pytest.mark.parametrize(
    ("n", "one", "many", "text"),
    [
        (0, "queue", None, "0 queues"),
        (1, "queue", None, "1 queue"),
        (2, "queue", None, "2 queues"),
        (1_200, "queue", None, "1,200 queues"),
        (1, "strategy", "strategies", "1 strategy"),
        (3, "strategy", "strategies", "3 strategies"),
    ],
)
def test_a_count_agrees_with_its_noun(n, one, many, text):
    assert counted(n, one, many) == text
    assert noun(n, one, many) == text.split(" ", 1)[1]


def _snapshot(queues: int, members: tuple[str, ...]) -> GroupSnapshot:
    route = rr.TopicRouteData(
        [rr.QueueData("broker-a", queues, queues)], [rr.BrokerData("c", "broker-a", {0: "10.0.0.1:10911"})]
    )
    return GroupSnapshot(
        "T", "g", "5.3", {"127.0.0.1:9876": route}, {"broker-a": members}, {"broker-a": "10.0.0.1:10911"}
    )


def _live_plan_text(queues: int, members: tuple[str, ...]) -> str:
    snapshot = _snapshot(queues, members)
    return describe_group_plan(
        [plan_group(snapshot, rr.AllocateMessageQueueAveragely(), strategy_name="AVG")], snapshot
    )


def test_the_live_plan_says_1_queue_and_1_member():
    text = _live_plan_text(1, ("cid-1",))
    assert "127.0.0.1:9876           1 queue to read (broker-a 1), consensus" in text
    assert "broker-a     10.0.0.1:10911         1 member\n" in text
    assert "consensus: 1 queue, 1 member (route of 1/1 name server, member list of 1/1 broker)" in text
    assert "  cid-1   1 queue   broker-a:0" in text
    assert not re.search(r"\b1 (queues|members|name servers|brokers)\b", text), text


def test_the_live_plan_says_2_queues_and_2_members_in_the_same_columns():
    text = _live_plan_text(2, ("cid-1", "cid-2"))
    assert "127.0.0.1:9876           2 queues to read (broker-a 2), consensus" in text
    assert "broker-a     10.0.0.1:10911         2 members\n" in text
    assert "consensus: 2 queues, 2 members (route of 1/1 name server, member list of 1/1 broker)" in text
    assert "  cid-1   1 queue   broker-a:0" in text and "  cid-2   1 queue   broker-a:1" in text
    # one member with both queues: the queues column lines up with the singular
    text = _live_plan_text(2, ("cid-1",))
    assert "  cid-1   2 queues  broker-a:0 broker-a:1" in text
