"""Saved hash states: export() / restore(), pickle and copy.deepcopy for every hash class.

A state restored (or unpickled) and fed the rest of the input gives the digest of the
uninterrupted input; random and damaged blobs raise ValueError, never crash.
"""

from __future__ import annotations

import copy
import hashlib
import pickle
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdcrypt
from conftest import HASH_CLASSES

KEY32 = bytes(range(32))

# (label, constructor, key to pass to restore()); each constructor takes the initial data.
MAKERS: list[tuple[str, Callable[[bytes], Any], bytes | None]] = [
    ("blake3", lambda d: simdcrypt.blake3(d), None),
    ("blake3-keyed", lambda d: simdcrypt.blake3(d, key=KEY32), KEY32),
    ("blake3-derive", lambda d: simdcrypt.blake3(d, derive_key_context="simdcrypt tests v1"), None),
    ("sha256", lambda d: simdcrypt.sha256(d), None),
    ("streebog256", lambda d: simdcrypt.streebog256(d), None),
    ("streebog512", lambda d: simdcrypt.streebog512(d), None),
    ("hmac_streebog256", lambda d: simdcrypt.hmac_streebog256(b"hmac key", d), b"hmac key"),
    ("hmac_streebog512", lambda d: simdcrypt.hmac_streebog512(b"k" * 100, d), b"k" * 100),
    ("gost94", lambda d: simdcrypt.gost94(d), None),
    ("gost94-test", lambda d: simdcrypt.gost94(d, sbox="test"), None),
    ("highwayhash64", lambda d: simdcrypt.highwayhash64(d, key=KEY32), KEY32),
    ("highwayhash128", lambda d: simdcrypt.highwayhash128(d, key=KEY32), KEY32),
    ("highwayhash256", lambda d: simdcrypt.highwayhash256(d, key=KEY32), KEY32),
]
IDS = [m[0] for m in MAKERS]


def digests(h: Any) -> tuple[bytes, ...]:
    if isinstance(h, simdcrypt.blake3):
        return (h.digest(), h.digest(length=1), h.digest(length=131))
    return (h.digest(),)


@pytest.mark.parametrize(("label", "make", "key"), MAKERS, ids=IDS)
def test_restore_at_every_split_point(label: str, make: Callable[[bytes], Any], key: bytes | None) -> None:
    data = bytes((i * 7 + 3) % 251 for i in range(1100))
    for length in (0, 1, 63, 64, 65, 1023, 1024, 1025, 1100):
        msg = data[:length]
        expected = digests(make(msg))
        for split in sorted({0, 1, length // 2, length - 1, length} & set(range(length + 1))):
            h = make(msg[:split])
            back = type(h).restore(h.export(), key=key)
            back.update(msg[split:])
            assert digests(back) == expected, (label, length, split)


@pytest.mark.parametrize(("label", "make", "key"), MAKERS, ids=IDS)
def test_pickle_and_deepcopy(label: str, make: Callable[[bytes], Any], key: bytes | None) -> None:
    h = make(b"some input " * 300)
    for clone in (pickle.loads(pickle.dumps(h)), copy.deepcopy(h)):
        assert type(clone) is type(h)
        assert digests(clone) == digests(h)
        clone.update(b"more")
        h2 = copy.copy(h) if hasattr(h, "__copy__") else h.copy()
        h2.update(b"more")
        assert digests(clone) == digests(h2)


@pytest.mark.parametrize(("label", "make", "key"), MAKERS, ids=IDS)
def test_keys_and_algorithms_are_checked(label: str, make: Callable[[bytes], Any], key: bytes | None) -> None:
    h = make(b"abc")
    blob = h.export()
    cls = type(h)
    if key is None:
        with pytest.raises(ValueError, match="not keyed"):
            cls.restore(blob, key=KEY32)
    else:
        with pytest.raises(ValueError, match="needs the same key"):
            cls.restore(blob)
        with pytest.raises(ValueError, match="another key|must be 32 bytes"):
            cls.restore(blob, key=bytes(32) if key != bytes(32) else b"\x01" * 32)
    other = simdcrypt.streebog256 if cls is not simdcrypt.streebog256 else simdcrypt.sha256
    with pytest.raises(ValueError, match=r"state of .*, expected"):
        other.restore(blob)


def test_errors_say_what_is_wrong() -> None:
    blob = simdcrypt.sha256(b"abc").export()
    with pytest.raises(ValueError, match="not a simdcrypt state"):
        simdcrypt.sha256.restore(b"hello")
    with pytest.raises(ValueError, match="truncated"):
        simdcrypt.sha256.restore(blob[:-1])
    with pytest.raises(ValueError, match="version 7 is not supported"):
        simdcrypt.sha256.restore(blob[:4] + b"\x07" + blob[5:])
    damaged = bytearray(blob)
    damaged[-40] ^= 1
    with pytest.raises(ValueError, match="checksum mismatch"):
        simdcrypt.sha256.restore(bytes(damaged))
    # restore takes any buffer
    assert simdcrypt.sha256.restore(memoryview(bytearray(blob))).digest() == hashlib.sha256(b"abc").digest()


ALL_CLASSES = HASH_CLASSES


@settings(max_examples=200, deadline=None)
@given(blob=st.binary(max_size=300), key=st.one_of(st.none(), st.binary(min_size=32, max_size=32)))
def test_random_blobs_raise_value_error(blob: bytes, key: bytes | None) -> None:
    for cls in ALL_CLASSES:
        for candidate in (blob, b"SCCP\x02\x00" + blob):
            with pytest.raises(ValueError):
                cls.restore(candidate, key=key)


@settings(max_examples=200, deadline=None)
@given(
    which=st.integers(0, len(MAKERS) - 1),
    length=st.integers(0, 3000),
    pos=st.integers(0, 10_000),
    flip=st.integers(1, 255),
    cut=st.integers(0, 10_000),
)
def test_damaged_states_raise_value_error(which: int, length: int, pos: int, flip: int, cut: int) -> None:
    _, make, key = MAKERS[which]
    h = make(bytes(length))
    blob = bytearray(h.export())
    cls = type(h)
    damaged = bytearray(blob)
    damaged[pos % len(damaged)] ^= flip
    with pytest.raises(ValueError):
        cls.restore(bytes(damaged), key=key)
    with pytest.raises(ValueError):
        cls.restore(bytes(blob[: cut % len(blob)]), key=key)
    assert digests(cls.restore(bytes(blob), key=key)) == digests(h)


@pytest.mark.parametrize("mode", ["hash", "keyed_hash", "derive_key"])
def test_blake3_states_from_every_backend(make_hasher: Callable[..., simdcrypt.blake3], mode: str) -> None:
    from conftest import mode_kwargs

    kwargs = mode_kwargs(mode)
    key = kwargs.get("key")
    data = bytes(range(256)) * 70  # 17.5 chunks: a stack of several chaining values
    expected = digests(simdcrypt.blake3(data, **kwargs))
    for split in (0, 1, 1024, 1025, 8192, 8193, len(data) - 1, len(data)):
        h = make_hasher(data[:split], **kwargs)
        back = simdcrypt.blake3.restore(h.export(), key=key)
        back.update(data[split:])
        assert digests(back) == expected, (mode, split)


def test_sha256_states_from_every_backend(make_sha256: Callable[..., simdcrypt.sha256]) -> None:
    data = bytes(range(256)) * 3
    for split in range(0, len(data) + 1, 37):
        back = simdcrypt.sha256.restore(make_sha256(data[:split]).export())
        back.update(data[split:])
        assert back.digest() == hashlib.sha256(data).digest()
