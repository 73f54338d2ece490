"""Golden vectors of ``producer.jsonl``: the response codes, ``DefaultMQProducer``'s default
``retryResponseCodes`` (what ``send_default`` retries on) and a new producer's settings, per version."""

from __future__ import annotations

import re

from ._support import parametrize_vectors, run_case

VECTOR_FILE = "producer"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def check_response_code(rr, f, compat):
    name, code = f["name"], f["code"]
    assert f["class"] in ("ResponseCode", "RemotingSysResponseCode")
    assert getattr(rr.ResponseCode, name) == code
    assert rr.RESPONSE_CODES[compat][name] == code


def check_retry_response_codes(rr, f, compat):
    codes = f["codes"]
    assert sorted(rr.default_retry_response_codes(compat)) == codes
    assert sorted(rr.RETRY_RESPONSE_CODES[compat]) == codes
    for code, names in zip(codes, f["names"], strict=True):
        for qualified in names:
            assert getattr(rr.ResponseCode, qualified.split(".")[1]) == code
    # a CopyOnWriteArraySet: membership is all send_default asks of it
    assert sorted(f["iteration_order"]) == codes
    assert f["set_class"] == "java.util.concurrent.CopyOnWriteArraySet"


def _snake(getter: str) -> str:
    s = re.sub(r"(?<!^)(?=[A-Z])", "_", getter).lower()
    return s.replace("m_q_", "mq_").replace("v_i_p", "vip").replace("o_k", "ok")


def check_producer_defaults(rr, f, compat):
    values = dict(f["values"])
    assert values.pop("ProducerGroup") == f["group"]  # the constructor's argument, not a default
    defaults = rr.producer_defaults(compat)
    want = {_snake(k): tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    assert dict(defaults) == want
    assert all(_snake(m) not in defaults for m in f["missing"])
    strategy = rr.MQFaultStrategy(compat)
    assert list(strategy.latency_max) == values["LatencyMax"]
    assert list(strategy.not_available_duration) == values["NotAvailableDuration"]


CHECKS = {
    "response_code": check_response_code,
    "retry_response_codes": check_retry_response_codes,
    "producer_defaults": check_producer_defaults,
}


def test_producer_vector(case, backend):
    run_case(case, backend, CHECKS)
