"""simdcrypt.sha256_many (hashtree-style batches: each 64-byte block hashed as a whole
message) against hashlib, on every sha256-batch backend, plus its argument checks."""

from __future__ import annotations

import hashlib
import random
from typing import Any, Callable

import numpy as np
import pytest

import simdcrypt
from conftest import BUFFER_KINDS, NON_CONTIGUOUS, SUPPORTED, record_backend, releases_gil

ALGORITHM = "sha256-batch"
BATCH_BACKENDS = SUPPORTED[ALGORITHM]
COUNTS = sorted({c for lanes in (2, 8, 16) for c in (1, lanes - 1, lanes, lanes + 1)} | {6, 13, 30, 1000})


def expected(blocks: bytes) -> bytes:
    return b"".join(hashlib.sha256(blocks[i : i + 64]).digest() for i in range(0, len(blocks), 64))


def blocks_of(count: int, seed: int = 0x5A256) -> bytes:
    return random.Random(seed + count).randbytes(64 * count)


@pytest.mark.parametrize("batch_backend", BATCH_BACKENDS)
@pytest.mark.parametrize("count", COUNTS)
def test_matches_hashlib(batch_backend: str, count: int) -> None:
    data = blocks_of(count)
    assert simdcrypt.sha256_many(data, backend=batch_backend) == expected(data)
    record_backend(batch_backend, ALGORITHM)


@pytest.mark.parametrize("batch_backend", BATCH_BACKENDS)
@pytest.mark.parametrize("max_threads", [2, 4, simdcrypt.blake3.AUTO])
def test_threads(batch_backend: str, max_threads: int) -> None:
    # 4 MiB: above the library's minimum for splitting between threads (256 KiB).
    data = blocks_of(1 << 16)
    assert simdcrypt.sha256_many(data, max_threads=max_threads, backend=batch_backend) == expected(data)
    record_backend(batch_backend, ALGORITHM)


def test_default_backend_and_listing() -> None:
    info = simdcrypt.backends()[ALGORITHM]
    passed_over = info.get("passed_over", {})
    assert info["selected"] == [b for b in info["supported"] if b not in passed_over][0]
    assert info["supported"][-1] == "portable"
    assert "sha256_many" in simdcrypt.__all__
    assert simdcrypt.sha256_many(b"") == b""
    data = blocks_of(20)
    assert simdcrypt.sha256_many(data) == expected(data)
    assert simdcrypt.sha256_many(data, backend=" PORTABLE ") == expected(data)


@pytest.mark.parametrize("kind", sorted(BUFFER_KINDS))
def test_buffer_kinds(kind: str) -> None:
    data = blocks_of(3)
    assert simdcrypt.sha256_many(BUFFER_KINDS[kind](data)) == expected(data)


def test_multidimensional_buffer() -> None:
    rows = np.frombuffer(blocks_of(5), dtype=np.uint8).reshape(5, 64)
    assert simdcrypt.sha256_many(rows) == expected(rows.tobytes())
    words = np.frombuffer(blocks_of(2), dtype=np.uint32)
    assert simdcrypt.sha256_many(words) == expected(words.tobytes())


@pytest.mark.parametrize("length", [1, 63, 65, 127, 200])
def test_length_not_multiple_of_64(length: int) -> None:
    with pytest.raises(ValueError, match=rf"multiple of 64\), got {length} bytes"):
        simdcrypt.sha256_many(bytes(length))


@pytest.mark.parametrize("kind", sorted(NON_CONTIGUOUS))
def test_non_contiguous(kind: str) -> None:
    with pytest.raises(BufferError):
        simdcrypt.sha256_many(NON_CONTIGUOUS[kind]())


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: simdcrypt.sha256_many("a" * 64), TypeError, None),
        (lambda: simdcrypt.sha256_many([bytes(64)]), TypeError, None),
        (lambda: simdcrypt.sha256_many(bytes(64), max_threads=0), ValueError, "max_threads"),
        (lambda: simdcrypt.sha256_many(bytes(64), max_threads=-2), ValueError, "max_threads"),
        (lambda: simdcrypt.sha256_many(bytes(64), backend="bogus"), ValueError, "unknown sha256-batch backend"),
        (lambda: simdcrypt.sha256_many(bytes(64), 1), TypeError, None),
    ],
)
def test_bad_arguments(call: Callable[[], Any], error: type[Exception], message: str | None) -> None:
    with pytest.raises(error, match=message):
        call()


def test_releases_gil() -> None:
    data = blocks_of(1 << 15)
    assert releases_gil(lambda: simdcrypt.sha256_many(data))

