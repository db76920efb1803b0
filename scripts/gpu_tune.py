#!/usr/bin/env python3
"""Kernel-only timings of the batch kernels on a GPU, for tuning their launch geometry
(issue 49, item 3): each kernel file is compiled from this checkout's sources by CuPy's
NVRTC (gpu_prelude.cuh, common.cuh, the file: what the runtime compiles), launched on
device-resident batches of 8,192 and 65,536 messages of 1 KiB (SHA-256: the same bytes as
64-byte blocks) with each block size in turn, and timed with CUDA events around back-to-back
launches (the median of 5 timings of `reps` launches). Nothing of the host API is in these
times: they are the kernels' own, against which gpu_bench.py's whole-call figures can be
read. Each variant's digests are compared with the CPU backends of the installed simdcrypt
package (a wrong one is reported, and fails the run).

`--old REV` also times the kernel files as they were at git revision REV (the checkout's
history travels with the device tool), so a changed kernel is compared with its
predecessor in the same run. Writes a JSON file and prints a table. Needs CuPy, numpy and
simdcrypt; run by scripts/gpu-check.sh's tune stage, or by hand on a GPU machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA_DIR = os.path.join(ROOT, "crates", "simdcrypt", "src", "cuda")
BLAKE3_IV = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19]


def source(name: str, rev: str | None) -> str:
    """gpu_prelude.cuh + common.cuh + `name`, from the working tree or from git revision `rev`."""
    parts = []
    for f in ("gpu_prelude.cuh", "common.cuh", name):
        if rev is None:
            with open(os.path.join(CUDA_DIR, f)) as fh:
                parts.append(fh.read())
        else:
            path = f"crates/simdcrypt/src/cuda/{f}"
            parts.append(subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], check=True,
                                        capture_output=True, text=True).stdout)
    return "\n".join(parts)


def overhead(cp: Any, simdcrypt: Any, results: dict[str, Any], deadline: float) -> None:
    """The whole API call's time where the kernel's is negligible (8-byte messages, 64-byte
    blocks), for 1, 8,192 and 65,536 messages: what the host side costs a call and a message."""
    for n in (1, 8192, 65536):
        d_in = cp.asarray(np.random.default_rng(n).integers(0, 256, size=(n, 8), dtype=np.uint8))
        d_blocks = cp.asarray(np.random.default_rng(n).integers(0, 256, size=n * 64, dtype=np.uint8))
        calls = [
            ("streebog_many 512", lambda: simdcrypt.streebog_many(d_in, bits=512, backend="cuda", out=o64)),
            ("gost94_many", lambda: simdcrypt.gost94_many(d_in, backend="cuda", out=o32)),
            ("blake3_many", lambda: simdcrypt.blake3_many(d_in, backend="cuda", out=o32)),
            ("sha256_many", lambda: simdcrypt.sha256_many(d_blocks, backend="cuda", out=o32)),
        ]
        o64, o32 = cp.empty(64 * n, dtype=cp.uint8), cp.empty(32 * n, dtype=cp.uint8)
        for name, fn in calls:
            if time.monotonic() > deadline:
                return
            try:
                fn()
                cp.cuda.Device().synchronize()
                times = []
                for _ in range(5):
                    a, b = cp.cuda.Event(), cp.cuda.Event()
                    a.record()
                    for _ in range(20):
                        fn()
                    cp.cuda.Device().synchronize()
                    b.record()
                    b.synchronize()
                    times.append(cp.cuda.get_elapsed_time(a, b) / 20 * 1e3)
                row = {"case": name, "messages": n, "call_us": round(sorted(times)[2], 1)}
            except Exception as e:
                row = {"case": name, "messages": n, "error": f"{type(e).__name__}: {str(e)[:300]}"}
            results["rows"].append(row)
            print(json.dumps(row), flush=True)


def profile_call(cp: Any, simdcrypt: Any) -> None:
    """Where a call's fixed cost goes: wall time per call of blake3_many on one 8-byte
    message on the device (CuPy in, out=), the Python-visible parts (cProfile), and the
    costs of the pieces it is made of, alone."""
    import cProfile
    import pstats

    d_in = cp.asarray(np.arange(8, dtype=np.uint8).reshape(1, 8))
    out = cp.empty(32, dtype=cp.uint8)

    def call() -> None:
        simdcrypt.blake3_many(d_in, backend="cuda", out=out)

    def per_call(fn: Any, n: int = 300) -> float:
        fn()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t) / n * 1e6

    print(f"blake3_many, 1 message on the device, out=: {per_call(call):.1f} us a call (wall)")
    print(f"  same, host bytes in and out: {per_call(lambda: simdcrypt.blake3_many([b'12345678'], backend='cuda')):.1f} us")
    print(f"  blake3_many on the CPU: {per_call(lambda: simdcrypt.blake3_many([b'12345678'])):.1f} us")
    print(f"  d_in.__dlpack__(stream=1): {per_call(lambda: d_in.__dlpack__(stream=1)):.1f} us")
    print(f"  d_in.__cuda_array_interface__: {per_call(lambda: d_in.__cuda_array_interface__):.1f} us")
    print(f"  idle stream synchronize: {per_call(lambda: cp.cuda.Stream.null.synchronize()):.1f} us")
    print(f"  empty CuPy kernel + synchronize: {per_call(lambda: (out.fill(0), cp.cuda.Stream.null.synchronize())):.1f} us")
    # The driver calls a call of ours is made of (crates/simdcrypt/src/cuda/driver.rs and
    # batch.rs: two range checks of three pointer attributes each, an event created,
    # recorded and waited for, the offsets allocated and freed on the stream, a launch
    # attribute read and two launches, a stream synchronisation), each alone through CuPy,
    # so that their sum can be set against the call's wall time above. Any piece this CuPy
    # cannot time is reported and skipped.
    print("the pieces of a call, each alone (us):")
    rt = cp.cuda.runtime
    stream = cp.cuda.Stream(non_blocking=True)
    empty = cp.RawKernel('extern "C" __global__ void sc_empty() {}', "sc_empty")

    def event_wait() -> None:
        event = cp.cuda.Event(disable_timing=True)
        event.record(cp.cuda.Stream.null)
        stream.wait_event(event)

    def launch() -> None:
        with stream:
            empty((1,), (32,), ())

    def launch_sync() -> None:
        launch()
        stream.synchronize()

    pieces: list[tuple[str, Any]] = [
        ("pointerGetAttributes", lambda: rt.pointerGetAttributes(d_in.data.ptr)),
        ("event create+record+wait+destroy", event_wait),
        ("mallocAsync+freeAsync 8 KiB", lambda: rt.freeAsync(rt.mallocAsync(8192, stream.ptr), stream.ptr)),
        ("launch attribute", lambda: empty.max_threads_per_block),
        ("empty launch", launch),
        ("empty launch + stream synchronize", launch_sync),
    ]
    for name, piece in pieces:
        try:
            print(f"  {name}: {per_call(piece):.1f}")
        except Exception as e:  # an API this CuPy lacks
            print(f"  {name}: not timed ({type(e).__name__}: {str(e)[:120]})")
    stream.synchronize()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(300):
        call()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="tune.json")
    ap.add_argument("--old", default=None, help="also time the kernels of this git revision")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds")
    ap.add_argument("--profile-call", action="store_true", help="only profile one small call and exit")
    args = ap.parse_args()
    if args.profile_call:
        import cupy
        import simdcrypt

        profile_call(cupy, simdcrypt)
        return 0
    deadline = time.monotonic() + args.budget

    import cupy as cp  # type: ignore[import-not-found]
    import simdcrypt

    props = cp.cuda.runtime.getDeviceProperties(0)
    arch = f"sm_{props['major']}{props['minor']}"
    results: dict[str, Any] = {"gpu": props["name"].decode(), "sms": props["multiProcessorCount"], "arch": arch,
                               "timing": "CUDA events around reps launches, median of 5", "rows": []}
    modules: dict[tuple[str, str | None], Any] = {}

    def module(name: str, rev: str | None) -> Any:
        key = (name, rev)
        if key not in modules:
            modules[key] = cp.RawModule(code=source(name, rev), options=("--std=c++17", f"--gpu-architecture={arch}"),
                                        backend="nvrtc")
        return modules[key]

    rng = np.random.default_rng(49)
    failed = False

    def save() -> None:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(results, f, indent=1)
        os.replace(tmp, args.json)

    def timed(launch: Any, reps: int) -> float:
        times = []
        for _ in range(5):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            for _ in range(reps):
                launch()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b) / 1e3 / reps)
        return sorted(times)[2]

    for count in (8192, 16384, 32768, 65536):
        host = rng.integers(0, 256, size=count * 1024, dtype=np.uint8)
        msgs = host.reshape(count, 1024)
        d_data = cp.asarray(host)
        d_offsets = cp.asarray(np.arange(count + 1, dtype=np.uint64) * 1024)
        expected = {
            "streebog512": simdcrypt.streebog_many(msgs, bits=512),
            "gost94": simdcrypt.gost94_many(msgs),
            "blake3": simdcrypt.blake3_many(msgs),
            "sha256": simdcrypt.sha256_many(host),
        }
        d_key = cp.asarray(np.array(BLAKE3_IV, dtype=np.uint32).view(np.uint8))
        # (label, file, kernel, lanes per message, output bytes per item, items, args)
        # Both schemes of the two-scheme kernels at every count: where one overtakes the
        # other is what streebog.rs's and gost94.rs's ONE_PER_THREAD_FROM should say.
        cases: list[tuple[str, str, str, int, int, int, Any]] = [
            ("streebog512", "streebog.cu", "sc_streebog_512", 1, 64, count, None),
            ("streebog512", "streebog.cu", "sc_streebog_512_x8", 8, 64, count, None),
            ("gost94", "gost94.cu", "sc_gost94_cryptopro", 1, 32, count, None),
            ("gost94", "gost94.cu", "sc_gost94_cryptopro_x4", 4, 32, count, None),
        ]
        if count in (8192, 65536):
            cases += [
                ("blake3", "blake3.cu", "sc_blake3_many", 1, 32, count, "blake3"),
                ("sha256", "sha256.cu", "sc_sha256_blocks", 1, 32, count * 16, "blocks"),
            ]
        revs: list[str | None] = [None] + ([args.old] if args.old else [])
        for label, fname, kname, lanes, out_len, items, kind in cases:
            for rev in revs:
                this_lanes = lanes
                try:
                    fn = module(fname, rev).get_function(kname)
                except Exception as e:  # an old revision may lack a kernel
                    results["rows"].append({"case": label, "rev": rev or "tree", "error": str(e)[:300]})
                    continue
                d_out = cp.empty(items * out_len, dtype=cp.uint8)
                for block in (32, 64, 128, 256):
                    if time.monotonic() > deadline:
                        results["rows"].append({"case": label, "skipped": "budget"})
                        save()
                        break
                    threads = items * this_lanes
                    grid = (threads + block - 1) // block
                    if kind == "blocks":
                        kargs = (d_data, np.uint64(items), d_out)
                    elif kind == "blake3":
                        kargs = (d_data, d_offsets, np.uint64(items), d_out, d_key, np.uint64(0), np.uint64(32))
                    else:
                        kargs = (d_data, d_offsets, np.uint64(items), d_out)

                    def launch() -> None:
                        fn((grid,), (block,), kargs)

                    row: dict[str, Any] = {"case": label, "kernel": kname, "rev": rev or "tree", "messages": count,
                                           "lanes": this_lanes,
                                           "block": block, "grid": grid}
                    try:
                        d_out.fill(0xA5)
                        launch()
                        cp.cuda.Device().synchronize()
                        ok = bytes(cp.asnumpy(d_out)) == expected[label]
                        row["match"] = ok
                        failed |= not ok
                        one = timed(launch, 1)
                        reps = max(1, min(200, int(0.02 / max(one, 1e-6))))
                        t = timed(launch, reps)
                        row.update(kernel_us=round(t * 1e6, 2), GBps=round(host.nbytes / t / 1e9, 2), reps=reps)
                    except Exception as e:
                        row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                        failed = True
                    results["rows"].append(row)
                    print(json.dumps(row), flush=True)
                    save()
        del d_data, d_offsets
        cp.get_default_memory_pool().free_all_blocks()

    overhead(cp, simdcrypt, results, deadline)
    print(f"\n{'case':12} {'rev':8} {'msgs':>6} {'lanes':>5} {'block':>5} {'us':>9} {'GB/s':>8} ok")
    for r in results["rows"]:
        if "kernel_us" in r:
            print(f"{r['case']:12} {str(r['rev'])[:8]:8} {r['messages']:>6} {r['lanes']:>5} {r['block']:>5} "
                  f"{r['kernel_us']:>9} {r['GBps']:>8} {r['match']}")
        elif "call_us" not in r:
            print(r)
    print(f"\n{'API call, 8-byte messages':28} {'n':>6} {'us':>9}")
    for r in results["rows"]:
        if "call_us" in r:
            print(f"{r['case']:28} {r['messages']:>6} {r['call_us']:>9}")
    save()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
