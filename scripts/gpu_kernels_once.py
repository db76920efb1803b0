#!/usr/bin/env python3
"""Runs every CUDA kernel of simdcrypt once on a small batch and compares it with the CPU
backends: stage 1 of scripts/gpu-check.sh (does each kernel load and run?) and the driver
program that stage 2 runs under compute-sanitizer (memcheck, racecheck, synccheck,
initcheck). Small on purpose: a sanitizer slows kernels down by orders of magnitude.

Imports numpy and simdcrypt only (no CuPy, no PyTorch), so that the sanitizer sees our
kernels and little else. Prints backends()["cuda"] (its "device" string says whether the
embedded CUBIN, the embedded PTX or NVRTC at run time was used) and one line per kernel;
exit status 0 when every kernel ran and matched, 1 when one failed, 2 when the cuda
backend is unavailable (nothing else can pass then).

Streebog and GOST R 34.11-94 have two kernels each (one thread a message, or a lane group a
message), and a batch's size picks one; their cases run once in each, forced through
SIMDCRYPT_CUDA_SCHEME (which the library reads at every call), so that every kernel runs
here and under the sanitizer whatever the batch size.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any, Callable

import numpy as np

import simdcrypt


def cases(n: int) -> list[tuple[str, Callable[[str], Any]]]:
    """(name, run with backend=...) for every kernel, on n messages of mixed lengths; the
    cases of the two-scheme kernels once in each scheme."""
    rng = np.random.default_rng(49)
    # Lengths around the block sizes (64 for SHA-256/BLAKE3/Streebog, 32 for GOST) and one
    # over a BLAKE3 chunk, so that every branch of the kernels runs.
    lengths = [0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 1023, 1024, 1025, 2049]
    msgs = [rng.integers(0, 256, lengths[i % len(lengths)], dtype=np.uint8).tobytes() for i in range(n)]
    rows = rng.integers(0, 256, (n, 1024), dtype=np.uint8)  # the fixed-length (array) path
    blocks = rng.integers(0, 256, n * 64, dtype=np.uint8).tobytes()
    leaves = rng.integers(0, 256, 32 * 1000, dtype=np.uint8).tobytes()  # odd layers too
    big = rng.integers(0, 256, 3 << 20, dtype=np.uint8).tobytes()  # blake3_digest's tree kernel
    key = bytes(range(32))
    two_schemes: list[tuple[str, Callable[[str], Any]]] = [
        ("streebog512 list", lambda b: simdcrypt.streebog_many(msgs, bits=512, backend=b)),
        ("streebog256 rows", lambda b: simdcrypt.streebog_many(rows, bits=256, backend=b)),
        ("gost94 list", lambda b: simdcrypt.gost94_many(msgs, backend=b)),
        ("gost94-test rows", lambda b: simdcrypt.gost94_many(rows, sbox="test", backend=b)),
    ]
    return [
        (f"{name} ({scheme})", in_scheme(scheme, run))
        for name, run in two_schemes
        for scheme in ("one", "lanes")
    ] + [
        ("sha256_many", lambda b: simdcrypt.sha256_many(blocks, backend=b)),
        ("merkle_root", lambda b: simdcrypt.merkle_root(leaves, backend=b)),
        ("blake3_many list", lambda b: simdcrypt.blake3_many(msgs, backend=b)),
        ("blake3_many rows keyed 100", lambda b: simdcrypt.blake3_many(rows, key=key, length=100, backend=b)),
        ("blake3_many derive 7", lambda b: simdcrypt.blake3_many(msgs, derive_key_context="c", length=7, backend=b)),
        ("blake3_digest 3 MiB", lambda b: simdcrypt.blake3_digest(big, backend=b)),
    ]


def in_scheme(scheme: str, run: Callable[[str], Any]) -> Callable[[str], Any]:
    """`run` with SIMDCRYPT_CUDA_SCHEME set to `scheme` for the call (one thread a message,
    or a lane group a message); the variable's earlier value (or its absence) is restored."""

    def forced(backend: str) -> Any:
        before = os.environ.get("SIMDCRYPT_CUDA_SCHEME")
        os.environ["SIMDCRYPT_CUDA_SCHEME"] = scheme
        try:
            return run(backend)
        finally:
            if before is None:
                del os.environ["SIMDCRYPT_CUDA_SCHEME"]
            else:
                os.environ["SIMDCRYPT_CUDA_SCHEME"] = before

    return forced


def main(argv: list[str] | None = None) -> int:
    """Runs every case on `argv[0]` messages (default 64; argv defaults to the command line)."""
    args = sys.argv[1:] if argv is None else argv
    n = int(args[0]) if args else 64
    cuda = simdcrypt.backends()["cuda"]
    print("backends()['cuda'] =", json.dumps(cuda), flush=True)
    if not cuda.get("available"):
        print("FAILED: the cuda backend is unavailable:", cuda.get("reason"), flush=True)
        return 2
    # The device's description names the kernel image: "kernels for sm_90: embedded CUBIN
    # for sm_90" (or embedded PTX, or NVRTC at run time).
    print("device:", cuda.get("device"), flush=True)
    failed = []
    for name, run in cases(n):
        try:
            ok = run("cuda") == run(None)
        except Exception:  # one broken kernel must not hide the others
            traceback.print_exc()
            ok = False
        print(("ok    " if ok else "FAIL  ") + name, flush=True)
        if not ok:
            failed.append(name)
    print("failed:", failed or "none", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
