"""simdcrypt.merkle_root and merkle_layers (SSZ-style SHA-256 Merkle trees of 32-byte leaves)
against a small hashlib reference that stores the zero leaves, on every sha256-batch
backend, plus the argument checks."""

from __future__ import annotations

import hashlib
import random
from typing import Any, Callable

import pytest

import simdcrypt
from conftest import BUFFER_KINDS, NON_CONTIGUOUS, SUPPORTED, record_backend, releases_gil

ALGORITHM = "sha256-batch"
BATCH_BACKENDS = SUPPORTED[ALGORITHM]
COUNTS = [*range(71), 1000, 1 << 16]


def natural_depth(n: int) -> int:
    return max(n - 1, 0).bit_length()


def reference_layers(leaves: bytes, depth: int) -> list[list[bytes]]:
    """Every layer of the tree with 2**depth leaf slots, zero leaves stored explicitly."""
    layer = [leaves[i : i + 32] for i in range(0, len(leaves), 32)]
    layer += [bytes(32)] * ((1 << depth) - len(layer))
    layers = [layer]
    while len(layer) > 1:
        layer = [hashlib.sha256(layer[i] + layer[i + 1]).digest() for i in range(0, len(layer), 2)]
        layers.append(layer)
    return layers


def zero(height: int) -> bytes:
    node = bytes(32)
    for _ in range(height):
        node = hashlib.sha256(node + node).digest()
    return node


def leaves_of(count: int, seed: int = 0x3E6C1E) -> bytes:
    return random.Random(seed + count).randbytes(32 * count)


@pytest.mark.parametrize("batch_backend", BATCH_BACKENDS)
@pytest.mark.parametrize("max_threads", [1, 2])
def test_roots_match_hashlib(batch_backend: str, max_threads: int) -> None:
    for n in COUNTS:
        leaves = leaves_of(n)
        expected = reference_layers(leaves, natural_depth(n))[-1][0]
        got = simdcrypt.merkle_root(leaves, max_threads=max_threads, backend=batch_backend)
        assert got == expected, n
    record_backend(batch_backend, ALGORITHM)


@pytest.mark.parametrize("batch_backend", BATCH_BACKENDS)
@pytest.mark.parametrize(
    "n, depth",
    [(0, 0), (0, 1), (0, 5), (1, 0), (1, 4), (2, 1), (2, 3), (5, 3), (5, 4), (5, 10), (33, 6), (70, 9)],
)
def test_given_depths(batch_backend: str, n: int, depth: int) -> None:
    leaves = leaves_of(n)
    expected = reference_layers(leaves, depth)
    assert simdcrypt.merkle_root(leaves, depth=depth, backend=batch_backend) == expected[-1][0]
    layers = simdcrypt.merkle_layers(leaves, depth=depth, backend=batch_backend)
    assert len(layers) == depth + 1 and layers[-1] == expected[-1][0]
    if n == 0:
        assert layers[0] == (bytes(32) if depth == 0 else b"")
        assert layers[1:] == [zero(h) for h in range(1, depth + 1)]
    else:
        for h, layer in enumerate(layers):
            nodes = -(-n // (1 << h))  # ceil(n / 2**h)
            assert layer == b"".join(expected[h][:nodes]), h
    record_backend(batch_backend, ALGORITHM)


def test_deep_empty_and_padded_trees() -> None:
    for depth in (0, 1, 5, 40, 64):
        assert simdcrypt.merkle_root(b"", depth=depth) == zero(depth)
    leaves = leaves_of(5)
    root = reference_layers(leaves, 3)[-1][0]
    for h in range(3, 40):
        root = hashlib.sha256(root + zero(h)).digest()
    assert simdcrypt.merkle_root(leaves, depth=40) == root
    assert simdcrypt.merkle_layers(leaves, depth=40)[-1] == root


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 64, 1000])
def test_layers_shape(n: int) -> None:
    leaves = leaves_of(n)
    layers = simdcrypt.merkle_layers(leaves)
    assert len(layers) == natural_depth(n) + 1
    assert layers[-1] == simdcrypt.merkle_root(leaves)
    if n:
        assert layers[0] == leaves
        for below, above in zip(layers, layers[1:]):
            assert len(above) == -(-len(below) // 64) * 32


@pytest.mark.parametrize("kind", sorted(BUFFER_KINDS))
def test_buffer_kinds(kind: str) -> None:
    leaves = leaves_of(3)
    expected = reference_layers(leaves, 2)[-1][0]
    assert simdcrypt.merkle_root(BUFFER_KINDS[kind](leaves)) == expected
    assert simdcrypt.merkle_layers(BUFFER_KINDS[kind](leaves))[-1] == expected


@pytest.mark.parametrize("kind", sorted(NON_CONTIGUOUS))
def test_non_contiguous(kind: str) -> None:
    with pytest.raises(BufferError):
        simdcrypt.merkle_root(NON_CONTIGUOUS[kind]())


@pytest.mark.parametrize("function", [simdcrypt.merkle_root, simdcrypt.merkle_layers])
@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((bytes(31),), {}, ValueError, r"whole number of 32-byte nodes, got 31 bytes"),
        ((bytes(100),), {"depth": 5}, ValueError, r"whole number of 32-byte nodes, got 100 bytes"),
        ((bytes(64),), {"depth": 0}, ValueError, r"2 merkle leaves do not fit in a tree of depth 0"),
        ((bytes(32 * 9),), {"depth": 3}, ValueError, r"at most 2\^3 leaves"),
        ((bytes(32),), {"depth": -1}, ValueError, r"depth must be a non-negative integer, got -1"),
        ((bytes(32),), {"depth": -(2**80)}, ValueError, r"non-negative"),
        ((bytes(32),), {"depth": 65}, ValueError, r"depth must be at most 64, got 65"),
        ((bytes(32),), {"depth": 2**80}, ValueError, r"depth must be at most 64"),
        ((bytes(32),), {"depth": 2.0}, TypeError, None),
        (("a" * 32,), {}, TypeError, None),
        (([bytes(32)],), {}, TypeError, None),
        ((bytes(32),), {"max_threads": 0}, ValueError, r"max_threads"),
        ((bytes(32),), {"backend": "bogus"}, ValueError, r"unknown sha256-batch backend"),
        ((bytes(32), 1), {}, TypeError, None),
    ],
)
def test_bad_arguments(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    error: type[Exception],
    message: str | None,
) -> None:
    with pytest.raises(error, match=message):
        function(*args, **kwargs)


def test_exported() -> None:
    assert "merkle_root" in simdcrypt.__all__ and "merkle_layers" in simdcrypt.__all__
    assert simdcrypt.merkle_root(leaves_of(4), backend=" PORTABLE ") == simdcrypt.merkle_root(leaves_of(4))


def test_releases_gil() -> None:
    leaves = leaves_of(1 << 16)
    assert releases_gil(lambda: simdcrypt.merkle_root(leaves))
    assert releases_gil(lambda: simdcrypt.merkle_layers(leaves))
