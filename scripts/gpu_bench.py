#!/usr/bin/env python3
"""Benchmarks of the CUDA backend against the CPU backends on the same machine, run by
scripts/gpu-check.sh on a GPU machine (also runnable by hand: python3 scripts/gpu_bench.py).

Each case is timed three ways where it applies: device-resident (input a CuPy array, or
PyTorch tensor, digests into an out= device array), host to host (numpy input, bytes out,
copies included), and the CPU backends with all cores (max_threads = os.cpu_count()).
Each figure is the best of a few runs after a warm-up (the warm-up includes NVRTC's
compilation of the kernel file). Every GPU result is compared with the CPU's. Figures are
written to the JSON file after every case, so a run cut short still leaves what it
measured. --budget (seconds) skips the cases that would not fit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

import numpy as np

import simdcrypt

CPUS = os.cpu_count() or 1
RESULTS: dict[str, Any] = {"cases": []}
DEADLINE = float("inf")


def log(*args: Any) -> None:
    print(*args, flush=True)


def save(path: str) -> None:
    with open(path, "w") as f:
        json.dump(RESULTS, f, indent=1)


def best(fn: Callable[[], Any], reps: int = 3, min_total: float = 0.0) -> tuple[float, Any]:
    """The fastest of `reps` timed runs (stopping early past the deadline) and the last
    result."""
    times = []
    result = None
    for _ in range(reps):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
        if time.monotonic() > DEADLINE or sum(times) > max(min_total, 20.0):
            break
    return min(times), result


def filled(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """A uint8 array of `shape`, random bytes tiled from a 16 MiB block (fast to make)."""
    rng = np.random.default_rng(seed)
    out = np.empty(shape, dtype=np.uint8)
    flat = out.reshape(-1)
    block = rng.integers(0, 256, size=min(flat.size, 16 << 20), dtype=np.uint8)
    for i in range(0, flat.size, block.size):
        n = min(block.size, flat.size - i)
        flat[i : i + n] = block[:n]
    if flat.size:
        flat[:: 4099] = rng.integers(0, 256, size=flat[::4099].size, dtype=np.uint8)  # rows differ
    return out


def device_lib() -> tuple[str, Any] | None:
    try:
        import cupy  # type: ignore[import-not-found]

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return "cupy", cupy
    except Exception:
        pass
    try:
        import torch  # type: ignore[import-not-found]

        if torch.cuda.is_available():
            return "torch", torch
    except Exception:
        pass
    return None


def to_device(lib: tuple[str, Any], host: np.ndarray) -> Any:
    name, m = lib
    return m.asarray(host) if name == "cupy" else m.from_numpy(host).cuda()


def zeros_device(lib: tuple[str, Any], n: int) -> Any:
    name, m = lib
    return m.zeros(n, dtype=m.uint8) if name == "cupy" else m.zeros(n, dtype=m.uint8, device="cuda")


def to_host(lib: tuple[str, Any], dev: Any) -> bytes:
    name, m = lib
    return bytes(m.asnumpy(dev)) if name == "cupy" else bytes(dev.cpu().numpy())


def free(lib: tuple[str, Any] | None) -> None:
    if lib is None:
        return
    name, m = lib
    if name == "cupy":
        m.get_default_memory_pool().free_all_blocks()
    else:
        m.cuda.empty_cache()


def case(
    name: str,
    nbytes: int,
    host_input: Any,
    cpu: Callable[[Any], bytes],
    gpu: Callable[..., Any],
    out_len: int | None,
    lib: tuple[str, Any] | None,
    device_input: Callable[[], Any] | None = None,
    estimate_s: float = 5.0,
) -> None:
    """Times one workload on the GPU (device-resident and host to host) and the CPU."""
    if time.monotonic() + estimate_s > DEADLINE:
        log(f"{name}: skipped (budget)")
        RESULTS["cases"].append({"name": name, "skipped": "budget"})
        return
    entry: dict[str, Any] = {"name": name, "bytes": nbytes}
    gbps = lambda s: round(nbytes / s / 1e9, 3)  # noqa: E731
    try:
        t_cpu, expected = best(lambda: cpu(host_input), reps=2)
        entry.update(cpu_threads=CPUS, cpu_s=round(t_cpu, 5), cpu_GBps=gbps(t_cpu))
        gpu(host_input)  # warm-up: NVRTC compiles the module here
        t_host, got = best(lambda: gpu(host_input))
        entry.update(gpu_host_s=round(t_host, 5), gpu_host_GBps=gbps(t_host), host_match=got == expected)
        if lib is not None and time.monotonic() < DEADLINE:
            dev = device_input() if device_input else to_device(lib, host_input)
            if out_len is not None:
                out = zeros_device(lib, out_len)
                gpu(dev, out=out)
                t_dev, _ = best(lambda: gpu(dev, out=out))
                entry.update(device_match=to_host(lib, out) == expected)
            else:
                gpu(dev)
                t_dev, got = best(lambda: gpu(dev))
                entry.update(device_match=got == expected)
            entry.update(gpu_device_s=round(t_dev, 5), gpu_device_GBps=gbps(t_dev), device_lib=lib[0])
            del dev
            free(lib)
        if "gpu_device_s" in entry:
            entry["speedup_device_vs_cpu"] = round(t_cpu / entry["gpu_device_s"], 2)
        entry["speedup_host_vs_cpu"] = round(t_cpu / t_host, 2)
    except Exception as e:  # one failed case must not lose the others
        entry["error"] = f"{type(e).__name__}: {e}"
    RESULTS["cases"].append(entry)
    log(json.dumps(entry))


def main() -> int:
    global DEADLINE
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default="bench.json")
    parser.add_argument("--budget", type=float, default=220.0, help="seconds")
    parser.add_argument("--quick", action="store_true", help="sizes / 64 (a smoke test)")
    parser.add_argument(
        "--ignore-status",
        action="store_true",
        help="run even if backends()['cuda'] says unavailable (smoke test of this script on the "
        "host emulation: SIMDCRYPT_CUDA_EMULATION=1 with an extension built with cuda-emulation)",
    )
    args = parser.parse_args()
    DEADLINE = time.monotonic() + args.budget
    q = 64 if args.quick else 1
    cuda = simdcrypt.backends()["cuda"]
    RESULTS.update(simdcrypt_cuda=cuda, cpus=CPUS, python=sys.version.split()[0], quick=args.quick)
    log(json.dumps(cuda))
    if not cuda["available"] and not args.ignore_status:
        log("the cuda backend is unavailable:", cuda["reason"])
        save(args.json)
        return 1
    lib = device_lib()
    RESULTS["device_lib"] = lib[0] if lib else None
    T = CPUS

    # Batches of 1 KiB messages: Streebog-512, GOST R 34.11-94, BLAKE3.
    rows = filled((65536 // q, 1024), 1)
    n = rows.shape[0]
    case("streebog512 65536 x 1 KiB", rows.nbytes, rows,
         lambda m: simdcrypt.streebog_many(m, bits=512, max_threads=T),
         lambda m, **k: simdcrypt.streebog_many(m, bits=512, backend="cuda", **k), n * 64, lib)
    save(args.json)
    case("gost94 65536 x 1 KiB", rows.nbytes, rows,
         lambda m: simdcrypt.gost94_many(m, max_threads=T),
         lambda m, **k: simdcrypt.gost94_many(m, backend="cuda", **k), n * 32, lib)
    save(args.json)
    rows3 = filled((262144 // q, 1024), 3)
    n3 = rows3.shape[0]
    case("blake3 262144 x 1 KiB", rows3.nbytes, rows3,
         lambda m: simdcrypt.blake3_many(m, max_threads=T),
         lambda m, **k: simdcrypt.blake3_many(m, backend="cuda", **k), n3 * 32, lib)
    del rows3
    save(args.json)

    # SHA-256 of 64-byte blocks (hashtree), 2^22 blocks = 256 MiB.
    blocks = filled(((1 << 22) // q * 64,), 4)
    case("sha256 2^22 x 64-byte blocks", blocks.nbytes, blocks,
         lambda b: simdcrypt.sha256_many(b, max_threads=T),
         lambda b, **k: simdcrypt.sha256_many(b, backend="cuda", **k), blocks.nbytes // 2, lib)
    del blocks
    save(args.json)

    # Merkle root of 2^24 leaves (512 MiB).
    leaves = filled(((1 << 24) // q * 32,), 5)
    case("merkle_root 2^24 leaves", leaves.nbytes, leaves,
         lambda b: simdcrypt.merkle_root(b, max_threads=T),
         lambda b, **k: simdcrypt.merkle_root(b, backend="cuda", **k), None, lib, estimate_s=8)
    del leaves
    save(args.json)

    # BLAKE3, one large input (1 GiB): GPU, and the CPU at 1, 2, 4, 8, 16 threads, b3sum.
    big = filled(((1 << 30) // q,), 6)
    case("blake3 one 1 GiB input", big.nbytes, big,
         lambda b: simdcrypt.blake3_digest(b, max_threads=T),
         lambda b, **k: simdcrypt.blake3_digest(b, backend="cuda", **k), None, lib, estimate_s=8)
    threads: dict[str, Any] = {}
    for t in (1, 2, 4, 8, 16):
        if time.monotonic() + 3 > DEADLINE:
            break
        s, _ = best(lambda: simdcrypt.blake3_digest(big, max_threads=t), reps=2)
        threads[str(t)] = {"s": round(s, 5), "GBps": round(big.nbytes / s / 1e9, 3)}
    RESULTS["blake3_1GiB_cpu_threads"] = threads
    log("blake3 1 GiB on the CPU by threads:", json.dumps(threads))
    b3sum = shutil.which("b3sum")
    if b3sum and time.monotonic() + 10 < DEADLINE:
        with tempfile.NamedTemporaryFile(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as f:
            f.write(memoryview(big))
            f.flush()
            b3: dict[str, Any] = {}
            for t in (1, 16):
                s, _ = best(lambda: subprocess.run([b3sum, "--num-threads", str(t), f.name], check=True, capture_output=True), reps=2)
                b3[str(t)] = {"s": round(s, 5), "GBps": round(big.nbytes / s / 1e9, 3)}
            RESULTS["b3sum_1GiB"] = b3
            log("b3sum 1 GiB:", json.dumps(b3))
    else:
        RESULTS["b3sum_1GiB"] = "b3sum not installed" if not b3sum else "skipped (budget)"
    save(args.json)

    # simdcrypt.dask hash_file on a local cluster of 1, 2, 4, 8 workers, if dask is here.
    try:
        from dask.distributed import Client, LocalCluster  # type: ignore[import-not-found]

        import simdcrypt.dask as sdask

        with tempfile.NamedTemporaryFile(suffix=".bin") as f:
            f.write(memoryview(big))
            f.flush()
            dask_results: dict[str, Any] = {}
            for workers in (1, 2, 4, 8):
                if time.monotonic() + 20 > DEADLINE:
                    dask_results[str(workers)] = "skipped (budget)"
                    continue
                with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster, Client(cluster) as client:
                    s, _ = best(lambda: sdask.hash_file(f.name, client=client, progress=False), reps=2)
                    dask_results[str(workers)] = {"s": round(s, 4), "GBps": round(big.nbytes / s / 1e9, 3)}
            RESULTS["dask_hash_file_1GiB"] = dask_results
            log("dask hash_file 1 GiB:", json.dumps(dask_results))
    except ImportError:
        RESULTS["dask_hash_file_1GiB"] = "dask not installed"
    del big
    save(args.json)

    # 8192 x 1 MiB Streebog-512, host to host (8 GiB): the GPU against all cores.
    if time.monotonic() + 30 < DEADLINE:
        many = filled((8192 // q, 1 << 20), 7)
        case("streebog512 8192 x 1 MiB host to host", many.nbytes, many,
             lambda m: simdcrypt.streebog_many(m, bits=512, max_threads=T),
             lambda m, **k: simdcrypt.streebog_many(m, bits=512, backend="cuda", **k), None, None, estimate_s=30)
        del many
    else:
        RESULTS["cases"].append({"name": "streebog512 8192 x 1 MiB host to host", "skipped": "budget"})
    save(args.json)
    mismatches = [c["name"] for c in RESULTS["cases"] if c.get("host_match") is False or c.get("device_match") is False]
    RESULTS["mismatches"] = mismatches
    save(args.json)
    log("mismatches:", mismatches or "none")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
