"""rocketroute.client.message_id: MessageClientIDSetter's ids, built and read back."""

from __future__ import annotations

import datetime
import os
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.client import MessageIdGenerator, create_uniq_id, message_id, parse_uniq_id
from rocketroute.client.message_id import choose_java_ip, local_ip_candidates, month_start_ms
from rocketroute.errors import IllegalArgumentError

UTC = datetime.timezone.utc
NOV_1_2026 = 1_793_491_200_000  # 2026-11-01T00:00:00Z
DEC_1_2026 = 1_796_083_200_000


class Clock:
    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


def gen(clock: Clock, ip: bytes | str = b"\x0a\x00\x00\x01", counter: int = 0) -> MessageIdGenerator:
    return MessageIdGenerator(ip=ip, pid=12345, class_loader_hash=0x01020304, clock=clock, tz=UTC, counter=counter)


def test_layout_ip_pid_classloader_time_counter():
    g = gen(Clock(NOV_1_2026 + 1234))
    assert g.prefix == "0A000001303901020304"
    assert g.create() == "0A000001303901020304000004D20000"
    assert g.create() == "0A000001303901020304000004D20001"


def test_ipv6_ids_have_56_hex_chars():
    g = gen(Clock(NOV_1_2026 + 1), ip="fd00::2")
    uid = g.create()
    assert len(uid) == 56 and uid.startswith("FD000000000000000000000000000002303901020304")


def test_pid_is_written_as_a_short():
    g = MessageIdGenerator(ip=b"\x7f\x00\x00\x01", pid=0x12345, class_loader_hash=1, clock=Clock(NOV_1_2026), tz=UTC)
    assert g.prefix[8:12] == "2345"


def test_counter_wraps_at_16_bits():
    g = gen(Clock(NOV_1_2026), counter=0xFFFF)
    assert g.create().endswith("FFFF")
    assert g.create().endswith("0000")


@pytest.mark.parametrize("start", [0, 0xFFF0])
def test_a_batch_s_ids_are_those_of_as_many_creates_in_a_row(start):
    one, many = gen(Clock(NOV_1_2026 + 77), counter=start), gen(Clock(NOV_1_2026 + 77), counter=start)
    assert many.create_many(32) == [one.create() for _ in range(32)]  # across the 16-bit wrap too
    assert many.create() == one.create()


def test_counter_is_monotonic_and_unique_across_threads():
    g = gen(Clock(NOV_1_2026))
    out: list[list[str]] = [[] for _ in range(8)]

    def work(i: int) -> None:
        out[i].extend(g.create() for _ in range(2000))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [x for part in out for x in part]
    assert len(set(ids)) == 16_000
    counters = sorted(int(x[-4:], 16) for x in ids)
    assert counters == list(range(16_000))
    for part in out:  # each thread sees its counters increase
        c = [int(x[-4:], 16) for x in part]
        assert c == sorted(c)


def test_time_field_is_ms_since_the_month_start_and_the_window_rolls_over():
    clock = Clock(DEC_1_2026 - 1)
    g = gen(clock)
    assert g.create()[20:28] == f"{DEC_1_2026 - 1 - NOV_1_2026:08X}"
    clock.ms = DEC_1_2026 + 5
    assert g.create()[20:28] == "00000005"


def test_late_in_a_month_the_int_wraps_as_in_java():
    # day 30: more than Integer.MAX_VALUE ms since the month start; Java's (int) cast wraps negative
    now = NOV_1_2026 + 29 * 86_400_000
    uid = gen(Clock(now)).create()
    assert int(uid[20:28], 16) == (now - NOV_1_2026) & 0xFFFFFFFF
    assert (now - NOV_1_2026) > 2**31 - 1
    # getNearlyTimeFromID reads the field unsigned: the time comes back whole
    assert parse_uniq_id(uid, now_ms=now + 10, tz=UTC).timestamp_ms == now


def test_a_clock_slightly_before_the_month_start_writes_zero():
    clock = Clock(NOV_1_2026 + 10)
    g = gen(clock)
    clock.ms = NOV_1_2026 - 500  # set back by NTP, within 1,000,000 ms
    assert g.create()[20:28] == "00000000"
    clock.ms = NOV_1_2026 - 2_000_000  # further back: Java writes the negative int as is
    assert g.create()[20:28] == f"{(-2_000_000) & 0xFFFFFFFF:08X}"


