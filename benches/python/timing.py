"""Timing helpers shared by the scripts in benches/python (run them from the repository root).

Each measurement repeats a call for a while and keeps the best of several repetitions
(time.perf_counter); see the scripts' docstrings for what each one measures.
"""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass
from typing import Callable

KIB = 1024
MIB = 1024 * 1024
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
