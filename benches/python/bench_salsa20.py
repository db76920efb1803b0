#!/usr/bin/env python3
"""Throughput of simdcrypt.Salsa20 (Salsa20/20) against PyCryptodome's Salsa20, and of
the Python binding against the native Rust code, measured in the same process.

Rows: 64-byte messages (a new cipher per message; calls/s) and 100 MB (MB/s = 10**6
bytes/s): PyCryptodome `Salsa20.new(key, nonce).encrypt(data)`; simdcrypt
`Salsa20(key, nonce).encrypt(data)` (a new bytes object, like PyCryptodome) and
`encrypt_into(buf, buf)` (in place, no allocation). The native figure for the same
100 MB comes from the Rust benchmark (`cargo bench -p simdcrypt-bench --bench salsa20`,
group `salsa20`, size 100000000), run right before or after this script.

`simdcrypt bench -a salsa20` times `encrypt` against PyCryptodome over many sizes; this
script is kept for the in-place `encrypt_into` (no output allocation), which the harness
does not time, and its comparison with the native figure.

Usage (from the repository root, after `maturin develop --release -m crates/simdcrypt-py/Cargo.toml`):
    python benches/python/bench_salsa20.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

from Crypto import __version__ as crypto_version
from Crypto.Cipher import Salsa20 as CryptoSalsa20

import simdcrypt
from timing import Settings, best_time, cpu_model

KEY = bytes(range(32))
NONCE = bytes(8)
BIG = 100_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (noisier numbers)")
    args = parser.parse_args()
    settings = Settings(0.05, 3) if args.quick else Settings(0.5, 5)
    backend = simdcrypt.backends()["salsa20"]["selected"]
    print(f"- Python {platform.python_version()} ({sys.executable}), PyCryptodome {crypto_version}")
    print(f"- CPU: {cpu_model()}, {os.cpu_count()} logical CPUs; simdcrypt salsa20 backend {backend}")
    print(f"- best of {settings.reps} repetitions of ~{settings.seconds_per_rep:g} s each")
    print()

    small = os.urandom(64)
    # best_time measures the total for a batch of calls; 64 B calls are run 1000 at a time.
    def crypto_small() -> None:
        for _ in range(1000):
            CryptoSalsa20.new(key=KEY, nonce=NONCE).encrypt(small)

    def ours_small() -> None:
        for _ in range(1000):
            simdcrypt.Salsa20(KEY, NONCE).encrypt(small)

    assert simdcrypt.Salsa20(KEY, NONCE).encrypt(small) == CryptoSalsa20.new(key=KEY, nonce=NONCE).encrypt(small)
    t_crypto = best_time(crypto_small, settings) / 1000
    t_ours = best_time(ours_small, settings) / 1000
    print("| input | PyCryptodome | simdcrypt encrypt | ratio | simdcrypt encrypt_into (in place) | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| 64 B | {1 / t_crypto / 1e6:.2f} M calls/s | {1 / t_ours / 1e6:.2f} M calls/s | {t_crypto / t_ours:.2f}× | | |")

    data = os.urandom(BIG)
    buf = bytearray(data)
    assert simdcrypt.Salsa20(KEY, NONCE).encrypt(data[:1 << 20]) == CryptoSalsa20.new(key=KEY, nonce=NONCE).encrypt(data[:1 << 20])
    t_crypto = best_time(lambda: CryptoSalsa20.new(key=KEY, nonce=NONCE).encrypt(data), settings)
    t_ours = best_time(lambda: simdcrypt.Salsa20(KEY, NONCE).encrypt(data), settings)
    t_into = best_time(lambda: simdcrypt.Salsa20(KEY, NONCE).encrypt_into(buf, buf), settings)
    mbs = lambda t: f"{BIG / t / 1e6:,.0f} MB/s"  # noqa: E731
    print(
        f"| 100 MB | {mbs(t_crypto)} | {mbs(t_ours)} | {t_crypto / t_ours:.2f}× | {mbs(t_into)} | {t_crypto / t_into:.2f}× |"
    )
    print()
    print(f"100 MB in place: {t_into * 1e3:.2f} ms per call (compare with the Rust bench's salsa20/simdcrypt-{backend}/100000000).")
    print("ratio = simdcrypt throughput / PyCryptodome throughput (above 1: simdcrypt is faster).")


if __name__ == "__main__":
    main()
