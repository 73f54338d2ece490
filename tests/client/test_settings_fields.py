"""The settings objects' fields are exactly what the clients read (issue 28): every field is read by the client's
code (or documented as informational), every setting the code reads is a field, every Java setting is a field or
refused unless at Java's default, and the defaults are Java's. Static checks over the client's sources plus the
objects themselves; nothing connects anywhere."""

from __future__ import annotations

import ast
import dataclasses
import pathlib

import pytest

import rocketroute as rr
from rocketroute.client import (
    Consumer,
    ConsumerSettings,
    LitePullConsumer,
    LitePullConsumerSettings,
    Producer,
    ProducerSettings,
)
from rocketroute.client.consumer.settings import INFORMATIONAL
from rocketroute.errors import UnsupportedSettingError

CLIENT = pathlib.Path(rr.__file__).parent / "client"
NS = "127.0.0.1:1"

# a valid value other than the default, for every field
OTHER = {
    ProducerSettings: {
        "send_msg_timeout": 1000,
        "retry_times_when_send_failed": 0,
        "retry_times_when_send_async_failed": 5,
        "retry_another_broker_when_not_store_ok": True,
        "send_latency_fault_enable": True,
        "compress_msg_body_over_howmuch": 0,
        "compress_level": 9,
        "compress_type": "zlib",
        "max_message_size": 1024,
        "default_topic_queue_nums": 8,
        "create_topic_key": "AUTO_CREATE",
        "poll_name_server_interval": 1000,
        "heartbeat_broker_interval": 1000,
        "mq_client_api_timeout": 500,
        "unit_mode": True,
        "language": "JAVA",
        "enable_backpressure_for_async_mode": True,
        "back_pressure_for_async_send_num": 10,
        "back_pressure_for_async_send_size": 1024 * 1024,
        "shutdown_flush_timeout": 1000,
    },
    ConsumerSettings: {
        "message_model": "BROADCASTING",
        "consume_from_where": "CONSUME_FROM_TIMESTAMP",
        "consume_timestamp": "20260101000000",
        "consume_thread_min": 2,
        "consume_thread_max": 30,
        "consume_concurrently_max_span": 10,
        "pull_threshold_for_queue": 10,
        "pull_threshold_size_for_queue": 1,
        "pull_threshold_for_topic": 100,
        "pull_threshold_size_for_topic": 10,
        "pull_interval": 5,
        "consume_message_batch_max_size": 4,
        "pull_batch_size": 8,
        "pull_batch_size_in_bytes": 4096,
        "post_subscription_when_pull": True,
        "max_reconsume_times": 3,
        "suspend_current_queue_time_millis": 50,
        "consume_timeout": 1,
        "await_termination_millis_when_shutdown": 100,
        "poll_name_server_interval": 1000,
        "heartbeat_broker_interval": 1000,
        "persist_consumer_offset_interval": 100,
        "pull_time_delay_mills_when_exception": 10,
        "mq_client_api_timeout": 500,
        "language": "JAVA",
        "decode_read_body": False,
        "decode_decompress_body": False,
        "rebalance_interval": 100,
        "offset_store_dir": "/tmp/offsets",
        "max_body_size": 1024,
    },
}
OTHER[LitePullConsumerSettings] = {
    "message_model": "BROADCASTING",
    "consume_from_where": "CONSUME_FROM_TIMESTAMP",
    "consume_timestamp": "20260101000000",
    "auto_commit": False,
    "auto_commit_interval_millis": 1000,
    "pull_batch_size": 32,
    "pull_threshold_for_all": 100,
    "consume_max_span": 10,
    "pull_threshold_for_queue": 10,
    "pull_threshold_size_for_queue": 1,
    "poll_timeout_millis": 100,
    "broker_suspend_max_time_millis": 1000,
    "consumer_timeout_millis_when_suspend": 40_000,
    "poll_name_server_interval": 1000,
    "heartbeat_broker_interval": 1000,
    "persist_consumer_offset_interval": 100,
    "pull_time_delay_mills_when_exception": 10,
    "mq_client_api_timeout": 500,
    "language": "JAVA",
    "decode_read_body": False,
    "decode_decompress_body": False,
    "rebalance_interval": 100,
    "offset_store_dir": "/tmp/offsets",
    "max_body_size": 1024,
}
JAVA_DEFAULTS = {
    ProducerSettings: rr.producer_defaults,
    ConsumerSettings: rr.consumer_defaults,
    LitePullConsumerSettings: rr.lite_pull_consumer_defaults,
}
CLIENTS = {
    ProducerSettings: lambda **kw: Producer(NS, **kw),
    ConsumerSettings: lambda **kw: Consumer(NS, "G", ["T"], **kw),
    LitePullConsumerSettings: lambda **kw: LitePullConsumer(NS, "G", ["T"], **kw),
}
CONSUMER = CLIENT / "consumer"
LITE_PULL = {"lite_pull_base.py", "lite_pull_consumer.py", "lite_puller.py", "lite_pull_settings.py", "poll_buffer.py"}
# the parts both kinds of consumer are built of (the lite pull consumer's rebalance, offsets, pulls' codec)
SHARED = {"base.py", "rebalance.py", "offset_store.py", "subscription_state.py", "subscription.py", "pull.py"}
INSTANCE = [CLIENT / "instance.py", CLIENT / "instances.py"]
# each client's package, and the client instance both share (it and its registry read the settings it is built from)
SOURCES = {
    ProducerSettings: [*(CLIENT / "producer").glob("*.py"), *INSTANCE],
    ConsumerSettings: [p for p in CONSUMER.glob("*.py") if p.name not in LITE_PULL] + INSTANCE,
    LitePullConsumerSettings: [CONSUMER / name for name in sorted(LITE_PULL | SHARED)] + INSTANCE,
}
KINDS = [ProducerSettings, ConsumerSettings, LitePullConsumerSettings]


