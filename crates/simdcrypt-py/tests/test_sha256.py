"""simdcrypt.sha256 against hashlib.sha256 (OpenSSL): vectors, edge lengths, random splits,
every backend, buffers, errors, threads, and the module functions that take "sha256"."""

from __future__ import annotations

import hashlib
import io
import json
import random
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

import simdcrypt
from conftest import BUFFER_KINDS, NON_CONTIGUOUS, SUPPORTED, payload, random_splits, record_backend, releases_gil
from conftest import update_from_threads

VECTORS_PATH = (Path(__file__).resolve().parent / "../../../test-vectors/sha256.json").resolve()

EDGE_LENGTHS = [
    *range(9), 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096 + 7, 1024 * 1024 + 1,
]

MakeSha256 = Callable[..., simdcrypt.sha256]


def _vector_cases() -> list[tuple[str, bytes, str]]:
    with open(VECTORS_PATH, encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    out = []
    for c in cases:
        if "message_ascii" in c:
            message = c["message_ascii"].encode("ascii")
        else:
            message = bytes.fromhex(c["message_repeat"]["byte_hex"]) * c["message_repeat"]["count"]
        out.append((c["name"], message, c["digest_hex"]))
    return out


def test_fips_vectors(make_sha256: MakeSha256) -> None:
    cases = _vector_cases()
    assert len(cases) == 5
    for name, message, expected in cases:
        assert make_sha256(message).hexdigest() == expected, name
        h = make_sha256()
        for piece in random_splits(message, random.Random(name)):
            assert h.update(piece) is None  # type: ignore[func-returns-value]
        assert h.hexdigest() == expected, name


def test_edge_lengths_with_random_splits(make_sha256: MakeSha256, random_data: bytes) -> None:
    rng = random.Random(0x5A256)
    for n in EDGE_LENGTHS:
        data = random_data[:n]
        expected = hashlib.sha256(data).digest()
        assert make_sha256(data).digest() == expected, n
        for _ in range(3):
            h = make_sha256()
            for piece in random_splits(data, rng):
                h.update(piece)
            assert h.digest() == expected, n


def test_interface_matches_hashlib(make_sha256: MakeSha256) -> None:
    ours, theirs = make_sha256(b"abc"), hashlib.sha256(b"abc")
    assert ours.name == theirs.name == simdcrypt.sha256.name == "sha256"
    assert ours.digest_size == theirs.digest_size == 32
    assert ours.block_size == theirs.block_size == 64
    assert ours.update(b"def") is None and theirs.update(b"def") is None  # type: ignore[func-returns-value]
    assert ours.digest() == theirs.digest() and ours.hexdigest() == theirs.hexdigest()
    # copy() is independent; digest() does not end the object.
    clone = ours.copy()
    assert type(clone) is simdcrypt.sha256 and clone.backend == ours.backend
    clone.update(b"x")
    assert ours.digest() == theirs.digest()
    assert clone.digest() == hashlib.sha256(b"abcdefx").digest()
    ours.update(b"x")
    assert ours.digest() == clone.digest()


def test_constructor_options() -> None:
    assert simdcrypt.sha256().digest() == hashlib.sha256().digest()
    assert simdcrypt.sha256(None).digest() == hashlib.sha256().digest()  # type: ignore[arg-type]
    assert simdcrypt.sha256(b"a", usedforsecurity=False).digest() == hashlib.sha256(b"a").digest()
    assert simdcrypt.sha256().backend == simdcrypt.backends()["sha256"]["selected"]
    assert simdcrypt.sha256(backend=" PORTABLE ").backend == "portable"
    with pytest.raises(ValueError, match='unknown sha256 backend "avx2"'):
        simdcrypt.sha256(backend="avx2")
    with pytest.raises(TypeError):
        simdcrypt.sha256(data=b"abc")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        simdcrypt.sha256(b"", key=bytes(32))  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        simdcrypt.sha256(backend=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        simdcrypt.sha256().digest(32)  # type: ignore[call-arg]


@pytest.mark.parametrize("kind", list(BUFFER_KINDS))
def test_buffers(kind: str, make_sha256: MakeSha256) -> None:
    for size in (0, 100, 5000):
        data = payload(size)
        expected = hashlib.sha256(data).digest()
        assert make_sha256(BUFFER_KINDS[kind](data)).digest() == expected
        h = make_sha256()
        h.update(BUFFER_KINDS[kind](data))
        assert h.digest() == expected


@pytest.mark.parametrize("bad", ["abc", "", 123, 1.5, [1, 2], object()])
def test_non_buffers_raise_type_error(bad: Any) -> None:
    h = simdcrypt.sha256()
    with pytest.raises(TypeError):
        h.update(bad)
    with pytest.raises(TypeError):
        simdcrypt.sha256(bad)
    assert h.digest() == hashlib.sha256().digest()


@pytest.mark.parametrize("kind", list(NON_CONTIGUOUS))
def test_non_contiguous_buffers_raise_buffer_error(kind: str) -> None:
    h = simdcrypt.sha256()
    with pytest.raises(BufferError):
        h.update(NON_CONTIGUOUS[kind]())
    with pytest.raises(BufferError):
        simdcrypt.sha256(NON_CONTIGUOUS[kind]())
    assert h.digest() == hashlib.sha256().digest()


def test_new_and_listings() -> None:
    assert "sha256" in simdcrypt.algorithms_available
    assert "sha256" in simdcrypt.__all__
    info = simdcrypt.backends()["sha256"]
    assert info["supported"][-1] == "portable" and info["selected"] == info["supported"][0]
    assert info.get("passed_over") == {}
    h = simdcrypt.new("SHA256", b"abc", backend="portable")
    assert type(h) is simdcrypt.sha256 and h.backend == "portable"
    assert h.digest() == hashlib.sha256(b"abc").digest()
    with pytest.raises(TypeError):
        simdcrypt.new("sha256", key=bytes(32))


def test_hash_file(sha256_backend: str, tmp_file: Callable[[bytes], Path], random_data: bytes) -> None:
    record_backend(sha256_backend, "sha256")
    for n in (0, 63, 64, 65, 100_000, 3 * 1024 * 1024 + 7):
        path = tmp_file(random_data[:n])
        expected = hashlib.sha256(random_data[:n]).digest()
        assert simdcrypt.hash_file(path, "sha256", backend=sha256_backend) == expected
        # A thread count is accepted: SHA-256 always stays within it, on one thread.
        assert simdcrypt.hash_file(str(path), "SHA256", max_threads=4, length=32) == expected


def test_hash_file_errors(tmp_file: Callable[[bytes], Path]) -> None:
    path = tmp_file(b"abc")
    with pytest.raises(ValueError, match="sha256 takes no key"):
        simdcrypt.hash_file(path, "sha256", key=bytes(32))
    with pytest.raises(ValueError, match="sha256 takes no key"):
        simdcrypt.hash_file(path, "sha256", derive_key_context="ctx")
    with pytest.raises(ValueError, match="sha256 digests are 32 bytes"):
        simdcrypt.hash_file(path, "sha256", length=64)
    with pytest.raises(ValueError, match="unknown sha256 backend"):
        simdcrypt.hash_file(path, "sha256", backend="avx512")


@pytest.mark.skipif(sys.version_info < (3, 11), reason="hashlib.file_digest is new in 3.11")
def test_hashlib_file_digest(tmp_file: Callable[[bytes], Path], random_data: bytes) -> None:
    data = random_data[: 1024 * 1024 + 5]
    expected = hashlib.sha256(data).hexdigest()
    with open(tmp_file(data), "rb") as f:
        assert hashlib.file_digest(f, simdcrypt.sha256).hexdigest() == expected
    assert hashlib.file_digest(io.BytesIO(data), simdcrypt.sha256).hexdigest() == expected
    assert hashlib.file_digest(io.BytesIO(data), "sha256").hexdigest() == expected


def test_long_updates_release_the_gil() -> None:
    data = bytes(64 * 1024 * 1024)
    h = simdcrypt.sha256(backend="portable")
    record_backend("portable", "sha256")
    assert releases_gil(lambda: h.update(data))
    assert releases_gil(lambda: simdcrypt.sha256(data, backend="portable"))


def test_one_object_shared_between_threads() -> None:
    h = simdcrypt.sha256()
    piece = payload(3001)  # above the GIL-release threshold, not a whole number of blocks
    update_from_threads(h.update, piece, threads=8, rounds=50)
    assert h.digest() == hashlib.sha256(piece * 400).digest()


def test_every_backend_listed_is_constructible() -> None:
    for name in SUPPORTED["sha256"]:
        assert simdcrypt.sha256(backend=name).backend == name
