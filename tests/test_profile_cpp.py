"""The cpp2-stdhash profile against the C++ client's own arithmetic: a small C++ program of ours
(``tests/peers/cpp/sharding_key_index.cpp``, built here with g++) does what rocketmq-client-cpp 2.x's
``SendMessageOrderlyByShardingKey`` selector does (``std::hash<std::string>{}(key) % mqs.size()`` of the key as a
C string) for 1,000 keys, and both backends must pick the same queue for every one."""

from __future__ import annotations

import importlib
import random
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(__file__).parent / "peers" / "cpp" / "sharding_key_index.cpp"


@pytest.fixture(scope="session")
def profiles(backend):
    """``rocketroute.profiles`` or ``rocketroute.reference.profiles``."""
    return importlib.import_module(backend.__name__ + ".profiles")


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gxx = shutil.which("g++")
    assert gxx, "g++ is needed to build the C++ oracle (Debian's g++; make test's machines have it)"
    exe = tmp_path_factory.mktemp("cpp") / "sharding_key_index"
    subprocess.run([gxx, "-O2", "-std=c++17", "-o", str(exe), str(SOURCE)], check=True)
    return exe


def keys() -> list[str]:
    rng = random.Random(2026)
    alphabet = "abcXYZ019 -_:/" + "中文键值顺序" + "😀🚀" + "éß"
    out = ["", "a", "order-1", "x" * 300, "中" * 100, "😀" * 50, "a\0b", "\0", "key\0tail"]
    while len(out) < 1000:
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))))
    return out


def test_every_key_lands_where_the_cpp_client_puts_it(selector: Path, profiles) -> None:
    cases = [(k, n) for k in keys() for n in (1, 3, 8, 16, 1000)]
    stdin = "".join(f"{n} {k.encode().hex()}\n" for k, n in cases)
    done = subprocess.run([str(selector)], input=stdin, capture_output=True, text=True, check=True)
    expected = [int(x) for x in done.stdout.split()]
    assert len(expected) == len(cases)
    got = [profiles.profile_select_index(k, n, "cpp2-stdhash") for k, n in cases]
    assert got == expected
    by_batch = profiles.profile_select_indices([k for k, _ in cases if _ == 8], 8, "cpp2-stdhash").tolist()
    assert by_batch == [e for (_, n), e in zip(cases, expected, strict=True) if n == 8]


def test_a_nul_ends_the_key_and_lone_surrogates_are_refused(profiles) -> None:
    assert profiles.profile_select_index("key\0tail", 1000, "cpp2-stdhash") == profiles.profile_select_index(
        "key", 1000, "cpp2-stdhash"
    )
    with pytest.raises(ValueError, match="cpp2-stdhash: the client refuses a lone surrogate"):
        profiles.profile_select_index("a\ud800", 8, "cpp2-stdhash")
    # a surrogate pair given as two code points is one character, as for the other strict-UTF-8 clients
    assert profiles.profile_select_index("\ud83d\ude00", 8, "cpp2-stdhash") == profiles.profile_select_index(
        "😀", 8, "cpp2-stdhash"
    )
