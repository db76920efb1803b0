#!/usr/bin/env python3
"""Many short messages: simdcrypt.blake3_many against per-message loops, and the rate of
one-shot calls on 64-byte inputs, measured in the same run.

(a) Batches: 100,000 messages of 64 bytes and 10,000 of 1 KiB, given as a list of bytes
    or as one 2-D numpy uint8 array (one message per row), hashed by
    - simdcrypt.blake3_many(messages) (one call, SIMD across messages; also with
      max_threads=AUTO),
    - a Python loop [blake3.blake3(m).digest() for m in messages] with the official
      `blake3` package (PyPI),
    - the same loop over simdcrypt.blake3.
    Reported in messages per second, and as ratios blake3_many / loop.
(b) One-shot calls on a 64-byte input: simdcrypt.blake3(m).digest(),
    blake3.blake3(m).digest() and hashlib.sha256(m).digest(), in calls per second, and as
    ratios simdcrypt / peer.

Each measurement repeats the call for a while and keeps the best of several repetitions
(time.perf_counter). Ratios above 1: simdcrypt is faster.

`simdcrypt bench` times one message per call; this script is kept for blake3_many, which
the harness does not time.

Usage (from the repository root, after `maturin develop --release -m crates/simdcrypt-py/Cargo.toml`):
    python benches/python/bench_batch.py [--quick] [--backend NAME]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import platform
import sys
import time
from types import ModuleType
from typing import Any, Callable, Optional

import simdcrypt
from timing import Settings, best_time, cpu_model

np: Optional[ModuleType]
try:
    np = importlib.import_module("numpy")
except ImportError:  # the list rows still run
    np = None

official: Optional[ModuleType]
try:
    official = importlib.import_module("blake3")
except ImportError:
    official = None

AUTO = simdcrypt.blake3.AUTO
# (message length, number of messages)
BATCHES = [(64, 100_000), (1024, 10_000)]


def rate(count: int, seconds: float) -> str:
    per_second = count / seconds
    if per_second >= 1e6:
        return f"{per_second / 1e6:.2f} M/s"
    return f"{per_second / 1e3:.0f} k/s"


def bench_batches(settings: Settings, backend: Optional[str]) -> None:
    options: dict[str, Any] = {} if backend is None else {"backend": backend}
    blake3_cls = simdcrypt.blake3
    print("### (a) Batches of messages: messages per second\n")
    header = ["messages", "input", "method", "simdcrypt", "ratio"]
    print("| " + " | ".join(header) + " |")
    print("|---|---|---|---:|---:|")
    for size, count in BATCHES:
        messages = [os.urandom(size) for _ in range(count)]
        label = f"{count:,} x {size} B"

        def ours_loop() -> object:
            return [blake3_cls(m, **options).digest() for m in messages]

        loops: dict[str, float] = {"loop over simdcrypt.blake3": best_time(ours_loop, settings)}
        if official is not None:
            official_cls = official.blake3
            loops["loop over blake3 (PyPI)"] = best_time(
                lambda: [official_cls(m).digest() for m in messages], settings
            )

        inputs: dict[str, Any] = {"list of bytes": messages}
        if np is not None:
            inputs["numpy 2-D uint8"] = np.frombuffer(b"".join(messages), dtype=np.uint8).reshape(count, size)
        for input_name, batch in inputs.items():
            for threads in (1, AUTO):
                t = best_time(lambda: simdcrypt.blake3_many(batch, max_threads=threads, **options), settings)
                method = "blake3_many" + (", max_threads=AUTO" if threads == AUTO else "")
                ratios = "; ".join(
                    f"{loop_t / t:.1f}x {name.split(' over ')[1]} loop" for name, loop_t in loops.items()
                )
                print(f"| {label} | {input_name} | {method} | {rate(count, t)} | {ratios} |", flush=True)
        for name, t in loops.items():
            print(f"| {label} | list of bytes | {name} | {rate(count, t)} | |", flush=True)
    print()
    print("ratio = blake3_many's rate / the loop's rate (above 1: blake3_many is faster).")
    print()


def bench_one_shot(settings: Settings, backend: Optional[str]) -> None:
    data = os.urandom(64)
    blake3_cls = simdcrypt.blake3
    if backend is None:
        ours: Callable[[], object] = lambda: blake3_cls(data).digest()  # noqa: E731
    else:
        ours = lambda: blake3_cls(data, backend=backend).digest()  # noqa: E731
    peers: dict[str, Callable[[], object]] = {}
    if official is not None:
        official_cls = official.blake3
        peers["blake3.blake3(m).digest() (PyPI)"] = lambda: official_cls(data).digest()
    sha256 = hashlib.sha256
    peers["hashlib.sha256(m).digest()"] = lambda: sha256(data).digest()

    print("### (b) One-shot calls on a 64-byte input: calls per second\n")
    print("| call | calls/s | simdcrypt / this |")
    print("|---|---:|---:|")
    t_ours = best_time(ours, settings)
    print(f"| simdcrypt.blake3(m).digest() | {rate(1, t_ours)} | 1.00x |", flush=True)
    for name, fn in peers.items():
        t = best_time(fn, settings)
        print(f"| {name} | {rate(1, t)} | {t / t_ours:.2f}x |", flush=True)
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (noisier numbers)")
    parser.add_argument(
        "--backend",
        choices=simdcrypt.backends()["blake3"]["supported"],
        help="force simdcrypt's backend (default: the best this CPU supports)",
    )
    args = parser.parse_args()
    settings = Settings(0.05, 3) if args.quick else Settings(0.3, 5)
    backend = args.backend or simdcrypt.backends()["blake3"]["selected"]

    print(f"- Python {platform.python_version()} ({sys.executable})")
    print(f"- CPU: {cpu_model()}, {os.cpu_count()} logical CPUs")
    print(f"- simdcrypt {simdcrypt.__version__}, backend {backend}")
    if official is not None:
        print(f"- blake3 (PyPI) {official.__version__}")
    else:
        print("- blake3 (PyPI) not installed: no comparison")
    print(f"- numpy {np.__version__}" if np else "- numpy not installed: no 2-D array rows")
    print(f"- best of {settings.reps} repetitions of ~{settings.seconds_per_rep:g} s each")
    print()
    bench_batches(settings, args.backend)
    bench_one_shot(settings, args.backend)


if __name__ == "__main__":
    main()
