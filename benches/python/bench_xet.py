#!/usr/bin/env python3
"""The Xet file hash against hf_xet (PyPI `hf-xet`), in one process, on a cached file.

    python benches/python/bench_xet.py [--size-mib 1024] [--reps 5] [--quick]

Writes a pseudo-random file (kept in $TMPDIR/simdcrypt-bench-xet for the next run), checks
that `simdcrypt.xet_hash` and `hf_xet.hash_files` agree on it, then times, in turn (A B A B
...), `hf_xet.hash_files([path])` against `simdcrypt.xet_hash(path)` on one thread and with
the default threads, and prints the median seconds and the median per-pair ratio
hf_xet / simdcrypt (above 1: simdcrypt is faster), with the CPU model first. Run on a
quiet machine.
"""
import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import hf_xet
import simdcrypt


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def hf_hash(path: str) -> str:
    info = hf_xet.hash_files([path])[0]
    return info if isinstance(info, str) else info.hash


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mib", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    size = (16 if args.quick else args.size_mib) << 20
    folder = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "simdcrypt-bench-xet"
    folder.mkdir(exist_ok=True)
    path = folder / f"random-{size >> 20}MiB.bin"
    if not path.exists() or path.stat().st_size != size:
        with open(path, "wb") as f:
            for _ in range(size >> 20):
                f.write(os.urandom(1 << 20))
    p = str(path)
    assert simdcrypt.xet_hash(p) == hf_hash(p), "simdcrypt and hf_xet disagree"
    print(f"{cpu_model()}, {os.cpu_count()} CPUs, file of {size >> 20} MiB (cached), hf-xet "
          f"{getattr(hf_xet, '__version__', '?')}{'  QUICK: figures mean nothing' if args.quick else ''}")
    print()
    print("| row | simdcrypt s | hf_xet s | hf_xet / simdcrypt |")
    print("|---|---|---|---|")
    for label, threads in [("one thread", 1), ("default threads", None)]:
        ours, theirs, ratios = [], [], []
        for rep in range(args.reps + 1):
            t0 = time.perf_counter()
            simdcrypt.xet_hash(p, threads=threads)
            t1 = time.perf_counter()
            hf_hash(p)
            t2 = time.perf_counter()
            if rep == 0:
                continue  # warm-up pair
            ours.append(t1 - t0)
            theirs.append(t2 - t1)
            ratios.append((t2 - t1) / (t1 - t0))
        print(f"| {label} | {statistics.median(ours):.3f} | {statistics.median(theirs):.3f} | "
              f"{statistics.median(ratios):.2f}x |")


if __name__ == "__main__":
    main()
