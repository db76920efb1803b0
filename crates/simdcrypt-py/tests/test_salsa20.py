"""Salsa20 / XSalsa20 and secretbox from Python: against PyCryptodome (Salsa20/20, 32- and
16-byte keys), PyNaCl (SecretBox, both directions), the Rust-side vectors, on every
backend; argument errors; encrypt_into in place; seek and position."""

from __future__ import annotations

import random

import nacl.secret
import pytest
from Crypto.Cipher import Salsa20 as CryptoSalsa20

import simdcrypt
from conftest import record_backend

LENGTHS = [0, 1, 7, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 4096 + 3, 70_000, 300_001]


def _crypto_keystream(key: bytes, nonce: bytes, n: int) -> bytes:
    return CryptoSalsa20.new(key=key, nonce=nonce).encrypt(bytes(n))


@pytest.mark.parametrize("key_len", [32, 16])
def test_matches_pycryptodome(salsa20_backend: str, key_len: int) -> None:
    rng = random.Random(key_len)
    for n in LENGTHS:
        key, nonce = rng.randbytes(key_len), rng.randbytes(8)
        data = rng.randbytes(n)
        expected = CryptoSalsa20.new(key=key, nonce=nonce).encrypt(data)
        c = simdcrypt.Salsa20(key, nonce, backend=salsa20_backend)
        assert c.backend == salsa20_backend
        record_backend(salsa20_backend, "salsa20")
        # Random split points: the keystream continues across calls.
        cuts = sorted(rng.randrange(n + 1) for _ in range(3))
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, n])]
        got = b"".join(c.encrypt(p) for p in pieces)
        assert got == expected, (n, key_len)
        assert c.position == n
        assert simdcrypt.Salsa20(key, nonce, backend=salsa20_backend, max_threads=2).decrypt(expected) == data


def test_large_outputs() -> None:
    """Outputs of 4 MiB and more are built without zeroing and with huge pages requested:
    still every byte right, at unaligned lengths and positions."""
    rng = random.Random(9)
    for n in [4 << 20, (6 << 20) + 13]:
        key, nonce = rng.randbytes(32), rng.randbytes(8)
        data = rng.randbytes(n)
        expected = CryptoSalsa20.new(key=key, nonce=nonce).encrypt(data)
        c = simdcrypt.Salsa20(key, nonce)
        assert c.encrypt(data[:5]) + c.encrypt(data[5:]) == expected
        assert simdcrypt.Salsa20(key, nonce).keystream(n) == _crypto_keystream(key, nonce, n)
        xkey, xnonce = rng.randbytes(32), rng.randbytes(24)
        boxed = simdcrypt.secretbox_seal(xkey, xnonce, data)
        assert boxed == nacl.secret.SecretBox(xkey).encrypt(data, xnonce).ciphertext
        assert simdcrypt.secretbox_open(xkey, xnonce, boxed) == data


def test_seek_and_counter(salsa20_backend: str) -> None:
    key, nonce = bytes(range(32)), b"\x01" * 8
    stream = _crypto_keystream(key, nonce, 5000)
    c = simdcrypt.Salsa20(key, nonce, backend=salsa20_backend)
    record_backend(salsa20_backend, "salsa20")
    for pos in [0, 1, 63, 64, 65, 1000, 4000]:
        c.seek(pos)
        assert c.position == pos
        assert c.keystream(1000 - (pos % 7)) == stream[pos : pos + 1000 - (pos % 7)]
    assert simdcrypt.Salsa20(key, nonce, counter=3, backend=salsa20_backend).keystream(100) == stream[192:292]
    # Across the 2**32-block boundary: a long call equals a seek into its middle.
    far = (1 << 32) * 64 - 640
    c.seek(far)
    run = c.keystream(1280)
    c.seek(far + 700)
    assert c.keystream(580) == run[700:]
    # The end of the 2**70-byte stream.
    c.seek((1 << 70) - 10)
    assert len(c.keystream(10)) == 10
    assert c.position == 1 << 70
    with pytest.raises(ValueError, match="past the end"):
        c.keystream(1)


