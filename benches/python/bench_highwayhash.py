#!/usr/bin/env python3
"""simdcrypt.highwayhash_many on 64-byte messages against a loop over the highwayhash-cffi
package (the reference C code, portable) and a loop over simdcrypt.highwayhash64, measured
in the same run (best of several repetitions, timing.best_time). Prints a markdown table in
million messages per second and the ratio to the cffi loop (above 1: faster).

One message per call (every backend, 64/128/256-bit, against highwayhash-cffi) is what
`simdcrypt bench -a highwayhash64,highwayhash128,highwayhash256 --backends` measures; this
script covers the batch function, which the harness does not time.

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
from timing import Settings, best_time, cpu_model

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

    data_all = os.urandom(BATCH * 64)
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