def test_parse_round_trip_ipv4_and_ipv6():
    now = NOV_1_2026 + 3 * 86_400_000 + 77
    for ip, text in ((b"\xc0\xa8\x00\x07", "192.168.0.7"), ("fd00::2", "fd00:0000:0000:0000:0000:0000:0000:0002")):
        uid = gen(Clock(now), ip=ip).create()
        info = parse_uniq_id(uid, now_ms=now + 1000, tz=UTC)
        assert info == (text, 12345, now)
        assert (info.ip, info.pid, info.timestamp_ms) == (text, 12345, now)


def test_parse_matches_javas_reading():
    # recorded from Java (TZ=UTC, now in 2026-11): getIPStrFromID, getPidFromID, getNearlyTimeFromID
    now = 1_795_425_397_723
    assert parse_uniq_id("0A000001303900000001000000010002", now_ms=now, tz=UTC) == ("10.0.0.1", 12345, NOV_1_2026 + 1)
    assert parse_uniq_id("FD000000000000000000000000000002303912345678ABCDEF010002", now_ms=now, tz=UTC) == (
        "fd00:0000:0000:0000:0000:0000:0000:0002",
        12345,
        1_793_695_200_001,
    )


def test_an_id_not_before_now_is_read_in_the_previous_month_as_java():
    # getNearlyTimeFromID: if monthStart + span >= now, Java takes the previous month (even at the same ms)
    now = NOV_1_2026 + 1000
    uid = gen(Clock(now)).create()
    assert parse_uniq_id(uid, now_ms=now, tz=UTC).timestamp_ms == month_start_ms(now, UTC, -1) + 1000
    assert parse_uniq_id(uid, now_ms=now + 1, tz=UTC).timestamp_ms == now


@pytest.mark.parametrize("bad", ["", "0A", "G" * 32, "0A000001" * 5])
def test_parse_refuses_what_is_not_an_id(bad):
    with pytest.raises(IllegalArgumentError):
        parse_uniq_id(bad)


def test_parse_accepts_lower_case_as_java_upper_cases():
    assert parse_uniq_id("0a000001303900000001000000010002", now_ms=1_795_425_397_723, tz=UTC).pid == 12345


def test_month_start_in_local_time_zone_follows_the_zone():
    # 2026-11-01T00:00:00 in UTC+09:00 is 2026-10-31T15:00:00Z
    tokyo = datetime.timezone(datetime.timedelta(hours=9))
    assert month_start_ms(NOV_1_2026 + 3_600_000, tokyo) == NOV_1_2026 - 9 * 3_600_000
    assert month_start_ms(NOV_1_2026 - 1, UTC, 1) == NOV_1_2026
    assert month_start_ms(DEC_1_2026 + 31 * 86_400_000, UTC, -2) == NOV_1_2026  # across the year


def test_choose_java_ip_prefers_public_then_internal():
    lo, private, public, private2 = b"\x7f\x00\x00\x01", b"\x0a\x00\x00\x05", b"\x08\x08\x08\x08", b"\xc0\xa8\x01\x02"
    assert choose_java_ip([lo, private, public]) == public
    assert choose_java_ip([lo, private, private2]) == private  # 5.3.3: a 127.x is replaced by a later one
    assert choose_java_ip([lo, private], compat="4.9") == lo  # 4.9.8 keeps the first internal address
    assert choose_java_ip([private, private2], compat="4.9") == private
    assert choose_java_ip([]) is None


def test_choose_java_ip_takes_a_global_ipv6_address_met_first():
    import ipaddress

    ula = ipaddress.IPv6Address("fd00::2").packed  # not internal to Java (only fec0::/10 is "site local")
    link = ipaddress.IPv6Address("fe80::1").packed
    loop6 = ipaddress.IPv6Address("::1").packed
    site = ipaddress.IPv6Address("fec0::1").packed
    assert choose_java_ip([link, loop6, site, ula, b"\x08\x08\x08\x08"]) == ula
    assert choose_java_ip([b"\x08\x08\x08\x08", ula]) == b"\x08\x08\x08\x08"
    assert choose_java_ip([link, b"\x0a\x00\x00\x01"]) == b"\x0a\x00\x00\x01"


