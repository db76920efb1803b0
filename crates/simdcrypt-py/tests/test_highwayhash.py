"""simdcrypt.highwayhash64/128/256 and highwayhash_many against google's frozen golden
values and the highwayhash-cffi package (the reference C code): every backend, edge
lengths, random keys and splits, buffers, checkpoints, batches, errors, threads."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable, Union

import highwayhash as cffi_hh  # type: ignore[import-untyped]  # the highwayhash-cffi package
import numpy as np
import pytest

import simdcrypt
from conftest import BUFFER_KINDS, NON_CONTIGUOUS, random_splits, record_backend, releases_gil, update_from_threads

VECTORS_PATH = (Path(__file__).resolve().parent / "../../../test-vectors/highwayhash.json").resolve()

HH = Union[simdcrypt.highwayhash64, simdcrypt.highwayhash128, simdcrypt.highwayhash256]
CLASSES: dict[int, Any] = {
    64: simdcrypt.highwayhash64,
    128: simdcrypt.highwayhash128,
    256: simdcrypt.highwayhash256,
}
# highwayhash-cffi returns each u64 word in native (here little-endian) order, in order:
# the same byte form as simdcrypt (checked against the vector file's *_le_bytes below).
CFFI: dict[int, Callable[[bytes, bytes], bytes]] = {
    64: cffi_hh.highwayhash_64,
    128: cffi_hh.highwayhash_128,
    256: cffi_hh.highwayhash_256,
}
EDGE_LENGTHS = [*range(0, 70), 95, 96, 97, 1000, 4096 + 7, 1024 * 1024 + 5]


def make(bits: int, backend: str, data: Any = b"", **kwargs: Any) -> HH:
    h = CLASSES[bits](data, backend=backend, **kwargs)
    assert h.backend == backend
    record_backend(backend, "highwayhash")
    return h  # type: ignore[no-any-return]


def test_golden_values(highwayhash_backend: str) -> None:
    with open(VECTORS_PATH, encoding="utf-8") as f:
        v = json.load(f)
    key = bytes.fromhex(v["key_hex"])
    assert [c["input_len"] for c in v["cases"]] == list(range(65))
    for c in v["cases"]:
        msg = bytes(range(c["input_len"]))
        for bits in (64, 128, 256):
            h = make(bits, highwayhash_backend, msg, key=key)
            assert h.hexdigest() == c[f"hash{bits}_le_bytes"], (c["input_len"], bits)
            assert CFFI[bits](key, msg).hex() == c[f"hash{bits}_le_bytes"]
        h64 = simdcrypt.highwayhash64(msg, key=key, backend=highwayhash_backend)
        assert h64.intdigest() == int(c["hash64"], 16)


def test_against_cffi_random_keys_and_splits(highwayhash_backend: str, random_data: bytes) -> None:
    rng = random.Random(0x4848)
    for n in EDGE_LENGTHS:
        data = random_data[:n]
        key = rng.randbytes(32)
        for bits in (64, 128, 256):
            expected = CFFI[bits](key, data)
            assert make(bits, highwayhash_backend, data, key=key).digest() == expected, (n, bits)
            h = make(bits, highwayhash_backend, key=key)
            for piece in random_splits(data, rng):
                h.update(piece)
            assert h.digest() == expected, (n, bits)


def test_attributes_and_copy() -> None:
    key = bytes(32)
    for bits, cls in CLASSES.items():
        h = cls(b"abc", key=key)
        assert (h.name, h.digest_size, h.block_size) == (f"highwayhash{bits}", bits // 8, 32)
        c = h.copy()
        c.update(b"def")
        assert h.digest() == CFFI[bits](key, b"abc")
        assert c.digest() == CFFI[bits](key, b"abcdef")
        assert h.hexdigest() == h.digest().hex()
    assert not hasattr(simdcrypt.highwayhash128(key=key), "intdigest")


def test_buffer_kinds() -> None:
    key = bytes(range(32))
    data = bytes(range(200))
    for kind, build in BUFFER_KINDS.items():
        assert simdcrypt.highwayhash64(build(data), key=key).digest() == CFFI[64](key, data), kind
        assert simdcrypt.highwayhash64(data, key=build(key)).digest() == CFFI[64](key, data), kind
    for kind, build_nc in NON_CONTIGUOUS.items():
        with pytest.raises(BufferError):
            simdcrypt.highwayhash64(build_nc(), key=key)
    with pytest.raises(TypeError):
        simdcrypt.highwayhash64("text", key=key)  # type: ignore[arg-type]


def test_errors() -> None:
    for bits, cls in CLASSES.items():
        for bad in (b"", bytes(16), bytes(31), bytes(33)):
            with pytest.raises(ValueError, match=f"highwayhash{bits} key must be 32 bytes, got {len(bad)}"):
                cls(b"x", key=bad)
        with pytest.raises(TypeError):
            cls(b"x")
        with pytest.raises(ValueError, match="unknown highwayhash backend"):
            cls(key=bytes(32), backend="sse9")
    # A missing key is a missing required argument, as Python says for any function.
    with pytest.raises(TypeError, match="key"):
        simdcrypt.new("highwayhash64")
    with pytest.raises(ValueError, match="highwayhash64 needs a 32-byte key"):
        simdcrypt.hash_file(__file__, "highwayhash64")
    with pytest.raises(ValueError, match="key must be 32 bytes, got 3"):
        simdcrypt.hash_file(__file__, "highwayhash64", key=b"abc")


def test_checkpoints_at_every_split(highwayhash_backend: str) -> None:
    key = bytes(range(100, 132))
    for n in (0, 31, 33, 70):
        data = bytes((i * 11 + 1) % 256 for i in range(n))
        for bits, cls in CLASSES.items():
            expected = CFFI[bits](key, data)
            for cut in range(n + 1):
                blob = make(bits, highwayhash_backend, data[:cut], key=key).export()
                assert isinstance(blob, bytes) and blob[:6] == b"SCCP\x02\x00"
                resumed = cls.restore(blob, key=key)
                resumed.update(data[cut:])
                assert resumed.digest() == expected, (bits, n, cut)


def test_checkpoint_errors() -> None:
    key = bytes(32)
    blob = simdcrypt.highwayhash128(b"data", key=key).export()
    with pytest.raises(ValueError, match="state of highwayhash128, expected highwayhash64"):
        simdcrypt.highwayhash64.restore(blob, key=key)
    with pytest.raises(ValueError, match="damaged, or another key was given"):
        simdcrypt.highwayhash128.restore(blob, key=bytes([1] * 32))
    damaged = bytearray(blob)
    damaged[77] ^= 4
    with pytest.raises(ValueError, match="checksum mismatch"):
        simdcrypt.highwayhash128.restore(damaged, key=key)
    with pytest.raises(ValueError, match="truncated"):
        simdcrypt.highwayhash128.restore(blob[:-1], key=key)
    with pytest.raises(ValueError, match="not a simdcrypt state"):
        simdcrypt.highwayhash128.restore(b"junk", key=key)
    with pytest.raises(ValueError, match="key must be 32 bytes"):
        simdcrypt.highwayhash128.restore(blob, key=b"short")


@pytest.mark.parametrize("count", [1, 7, 8, 9, 6, 13, 30])
def test_many_against_one_at_a_time(highwayhash_backend: str, count: int) -> None:
    rng = random.Random(count)
    key = rng.randbytes(32)
    record_backend(highwayhash_backend, "highwayhash")
    for lengths in ([64] * count, [rng.randrange(0, 300) for _ in range(count)]):
        msgs = [rng.randbytes(n) for n in lengths]
        for bits in (64, 128, 256):
            out = simdcrypt.highwayhash_many(msgs, key=key, bits=bits, backend=highwayhash_backend)
            assert out == b"".join(CFFI[bits](key, m) for m in msgs), (count, bits)
    arr = np.frombuffer(rng.randbytes(count * 40), dtype=np.uint8).reshape(count, 40)
    out = simdcrypt.highwayhash_many(arr, key=key, backend=highwayhash_backend, max_threads=2)
    assert out == b"".join(CFFI[64](key, bytes(row)) for row in arr)


def test_many_errors_and_threads() -> None:
    key = bytes(32)
    with pytest.raises(ValueError, match="bits must be 64, 128 or 256, got 32"):
        simdcrypt.highwayhash_many([b"a"], key=key, bits=32)
    with pytest.raises(ValueError, match="key must be 32 bytes, got 5"):
        simdcrypt.highwayhash_many([b"a"], key=b"12345")
    with pytest.raises(TypeError, match=r"messages\[1\] must be a bytes-like object"):
        simdcrypt.highwayhash_many([b"a", "b"], key=key)  # type: ignore[list-item]
    assert simdcrypt.highwayhash_many([], key=key) == b""
    msgs = [bytes([i % 256]) * (i % 900) for i in range(3000)]
    one = simdcrypt.highwayhash_many(msgs, key=key, bits=256)
    assert simdcrypt.highwayhash_many(msgs, key=key, bits=256, max_threads=4) == one
    big = [bytes(1 << 20)] * 64
    assert releases_gil(lambda: simdcrypt.highwayhash_many(big, key=key))


def test_new_and_hash_file(tmp_path: Path) -> None:
    key = bytes(range(32))
    data = random.Random(1).randbytes(100_000)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    for bits in (64, 128, 256):
        name = f"highwayhash{bits}"
        assert name in simdcrypt.algorithms_available
        h = simdcrypt.new(name.upper(), data, key=key)
        assert type(h) is CLASSES[bits]
        assert h.digest() == CFFI[bits](key, data)
        assert simdcrypt.hash_file(path, name, key=key) == CFFI[bits](key, data)


def test_shared_between_threads() -> None:
    key = bytes(32)
    h = simdcrypt.highwayhash256(key=key)
    piece = bytes(range(256)) * 64

    update_from_threads(h.update, piece, threads=4, rounds=50)
    assert h.digest() == CFFI[256](key, piece * 200)
    assert releases_gil(lambda: h.update(bytes(64 << 20)))
