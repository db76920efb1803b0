"""simdcrypt.blake3 against the official `blake3` package, over the lengths where the tree
shape changes (block, chunk and subtree boundaries), with random splits into update()
calls, in all modes, XOF lengths and seeks, several thread settings, on every backend."""

from __future__ import annotations

import random
from typing import Any, Callable

import blake3 as official
import pytest

import simdcrypt
from conftest import MODES, mode_kwargs, random_splits

KIB = 1024
EDGE_LENGTHS: list[int] = sorted(
    {
        *range(0, 9),
        63, 64, 65,
        127, 128, 129,
        1023, 1024, 1025,
        *(k * KIB for k in (2, 3, 4, 8, 9, 16, 17, 31, 32, 33)),
        *(k * KIB + 1 for k in (2, 3, 4, 8, 9, 16, 17, 31, 32, 33)),
        16 * KIB - 1, 16 * KIB + 1,
        31 * KIB - 1, 31 * KIB + 1,
        100 * KIB,
        3 * KIB * KIB + 7,
    }
)  # fmt: skip

THREADS = {"1": 1, "2": 2, "AUTO": simdcrypt.blake3.AUTO}

# (output length, seek) pairs checked for every input.
XOF_READS = [(0, 0), (1, 0), (31, 0), (32, 0), (33, 0), (64, 0), (65, 0), (200, 0),
             (1, 63), (64, 1), (100, 1000), (17, 2**64 - 17), (1, 2**64 - 1)]  # fmt: skip

_expected_cache: dict[tuple[str, int], tuple[bytes, dict[tuple[int, int], bytes]]] = {}


def _expected(mode: str, data: bytes) -> tuple[bytes, dict[tuple[int, int], bytes]]:
    """The official package's digest and XOF reads, computed once per (mode, length)."""
    key = (mode, len(data))
    if key not in _expected_cache:
        h = official.blake3(data, **mode_kwargs(mode))
        reads = {(n, seek): h.digest(n, seek=seek) for n, seek in XOF_READS}
        _expected_cache[key] = (h.digest(), reads)
    return _expected_cache[key]


def test_edge_lengths_cover_the_input(random_data: bytes) -> None:
    assert max(EDGE_LENGTHS) == len(random_data)


@pytest.mark.parametrize("threads", list(THREADS))
@pytest.mark.parametrize("mode", MODES)
def test_matches_official_package(
    random_data: bytes,
    mode: str,
    threads: str,
    backend: str,
    make_hasher: Callable[..., simdcrypt.blake3],
) -> None:
    kwargs: dict[str, Any] = {**mode_kwargs(mode), "max_threads": THREADS[threads]}
    rng = random.Random(f"{mode}/{threads}/{backend}")
    for n in EDGE_LENGTHS:
        data = random_data[:n]
        digest, reads = _expected(mode, data)
        context = f"n={n} mode={mode} threads={threads} backend={backend}"

        # All input at construction.
        h = make_hasher(data, **kwargs)
        assert h.digest() == digest, context

        # Random splits into update() calls, on memoryview slices (no copies).
        g = make_hasher(**kwargs)
        view = memoryview(data)
        pieces = random_splits(data, rng)
        offset = 0
        for piece in pieces:
            assert g.update(view[offset : offset + len(piece)]) is g
            offset += len(piece)
        assert g.digest() == digest, f"{context} splits={[len(p) for p in pieces]}"
        for (length, seek), expected in reads.items():
            assert g.digest(length, seek=seek) == expected, f"{context} length={length} seek={seek}"


@pytest.mark.parametrize("mode", MODES)
def test_split_at_every_position_of_short_inputs(
    random_data: bytes, mode: str, make_hasher: Callable[..., simdcrypt.blake3]
) -> None:
    # Every two-way split of inputs around the first chunk boundary.
    for n in (64, 65, 1024, 1025, 2049):
        data = random_data[:n]
        digest = _expected(mode, data)[0]
        for cut in range(n + 1):
            h = make_hasher(data[:cut], **mode_kwargs(mode)).update(data[cut:])
            assert h.digest() == digest, f"n={n} cut={cut}"


@pytest.mark.parametrize("mode", MODES)
def test_random_keys_and_contexts(
    random_data: bytes, mode: str, make_hasher: Callable[..., simdcrypt.blake3]
) -> None:
    rng = random.Random(f"keys/{mode}")
    for n in (0, 1, 1024, 5000, 70000):
        kwargs = mode_kwargs(mode, key=rng.randbytes(32), context=f"ctx {rng.random()} \u00e9\u6f22")
        data = random_data[:n]
        expected = official.blake3(data, **kwargs).digest(100)
        assert make_hasher(data, **kwargs).digest(100) == expected
