#!/usr/bin/env python3
"""Merkle root of 2**20 random 32-byte leaves: simdcrypt.merkle_root with one and two
threads against a Python loop of hashlib.sha256 over pairs, in the same process (best of
several runs; the loop's root is checked against simdcrypt's).

Usage (after `maturin develop --release -m crates/simdcrypt-py/Cargo.toml`):
    python benches/python/bench_merkle.py
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import Callable

import simdcrypt

LEAVES = 1 << 20


def best(fn: Callable[[], object], runs: int) -> float:
    """The shortest of `runs` timed calls, in seconds."""
    shortest = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        shortest = min(shortest, time.perf_counter() - start)
    return shortest


def hashlib_root(leaves: bytes) -> bytes:
    layer = [leaves[i : i + 32] for i in range(0, len(leaves), 32)]
    while len(layer) > 1:
        layer = [hashlib.sha256(layer[i] + layer[i + 1]).digest() for i in range(0, len(layer), 2)]
    return layer[0]


def main() -> None:
    leaves = os.urandom(32 * LEAVES)
    assert simdcrypt.merkle_root(leaves) == hashlib_root(leaves)
    one = best(lambda: simdcrypt.merkle_root(leaves), 5)
    two = best(lambda: simdcrypt.merkle_root(leaves, max_threads=2), 5)
    loop = best(lambda: hashlib_root(leaves), 2)
    print(f"| merkle_root, 2^20 leaves | 1 thread | 2 threads | hashlib pair loop |")
    print(f"|---|---:|---:|---:|")
    print(f"| time | {one * 1e3:.1f} ms | {two * 1e3:.1f} ms | {loop * 1e3:.0f} ms |")
    print(f"| vs the loop | {loop / one:.1f}x | {loop / two:.1f}x | 1.0x |")
    print(f"two threads / one: {one / two:.2f}x")


if __name__ == "__main__":
    main()
