"""blake3_many over a list of 100,000 64-byte ``bytes`` against the same messages as a
numpy array, with the minor page faults of each call, in the state this process is put in
first (the list path used to vary with what ran before).

    python benches/python/bench_batch_inputs.py MODE   # one process per run

MODE: ``plain`` (nothing before), ``numpy_first`` (the array timed first), ``churn``
(300,000 small objects made and half freed before the list, so that its items lie
scattered), ``bigalloc`` (an 8 MiB block freed before: raises glibc's dynamic mmap and
trim thresholds). Prints the best and median of REPS calls (environment, default 15).
Run several processes, interleaved with a baseline build, on a quiet machine.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from typing import Any, Callable

import numpy as np

import simdcrypt

N, WIDTH = 100_000, 64
REPS = int(os.environ.get("REPS", "15"))


def measure(f: Callable[[], Any]) -> tuple[float, float, int]:
    """Best and median milliseconds, median minor faults per call."""
    times, faults = [], []
    for _ in range(REPS):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    times.sort()
    faults.sort()
    return times[0] * 1e3, times[REPS // 2] * 1e3, faults[REPS // 2]


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
    arr = np.random.default_rng(1).integers(0, 256, size=(N, WIDTH), dtype=np.uint8)
    junk: list[bytes] = []
    if mode == "churn":
        junk = [os.urandom(WIDTH) for _ in range(3 * N)]
        del junk[::2]
    messages = [bytes(row) for row in arr]
    del junk
    if mode == "bigalloc":
        block = bytearray(8 << 20)
        del block
    assert simdcrypt.blake3_many(messages) == simdcrypt.blake3_many(arr)
    runs = {"numpy": lambda: simdcrypt.blake3_many(arr), "list": lambda: simdcrypt.blake3_many(messages)}
    order = ["numpy", "list"] if mode == "numpy_first" else ["list", "numpy"]
    result = {name: measure(runs[name]) for name in order}
    (lb, lm, lf), (nb, nm, nf) = result["list"], result["numpy"]
    print(
        f"{mode:12s} list best {lb:.2f} ms median {lm:.2f} ms faults/call {lf} | "
        f"numpy best {nb:.2f} ms median {nm:.2f} ms faults/call {nf} | best ratio {lb / nb:.2f}"
    )


if __name__ == "__main__":
    main()
