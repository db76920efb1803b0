"""verify(expected): constant-time comparison of a MAC with digest(), on every hash class."""

from __future__ import annotations

import pytest

import simdcrypt

KEY = bytes(range(32))


def _objects() -> list[object]:
    return [
        simdcrypt.blake3(b"msg", key=KEY),
        simdcrypt.hmac_streebog256(KEY, b"msg"),
        simdcrypt.hmac_streebog512(KEY, b"msg"),
        simdcrypt.highwayhash64(b"msg", key=KEY),
        simdcrypt.highwayhash128(b"msg", key=KEY),
        simdcrypt.highwayhash256(b"msg", key=KEY),
        simdcrypt.sha256(b"msg"),
        simdcrypt.streebog256(b"msg"),
        simdcrypt.gost94(b"msg"),
    ]


@pytest.mark.parametrize("obj", _objects(), ids=lambda o: type(o).__name__)
def test_verify_accepts_the_digest_and_rejects_anything_else(obj: object) -> None:
    tag = obj.digest()  # type: ignore[attr-defined]
    assert obj.verify(tag) is True  # type: ignore[attr-defined]
    assert obj.verify(bytearray(tag)) is True  # type: ignore[attr-defined]
    assert obj.verify(memoryview(tag)) is True  # type: ignore[attr-defined]
    for i in (0, len(tag) - 1):
        bad = bytearray(tag)
        bad[i] ^= 1
        assert obj.verify(bad) is False  # type: ignore[attr-defined]
    assert obj.verify(tag[:-1]) is False  # type: ignore[attr-defined]
    assert obj.verify(tag + b"\0") is False  # type: ignore[attr-defined]
    assert obj.verify(b"") is False  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        obj.verify("not bytes")  # type: ignore[attr-defined]
