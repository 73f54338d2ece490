"""The native frame encoder (``rocketroute._native._encode_json_frame``, Rust) writes the bytes of the Python one
(``rocketroute.protocol.frame._encode_frame``) for every command it takes, and hands the others back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.protocol import RemotingCommand, SerializeType
from rocketroute.protocol import frame as frame_module
from rocketroute.protocol.frame import _encode_frame, decode_frame, encode_frame

pytestmark = pytest.mark.skipif(rocketroute.BACKEND != "native", reason="the native encoder is the native backend's")

ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)  # every code point but lone surrogates


def _native(cmd: RemotingCommand) -> bytes | None:
    from rocketroute import _native

    return _native._encode_json_frame(
        cmd.code, cmd.language, cmd.version, cmd.opaque, cmd.flag, cmd.remark, cmd.ext_fields, cmd.body
    )


def test_encode_frame_uses_the_native_encoder() -> None:
    assert frame_module._native_encode is not None


@settings(max_examples=400, deadline=None)
@given(
    code=ints,
    language=texts,
    version=ints,
    opaque=ints,
    flag=ints,
    remark=st.none() | texts,
    ext=st.dictionaries(texts, texts, max_size=8),
    body=st.none() | st.binary(max_size=64),
)
def test_the_native_frame_is_the_python_one(code, language, version, opaque, flag, remark, ext, body) -> None:
    cmd = RemotingCommand(code, opaque, flag, language, version, remark, ext, body)
    native = _native(cmd)
    assert native is not None
    assert native == _encode_frame(cmd, SerializeType.JSON)
    assert native == encode_frame(cmd)


def test_a_sent_command_reads_back() -> None:
    cmd = RemotingCommand(310, 7, 0, "PYTHON", 453, "r\u2028\x01", {"i": "WAIT\x01true\x02", "é": "😀"}, b"\x00body")
    back = decode_frame(encode_frame(cmd))
    assert (back.code, back.opaque, back.remark, back.ext_fields, back.body) == (
        310, 7, "r\u2028\x01", {"i": "WAIT\x01true\x02", "é": "😀"}, b"\x00body",
    )  # fmt: skip


@pytest.mark.parametrize(
    "cmd",
    [
        RemotingCommand(2**70, 1),  # an int past 64 bits
        RemotingCommand(310, 1, remark="\ud800"),  # a lone surrogate
        RemotingCommand(310, 1, ext_fields={"a": 1}),  # type: ignore[dict-item]  # not a str
        RemotingCommand(310, 1, ext_fields={2: "b"}),  # type: ignore[dict-item]
        RemotingCommand(310, 1, body=bytearray(b"xy")),  # type: ignore[arg-type]
    ],
    ids=["big-int", "surrogate", "int-value", "int-key", "bytearray-body"],
)
def test_what_the_native_encoder_does_not_take_goes_to_python(cmd: RemotingCommand) -> None:
    assert _native(cmd) is None
    try:
        expected: bytes | type[BaseException] = _encode_frame(cmd, SerializeType.JSON)
    except Exception as e:
        expected = type(e)
    if isinstance(expected, bytes):
        assert encode_frame(cmd) == expected
    else:
        with pytest.raises(expected):
            encode_frame(cmd)
