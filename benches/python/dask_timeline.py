"""Where the time of a simdcrypt.dask run goes besides hashing: the parts of a file in the
page cache are hashed on a LocalCluster of single-threaded worker processes by a task that
records when it started and ended (wall clock, shared by the processes of one machine),
and the client records when it submitted and when it had all results. Printed per part
size, medians over the rounds:

- start: from the client's submit to the first task's start on the slowest worker;
- gaps: the time workers sat between two of their tasks (the scheduler's round trip);
- idle at end: how long the worker that finished first waited for the last;
- finish: from the last task's end to the results at the client;
- hashing: the tasks' own time (read + hash), summed over the workers.

    python benches/python/dask_timeline.py [--size-mib 4096] [--workers 2] [--rounds 5] [--part-mib 64,256,1024,2048]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from typing import Any

import distributed
from dask.base import tokenize

import simdcrypt
import simdcrypt.dask as sd

MIB = 1 << 20


def timed_subtree(*args: Any) -> tuple[bytes, int, float, float]:
    """simdcrypt.dask's task, with its process and start and end times."""
    start = time.time()
    cv = sd._subtree_task(*args)
    return cv, os.getpid(), start, time.time()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=4096)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--part-mib", default="64,256,1024,2048")
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    size = args.size_mib * MIB
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = os.path.join(tmp, "data")
        with open(path, "wb") as f:
            for i in range(args.size_mib):
                f.write(bytes([i % 251]) * MIB)
        expected = simdcrypt.hash_file(path, max_threads=2)
        st = os.stat(path)
        version = f"mtime={st.st_mtime}"
        with distributed.LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster, distributed.Client(cluster) as c:
            rows: dict[int, list[dict[str, float]]] = {}
            for r in range(args.rounds):
                for part_mib in (int(p) for p in args.part_mib.split(",")):
                    part = part_mib * MIB
                    offsets = list(range(0, size, part))
                    lengths = [min(part, size - o) for o in offsets]
                    k = len(offsets)
                    keys = [f"timeline-{tokenize(path, o, n, r)}" for o, n in zip(offsets, lengths)]
                    t0 = time.time()
                    futures = c.map(
                        timed_subtree, [path] * k, offsets, lengths, [size] * k, [version] * k, [{}] * k, [{}] * k,
                        key=keys, pure=True,
                    )  # fmt: skip
                    results = c.gather(futures)
                    t1 = time.time()
                    digest = sd._merge_parts([cv for cv, _, _, _ in results], {}, 32)
                    assert digest == expected
                    del futures
                    by_worker: dict[int, list[tuple[float, float]]] = {}
                    for _, pid, s, e in results:
                        by_worker.setdefault(pid, []).append((s, e))
                    gaps = 0.0
                    for spans in by_worker.values():
                        spans.sort()
                        gaps += sum(b[0] - a[1] for a, b in zip(spans, spans[1:]))
                    ends = [max(e for _, e in spans) for spans in by_worker.values()]
                    rows.setdefault(part_mib, []).append(
                        {
                            "total": t1 - t0,
                            "start": max(min(s for s, _ in spans) for spans in by_worker.values()) - t0,
                            "gaps": gaps,
                            "idle at end": max(ends) - min(ends) if len(ends) == args.workers else float("nan"),
                            "finish": t1 - max(ends),
                            "hashing": sum(e - s for _, _, s, e in results),
                            "workers used": len(by_worker),
                        }
                    )
                    time.sleep(0.2)
    print(f"{args.size_mib} MiB on {args.workers} single-threaded workers, medians of {args.rounds} rounds (seconds)")
    for part_mib, runs in rows.items():
        med = {name: statistics.median(run[name] for run in runs) for name in runs[0]}
        best = min(run["total"] for run in runs)
        print(
            f"parts {part_mib:5d} MiB ({-(-size // (part_mib * MIB)):4d}): total {med['total']:.3f} (min {best:.3f}), "
            f"start {med['start']:.4f}, gaps {med['gaps']:.4f}, idle at end {med['idle at end']:.4f}, "
            f"finish {med['finish']:.4f}, hashing {med['hashing']:.3f}, workers used {med['workers used']:.0f}"
        )


if __name__ == "__main__":
    main()
