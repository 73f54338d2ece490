"""Golden vectors of ``message_queue.jsonl``: MessageQueue toString, hashCode, compareTo, equals, sort."""

from __future__ import annotations

from ._support import mq, mq_list, parametrize_vectors, run_case, show

VECTOR_FILE = "message_queue"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def check_mq(rr, f, compat):
    q = mq(rr, f["mq"])
    topic, broker, queue_id = f["mq"]
    assert (q.topic, q.broker_name, q.queue_id) == (topic, broker, queue_id)
    assert str(q) == f["to_string"]
    assert q.java_hash_code() == f["hash_code"]


def check_compare(rr, f, compat):
    a = mq(rr, f["a"])
    b = mq(rr, f["b"])
    assert a.compare_to(b) == f["compare_to"]
    assert b.compare_to(a) == f["compare_to_reverse"]
    equals = f["equals"]
    assert (a == b) is equals
    assert (b == a) is equals
    assert (a != b) is (not equals)
    if equals:
        assert hash(a) == hash(b)
    # the rich comparisons follow compareTo's sign, overflow included
    assert (a < b) is (f["compare_to"] < 0)
    assert (a > b) is (f["compare_to"] > 0)
    assert (a <= b) is (f["compare_to"] <= 0)
    assert (a >= b) is (f["compare_to"] >= 0)


def check_sort(rr, f, compat):
    items = mq_list(rr, f["input"])
    want = mq_list(rr, f["sorted"])
    got = sorted(items)  # Python's sort is stable, like Collections.sort
    assert [show(q) for q in got] == [show(q) for q in want]
    assert got == want


CHECKS = {"mq": check_mq, "compare": check_compare, "sort": check_sort}


def test_message_queue_vector(case, backend):
    run_case(case, backend, CHECKS)
