"""Streebog (streebog256/512, HMAC), GOST R 34.11-94 (gost94) and their batches against
the vector files, gostcrypto (Streebog and HMAC-Streebog, in the same byte order) and one
message at a time; on every backend; buffers, errors, threads."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import gostcrypto.gosthash
import gostcrypto.gosthmac
import numpy as np
import pytest

import simdcrypt
from conftest import BUFFER_KINDS, NON_CONTIGUOUS, random_splits, record_backend

VECTORS = (Path(__file__).resolve().parent / "../../../test-vectors").resolve()
# gostcrypto is pure Python (about 0.2 MB/s): lengths it can check in reasonable time.
LENGTHS = [*range(0, 201), 511, 512, 513, 1023, 1024, 1025]


def streebog(bits: int) -> Any:
    return simdcrypt.streebog256 if bits == 256 else simdcrypt.streebog512


def oracle(bits: int, data: bytes) -> bytes:
    h = gostcrypto.gosthash.new(f"streebog{bits}", data=data)
    return bytes(h.digest())


def _streebog_cases() -> list[tuple[str, int, bytes, bytes]]:
    cases = json.loads((VECTORS / "streebog.json").read_text(encoding="utf-8"))["cases"]
    return [(c["name"], c["bits"], bytes.fromhex(c["message_hex"]), bytes.fromhex(c["digest_hex"])) for c in cases]


def _gost94_cases() -> list[tuple[bytes, str, str]]:
    out = []
    for c in json.loads((VECTORS / "gost94.json").read_text(encoding="utf-8"))["cases"]:
        if "message_repeat" in c:
            msg = bytes.fromhex(c["message_repeat"]["byte_hex"]) * c["message_repeat"]["count"]
        else:
            msg = c["message_ascii"].encode()
        out.append((msg, c["test"], c["cryptopro"]))
    return out


@pytest.mark.parametrize("bits", [256, 512])
def test_standard_examples(streebog_backend: str, bits: int) -> None:
    record_backend(streebog_backend, "streebog")
    for name, b, message, digest in _streebog_cases():
        if b != bits:
            continue
        h = streebog(bits)(message, backend=streebog_backend)
        assert h.backend == streebog_backend
        assert h.digest() == digest, name
        assert h.hexdigest() == digest.hex()
        # The standard prints the same bytes reversed.
        assert h.digest()[::-1].hex() == next(
            c["digest_standard_printed"]
            for c in json.loads((VECTORS / "streebog.json").read_text(encoding="utf-8"))["cases"]
            if c["name"] == name and c["bits"] == bits
        )
        assert simdcrypt.streebog_many([message], bits=bits, backend=streebog_backend) == digest


@pytest.mark.parametrize("bits", [256, 512])
def test_streebog_against_gostcrypto(streebog_backend: str, bits: int) -> None:
    record_backend(streebog_backend, "streebog")
    rng = random.Random(bits)
    data = rng.randbytes(max(LENGTHS))
    ff = b"\xff" * max(LENGTHS)
    for length in LENGTHS:
        for source in (data, ff):
            message = source[:length]
            expected = oracle(bits, message)
            assert streebog(bits)(message, backend=streebog_backend).digest() == expected, length
            h = streebog(bits)(backend=streebog_backend)
            for piece in random_splits(message, rng):
                h.update(piece)
            assert h.digest() == expected, length


def test_streebog_large_inputs_agree_across_backends_and_batches(streebog_backend: str) -> None:
    # Multi-MiB inputs: gostcrypto (pure Python, ~0.2 MB/s) is too slow to be the oracle
    # here; the Rust tests compare such inputs with RustCrypto's crate on every backend.
    record_backend(streebog_backend, "streebog")
    data = random.Random(7).randbytes(3 * 1024 * 1024 + 5)
    for bits in (256, 512):
        reference = streebog(bits)(data, backend="portable").digest()
        h = streebog(bits)(backend=streebog_backend)
        rng = random.Random(bits)
        for piece in random_splits(data, rng):
            h.update(piece)
        assert h.digest() == reference
        assert simdcrypt.streebog_many([data[:100], data], bits=bits, backend=streebog_backend)[-bits // 8 :] == reference


def test_hmac_against_rfc7836_and_gostcrypto(streebog_backend: str) -> None:
    record_backend(streebog_backend, "streebog")
    key = bytes(range(32))
    msg = bytes.fromhex("0126bdb87800af214341456563780100")
    h = simdcrypt.hmac_streebog256(key, msg, backend=streebog_backend)
    assert h.hexdigest() == "a1aa5f7de402d7b3d323f2991c8d4534013137010a83754fd0af6d7cd4922ed9"
    assert h.name == "hmac-streebog256" and h.digest_size == 32 and h.block_size == 64
    h512 = simdcrypt.hmac_streebog512(key, backend=streebog_backend)
    h512.update(msg)
    assert h512.hexdigest() == (
        "a59bab22ecae19c65fbde6e5f4e9f5d8549d31f037f9df9b905500e171923a77"
        "3d5f1530f2ed7e964cb2eedc29e9ad2f3afe93b2814f79f5000ffc0366c251e6"
    )
    rng = random.Random(3)
    for key_len in (32, 48, 64):
        k = rng.randbytes(key_len)
        for length in (0, 1, 64, 65, 300):
            m = rng.randbytes(length)
            for bits, cls in ((256, simdcrypt.hmac_streebog256), (512, simdcrypt.hmac_streebog512)):
                # (gostcrypto's new(..., data=b"") gives a wrong tag for the empty message;
                # its update() path agrees with RFC 7836 and the hmac crate.)
                o = gostcrypto.gosthmac.new(f"HMAC_GOSTR3411_2012_{bits}", bytearray(k))
                o.update(bytearray(m))
                assert cls(k, m, backend=streebog_backend).digest() == bytes(o.digest()), (bits, key_len, length)
    # copy() is independent.
    a = simdcrypt.hmac_streebog256(b"k", b"x")
    b = a.copy()
    b.update(b"y")
    assert a.digest() == simdcrypt.hmac_streebog256(b"k", b"x").digest()
    assert b.digest() == simdcrypt.hmac_streebog256(b"k", b"xy").digest()


@pytest.mark.parametrize("sbox", ["cryptopro", "test"])
def test_gost94_vectors(gost94_backend: str, sbox: str) -> None:
    record_backend(gost94_backend, "gost94")
    cases = _gost94_cases()
    for msg, test, cryptopro in cases:
        expected = test if sbox == "test" else cryptopro
        h = simdcrypt.gost94(msg, sbox=sbox, backend=gost94_backend)
        assert h.hexdigest() == expected
        assert h.sbox == sbox
        assert h.name == ("gost94-test" if sbox == "test" else "gost94")
        assert simdcrypt.new(h.name, msg).hexdigest() == expected
    digests = simdcrypt.gost94_many([c[0] for c in cases], sbox=sbox, max_threads=2, backend=gost94_backend)
    assert digests.hex() == "".join(c[1] if sbox == "test" else c[2] for c in cases)


def test_batches_match_one_at_a_time(streebog_backend: str) -> None:
    record_backend(streebog_backend, "streebog")
    rng = random.Random(11)
    for count in (0, 1, 3, 4, 5, 13, 30):
        msgs = [rng.randbytes(rng.randrange(0, 300)) for _ in range(count)]
        for bits in (256, 512):
            expected = b"".join(streebog(bits)(m).digest() for m in msgs)
            for threads in (1, 3):
                assert simdcrypt.streebog_many(msgs, bits=bits, max_threads=threads, backend=streebog_backend) == expected
        expected94 = b"".join(simdcrypt.gost94(m, sbox="test").digest() for m in msgs)
        assert simdcrypt.gost94_many(tuple(msgs), sbox="test") == expected94
    # A 2-D uint8 array, one message per row.
    rows = np.frombuffer(rng.randbytes(64 * 10), dtype=np.uint8).reshape(10, 64)
    expected = b"".join(simdcrypt.streebog512(bytes(r)).digest() for r in rows)
    assert simdcrypt.streebog_many(rows, bits=512, backend=streebog_backend) == expected
    assert simdcrypt.gost94_many(rows) == b"".join(simdcrypt.gost94(bytes(r)).digest() for r in rows)


@pytest.mark.parametrize("kind", sorted(BUFFER_KINDS))
def test_buffers(kind: str) -> None:
    data = bytes(range(200))
    buf = BUFFER_KINDS[kind](data)
    assert simdcrypt.streebog256(buf).digest() == simdcrypt.streebog256(data).digest()
    assert simdcrypt.gost94(buf).digest() == simdcrypt.gost94(data).digest()
    assert simdcrypt.hmac_streebog256(buf, buf).digest() == simdcrypt.hmac_streebog256(data, data).digest()
    h = simdcrypt.streebog512()
    h.update(buf)
    assert h.digest() == simdcrypt.streebog512(data).digest()


def test_errors() -> None:
    with pytest.raises(ValueError, match="choose one of: cryptopro, test"):
        simdcrypt.gost94(b"", sbox="s2015")
    with pytest.raises(ValueError, match="choose one of: cryptopro, test"):
        simdcrypt.gost94_many([b""], sbox="bogus")
    with pytest.raises(ValueError, match="256 or 512, got 384"):
        simdcrypt.streebog_many([b""], bits=384)
    with pytest.raises(ValueError, match="256 or 512, got -256"):
        simdcrypt.streebog_many([b""], bits=-256)
    with pytest.raises(ValueError, match="unknown streebog backend"):
        simdcrypt.streebog256(backend="neon")
    with pytest.raises(ValueError, match="unknown gost94 backend"):
        simdcrypt.gost94(backend="sse41")  # no such gost94 backend on any architecture
    with pytest.raises(ValueError, match="max_threads"):
        simdcrypt.streebog_many([b""], max_threads=0)
    with pytest.raises(TypeError):
        simdcrypt.streebog256("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        simdcrypt.hmac_streebog256("key")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"messages\[1\]"):
        simdcrypt.streebog_many([b"a", "b"])  # type: ignore[list-item]
    for make in NON_CONTIGUOUS.values():
        with pytest.raises(BufferError):
            simdcrypt.streebog256(make())


def test_attributes_and_new() -> None:
    for name, cls, size in (("streebog256", simdcrypt.streebog256, 32), ("streebog512", simdcrypt.streebog512, 64)):
        h = simdcrypt.new(name, b"abc")
        assert type(h) is cls and h.name == name and h.digest_size == size and h.block_size == 64
        c = h.copy()
        c.update(b"d")
        assert h.digest() == cls(b"abc").digest() and c.digest() == cls(b"abcd").digest()
    g = simdcrypt.new("gost94-test", b"abc")
    assert type(g) is simdcrypt.gost94 and g.sbox == "test" and g.digest_size == 32 and g.block_size == 32
    assert simdcrypt.gost94().sbox == "cryptopro"


def test_shared_between_threads() -> None:
    h = simdcrypt.streebog512()
    chunk = bytes(range(256)) * 64
    threads = [threading.Thread(target=lambda: [h.update(chunk) for _ in range(20)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert h.digest() == simdcrypt.streebog512(chunk * 80).digest()


def test_hash_file_by_name(tmp_path: Path) -> None:
    data = random.Random(5).randbytes(100_003)
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    assert simdcrypt.hash_file(path, "streebog256") == simdcrypt.streebog256(data).digest()
    assert simdcrypt.hash_file(path, "streebog512", backend="portable") == simdcrypt.streebog512(data).digest()
    assert simdcrypt.hash_file(path, "gost94") == simdcrypt.gost94(data).digest()
    assert simdcrypt.hash_file(path, "gost94-test") == simdcrypt.gost94(data, sbox="test").digest()
    with pytest.raises(ValueError, match="streebog256 takes no key"):
        simdcrypt.hash_file(path, "streebog256", key=bytes(32))
    with pytest.raises(ValueError, match="gost94 digests are 32 bytes"):
        simdcrypt.hash_file(path, "gost94", length=64)
