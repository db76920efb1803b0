"""simdcrypt.dask against local hashing: a file in the page cache hashed by a LocalCluster
of 1 and of 2 single-threaded worker processes, and by simdcrypt.hash_file with 1 and 2
threads; and the per-task overhead (a file split into 1 KiB parts, so the hashing is
negligible). Rounds are interleaved (each round times every peer once) and the best round
is kept. Run from the repository root:

    python benches/python/bench_dask.py [--size-mib 1024] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import distributed

import simdcrypt
import simdcrypt.dask as sd

MIB = 1 << 20


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part-mib", type=int, default=64)
    args = parser.parse_args()
    size = args.size_mib * MIB
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data")
        with open(path, "wb") as f:
            for i in range(args.size_mib):
                f.write(bytes([i % 251]) * MIB)  # written, so it is in the page cache
        small = os.path.join(tmp, "small")
        with open(small, "wb") as f:
            f.write(os.urandom(MIB))
        expected = simdcrypt.hash_file(path, max_threads=2)
        clusters = {
            n: distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")
            for n in (1, 2)
        }
        clients = {n: distributed.Client(c) for n, c in clusters.items()}
        best: dict[str, float] = {}
        part = args.part_mib * MIB
        for _ in range(args.rounds):
            peers = {
                "simdcrypt.hash_file, 1 thread": lambda: simdcrypt.hash_file(path),
                "simdcrypt.hash_file, 2 threads": lambda: simdcrypt.hash_file(path, max_threads=2),
            }
            for n, c in clients.items():
                peers[f"simdcrypt.dask, {n} worker(s)"] = lambda c=c: (  # type: ignore[misc]
                    sd.hash_file(path, client=c, part_size=part, progress=False) == expected or 1 / 0
                )
            for name, fn in peers.items():
                best[name] = min(best.get(name, float("inf")), timed(fn))
            # Per-task overhead: 1024 parts of 1 KiB on 2 workers; the hashing is negligible.
            t = timed(lambda: sd.hash_file(small, client=clients[2], part_size=1024, progress=False))
            best["overhead per task, 2 workers (ms)"] = min(best.get("overhead per task, 2 workers (ms)", 1e9), t / 1024 * 1e3)
        for name, t in best.items():
            if name.startswith("overhead"):
                print(f"{name:40s} {t:8.3f}")
            else:
                print(f"{name:40s} {t:8.3f} s  {size / t / 1e9:6.2f} GB/s")
        for c in clients.values():
            c.close()
        for cl in clusters.values():
            cl.close()


if __name__ == "__main__":
    main()
