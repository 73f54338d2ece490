"""Inputs on which the two backends used to answer differently (issue 12, hardening item 7): each now has one
answer on both, asserted here per backend."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

KEYS = ["alpha", "beta", "gamma", "delta"]


@pytest.fixture
def batch(backend):
    if backend.BACKEND == "native":
        import rocketroute.batch as b
    else:
        import rocketroute.reference.batch as b
    return b


def test_masked_numpy_entries_are_nulls(backend, batch):
    keys = np.ma.masked_array(np.array(KEYS), mask=[False, True, False, False])
    with pytest.raises(backend.NullPointerError, match="key 1 is null"):
        batch.java_string_hashes(keys)
    got = batch.java_string_hashes(keys, nulls="mask")
    assert got.mask.tolist() == [False, True, False, False]
    assert [int(got[i]) for i in (0, 2, 3)] == [backend.java_string_hash(KEYS[i]) for i in (0, 2, 3)]
    ints = np.ma.masked_array(np.array([1, 2, 3], dtype="i8"), mask=[True, False, False])
    assert batch.hash_select_indices(ints, 4, key_type="long", nulls="mask").mask.tolist() == [True, False, False]


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.frombuffer(b"\x00" + np.array(KEYS, dtype="<U5").tobytes(), dtype="<U5", offset=1),
        lambda: np.array(KEYS, dtype=">U5"),
        lambda: pa.array(KEYS).dictionary_encode(),
        lambda: pa.chunked_array([pa.array(KEYS[:2]).dictionary_encode(), pa.array(KEYS[2:]).dictionary_encode()]),
        lambda: pa.array(KEYS, pa.string_view()),
    ],
    ids=["numpy-unaligned", "numpy-big-endian", "arrow-dictionary", "arrow-chunked-dictionary", "arrow-string-view"],
)
def test_string_key_layouts_hash_like_a_list(backend, batch, make):
    assert batch.java_string_hashes(make()).tolist() == [backend.java_string_hash(k) for k in KEYS]


@pytest.mark.parametrize(
    "make",
    [
        lambda v: np.frombuffer(b"\x00" + np.array(v, dtype="<i8").tobytes(), dtype="<i8", offset=1),
        lambda v: np.array(v, dtype=">i8"),
        lambda v: np.array(v, dtype="i1"),
        lambda v: np.array(v, dtype="u2"),
        lambda v: pa.array(v, pa.int8()),
        lambda v: pa.array(v, pa.uint32()),
    ],
    ids=["numpy-unaligned", "numpy-big-endian", "numpy-int8", "numpy-uint16", "arrow-int8", "arrow-uint32"],
)
def test_int_key_layouts_select_like_a_list(backend, batch, make):
    values = [0, 1, 7, 100, 127]
    expected = [backend.SelectMessageQueueByHash(key_type="long").select(list(range(16)), None, v) for v in values]
    assert batch.hash_select_indices(make(values), 16, key_type="long").tolist() == expected


def test_a_num_queues_past_the_long_range_is_still_negative(backend, batch):
    with pytest.raises(backend.IllegalArgumentError, match="num_queues must not be negative"):
        batch.round_robin_indices(backend.SendWhichQueue(start=0), 4, -(2**63) - 1)
    assert batch.round_robin_indices(backend.SendWhichQueue(start=0), 2, 2**70).tolist() == [1, 2]


class _Str(str):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 1

    def __format__(self, spec):
        return "XX"


class _Int(int):
    def __add__(self, other):
        return 999

    def __format__(self, spec):
        return "YY"


def test_str_and_int_subclasses_route_as_their_values(backend):
    mq = backend.MessageQueue(_Str("T"), _Str("b"), _Int(3))
    assert str(mq) == "MessageQueue [topic=T, brokerName=b, queueId=3]"
    assert mq.java_hash_code() == backend.MessageQueue("T", "b", 3).java_hash_code()
    assert backend.java_string_compare(_Str("a"), _Str("b")) == -1
    assert backend.SendWhichQueue(start=_Int(5)).increment_and_get() == 6


class _Hashed:
    def __init__(self, h):
        self.h = h

    def java_hash_code(self):
        return self.h


def test_java_hash_code_must_return_a_java_int(backend):
    """SelectMessageQueueByHash.java: ``arg.hashCode()`` is an int; anything else is the object's error."""
    mqs = [backend.MessageQueue("T", "b", i) for i in range(4)]
    selector = backend.SelectMessageQueueByHash()
    assert selector.select(mqs, None, _Hashed(-7)) == mqs[3]
    with pytest.raises(backend.IllegalArgumentError, match="out of the Java int range"):
        selector.select(mqs, None, _Hashed(2**40))
    with pytest.raises(TypeError, match="must return an int"):
        selector.select(mqs, None, _Hashed("5"))


