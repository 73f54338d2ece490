"""Golden vectors of ``select_queue.jsonl``: TopicPublishInfo round-robin, sendWhichQueue arithmetic and the
random / machine-room selectors."""

from __future__ import annotations

from ._support import expect_java_exception, mq, mq_list, mq_or_none, parametrize_vectors, run_case, show, unknown_op

VECTOR_FILE = "select_queue"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def _publish_info(rr, f, compat):
    tp = rr.TopicPublishInfo(mq_list(rr, f["message_queue_list"]), compat=compat)
    tp.send_which_queue.set(f["start_index"])
    assert tp.send_which_queue.get() == f["start_index"]
    return tp


def check_tpinfo_sequence(rr, f, compat):
    tp = _publish_info(rr, f, compat)
    for i, call in enumerate(f.each("calls")):
        where = f"{f.where} call {i}"
        last = call["last_broker"]
        if "exception" in call:
            expect_java_exception(lambda last=last: tp.select_one_message_queue(last), call["exception"], where)
        else:
            got = tp.select_one_message_queue(last)
            assert show(got) == show(mq(rr, call["expect"])), where
            assert got == mq(rr, call["expect"]), where
        assert tp.send_which_queue.get() == call["index_after"], where


def check_tpinfo_filter_sequence(rr, f, compat):
    tp = _publish_info(rr, f, compat)
    for i, call in enumerate(f.each("calls")):
        where = f"{f.where} call {i}"
        excluded = frozenset(call["excluded_brokers"])

        def accept(q, excluded=excluded):
            return q.broker_name not in excluded

        got = tp.select_one_message_queue_filtered(*[accept] * call["n_filters"])
        want = mq_or_none(rr, call["expect"])
        assert show(got) == show(want), where
        assert got == want, where
        assert tp.send_which_queue.get() == call["index_after"], where


def check_thread_local_index_forced(rr, f, compat):
    start = f["start_index"]
    by_constructor = rr.SendWhichQueue(compat, start=start)
    by_set = rr.SendWhichQueue(compat)
    by_set.set(start)
    for swq in (by_constructor, by_set):
        assert swq.get() == start
        for i, (returned, stored_after) in enumerate(f["values"]):
            assert swq.increment_and_get() == returned, f"{f.where} value {i}"
            assert swq.get() == stored_after, f"{f.where} value {i}"


def check_thread_local_index_seeded(rr, f, compat):
    swq = rr.SendWhichQueue(compat, random=rr.JavaRandom(f["random_seed"]))
    assert swq.get() is None
    assert [swq.increment_and_get() for _ in f["values"]] == f["values"]


def check_thread_local_index_seeded_reset(rr, f, compat):
    swq = rr.SendWhichQueue(compat, random=rr.JavaRandom(f["random_seed"]))
    for i, op in enumerate(f.each("ops")):
        where = f"{f.where} op {i}"
        name = op["op"]
        if name == "reset":
            swq.reset()
        elif name == "increment_and_get":
            assert swq.increment_and_get() == op["expect"], where
        else:
            unknown_op(where, name)
        assert swq.get() == op["index_after"], where


def check_select_by_random_seeded(rr, f, compat):
    seed = f["random_seed"]
    n = f["num_queues"]
    mqs = [rr.MessageQueue("TopicTest", f"broker-{i % 3}", i) for i in range(n)]
    sel = rr.SelectMessageQueueByRandom(seed)
    by_index = rr.SelectMessageQueueByRandom(rr.JavaRandom(seed))
    if "exception" in f:
        spec = f["exception"]
        expect_java_exception(lambda: sel.select(mqs, None, None), spec, f"{f.where} select")
        expect_java_exception(lambda: by_index.select_index(n), spec, f"{f.where} select_index")
        return
    indexes = f["selected_indexes"]
    assert [sel.select(mqs, None, "arg").queue_id for _ in indexes] == indexes
    assert [by_index.select_index(n) for _ in indexes] == indexes


def check_select_by_machine_room(rr, f, compat):
    idcs = f["consumer_idcs"]
    sel = rr.SelectMessageQueueByMachineRoom(idcs)
    assert sel.consumer_idcs == frozenset(idcs)
    got = sel.select(mq_list(rr, f["message_queue_list"]), None, f["arg"])
    assert f["expect"] is None, f"{f.where}: Java's SelectMessageQueueByMachineRoom always returns null"
    assert got is None


CHECKS = {
    "tpinfo_sequence": check_tpinfo_sequence,
    "tpinfo_filter_sequence": check_tpinfo_filter_sequence,
    "thread_local_index_forced": check_thread_local_index_forced,
    "thread_local_index_seeded": check_thread_local_index_seeded,
    "thread_local_index_seeded_reset": check_thread_local_index_seeded_reset,
    "select_by_random_seeded": check_select_by_random_seeded,
    "select_by_machine_room": check_select_by_machine_room,
}


def test_select_queue_vector(case, backend):
    run_case(case, backend, CHECKS)
