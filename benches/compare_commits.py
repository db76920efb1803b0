"""Wall-clock before/after of the public API: the `api_time` example built from two
commits, run alternately (9 rounds of each workload, each run about 0.15 s), min and
median nanoseconds per call. Build each side first, e.g. for an old commit OLD:

    git worktree add --detach /tmp/before OLD
    mkdir -p /tmp/before/crates/simdcrypt/examples
    cp benches/examples/api_time.rs /tmp/before/crates/simdcrypt/examples/
    (cd /tmp/before && cargo build --release -p simdcrypt --example api_time --target-dir /tmp/tb)
    cargo build --release -p simdcrypt-bench --example api_time
    python3 benches/compare_commits.py /tmp/tb/release/examples/api_time target/release/examples/api_time

Run it on a quiet machine: the ratios are only as good as the machine is still.
"""

import statistics
import subprocess
import sys

WORKLOADS = [(w, n) for w in ("blake3", "sha256", "streebog512", "gost94", "highwayhash64", "salsa20") for n in (64, 4096, 1 << 20)]
WORKLOADS += [("blake3-batch", 64), ("sha256-blocks", 64), ("streebog-batch", 64)]


def per_call(binary: str, workload: str, size: int, iterations: int) -> float:
    out = subprocess.run([binary, workload, str(size), str(iterations), "time"], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    before, after = sys.argv[1], sys.argv[2]
    print(f"{'workload':16s} {'size':>8s} {'before ns':>12s} {'after ns':>12s}  after/before (min, median)")
    for workload, size in WORKLOADS:
        iterations = max(3, int(0.15e9 / max(per_call(after, workload, size, 10), 1.0)))
        a: list[float] = []
        b: list[float] = []
        for _ in range(9):
            a.append(per_call(before, workload, size, iterations))
            b.append(per_call(after, workload, size, iterations))
        print(
            f"{workload:16s} {size:8d} {min(a):12.1f} {min(b):12.1f}  "
            f"{min(b) / min(a):.3f}, {statistics.median(b) / statistics.median(a):.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
