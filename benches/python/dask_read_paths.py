"""How a simdcrypt.dask task should read a local part: a file in the page cache hashed in
parts (as the tasks do, in one process) through a plain memory map, a map with
MAP_POPULATE, with MADV_SEQUENTIAL or MADV_WILLNEED, and os.preadv into a reused buffer;
and the hashing alone (the same mapped part again and again: no page faults). Prints the
CPU time of each, min and median of interleaved rounds (CPU time: fair on a shared machine).

    python benches/python/dask_read_paths.py FILE [--part-mib 64] [--rounds 7]
"""

from __future__ import annotations

import argparse
import mmap
import os
import statistics
import time
from collections.abc import Callable

import simdcrypt


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--part-mib", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    path, part = args.file, args.part_mib << 20
    size = os.path.getsize(path)
    buf = bytearray(part)

    def mapped(flags: int = 0, advice: int | None = None) -> Callable[[int, int], bytes]:
        def run(off: int, n: int) -> bytes:
            with open(path, "rb") as f:
                if flags:
                    m = mmap.mmap(f.fileno(), n, flags=mmap.MAP_SHARED | flags, prot=mmap.PROT_READ, offset=off)
                else:
                    m = mmap.mmap(f.fileno(), n, offset=off, access=mmap.ACCESS_READ)
                with m:
                    if advice is not None:
                        m.madvise(advice)
                    return simdcrypt.blake3_subtree(m, offset=off)

        return run

    def pread(off: int, n: int) -> bytes:
        view = memoryview(buf)[:n]
        fd = os.open(path, os.O_RDONLY)
        try:
            os.preadv(fd, [view], off)
        finally:
            os.close(fd)
        return simdcrypt.blake3_subtree(view, offset=off)

    ways: dict[str, Callable[[int, int], bytes]] = {
        "mmap": mapped(),
        "mmap MAP_POPULATE": mapped(flags=mmap.MAP_POPULATE),
        "mmap MADV_SEQUENTIAL": mapped(advice=mmap.MADV_SEQUENTIAL),
        "mmap MADV_WILLNEED": mapped(advice=mmap.MADV_WILLNEED),
        "os.preadv, reused buffer": pread,
    }
    n = min(part, size)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), n, access=mmap.ACCESS_READ) as m:
        simdcrypt.blake3_subtree(m, offset=0)  # mapped once: no more page faults

        def hash_only(off: int, length: int) -> bytes:
            return simdcrypt.blake3_subtree(m[:0] if length == 0 else m, offset=0)

        ways["hashing alone (mapped part again)"] = hash_only
        cpu: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, fn in ways.items():
                start = time.process_time()
                for off in range(0, size, part):
                    fn(off, min(part, size - off))
                cpu[name].append(time.process_time() - start)
    print(f"{size >> 20} MiB in parts of {args.part_mib} MiB, CPU seconds, min / median of {args.rounds}")
    for name, ts in cpu.items():
        print(f"  {name:36s} {min(ts):.3f} / {statistics.median(ts):.3f}")


if __name__ == "__main__":
    main()
