#!/usr/bin/env bash
# Builds what scripts/gpu-check.sh runs on the GPU machine into gpu-carry/ (git-ignored):
# the Python wheel (abi3, Python >= 3.9, with the `cuda` feature like every build of the
# bindings) and the release CLI, both x86-64 Linux. The GPU machine has no Rust and no
# network, so both are built here and travel in the device tool's `carry`:
#
#   ./scripts/build-gpu-carry.sh
#   (device tool) run  command: bash scripts/gpu-check.sh   carry: ["gpu-carry"]   timeout_s: 420
#
# The tests and driver scripts (test_cuda.py, scripts/gpu_kernels_once.py, gpu_bench.py)
# travel as tracked files of the checkout the device tool sends, so build the carry in that
# checkout, at the commit being checked (gpu-carry/COMMIT; gpu-check.sh warns on a
# mismatch). The Rust CUDA tests (crates/simdcrypt/tests/cuda_*.rs) run the host emulation
# only, so no Rust test executable travels: the GPU's own checks are the Python driver, the
# Python tests and the CLI.
#
# Needs .venv with maturin (scripts/test.sh or `pip install -r requirements-dev.txt`).
# Honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
if [ "$(uname -m)" != x86_64 ]; then
    echo "the GPU machine is x86-64; build there-compatible binaries on an x86-64 machine" >&2
    exit 1
fi
maturin="$root/.venv/bin/maturin"
[ -x "$maturin" ] || { echo "no $maturin: create .venv first (pip install -r requirements-dev.txt)" >&2; exit 1; }
target="${CARGO_TARGET_DIR:-$root/target}"
rm -rf gpu-carry
mkdir -p gpu-carry
# Thin LTO: the release profile's fat LTO takes many minutes on a shared machine, and the
# figures measured with it differ little for GPU batches.
export CARGO_PROFILE_RELEASE_LTO="${CARGO_PROFILE_RELEASE_LTO:-thin}"
# The kernels compiled ahead of time by NVRTC from PyPI (requirements-cuda.txt in .venv,
# as scripts/test.sh installs it) and embedded: the GPU machine then needs no NVRTC, and a
# build that could not embed them fails here instead of there.
export SIMDCRYPT_PYTHON="$root/.venv/bin/python" SIMDCRYPT_REQUIRE_EMBEDDED_KERNELS=1
"$maturin" build --release -m crates/simdcrypt-py/Cargo.toml -o gpu-carry
cargo build --release -p simdcrypt-cli
cp "$target/release/simdcrypt" gpu-carry/simdcrypt
git rev-parse HEAD >gpu-carry/COMMIT
git status --porcelain --untracked-files=no >gpu-carry/DIRTY || true
ls -l gpu-carry
du -sh gpu-carry
