"""What one simdcrypt.dask task costs besides hashing: a 1 MiB file split into 1024 parts
of 1 KiB (the hashing is negligible) on a LocalCluster of 2 single-threaded worker
processes; per task, the wall time and the CPU time of this process (the client, and the
scheduler and nannies that a LocalCluster runs in it) and of the worker processes, min and
median of a few calls. CPU time is the figure to compare on a shared machine. To compare
two versions of the package, run this with each, alternately:

    python benches/python/dask_task_overhead.py [--calls 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import distributed
import psutil

import simdcrypt
import simdcrypt.dask as sd


def cpu_seconds(p: psutil.Process) -> float:
    t = p.cpu_times()
    return float(t.user + t.system)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=4)
    args = parser.parse_args()
    me = psutil.Process()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "small")
        with open(path, "wb") as f:
            f.write(os.urandom(1 << 20))
        expected = simdcrypt.hash_file(path)
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster, distributed.Client(cluster) as c:
            sd.hash_file(path, client=c, progress=False, part_size=1024)  # warm up
            runs = []
            for _ in range(args.calls):
                time.sleep(0.5)  # the previous call's tasks released
                kids = me.children(recursive=True)
                workers, own, start = sum(cpu_seconds(k) for k in kids), cpu_seconds(me), time.perf_counter()
                assert sd.hash_file(path, client=c, progress=False, part_size=1024) == expected
                wall = time.perf_counter() - start
                runs.append((wall, cpu_seconds(me) - own, sum(cpu_seconds(k) for k in kids) - workers))
    print(f"simdcrypt.dask from {sd.__file__}; per task, min / median of {args.calls} calls:")
    for i, name in enumerate(("wall", "client+scheduler+nannies CPU", "worker processes CPU")):
        values = [run[i] / 1024 * 1e3 for run in runs]
        print(f"  {name:30s} {min(values):6.2f} / {statistics.median(values):6.2f} ms")


if __name__ == "__main__":
    main()
