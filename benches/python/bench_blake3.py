#!/usr/bin/env python3
"""Throughput of simdcrypt.blake3 against its peers, measured in the same run.

Peers: the official `blake3` package (PyPI), hashlib.sha256 and hashlib.blake2b. Each
measurement hashes one buffer per call (construct, update, digest), repeats the call
enough times to last a while, and keeps the best of several repetitions
(time.perf_counter). Large sizes are also measured with max_threads=AUTO for the two
BLAKE3 implementations (hashlib's functions are single-threaded).

Prints a markdown table: calls/s for tiny inputs, MB/s (10**6 bytes/s) otherwise, and the
ratio simdcrypt / peer (above 1: simdcrypt is faster).

Usage (from the repository root, after `maturin develop --release -m crates/simdcrypt-py/Cargo.toml`):
    python benches/python/bench_blake3.py [--quick] [--backend NAME]
    python benches/python/bench_blake3.py --native-reference
        (only simdcrypt.blake3 on 10**8 bytes, one thread: compare with
         `cargo bench -p simdcrypt-bench --bench blake3 -- blake3/100MB`)
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import platform
import sys
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Optional

import simdcrypt

official: Optional[ModuleType]
try:
    official = importlib.import_module("blake3")
except ImportError:  # the comparison is the point, but run without it if need be
    official = None

KIB = 1024
MIB = 1024 * 1024
SIZES = [8, 64, KIB, 8 * KIB, 64 * KIB, MIB, 16 * MIB]
# Sizes at or above this are also measured multi-threaded.
THREADED_FROM = MIB
# Below this, report calls per second: throughput says little about per-call overhead.
CALLS_BELOW = KIB

HashFn = Callable[[bytes], bytes]


@dataclass
class Settings:
    seconds_per_rep: float
    reps: int


def best_time(fn: Callable[[], object], settings: Settings) -> float:
    """The best, over `settings.reps` repetitions, of the mean time of one call of `fn`."""
    fn()  # warm up (allocations, thread pool start-up, lazy CPU detection)
    # Calibrate: how many calls fill one repetition.
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= settings.seconds_per_rep / 4 or calls >= 1 << 24:
            break
        calls *= 4
    calls = max(1, int(calls * settings.seconds_per_rep / max(elapsed, 1e-9)))
    best = float("inf")
    for _ in range(settings.reps):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def best_time_per_call(fn: HashFn, data: bytes, settings: Settings) -> float:
    """best_time of hashing `data` with `fn`."""
    return best_time(lambda: fn(data), settings)


def simdcrypt_fn(threads: int, backend: Optional[str]) -> HashFn:
    blake3_cls = simdcrypt.blake3
    # Only non-default options are passed: every keyword costs some parsing per call.
    options: dict[str, Any] = {}
    if threads != 1:
        options["max_threads"] = threads
    if backend is not None:
        options["backend"] = backend
    if not options:
        return lambda data: blake3_cls(data).digest()
    return lambda data: blake3_cls(data, **options).digest()


def official_fn(threads: int) -> Optional[HashFn]:
    if official is None:
        return None
    blake3_cls = official.blake3
    if threads == 1:
        return lambda data: blake3_cls(data).digest()
    return lambda data: blake3_cls(data, max_threads=threads).digest()


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def blake2b(data: bytes) -> bytes:
    return hashlib.blake2b(data).digest()


def size_label(n: int) -> str:
    if n >= MIB:
        return f"{n // MIB} MiB"
    if n >= KIB:
        return f"{n // KIB} KiB"
    return f"{n} B"


def rate_label(seconds: float, size: int) -> str:
    if size < CALLS_BELOW:
        return f"{1 / seconds / 1e6:.2f} M calls/s"
    return f"{size / seconds / 1e6:,.0f} MB/s"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (noisier numbers)")
    parser.add_argument(
        "--backend",
        choices=simdcrypt.backends()["blake3"]["supported"],
        help="force simdcrypt's backend (default: the best this CPU supports)",
    )
    parser.add_argument(
        "--native-reference",
        action="store_true",
        help="measure only simdcrypt.blake3 on 10**8 bytes, one thread (binding overhead vs Rust)",
    )
    args = parser.parse_args()
    settings = Settings(0.02, 3) if args.quick else Settings(0.2, 5)
    if args.native_reference:
        data = os.urandom(100_000_000)
        seconds = best_time_per_call(simdcrypt_fn(1, args.backend), data, Settings(0.5, 20))
        print(f"simdcrypt.blake3, 10**8 bytes, one thread: {seconds * 1e3:.3f} ms ({len(data) / seconds / 1e9:.3f} GB/s)")
        return
    backend = args.backend or simdcrypt.backends()["blake3"]["selected"]

    print(f"- Python {platform.python_version()} ({sys.executable})")
    print(f"- CPU: {cpu_model()}, {os.cpu_count()} logical CPUs")
    print(f"- simdcrypt {simdcrypt.__version__}, backend {backend}")
    if official is not None:
        print(f"- blake3 (PyPI) {official.__version__}")
    else:
        print("- blake3 (PyPI) not installed: its columns are empty")
    print(f"- best of {settings.reps} repetitions of ~{settings.seconds_per_rep:g} s each")
    print()

    header = [
        "size", "max_threads", "simdcrypt.blake3", "blake3 (PyPI)", "ratio",
        "hashlib.sha256", "ratio", "hashlib.blake2b", "ratio",
    ]  # fmt: skip
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(header) - 2)) + "|")

    data_all = os.urandom(max(SIZES))
    for size in SIZES:
        data = data_all[:size]
        peers_1t = {
            "sha256": best_time_per_call(sha256, data, settings),
            "blake2b": best_time_per_call(blake2b, data, settings),
        }
        thread_settings = [1, simdcrypt.blake3.AUTO] if size >= THREADED_FROM else [1]
        for threads in thread_settings:
            ours = best_time_per_call(simdcrypt_fn(threads, args.backend), data, settings)
            official_call = official_fn(threads)
            theirs = best_time_per_call(official_call, data, settings) if official_call else None
            cells = [
                size_label(size),
                "AUTO" if threads == simdcrypt.blake3.AUTO else str(threads),
                rate_label(ours, size),
                rate_label(theirs, size) if theirs else "—",
                f"{theirs / ours:.2f}×" if theirs else "—",
            ]
            for name in ("sha256", "blake2b"):
                peer = peers_1t[name]
                cells += [rate_label(peer, size), f"{peer / ours:.2f}×"]
            print("| " + " | ".join(cells) + " |", flush=True)
    print()
    print("ratio = simdcrypt throughput / peer throughput (above 1: simdcrypt is faster);")
    print("hashlib's functions are single-threaded, so their columns repeat on AUTO rows.")


if __name__ == "__main__":
    main()