def test_encrypt_into_in_place_and_buffers(salsa20_backend: str) -> None:
    key, nonce = b"k" * 32, b"n" * 24
    data = bytes(range(256)) * 40
    expected = simdcrypt.XSalsa20(key, nonce).encrypt(data)
    buf = bytearray(data)
    x = simdcrypt.XSalsa20(key, nonce, backend=salsa20_backend)
    record_backend(salsa20_backend, "salsa20")
    x.encrypt_into(buf, buf)
    assert bytes(buf) == expected
    out = bytearray(len(data))
    simdcrypt.XSalsa20(key, nonce, backend=salsa20_backend).encrypt_into(memoryview(data), out)
    assert bytes(out) == expected
    with pytest.raises(ValueError, match="same length"):
        x.encrypt_into(data, bytearray(3))
    with pytest.raises((TypeError, BufferError)):
        x.encrypt_into(data, bytes(len(data)))
    mv = memoryview(buf)
    with pytest.raises(ValueError, match="overlap"):
        x.encrypt_into(mv[:100], mv[1:101])
    with pytest.raises(TypeError):
        x.encrypt("text")  # type: ignore[arg-type]


def test_xsalsa20_is_hsalsa_then_salsa20() -> None:
    # PyNaCl's secretbox ciphertext after the tag is XSalsa20 from keystream byte 32.
    key, nonce = bytes(range(32)), bytes(range(24))
    msg = bytes(1000)
    boxed = nacl.secret.SecretBox(key).encrypt(msg, nonce).ciphertext
    x = simdcrypt.XSalsa20(key, nonce)
    x.seek(32)
    assert x.keystream(1000) == boxed[16:]


def test_rounds() -> None:
    key, nonce = bytes(32), bytes(8)
    streams = {r: simdcrypt.Salsa20(key, nonce, rounds=r).keystream(64) for r in (8, 12, 20)}
    assert len(set(streams.values())) == 3
    assert streams[20] == _crypto_keystream(key, nonce, 64)
    assert simdcrypt.Salsa20(key, nonce, rounds=12).rounds == 12


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((bytes(31), bytes(8)), {}, "key must be 32 or 16 bytes, got 31"),
        ((bytes(32), bytes(7)), {}, "nonce must be 8 bytes, got 7"),
        ((bytes(32), bytes(8)), {"rounds": 10}, "rounds must be 8, 12 or 20, got 10"),
        ((bytes(32), bytes(8)), {"counter": -1}, "counter must be non-negative"),
        ((bytes(32), bytes(8)), {"backend": "nope"}, "unknown salsa20 backend"),
        ((bytes(32), bytes(8)), {"max_threads": 0}, "max_threads"),
    ],
)
def test_argument_errors(args: tuple[bytes, bytes], kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simdcrypt.Salsa20(*args, **kwargs)  # type: ignore[arg-type]


def test_xsalsa20_argument_errors() -> None:
    with pytest.raises(ValueError, match="nonce must be 24 bytes, got 8"):
        simdcrypt.XSalsa20(bytes(32), bytes(8))
    with pytest.raises(ValueError, match="key must be 32 bytes, got 16"):
        simdcrypt.XSalsa20(bytes(16), bytes(24))
    c = simdcrypt.XSalsa20(bytes(32), bytes(24))
    with pytest.raises(ValueError, match="position must be non-negative"):
        c.seek(-1)
    with pytest.raises(ValueError, match="past the end"):
        c.seek((1 << 70) + 1)


def test_secretbox_interoperates_with_pynacl() -> None:
    rng = random.Random(5)
    for n in [0, 1, 16, 31, 32, 33, 64, 1000, 5000, 100_000]:
        key, nonce, msg = rng.randbytes(32), rng.randbytes(24), rng.randbytes(n)
        box = nacl.secret.SecretBox(key)
        theirs = box.encrypt(msg, nonce).ciphertext
        ours = simdcrypt.secretbox_seal(key, nonce, msg)
        assert ours == theirs
        assert box.decrypt(ours, nonce) == msg
        assert simdcrypt.secretbox_open(key, nonce, theirs) == msg
        for i in sorted({0, 15, len(ours) - 1, min(16, len(ours) - 1)}):
            bad = bytearray(ours)
            bad[i] ^= 0x80
            with pytest.raises(simdcrypt.AuthenticationError, match="authentication failed"):
                simdcrypt.secretbox_open(key, nonce, bytes(bad))
    with pytest.raises(simdcrypt.AuthenticationError):
        simdcrypt.secretbox_open(bytes(32), bytes(24), bytes(15))
    with pytest.raises(ValueError, match="nonce must be 24 bytes, got 23"):
        simdcrypt.secretbox_seal(bytes(32), bytes(23), b"")
    assert issubclass(simdcrypt.AuthenticationError, ValueError)
