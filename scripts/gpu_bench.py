#!/usr/bin/env python3
"""The figures of issue 49 item 6, measured on a GPU machine by stage 5 of
scripts/gpu-check.sh (also runnable by hand: python3 scripts/gpu_bench.py --json f.json).

Cases: device-resident batches of 8,192 and 65,536 messages of 1 KiB for Streebog-512,
GOST R 34.11-94 and BLAKE3, and SHA-256 over the same bytes as 64-byte blocks (input a
CuPy array, or a PyTorch tensor, digests into an out= device array); then each of those
host to host (numpy input, bytes out, copies and staging included).

Device-resident times come from CUDA events on the device library's stream, recorded
around `reps` back-to-back calls with a device synchronisation before the end event, so
they hold every stream's work (ours included) and no Python start-up; host-to-host times
are wall-clock (time.perf_counter) around one call, the best of 3. Each case is run once
first (a warm-up: module load, pool growth; its time sizes the timed runs to about 0.1 s
each) and its digests compared with the CPU backends' once. No CPU-only timing: device
time is short. Figures are written to the JSON file after every case, so a run cut short
still leaves what it measured; --budget (seconds) skips the cases that would not fit.
Exit status 1 if a digest differed, a case failed or the backend is unavailable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Callable

import numpy as np

import simdcrypt

RESULTS: dict[str, Any] = {"cases": []}
DEADLINE = float("inf")


def log(*args: Any) -> None:
    print(*args, flush=True)


def save(path: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(RESULTS, f, indent=1)
    os.replace(tmp, path)


class Device:
    """The device array library here (CuPy preferred, else PyTorch): copies and events."""

    def __init__(self) -> None:
        self.name = ""
        try:
            import cupy  # type: ignore[import-not-found]

            if cupy.cuda.runtime.getDeviceCount() > 0:
                self.name, self.m = "cupy", cupy
                return
        except Exception:
            pass
        import torch  # type: ignore[import-not-found]

        if not torch.cuda.is_available():
            raise RuntimeError("neither CuPy nor PyTorch sees a GPU")
        self.name, self.m = "torch", torch

    def put(self, host: np.ndarray) -> Any:
        return self.m.asarray(host) if self.name == "cupy" else self.m.from_numpy(host).cuda()

    def zeros(self, n: int) -> Any:
        if self.name == "cupy":
            return self.m.zeros(n, dtype=self.m.uint8)
        return self.m.zeros(n, dtype=self.m.uint8, device="cuda")

    def get(self, dev: Any) -> bytes:
        return bytes(self.m.asnumpy(dev)) if self.name == "cupy" else bytes(dev.cpu().numpy())

    def sync(self) -> None:
        if self.name == "cupy":
            self.m.cuda.Device().synchronize()
        else:
            self.m.cuda.synchronize()

    def timed(self, fn: Callable[[], Any], reps: int) -> float:
        """Seconds per call of fn, from CUDA events around `reps` calls."""
        if self.name == "cupy":
            start, end = self.m.cuda.Event(), self.m.cuda.Event()
            start.record()
            for _ in range(reps):
                fn()
            self.sync()
            end.record()
            end.synchronize()
            return self.m.cuda.get_elapsed_time(start, end) / 1e3 / reps
        start, end = self.m.cuda.Event(enable_timing=True), self.m.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        self.sync()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / reps

    def free(self) -> None:
        if self.name == "cupy":
            self.m.get_default_memory_pool().free_all_blocks()
        else:
            self.m.cuda.empty_cache()


def case(dev: Device, name: str, host: np.ndarray, fn: Callable[..., Any], digest_bytes: int) -> None:
    """One workload: digests checked against the CPU, then device-resident and host-to-host
    throughput."""
    if time.monotonic() + 3 > DEADLINE:
        RESULTS["cases"].append({"name": name, "skipped": "budget"})
        log(f"{name}: skipped (budget)")
        save(JSON_PATH)
        return
    entry: dict[str, Any] = {"name": name, "bytes": host.nbytes}
    gbps = lambda s: round(host.nbytes / s / 1e9, 2)  # noqa: E731
    try:
        expected = fn(host, backend=None, max_threads=os.cpu_count() or 1)
        d_in, d_out = dev.put(host), dev.zeros(digest_bytes)
        warm = time.perf_counter()
        fn(d_in, backend="cuda", out=d_out)  # warm-up (module load, pool growth)
        dev.sync()
        warm = time.perf_counter() - warm
        entry["device_match"] = dev.get(d_out) == expected
        # About 0.1 s a timing from the warm-up's time (an upper bound: it includes the
        # loading), so slow kernels cannot eat the stage's budget; 1 to 50 calls.
        reps = max(1, min(50, int(0.1 / max(warm, 1e-4))))
        t = min(dev.timed(lambda: fn(d_in, backend="cuda", out=d_out), reps) for _ in range(3))
        entry.update(device_s=round(t, 6), device_GBps=gbps(t), device_reps=reps, device_lib=dev.name)
        del d_in, d_out
        dev.free()
        got = fn(host, backend="cuda")
        entry["host_match"] = got == expected
        times = []
        for _ in range(3):
            s = time.perf_counter()
            fn(host, backend="cuda")
            times.append(time.perf_counter() - s)
        entry.update(host_to_host_s=round(min(times), 6), host_to_host_GBps=gbps(min(times)))
    except Exception as e:  # one failed case must not lose the others
        entry["error"] = f"{type(e).__name__}: {e}"
    RESULTS["cases"].append(entry)
    log(json.dumps(entry))
    save(JSON_PATH)


JSON_PATH = "bench.json"


def main() -> int:
    global DEADLINE, JSON_PATH
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default="bench.json")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds")
    parser.add_argument("--quick", action="store_true", help="batches / 64 (a smoke test)")
    args = parser.parse_args()
    DEADLINE = time.monotonic() + args.budget
    JSON_PATH = args.json
    cuda = simdcrypt.backends()["cuda"]
    RESULTS.update(simdcrypt_cuda=cuda, python=sys.version.split()[0], quick=args.quick,
                   timing="device: CUDA events around back-to-back calls; host to host: wall clock, best of 3")
    log(json.dumps(cuda))
    if not cuda["available"]:
        log("the cuda backend is unavailable:", cuda["reason"])
        save(args.json)
        return 1
    dev = Device()
    RESULTS["device_lib"] = dev.name
    if dev.name == "torch":
        RESULTS["gpu"] = dev.m.cuda.get_device_name()
    else:
        RESULTS["gpu"] = dev.m.cuda.runtime.getDeviceProperties(0)["name"].decode()
    q = 64 if args.quick else 1
    rng = np.random.default_rng(49)
    for n in (8192 // q, 65536 // q):
        rows = rng.integers(0, 256, (n, 1024), dtype=np.uint8)
        case(dev, f"streebog512 {n} x 1 KiB", rows,
             lambda m, **k: simdcrypt.streebog_many(m, bits=512, **k), n * 64)
        case(dev, f"gost94 {n} x 1 KiB", rows, lambda m, **k: simdcrypt.gost94_many(m, **k), n * 32)
        case(dev, f"blake3 {n} x 1 KiB", rows, lambda m, **k: simdcrypt.blake3_many(m, **k), n * 32)
        flat = rows.reshape(-1)
        case(dev, f"sha256 {n * 16} x 64-byte blocks", flat,
             lambda b, **k: simdcrypt.sha256_many(b, **k), n * 16 * 32)
    bad = [c["name"] for c in RESULTS["cases"]
           if c.get("device_match") is False or c.get("host_match") is False or "error" in c]
    RESULTS["failed"] = bad
    save(args.json)
    log("mismatches or errors:", bad or "none")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
