#!/usr/bin/env python3
"""BENCHMARKS.md's "Command line against its peers": `simdcrypt sum` against b3sum,
openssl, rhash and sha256sum, defaults against defaults and one thread against one thread,
on cached files of 1 MiB, 256 MiB and 1 GiB and on 20,000 files of 0-16 KiB.

    cargo build --release -p simdcrypt-cli
    python3 benches/cli_peers.py [--b3sum PATH] [--b3sum-avx2 PATH] [--quick]

Each row runs ours and the peer in turn (order alternating between pairs), each side
`reps` times per pair, after one warm-up each and a check that both print the same digest;
it prints the medians of both sides' times and of the per-pair ratio **peer's time / ours**
(above 1: simdcrypt is faster) for wall time (with its range) and for CPU time (user +
sys of the children). `--b3sum-avx2` names a b3sum built without AVX-512 (b3sum's crates.io
source with `no_avx512 = ["blake3/no_avx512"]` added to its [features], built with
`--features no_avx512`): the AVX2 rows then hold both sides to AVX2 (ours through
SIMDCRYPT_DISABLE=avx512). Files go to $TMPDIR/simdcrypt-cli-peers (about 1.4 GiB, kept
for the next run). Run on a quiet machine; the CPU model and date come first.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd, reps, env):
    """Mean wall and CPU seconds of one run of `cmd` (a list, or a string for the shell)."""
    before, start = os.times(), time.perf_counter()
    for _ in range(reps):
        subprocess.run(cmd, shell=isinstance(cmd, str), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env, check=True)
    wall, after = time.perf_counter() - start, os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall / reps, cpu / reps


def first_field(cmd, env):
    """The first field of the first line a command prints: its digest."""
    out = subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True, env=env, check=True).stdout
    return out.split(b"\n", 1)[0].split()[0]


def fmt(seconds):
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def row(label, ours, peer, pairs, reps, ours_env=None):
    env_a = dict(os.environ, **(ours_env or {}))
    env_b = dict(os.environ)
    env_b.pop("SIMDCRYPT_DISABLE", None)
    if first_field(ours, env_a).lower() != first_field(peer, env_b).lower():
        print(f"| {label} | digests differ | | | |", flush=True)
        return
    run(ours, 1, env_a)
    run(peer, 1, env_b)
    walls, cpus, ours_t, peer_t = [], [], [], []
    for i in range(pairs):
        if i % 2 == 0:
            a, b = run(ours, reps, env_a), run(peer, reps, env_b)
        else:
            b, a = run(peer, reps, env_b), run(ours, reps, env_a)
        walls.append(b[0] / a[0])
        ours_t.append(a[0])
        peer_t.append(b[0])
        if a[1] > 0 and b[1] > 0:
            cpus.append(b[1] / a[1])
    cpu = f"{statistics.median(cpus):.2f}" if cpus else "n/a"
    print(f"| {label} | {fmt(statistics.median(ours_t))} | {fmt(statistics.median(peer_t))} | "
          f"{statistics.median(walls):.2f} ({min(walls):.2f}–{max(walls):.2f}) | {cpu} |", flush=True)


def make_files(work, quick):
    work.mkdir(parents=True, exist_ok=True)
    sizes = {"f1m": 1 << 20, "f256m": (32 if quick else 256) << 20, "f1g": (64 if quick else 1024) << 20}
    for name, size in sizes.items():
        path = work / name
        if not path.exists() or path.stat().st_size != size:
            with open(path, "wb") as f:
                for _ in range(size >> 20):
                    f.write(os.urandom(1 << 20))
    small = work / "small"
    count = 2000 if quick else 20000
    if not small.is_dir() or len(os.listdir(small)) != count:
        shutil.rmtree(small, ignore_errors=True)
        small.mkdir()
        rng = random.Random(7)
        for i in range(count):
            (small / f"f{i:05d}").write_bytes(os.urandom(rng.randint(0, 16384)))
    for path in list(work.iterdir()) + list(small.iterdir()):
        if path.is_file():
            path.read_bytes()  # into the page cache before any timing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simdcrypt", default=str(ROOT / "target/release/simdcrypt"))
    parser.add_argument("--b3sum", default=shutil.which("b3sum") or "b3sum")
    parser.add_argument("--b3sum-avx2", help="a b3sum built with blake3's no_avx512 feature")
    parser.add_argument("--quick", action="store_true", help="small files, few pairs: checks that it runs")
    args = parser.parse_args()
    s, b = args.simdcrypt, args.b3sum
    for tool in (s, b) + ((args.b3sum_avx2,) if args.b3sum_avx2 else ()):
        if not (shutil.which(tool) or os.access(tool, os.X_OK)):
            sys.exit(f"cli_peers.py: {tool} is not an executable (build the CLI with `cargo build --release "
                     "-p simdcrypt-cli`; b3sum: `cargo install b3sum` or --b3sum PATH)")
    work = Path(os.environ.get("TMPDIR", "/tmp")) / "simdcrypt-cli-peers"
    make_files(work, args.quick)
    os.chdir(work)
    model = next((l.split(":", 1)[1].strip() for l in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
                  if l.startswith("Model name")), "unknown CPU")
    print(f"{model}, {time.strftime('%Y-%m-%d', time.gmtime())}, load average {os.getloadavg()[0]:.2f}")
    q = 0.25 if args.quick else 1
    n = lambda pairs: max(2, int(pairs * q))
    print("| input: simdcrypt / peer | ours | peer | wall ratio (range) | CPU ratio |")
    print("|---|---:|---:|---:|---:|")
    row("1 MiB: `sum` / `b3sum`", [s, "sum", "f1m"], [b, "f1m"], n(20), 50)
    row("1 MiB: `sum -j1` / `b3sum --num-threads 1`", [s, "sum", "-j1", "f1m"], [b, "--num-threads", "1", "f1m"], n(20), 50)
    for name, pairs, reps in (("f256m", 10, 3), ("f1g", 6, 1)):
        row(f"{name}: `sum` / `b3sum`", [s, "sum", name], [b, name], n(pairs), reps)
        row(f"{name}: `sum -j1` / `b3sum --num-threads 1`", [s, "sum", "-j1", name], [b, "--num-threads", "1", name], n(pairs), reps)
    row("small/*: `sum` / `b3sum`", f"exec {s} sum small/*", f"exec {b} small/*", n(8), 1)
    row("small/*: `sum -j1` / `b3sum --num-threads 1`", f"exec {s} sum -j1 small/*", f"exec {b} --num-threads 1 small/*", n(8), 1)
    peers = [("openssl", ["openssl", "dgst", "-sha256", "-r"]), ("rhash", ["rhash", "--sha256"]), ("sha256sum", ["sha256sum"])]
    for tool, cmd in peers:
        if shutil.which(tool):
            row(f"f256m: `sum -a sha256` / `{' '.join(cmd)}`", [s, "sum", "-a", "sha256", "f256m"], cmd + ["f256m"], n(8), 2)
    if shutil.which("rhash"):
        row("f256m: `sum -a streebog256` / `rhash --gost12-256`", [s, "sum", "-a", "streebog256", "f256m"],
            ["rhash", "--gost12-256", "f256m"], n(4), 1)
        row("f256m: `sum -a gost94-test` / `rhash --gost94`", [s, "sum", "-a", "gost94-test", "f256m"],
            ["rhash", "--gost94", "f256m"], n(4), 1)
    if args.b3sum_avx2:
        avx2, b2 = {"SIMDCRYPT_DISABLE": "avx512"}, args.b3sum_avx2
        row("AVX2 both, f256m: `sum` / `b3sum`", [s, "sum", "f256m"], [b2, "f256m"], n(10), 3, avx2)
        row("AVX2 both, f256m: `sum -j1` / `b3sum --num-threads 1`", [s, "sum", "-j1", "f256m"], [b2, "--num-threads", "1", "f256m"], n(10), 3, avx2)
        row("AVX2 both, f1g: `sum` / `b3sum`", [s, "sum", "f1g"], [b2, "f1g"], n(6), 1, avx2)
        row("AVX2 both, f1g: `sum -j1` / `b3sum --num-threads 1`", [s, "sum", "-j1", "f1g"], [b2, "--num-threads", "1", "f1g"], n(6), 1, avx2)
        row("AVX2 both, 1 MiB: `sum -j1` / `b3sum --num-threads 1`", [s, "sum", "-j1", "f1m"], [b2, "--num-threads", "1", "f1m"], n(20), 50, avx2)
        row("AVX2 both, small/*: `sum` / `b3sum`", f"exec {s} sum small/*", f"exec {b2} small/*", n(6), 1, avx2)
    row("64 KiB reads (SIMDCRYPT_ASSUME_L2=512K), small/*: `sum` / `b3sum`", f"exec {s} sum small/*", f"exec {b} small/*",
        n(6), 1, {"SIMDCRYPT_ASSUME_L2": "512K"})


if __name__ == "__main__":
    sys.exit(main())
