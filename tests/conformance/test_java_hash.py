"""Golden vectors of ``java_hash.jsonl``: String / Integer / Long hashCode and SelectMessageQueueByHash."""

from __future__ import annotations

from ._support import expect_java_exception, parametrize_vectors, run_case, show

VECTOR_FILE = "java_hash"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def check_string_hash(rr, f, compat):
    s = f["input"]
    assert len(s.encode("utf-16-le", "surrogatepass")) // 2 == f["utf16_length"]
    assert rr.java_string_hash(s) == f["hash"]


def check_int_hash(rr, f, compat):
    assert rr.java_int_hash(f["input"]) == f["hash"]


def check_long_hash(rr, f, compat):
    assert rr.java_long_hash(f["input"]) == f["hash"]


HASH_OF_ARG_TYPE = {"string": "java_string_hash", "int": "java_int_hash", "long": "java_long_hash"}


def check_select_by_hash(rr, f, compat):
    arg_type = f["arg_type"]
    arg = f["arg"]
    n = f["num_queues"]
    assert arg_type in HASH_OF_ARG_TYPE, f"{f.where}: unknown arg_type {arg_type!r}"
    assert getattr(rr, HASH_OF_ARG_TYPE[arg_type])(arg) == f["arg_hash"]
    mqs = [rr.MessageQueue("TopicTest", f"broker-{i % 3}", i) for i in range(n)]
    selector = rr.SelectMessageQueueByHash(key_type=arg_type)
    selectors = [selector]
    if arg_type == "string":
        selectors.append(rr.SelectMessageQueueByHash())  # a str key hashes as java.lang.String by default
    for sel in selectors:
        if "exception" in f:
            spec = f["exception"]
            expect_java_exception(lambda sel=sel: sel.select(mqs, None, arg), spec, f"{f.where} select")
            expect_java_exception(lambda sel=sel: sel.select_index(arg, n), spec, f"{f.where} select_index")
        else:
            index = f["selected_index"]
            got = sel.select(mqs, None, arg)
            assert got == mqs[index], f"{f.where}: picked {show(got)}, want index {index}"
            assert got.queue_id == index
            assert sel.select_index(arg, n) == index


CHECKS = {
    "string_hash": check_string_hash,
    "int_hash": check_int_hash,
    "long_hash": check_long_hash,
    "select_by_hash": check_select_by_hash,
}


def test_java_hash_vector(case, backend):
    run_case(case, backend, CHECKS)