def _reads(kind: type) -> set[str]:
    """The attribute names the client's modules read from its settings object: ``self.settings.X``,
    ``producer.settings.X``, ``settings.X`` (an argument so named) and ``s.X`` / ``cfg.X`` where ``s`` / ``cfg`` are
    bound to the settings (the settings
    module itself and the running info's walk over every field left out)."""
    names: set[str] = set()
    for path in SOURCES[kind]:
        if path.name in ("settings.py", "running_info.py", "__init__.py"):
            continue
        tree = ast.parse(path.read_text())
        aliases = set()  # names bound to the settings: s = self.settings, cfg = ConsumerSettings.of(...)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value.body if isinstance(node.value, ast.IfExp) else node.value
                if isinstance(value, ast.Attribute) and value.attr == "settings":
                    aliases.add(node.targets[0].id)
                elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                    receiver = value.func.value
                    if value.func.attr in ("of", "for_compat", "resolve") or (
                        value.func.attr == "replace" and isinstance(receiver, ast.Name) and receiver.id in aliases
                    ):
                        aliases.add(node.targets[0].id)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                value = node.value
                if isinstance(value, ast.Attribute) and value.attr == "settings":
                    names.add(node.attr)
                elif isinstance(value, ast.Name) and value.id == "settings":  # a function's settings argument
                    names.add(node.attr)
                elif isinstance(value, ast.Name) and value.id in aliases:
                    names.add(node.attr)
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):  # settings["x"]
                value = node.value
                if (isinstance(value, ast.Attribute) and value.attr == "settings") or (
                    isinstance(value, ast.Name) and value.id in aliases
                ):
                    names.add(node.slice.value)
    return names - {"replace", "for_compat", "as_dict"}


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_every_field_is_read_by_the_client_or_documented_as_informational(kind: type) -> None:
    fields = set(kind.field_names())
    informational = set(INFORMATIONAL) if kind is ConsumerSettings else set()
    unread = fields - _reads(kind) - informational
    assert not unread, f"fields nothing reads: {sorted(unread)}"
    assert not informational & _reads(kind), "an informational field is read: document what it does instead"


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_every_setting_the_client_reads_is_a_field(kind: type) -> None:
    not_fields = _reads(kind) - set(kind.field_names())
    assert not not_fields, f"read from the settings but not fields: {sorted(not_fields)}"


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_every_java_setting_is_a_field_or_refused_unless_at_java_s_default(kind: type, compat: str) -> None:
    java = JAVA_DEFAULTS[kind](compat)
    fields = set(kind.field_names())
    for name, default in java.items():
        if name in fields:
            continue
        assert name in kind.NOT_SUPPORTED, f"{name}: a Java setting neither read nor refused"
        if default is not None:
            kind.of(compat, **{name: default})  # Java's default: what rocketroute does
        with pytest.raises(UnsupportedSettingError, match=name):
            kind.of(compat, **{name: object()})


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_defaults_are_java_s(kind: type, compat: str) -> None:
    java = JAVA_DEFAULTS[kind](compat)
    ours = kind()
    for name in kind.field_names():
        if name == "language":  # rocketroute's clients say who they are
            assert ours.language == "PYTHON" and java[name] == "JAVA"
        elif name in java:
            assert getattr(ours, name) == java[name], name
        elif name in kind.ONLY_53:
            assert compat == "4.9", f"{name} is marked 5.3-only but 5.3's Java client has no such setting"
    assert set(kind.ONLY_53) <= set(JAVA_DEFAULTS[kind]("5.3")) - set(JAVA_DEFAULTS[kind]("4.9"))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_every_field_can_be_set_and_reaches_the_client(kind: type) -> None:
    assert set(OTHER[kind]) == set(kind.field_names()), "a field without a test value"
    default = kind()
    for name, value in OTHER[kind].items():
        assert getattr(default, name) != value, name
        given = kind.of("5.3", **{name: value})
        assert getattr(given, name) == value and given != default
        assert default.replace(**{name: value}) == given
        client = CLIENTS[kind](**{name: value})
        assert getattr(client.settings, name) == value, name
        # a settings object, and keywords on top of it
        assert getattr(CLIENTS[kind](settings=given).settings, name) == value
        assert getattr(CLIENTS[kind](settings=default, **{name: value}).settings, name) == value


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_settings_are_frozen_and_read_by_attribute(kind: type) -> None:
    s = kind()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.language = "JAVA"  # type: ignore[misc]
    assert list(s.as_dict()) == list(kind.field_names()) and s.as_dict()["language"] == "PYTHON"
    with pytest.raises(TypeError):
        s["language"]  # type: ignore[index]  # one way to read a setting: its attribute
    with pytest.raises(UnsupportedSettingError, match="did you mean language"):
        s.replace(langauge="JAVA")
    with pytest.raises(TypeError, match="must be a"):
        CLIENTS[kind](settings=s.as_dict())
