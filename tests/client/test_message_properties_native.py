"""The native properties string (``rocketroute_core::message_batch::properties_string``,
``_native._properties_string``) is the Python one (``rocketroute.client.message._join_properties``) for every
message it takes, and hands back (``None``) the ones only Python writes: more than 8 properties, lone surrogates."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.client import message as message_module
from rocketroute.client.message import Message, encode_for_send

pytestmark = pytest.mark.skipif(
    rocketroute.BACKEND != "native", reason="the native encoder is the native backend's (CI requires it)"
)

_texts = st.text(max_size=12)  # every code point, lone surrogates included
_items = st.lists(st.tuples(_texts, _texts), max_size=11, unique_by=lambda kv: kv[0])


def _python(items: list[tuple[str, str]], compat: str) -> str:
    saved, message_module._native_properties = message_module._native_properties, None
    try:
        return message_module._join_properties(items, compat)
    finally:
        message_module._native_properties = saved


def test_the_send_path_uses_the_native_properties_string() -> None:
    assert message_module._native_properties is not None


@settings(max_examples=500, deadline=None)
@given(items=_items, compat=st.sampled_from(["5.3", "4.9"]))
def test_the_native_properties_string_is_the_python_one(items: list[tuple[str, str]], compat: str) -> None:
    from rocketroute import _native

    native = _native._properties_string(items, compat == "4.9")
    surrogate = any(0xD800 <= ord(c) <= 0xDFFF for kv in items for s in kv for c in s)
    if len(items) > 8 or surrogate:
        assert native is None
    else:
        assert native == _python(items, compat)
    assert message_module._join_properties(items, compat) == _python(items, compat)


def test_a_message_encodes_the_same_either_way() -> None:
    msg = Message("T", b"body", tags="TagA", keys=["k1", "k2"], properties={"a": "1", "zz": "2", "é": "😀"})
    native = encode_for_send(msg, msg_id="7F0000010000A1550000000000000001")
    saved, message_module._native_properties = message_module._native_properties, None
    try:
        python = encode_for_send(msg, msg_id="7F0000010000A1550000000000000001")
    finally:
        message_module._native_properties = saved
    assert native == python
    assert native.properties.endswith("\x02") and "UNIQ_KEY\x017F0000010000A1550000000000000001" in native.properties
