"""One object shared by many Python threads: no crash, no lost or torn update, and the
GIL released while hashing large inputs."""

from __future__ import annotations

import threading
from typing import Callable

import blake3 as official
import pytest

import simdcrypt
from conftest import releases_gil, resize_while

N_THREADS = 8
UPDATES_PER_THREAD = 40


def _run_threads(targets: list[Callable[[], None]]) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(targets))

    def wrap(target: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                barrier.wait()
                target()
            except BaseException as e:  # reported in the main thread
                errors.append(e)

        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


# Chunk sizes below and above the GIL-release threshold (2048), and a multi-chunk one.
@pytest.mark.parametrize("chunk_len", [100, 3000, 70_001])
@pytest.mark.parametrize("max_threads", [1, simdcrypt.blake3.AUTO])
def test_shared_object_concurrent_updates(
    chunk_len: int, max_threads: int, backend: str, make_hasher: Callable[..., simdcrypt.blake3]
) -> None:
    # Every thread adds the same chunk, so whatever the interleaving, after k updates the
    # state must be the digest of the chunk repeated k times: lost, torn or doubled
    # updates would show. Readers check that each digest they see is one of those.
    chunk = bytes((i * 31 + 7) % 256 for i in range(chunk_len))
    total = N_THREADS * UPDATES_PER_THREAD
    ref = official.blake3()
    prefix_digests = {ref.digest(): 0}
    for k in range(1, total + 1):
        ref.update(chunk)
        prefix_digests[ref.digest()] = k

    h = make_hasher(max_threads=max_threads)
    seen: list[int] = []

    def writer() -> None:
        for i in range(UPDATES_PER_THREAD):
            assert h.update(bytearray(chunk) if i % 2 else chunk) is h

    def reader() -> None:
        for _ in range(UPDATES_PER_THREAD):
            d = h.digest()
            assert d in prefix_digests, "digest of a torn state"
            seen.append(prefix_digests[d])
            c = h.copy()
            assert c.digest() in prefix_digests
            assert len(h.hexdigest(100)) == 200

    _run_threads([writer] * N_THREADS + [reader] * 2)
    assert h.digest() == ref.digest()
    assert prefix_digests[h.digest()] == total
    assert all(0 <= k <= total for k in seen)


def test_shared_object_reset_race(backend: str, make_hasher: Callable[..., simdcrypt.blake3]) -> None:
    # Resets interleaved with updates: the final state is the chunk repeated some number
    # of times since the last reset, never a mixture.
    chunk = b"\xab" * 5000
    h = make_hasher()
    valid = {official.blake3(chunk * k).digest() for k in range(0, 4 * 50 + 1)}

    def writer() -> None:
        for _ in range(50):
            h.update(chunk)

    def resetter() -> None:
        for _ in range(20):
            h.reset()

    _run_threads([writer] * 4 + [resetter])
    assert h.digest() in valid


def test_large_update_releases_the_gil(backend: str, make_hasher: Callable[..., simdcrypt.blake3]) -> None:
    data = bytearray(64 << 20)  # hashed by the slowest backend below
    h = make_hasher() if backend == "portable" else simdcrypt.blake3(backend="portable")
    assert releases_gil(lambda: h.update(data))
    assert h.digest() == official.blake3(data).digest()


def test_bytearray_is_pinned_while_hashed() -> None:
    # While another thread hashes a bytearray without the GIL, resizing it fails with
    # BufferError (the buffer export is held) instead of freeing memory being read.
    data = bytearray(b"\x5a" * (64 << 20))
    original = bytes(data)
    h = simdcrypt.blake3(backend="portable")
    refused, _ = resize_while(data, lambda: h.update(data))
    assert refused > 0
    # If the export began between an append and its undo, the extra byte was hashed.
    assert h.digest() in {official.blake3(original).digest(), official.blake3(original + b"\0").digest()}
