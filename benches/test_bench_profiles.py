"""Cross-client routing profiles: one key at a time, and a column of keys, native against reference."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pyarrow as pa
import pytest

import rocketroute.reference.profiles as ref

PROFILES = ref.PROFILES
KEY = "order-0000000042"
NUM_QUEUES = 16
BATCH = 20_000
KEYS = [f"order-{i:010d}" for i in range(BATCH)]


def profiles_of(lib: ModuleType) -> ModuleType:
    return importlib.import_module(lib.__name__ + ".profiles")


@pytest.mark.parametrize("profile", PROFILES)
def test_profile_select_index(benchmark: Any, lib: ModuleType, profile: str) -> None:
    benchmark.group = f"profile_select_index {profile} (16-char key, {NUM_QUEUES} queues)"
    select = profiles_of(lib).profile_select_index
    assert benchmark(select, KEY, NUM_QUEUES, profile) == ref.profile_select_index(KEY, NUM_QUEUES, profile)


@pytest.mark.parametrize("profile", PROFILES)
def test_profile_select_indices(benchmark: Any, lib: ModuleType, profile: str) -> None:
    benchmark.group = f"profile_select_indices {profile} ({BATCH} 16-char keys, Arrow, {NUM_QUEUES} queues)"
    keys = pa.array(KEYS)
    out = benchmark(profiles_of(lib).profile_select_indices, keys, NUM_QUEUES, profile)
    assert out[:50].tolist() == [ref.profile_select_index(k, NUM_QUEUES, profile) for k in KEYS[:50]]


def test_compat_report(benchmark: Any, lib: ModuleType) -> None:
    benchmark.group = f"compat_report (6 profiles, {BATCH} keys, Arrow)"
    report = benchmark(profiles_of(lib).compat_report, pa.array(KEYS), NUM_QUEUES)
    assert report.keys == BATCH
