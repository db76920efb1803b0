#!/usr/bin/env python3
"""Throughput of simdcrypt.highwayhash64/128/256 (every supported backend) against the
highwayhash-cffi package (the reference C code, portable), measured in the same run; and
simdcrypt.highwayhash_many on 64-byte messages against a loop over each.

Each measurement hashes one buffer per call (construct with the key, digest) and keeps the
best of several repetitions (bench_blake3's best_time). Prints markdown tables: calls/s for
64 B, MB/s (10**6 bytes/s) otherwise, and the ratio simdcrypt / highwayhash-cffi (above 1:
simdcrypt is faster).

Usage (from the repository root, after `maturin develop --release -m crates/simdcrypt-py/Cargo.toml`):
    python benches/python/bench_highwayhash.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

import highwayhash as cffi_hh  # the highwayhash-cffi package

import simdcrypt
from bench_blake3 import MIB, Settings, best_time, best_time_per_call, cpu_model, rate_label, size_label

SIZES = [64, MIB]
KEY = bytes(range(32))
BATCH = 4096


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (noisier numbers)")
    args = parser.parse_args()
    settings = Settings(0.02, 3) if args.quick else Settings(0.2, 5)
    backends = simdcrypt.backends()["highwayhash"]["supported"]

    print(f"- Python {platform.python_version()} ({sys.executable})")
    print(f"- CPU: {cpu_model()}, {os.cpu_count()} logical CPUs")
    print(f"- simdcrypt {simdcrypt.__version__}, highwayhash backends {', '.join(backends)}")
    print(f"- best of {settings.reps} repetitions of ~{settings.seconds_per_rep:g} s each")
    print()

    data_all = os.urandom(max(SIZES))
    for bits, cls, theirs_fn in (
        (64, simdcrypt.highwayhash64, cffi_hh.highwayhash_64),
        (128, simdcrypt.highwayhash128, cffi_hh.highwayhash_128),
        (256, simdcrypt.highwayhash256, cffi_hh.highwayhash_256),
    ):
        header = ["size", f"highwayhash-cffi {bits}"]
        for b in backends:
            header += [f"simdcrypt {b}", "ratio"]
        print("| " + " | ".join(header) + " |")
        print("|---|" + "|".join(["---:"] * (len(header) - 1)) + "|")
        for size in SIZES:
            data = data_all[:size]
            assert cls(data, key=KEY).digest() == theirs_fn(KEY, data)
            theirs = best_time_per_call(lambda d, f=theirs_fn: f(KEY, d), data, settings)
            cells = [size_label(size), rate_label(theirs, size)]
            for b in backends:
                if b == backends[0]:
                    ours = best_time_per_call(lambda d, c=cls: c(d, key=KEY).digest(), data, settings)
                else:
                    ours = best_time_per_call(lambda d, c=cls, b=b: c(d, key=KEY, backend=b).digest(), data, settings)
                cells += [rate_label(ours, size), f"{theirs / ours:.2f}×"]
            print("| " + " | ".join(cells) + " |", flush=True)
        print()

    # Batches: BATCH messages of 64 bytes.
    msgs = [data_all[i * 64 : (i + 1) * 64] for i in range(BATCH)]
    h64 = simdcrypt.highwayhash64
    assert simdcrypt.highwayhash_many(msgs, key=KEY) == b"".join(h64(m, key=KEY).digest() for m in msgs)
    loop_cffi = best_time(lambda: [cffi_hh.highwayhash_64(KEY, m) for m in msgs], settings) / BATCH
    loop_ours = best_time(lambda: [h64(m, key=KEY).digest() for m in msgs], settings) / BATCH
    many = best_time(lambda: simdcrypt.highwayhash_many(msgs, key=KEY), settings) / BATCH
    print(f"| {BATCH} × 64 B, 64-bit | calls/s (millions) | ratio to the cffi loop |")
    print("|---|---:|---:|")
    print(f"| loop of highwayhash-cffi | {1e-6 / loop_cffi:.2f} | 1.00× |")
    print(f"| loop of simdcrypt.highwayhash64 | {1e-6 / loop_ours:.2f} | {loop_cffi / loop_ours:.2f}× |")
    print(f"| simdcrypt.highwayhash_many | {1e-6 / many:.2f} | {loop_cffi / many:.2f}× |")
    print()
    print("ratio = simdcrypt throughput / highwayhash-cffi throughput (above 1: simdcrypt is faster).")


if __name__ == "__main__":
    main()
