#!/usr/bin/env python3
"""Throughput of simdcrypt.sha256 (every supported backend) against hashlib.sha256
(OpenSSL), measured in the same run.

Each measurement hashes one buffer per call (construct, update, digest) and keeps the best
of several repetitions (bench_blake3's best_time). Prints a markdown table: calls/s for
64 B, MB/s (10**6 bytes/s) otherwise, and the ratio simdcrypt / hashlib (above 1:
simdcrypt is faster).

Usage (from the repository root, after `maturin develop --release -m crates/simdcrypt-py/Cargo.toml`):
    python benches/python/bench_sha256.py [--quick]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import ssl
import sys

import simdcrypt
from bench_blake3 import MIB, Settings, best_time_per_call, cpu_model, rate_label, size_label

SIZES = [64, MIB, 16 * MIB]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (noisier numbers)")
    args = parser.parse_args()
    settings = Settings(0.02, 3) if args.quick else Settings(0.2, 5)
    backends = simdcrypt.backends()["sha256"]["supported"]

    print(f"- Python {platform.python_version()} ({sys.executable}), {ssl.OPENSSL_VERSION}")
    print(f"- CPU: {cpu_model()}, {os.cpu_count()} logical CPUs")
    print(f"- simdcrypt {simdcrypt.__version__}, sha256 backends {', '.join(backends)}")
    print(f"- best of {settings.reps} repetitions of ~{settings.seconds_per_rep:g} s each")
    print()

    header = ["size", "hashlib.sha256"]
    for b in backends:
        header += [f"simdcrypt {b}", "ratio"]
    print("| " + " | ".join(header) + " |")
    print("|---|" + "|".join(["---:"] * (len(header) - 1)) + "|")

    data_all = os.urandom(max(SIZES))
    sha256_cls = simdcrypt.sha256
    for size in SIZES:
        data = data_all[:size]
        theirs = best_time_per_call(lambda d: hashlib.sha256(d).digest(), data, settings)
        cells = [size_label(size), rate_label(theirs, size)]
        for b in backends:
            # The selected backend is the default: no keyword to parse per call.
            if b == backends[0]:
                ours = best_time_per_call(lambda d: sha256_cls(d).digest(), data, settings)
            else:
                ours = best_time_per_call(lambda d, b=b: sha256_cls(d, backend=b).digest(), data, settings)
            cells += [rate_label(ours, size), f"{theirs / ours:.2f}×"]
        print("| " + " | ".join(cells) + " |", flush=True)
    print()
    print("ratio = simdcrypt throughput / hashlib throughput (above 1: simdcrypt is faster).")


if __name__ == "__main__":
    main()
