"""simdcrypt.dask against local hashing: a file in the page cache hashed by a LocalCluster
of 1 and of 2 single-threaded worker processes, by simdcrypt.hash_file with 1 and 2
threads and (if a `simdcrypt` binary is found) by `simdcrypt sum -j 2`; and the per-task
overhead (a file split into 1 KiB parts, so the hashing is negligible). Rounds are
interleaved (each round times every peer once); the minimum and the median are printed.

For each Dask run it also prints the CPU time of this process (the client and, with a
LocalCluster, the scheduler, which runs in the client's process) and of the worker
processes (workers and their nannies), to show where the time besides hashing goes.

Run from the repository root:

    python benches/python/bench_dask.py [--size-mib 1024] [--rounds 3] [--part-mib 0,64,1024]

``--part-mib 0`` is the default part size (simdcrypt.dask.default_part_size of the file).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable

import distributed
import psutil

import simdcrypt
import simdcrypt.dask as sd

MIB = 1 << 20


def cpu_seconds(p: psutil.Process) -> float:
    try:
        t = p.cpu_times()
    except psutil.Error:
        return 0.0
    return float(t.user + t.system)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part-mib", default="0", help="comma-separated part sizes in MiB; 0: the default")
    parser.add_argument("--cli", default=os.environ.get("SIMDCRYPT_CLI") or shutil.which("simdcrypt"))
    parser.add_argument("--dir", default=None, help="where to write the test file (default: a temporary folder)")
    args = parser.parse_args()
    size = args.size_mib * MIB
    parts = [int(p) * MIB or None for p in args.part_mib.split(",")]
    me = psutil.Process()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
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
        peers: dict[str, Callable[[], object]] = {
            "simdcrypt.hash_file, 1 thread": lambda: simdcrypt.hash_file(path),
            "simdcrypt.hash_file, 2 threads": lambda: simdcrypt.hash_file(path, max_threads=2),
        }
        if args.cli:
            cmd = [args.cli, "sum", "-j", "2", path]
            peers["simdcrypt sum -j 2"] = lambda: subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        # Idle: what the two clusters cost while nothing runs (heartbeats, monitors), to
        # tell apart from what a run costs.
        peers["idle (sleep 0.3 s)"] = lambda: time.sleep(0.3)
        dask_peers = {"idle (sleep 0.3 s)"}
        for part in parts:
            label = f"{part // MIB} MiB parts" if part else f"default parts ({sd.default_part_size(size) // MIB} MiB)"
            for n, c in clients.items():
                name = f"simdcrypt.dask, {n} worker(s), {label}"
                dask_peers.add(name)
                peers[name] = lambda c=c, part=part: (  # type: ignore[misc]
                    sd.hash_file(path, client=c, part_size=part, progress=False) == expected or 1 / 0
                )
        times: dict[str, list[float]] = {name: [] for name in peers}
        cpu: dict[str, list[tuple[float, float]]] = {name: [] for name in dask_peers}
        overhead: list[float] = []
        for _ in range(args.rounds):
            for name, fn in peers.items():
                kids = me.children(recursive=True)
                before = [cpu_seconds(k) for k in kids]
                own = cpu_seconds(me)
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
                if name in cpu:
                    workers = sum(cpu_seconds(k) for k in kids) - sum(before)
                    cpu[name].append((cpu_seconds(me) - own, workers))
            # Per-task overhead: 1024 parts of 1 KiB on 2 workers; the hashing is negligible.
            start = time.perf_counter()
            sd.hash_file(small, client=clients[2], part_size=1024, progress=False)
            overhead.append((time.perf_counter() - start) / 1024 * 1e3)
        print(f"{size // MIB} MiB, {args.rounds} interleaved rounds: min / median")
        for name, ts in times.items():
            lo, med = min(ts), statistics.median(ts)
            line = f"{name:55s} {lo:7.3f} / {med:7.3f} s  {size / lo / 1e9:6.2f} GB/s (min)"
            if name in cpu:
                own_cpu = statistics.median(c for c, _ in cpu[name])
                worker_cpu = statistics.median(w for _, w in cpu[name])
                line += f"  cpu: client+scheduler {own_cpu:.3f} s, workers {worker_cpu:.3f} s (medians)"
            print(line)
        print(f"{'overhead per task, 2 workers (ms)':55s} {min(overhead):7.3f} / {statistics.median(overhead):7.3f}")
        for c in clients.values():
            c.close()
        for cl in clusters.values():
            cl.close()


if __name__ == "__main__":
    main()
