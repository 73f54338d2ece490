"""Loading golden vector files and checking cases against a backend.

One pytest item per (case id, version label, backend). A vector file that is missing, a line that is not a
JSON object, an unknown version label or a duplicate id becomes a failing item, never a silent gap; an
unknown ``kind`` or ``op`` fails its item; and every field of a case must be read by its checker
(:class:`Fields`), so a field the suite forgot to check fails too.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rocketroute.errors import JAVA_EXCEPTIONS

COMPAT_BY_VERSION = {"4.9.8": "4.9", "5.3.3": "5.3"}
"""Vector version label -> the ``compat`` profile that must reproduce it."""

CLIENT_LABELS = {"clients-java-5.2.1": frozenset({"grpc_balancer"})}
"""Labels of another client's vectors (apache/rocketmq-clients), which no ``compat`` profile stands for:
label -> the only vector files it may appear in (their cases get ``compat=None``)."""

FROZEN_NOW_MS = 1_700_000_000_000
"""The ManualClock time of every scenario: the README shows a frozen clock is exact for these vectors."""

CASE_META = frozenset({"id", "versions", "kind"})

DEFAULT_VECTORS = Path(__file__).resolve().parent / "vectors"


def vectors_dir(config: pytest.Config) -> Path:
    """``--vectors DIR`` (relative to where pytest was started), or the vectors shipped with the tests."""
    value = config.getoption("vectors")
    if value is None:
        return DEFAULT_VECTORS
    path = Path(value)
    if not path.is_absolute():
        path = Path(config.invocation_params.dir) / path
    return path


@dataclass(frozen=True)
class VectorCase:
    """One case of a vector file, for one version label."""

    id: str
    version: str
    compat: str | None
    data: dict[str, Any] = field(repr=False)
    problem: str | None = None

    @property
    def kind(self) -> Any:
        return self.data.get("kind")


def find_vector_file(directory: Path, name: str) -> Path | None:
    """``NAME.jsonl`` if present, else ``NAME.jsonl.gz``, else ``None``."""
    for candidate in (directory / f"{name}.jsonl", directory / f"{name}.jsonl.gz"):
        if candidate.is_file():
            return candidate
    return None


def _read_lines(path: Path) -> list[str]:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return fh.read().splitlines()
    return path.read_text(encoding="utf-8").splitlines()


_CACHE: dict[tuple[Path, str], list[VectorCase]] = {}


def load_cases(directory: Path, name: str) -> list[VectorCase]:
    """Every (case, version) of ``name`` in ``directory``, or failing placeholders that say what is wrong."""
    key = (directory, name)
    if key not in _CACHE:
        _CACHE[key] = list(_load_cases(directory, name))
    return _CACHE[key]


def _bad(id_: str, problem: str) -> VectorCase:
    return VectorCase(id=id_, version="-", compat=None, data={}, problem=problem)


def _load_cases(directory: Path, name: str) -> Iterable[VectorCase]:
    path = find_vector_file(directory, name)
    if path is None:
        yield _bad(f"missing:{name}", f"no {name}.jsonl or {name}.jsonl.gz in {directory}")
        return
    seen: set[str] = set()
    count = 0
    for lineno, line in enumerate(_read_lines(path), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{lineno}"
        try:
            data = json.loads(line)
        except ValueError as e:
            yield _bad(f"line-{lineno}", f"{where}: not JSON ({e})")
            continue
        if not isinstance(data, dict):
            yield _bad(f"line-{lineno}", f"{where}: a case must be a JSON object")
            continue
        case_id = data.get("id")
        if not isinstance(case_id, str) or not case_id:
            yield _bad(f"line-{lineno}", f"{where}: case without a string id")
            continue
        if case_id in seen:
            yield _bad(f"{case_id}#line-{lineno}", f"{where}: duplicate id {case_id!r}")
            continue
        seen.add(case_id)
        count += 1
        versions = data.get("versions")
        if not isinstance(versions, list) or not versions:
            yield _bad(case_id, f"{where}: 'versions' must be a non-empty list, got {versions!r}")
            continue
        for version in versions:
            compat = COMPAT_BY_VERSION.get(version)
            if compat is None and name in CLIENT_LABELS.get(version, ()):
                yield VectorCase(case_id, version, None, data)
            elif compat is None:
                yield VectorCase(case_id, str(version), None, data, f"{where}: unknown version label {version!r}")
            else:
                yield VectorCase(case_id, version, compat, data)
    if count == 0:
        yield _bad(f"empty:{name}", f"{path} holds no cases")


def case_param_id(case: VectorCase) -> str:
    if case.id.endswith("@" + case.version) or (case.problem is not None and case.compat is None):
        return case.id
    return f"{case.id}@{case.version}"


def parametrize_vectors(metafunc: pytest.Metafunc, name: str) -> None:
    """``pytest_generate_tests`` body: parametrize ``case`` over every (case, version) of vector file ``name``."""
    if "case" not in metafunc.fixturenames:
        return
    cases = load_cases(vectors_dir(metafunc.config), name)
    metafunc.parametrize("case", cases, ids=[case_param_id(c) for c in cases])


class Fields:
    """Read access to a vector object that records which keys were read, so a checker can prove that it
    looked at every field (:meth:`assert_all_read`). ``in`` does not count as a read."""

    __slots__ = ("_children", "_data", "_read", "_where")

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            pytest.fail(f"{where}: expected a JSON object, got {data!r}")
        self._data = data
        self._where = where
        self._read: set[str] = set()
        self._children: list[Fields] = []

    @property
    def where(self) -> str:
        return self._where

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def __getitem__(self, key: str) -> Any:
        if key not in self._data:
            pytest.fail(f"{self._where}: missing field {key!r}")
        self._read.add(key)
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        self._read.add(key)
        return self._data.get(key, default)

    def each(self, key: str) -> list[Fields]:
        """The list of objects under ``key``, each as :class:`Fields` (checked by :meth:`assert_all_read`)."""
        items = self[key]
        if not isinstance(items, list):
            pytest.fail(f"{self._where}: {key!r} must be a list, got {items!r}")
        children = [Fields(item, f"{self._where}.{key}[{i}]") for i, item in enumerate(items)]
        self._children.extend(children)
        return children

    def raw(self) -> dict[str, Any]:
        return self._data

    def assert_all_read(self, ignore: Iterable[str] = ()) -> None:
        unread = set(self._data) - self._read - set(ignore)
        if unread:
            pytest.fail(f"{self._where}: fields not checked by the suite: {sorted(unread)}")
        for child in self._children:
            child.assert_all_read()


Check = Callable[[Any, Fields, str], None]


def run_case(case: VectorCase, backend: Any, checks: dict[str, Check]) -> None:
    """Check one (case, version) against ``backend`` with the checker of its ``kind``."""
    if case.problem is not None:
        pytest.fail(case.problem, pytrace=False)
    fields = Fields(case.data, f"{case.id}@{case.version}")
    kind = case.kind
    check = checks.get(kind)  # type: ignore[arg-type]
    if check is None:
        pytest.fail(f"{fields.where}: unknown kind {kind!r}; known kinds: {sorted(checks)}", pytrace=False)
    check(backend, fields, case.compat)
    fields.assert_all_read(ignore=CASE_META)


def unknown_op(where: str, op: Any) -> None:
    pytest.fail(f"{where}: unknown op {op!r}", pytrace=False)


def check_java_exception(exc: BaseException, spec: Any, where: str) -> None:
    """``exc`` stands for the vector's exception ``{"class", "message", "origin"}``: the same Java class
    (``java_class``, and the Python class mapped to it); for RocketMQ's own exceptions, the same message."""
    if not isinstance(spec, dict) or not {"class", "message", "origin"} <= set(spec):
        pytest.fail(f"{where}: malformed exception spec {spec!r}")
    java_class = spec["class"]
    got = getattr(exc, "java_class", None)
    assert got == java_class, f"{where}: raised {type(exc).__name__}({exc}) with java_class {got!r}, want {java_class}"
    mapped = JAVA_EXCEPTIONS.get(java_class)
    if mapped is not None:
        assert isinstance(exc, mapped), f"{where}: {type(exc).__name__} is not a {mapped.__name__}"
    origin = spec["origin"]
    if origin == "rocketmq":
        assert str(exc) == spec["message"], f"{where}: message {str(exc)!r}, want {spec['message']!r}"
    elif origin != "jdk":
        pytest.fail(f"{where}: unknown exception origin {origin!r}")


def expect_java_exception(fn: Callable[[], Any], spec: Any, where: str) -> BaseException:
    """Call ``fn``; it must raise the exception described by ``spec``."""
    try:
        result = fn()
    except Exception as exc:
        check_java_exception(exc, spec, where)
        return exc
    pytest.fail(f"{where}: expected {spec.get('class') if isinstance(spec, dict) else spec}, got {result!r}")


def mq(backend: Any, encoded: Any) -> Any:
    """A MessageQueue of ``backend`` from the vectors' ``[topic, brokerName, queueId]``."""
    if not isinstance(encoded, list) or len(encoded) != 3:
        pytest.fail(f"a MessageQueue is encoded [topic, brokerName, queueId], got {encoded!r}")
    return backend.MessageQueue(*encoded)


def mq_list(backend: Any, encoded: Any) -> list[Any]:
    return [mq(backend, e) for e in encoded]


def mq_or_none(backend: Any, encoded: Any) -> Any:
    return None if encoded is None else mq(backend, encoded)


def show(q: Any) -> Any:
    """A readable form of a queue (or ``None``) for assertion messages."""
    return None if q is None else [q.topic, q.broker_name, q.queue_id]