def test_rebalance_with_a_null_consumer_id_is_a_null_pointer(backend):
    """RebalanceImpl sorts cidAll with Collections.sort: a null id throws NullPointerException."""
    mqs = [backend.MessageQueue("T", "b", i) for i in range(4)]
    with pytest.raises(backend.NullPointerError):
        backend.rebalance(backend.AllocateMessageQueueAveragely(), "g", "c", mqs, ["c", None])


ROUTE_QD = '{"queueDatas":[{"brokerName":"a","readQueueNums":%s,"writeQueueNums":1,"perm":6}]}'


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[" * 100_000, "not valid JSON"),
        ('{"x":' + "[" * 127 + "]" * 127 + "}", "not valid JSON"),
        (ROUTE_QD % "NaN", "not valid JSON"),
        (ROUTE_QD % str(10**30), "read_queue_nums 1000000000000000000000000000000 is out of the Java int range"),
        ({"queueDatas": [{"brokerName": "a", "readQueueNums": 10**30, "writeQueueNums": 1, "perm": 6}]}, "out of"),
    ],
    ids=["deep-array", "nested-128", "nan", "big-int-text", "big-int-dict"],
)
def test_bad_route_json_is_one_clear_error(backend, data, message):
    with pytest.raises(backend.IllegalArgumentError, match=message):
        backend.TopicRouteData.from_json(data)


def test_route_json_edge_cases_that_are_accepted(backend):
    ok = '{"x":' + "[" * 126 + "]" * 126 + "}"  # 127 levels: the deepest accepted
    assert backend.TopicRouteData.from_json(ok).queue_datas == ()
    # Java decodes the body with new String(bytes, UTF_8): a bad byte becomes U+FFFD
    route = backend.TopicRouteData.from_json(b'{"queueDatas":[{"brokerName":"a\xff","readQueueNums":1,"perm":6}]}')
    assert route.queue_datas[0].broker_name == "a\ufffd"
    qd = {"brokerName": "a", "readQueueNums": 1, "writeQueueNums": 1, "perm": 6}
    assert backend.TopicRouteData.from_json({"queueDatas": (qd,)}).queue_datas[0].broker_name == "a"


def _objects(m):
    """One object of each public class that has state to show, built alike on backend ``m``."""
    mq = m.MessageQueue("T", "broker-a", 1)
    avg = m.AllocateMessageQueueAveragely()
    route = m.TopicRouteData.from_json(
        '{"brokerDatas": [{"cluster": "c", "brokerName": "broker-a", "brokerAddrs": {"0": "127.0.0.1:10911"}}],'
        ' "queueDatas": [{"brokerName": "broker-a", "readQueueNums": 4, "writeQueueNums": 4, "perm": 6,'
        ' "topicSysFlag": 0}]}'
    )
    return {
        "MessageQueue": mq,
        "SendWhichQueue": m.SendWhichQueue("5.3", start=0),
        "ManualClock": m.ManualClock(5),
        "JavaRandom": m.JavaRandom(3),
        "ConsistentHashRouter": m.ConsistentHashRouter(["a"], 2),
        "SelectMessageQueueByHash": m.SelectMessageQueueByHash(),
        "SelectMessageQueueByMachineRoom": m.SelectMessageQueueByMachineRoom(),
        "AllocateMessageQueueAveragely": avg,
        "AllocateMessageQueueAveragelyByCircle": m.AllocateMessageQueueAveragelyByCircle(),
        "AllocateMessageQueueByConfig": m.AllocateMessageQueueByConfig([mq]),
        "AllocateMessageQueueByMachineRoom": m.AllocateMessageQueueByMachineRoom(["room1"]),
        "AllocateMessageQueueConsistentHash": m.AllocateMessageQueueConsistentHash(7),
        "AllocateMessageQueueConsistentHashBounded": m.AllocateMessageQueueConsistentHashBounded(1.5, 3),
        "AllocateMessageQueueSticky": m.AllocateMessageQueueSticky({"c": [mq]}),
        "AllocateMachineRoomNearby": m.AllocateMachineRoomNearby(
            avg, broker_deploy_in=lambda q: "r", consumer_deploy_in=lambda c: "r"
        ),
        "BrokerData": m.BrokerData("c", "broker-a", {0: "127.0.0.1:10911"}),
        "QueueData": m.QueueData("broker-a", 4, 4, 6, 0),
        "TopicRouteData": route,
    }


def test_native_reprs_read_as_the_references():
    """Issue 15: a native object prints as the reference's does (same class name, same fields and values)."""
    import rocketroute._native
    import rocketroute.reference

    native, reference = _objects(rocketroute._native), _objects(rocketroute.reference)
    for name in native:
        assert repr(native[name]) == repr(reference[name]), name