def test_local_candidates_hold_a_loopback_or_a_real_address():
    cands = local_ip_candidates()
    assert cands and all(len(c) in (4, 16) for c in cands)


def test_default_generator_ids_carry_this_process():
    a, b = create_uniq_id(), create_uniq_id()
    assert len(a) in (32, 56) and a != b
    assert a[:-12] == b[:-12]  # the same fixed prefix: only the time and the counter move
    assert int(a[-4:], 16) + 1 & 0xFFFF == int(b[-4:], 16)
    assert parse_uniq_id(a).pid == os.getpid() & 0xFFFF


def test_generator_checks_its_ip():
    with pytest.raises(IllegalArgumentError):
        MessageIdGenerator(ip=b"\x01\x02\x03")


# --- the counter: the Python one and the native twin ----------------------------------------------------------

_COUNTERS = [message_id._MessageIdCounter]
if rocketroute.BACKEND == "native":
    _COUNTERS.append(rocketroute._native._MessageIdCounter)


def test_the_generator_uses_the_backend_s_counter():
    g = gen(Clock(NOV_1_2026))
    native = rocketroute.BACKEND == "native"
    assert type(g._ids) is (rocketroute._native._MessageIdCounter if native else message_id._MessageIdCounter)


@pytest.mark.parametrize("cls", _COUNTERS, ids=lambda c: c.__module__)
def test_a_counter_gives_nothing_past_its_window_until_the_next_one_is_set(cls):
    c = cls("0A000001303901020304", NOV_1_2026, DEC_1_2026, 7)
    assert c.create(DEC_1_2026) is None and c.create_many(3, DEC_1_2026 + 1) is None
    assert c.counter == 7  # nothing reserved
    c.set_window(DEC_1_2026, DEC_1_2026 + 31 * 86_400_000)
    assert c.create(DEC_1_2026 + 5) == "0A000001303901020304000000050007"
    assert c.create_many(2, DEC_1_2026 + 5) == ["0A00000130390102030400000005" + x for x in ("0008", "0009")]
    with pytest.raises(ValueError):
        c.create_many(-1, DEC_1_2026)


@pytest.mark.parametrize("cls", _COUNTERS, ids=lambda c: c.__module__)
def test_a_counter_reads_the_system_clock_when_given_no_time(cls):
    before = time.time_ns() // 1_000_000
    c = cls("0A000001303901020304", month_start_ms(before), month_start_ms(before, None, 1))
    uid = c.create()
    after = time.time_ns() // 1_000_000
    # read a second later: an id of this very ms would be read in the previous month, as Java reads it
    assert parse_uniq_id(uid, now_ms=after + 1000).timestamp_ms in range(before, after + 1)


def test_with_the_system_clock_a_new_month_gets_its_window():
    g = MessageIdGenerator(ip=b"\x0a\x00\x00\x01", pid=1, class_loader_hash=1)
    now = time.time_ns() // 1_000_000
    g._ids.set_window(NOV_1_2026 - 31 * 86_400_000, NOV_1_2026)  # a window already over
    uid = g.create()
    made = parse_uniq_id(uid, now_ms=time.time_ns() // 1_000_000 + 1000).timestamp_ms
    assert made >= now
    assert int(uid[20:28], 16) == (made - month_start_ms(made)) & 0xFFFFFFFF


@pytest.mark.skipif(rocketroute.BACKEND != "native", reason="the native counter is the native backend's")
@settings(max_examples=300, deadline=None)
@given(
    start=st.integers(-(2**62), 2**62),
    span=st.integers(0, 2**40),
    offsets=st.lists(st.integers(-(2**33), 2**41), min_size=1, max_size=6),
    counter=st.integers(0, 0xFFFF),
    n=st.integers(0, 40),
)
def test_the_native_counter_writes_the_python_one_s_ids(start, span, offsets, counter, n):
    py = message_id._MessageIdCounter("FD00000000000000000000000000000230390102030", start, start + span, counter)
    native = rocketroute._native._MessageIdCounter(py.prefix, start, start + span, counter)
    for off in offsets:
        assert native.create(start + off) == py.create(start + off)
        assert native.create_many(n, start + off) == py.create_many(n, start + off)
        assert native.counter == py.counter
