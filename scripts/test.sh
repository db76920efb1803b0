#!/usr/bin/env bash
# Runs every test of simdcrypt: Rust (library, CLI) and Python (bindings, stubs).
# Sets itself up on a fresh machine that has Python >= 3.11 and a Rust toolchain:
# a virtual environment in .venv, the official b3sum in .tools for byte-for-byte CLI
# comparison, and the extension module built with maturin. Safe to run again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
step() { printf '\n==> %s\n' "$*"; }

step "Python environment (.venv)"
if [ ! -x .venv/bin/python ]; then
    "${PYTHON:-python3}" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install --quiet --disable-pip-version-check --upgrade pip
python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt

step "b3sum, the official BLAKE3 CLI, to compare against"
if [ ! -x .tools/bin/b3sum ]; then
    cargo install --quiet --locked --root .tools b3sum@1.8.2
fi
export B3SUM="$root/.tools/bin/b3sum" SIMDCRYPT_REQUIRE_B3SUM=1

step "rhash, to compare the GOST algorithms' CLI output against"
if ! command -v rhash >/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    { $sudo apt-get install -y -qq rhash || { $sudo apt-get update -qq && $sudo apt-get install -y -qq rhash; }; } \
        >/tmp/simdcrypt-rhash-setup.log 2>&1 \
        || printf '\n*** rhash NOT INSTALLED (see /tmp/simdcrypt-rhash-setup.log): CLI output not compared with RHash ***\n\n'
fi
if command -v rhash >/dev/null; then export SIMDCRYPT_REQUIRE_RHASH=1; fi

step "Backends this machine must exercise"
# Read from /proc/cpuinfo, independently of the library's own detection: every test that
# runs "each supported backend" fails if one of these is missing, so a detection bug or a
# machine without SIMD cannot pass by comparing portable with portable.
if [ "$(uname -m)" = x86_64 ] && [ -r /proc/cpuinfo ]; then
    flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    has() { for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }
    pick() { local out=""; while [ $# -gt 1 ]; do if has ${2//+/ }; then out+="$1,"; fi; shift 2; done; printf '%sportable' "$out"; }
    # x86-64 machines without AVX2 and SSE4.1 are not what CI runs on: require them.
    has avx2 sse4_1 || { echo "this CI machine lacks AVX2/SSE4.1: the SIMD backends would go untested" >&2; exit 1; }
    SIMDCRYPT_EXPECT_BACKENDS="blake3=$(pick avx512 avx512f+avx512vl avx2 avx2 sse41 sse4_1)"
    SIMDCRYPT_EXPECT_BACKENDS+=";sha256=$(pick shani sha_ni)"
    SIMDCRYPT_EXPECT_BACKENDS+=";sha256-batch=$(pick avx512+shani avx512f+avx512bw+sha_ni avx512 avx512f+avx512bw shani sha_ni avx2 avx2)"
    SIMDCRYPT_EXPECT_BACKENDS+=";streebog=$(pick avx512-gfni avx512f+avx512bw+avx512vbmi+gfni)"
    SIMDCRYPT_EXPECT_BACKENDS+=";gost94=$(pick avx512 avx512f+avx512bw+avx512vl+avx512vbmi avx2 ssse3+sse4_1+avx+avx2 ssse3 ssse3)"
    SIMDCRYPT_EXPECT_BACKENDS+=";highwayhash=$(pick avx512 avx512f+avx512bw+avx512vl avx2 avx2 sse41 sse4_1)"
    SIMDCRYPT_EXPECT_BACKENDS+=";salsa20=$(pick avx512 avx512f avx2 avx2 sse2 sse2)"
    export SIMDCRYPT_EXPECT_BACKENDS
    echo "$SIMDCRYPT_EXPECT_BACKENDS" | tr ';' '\n'
fi

step "Rust tests (library, CLI)"
cargo test --workspace --exclude simdcrypt-py --no-fail-fast -- --show-output 2>&1 \
    | grep -v '^---- .* stdout ----$' | grep -v '^successes:$'
# Dispatch falls back when the wide instruction sets are hidden.
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=avx512,avx2,sse4.1 cargo test -p simdcrypt --test blake3_kat -- --show-output 2>&1 \
    | grep -E 'exercised|refused|test result'
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=sha cargo test -p simdcrypt --test sha256_kat -- --show-output 2>&1 \
    | grep -E 'exercised|refused|test result'
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=gfni cargo test -p simdcrypt --test streebog_kat -- --show-output 2>&1 \
    | grep -E 'exercised|test result'
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=avx512vbmi cargo test -p simdcrypt --test gost94_kat -- --show-output 2>&1 \
    | grep -E 'exercised|test result'
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=avx512 cargo test -p simdcrypt --test gost94_kat --test gost_differential -- --show-output 2>&1 \
    | grep -E 'exercised|test result'
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=avx512,avx2 cargo test -p simdcrypt --test gost94_kat --test gost_differential -- --show-output 2>&1 \
    | grep -E 'exercised|test result'
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=avx512,avx2,ssse3 cargo test -p simdcrypt --test gost94_kat -- --show-output 2>&1 \
    | grep -E 'exercised|test result'
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=avx512,avx2 cargo test -p simdcrypt --test salsa20_kat -- --show-output 2>&1 \
    | grep -E 'exercised|test result'
env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE=avx512,avx2,sse4.1 cargo test -p simdcrypt --test highwayhash_kat -- --show-output 2>&1 \
    | grep -E 'exercised|test result'
# The smallest read block (a 512 KiB L2): one-chunk encryption batches, 64 KiB file reads.
SIMDCRYPT_ASSUME_L2=512K cargo test -p simdcrypt --test salsa20_sealed_pipeline --test salsa20_sealed_v2 2>&1 \
    | grep -E 'test result'
SIMDCRYPT_ASSUME_L2=512K cargo test -p simdcrypt-cli --test threads_default 2>&1 | grep -E 'test result'

step "b3sum's own CLI tests against simdcrypt as b3sum"
./scripts/test-b3sum-suite.sh

step "C ABI and its C, Nim and Go bindings"
./scripts/test-bindings.sh

step "aarch64 (NEON) under qemu"
# The expectations above are this x86-64 machine's, not the emulated aarch64 one's.
env -u SIMDCRYPT_EXPECT_BACKENDS ./scripts/test-aarch64.sh

step "Library docs (every public item documented, no broken links)"
RUSTDOCFLAGS="-D warnings" cargo doc --quiet -p simdcrypt --no-deps

step "Benchmarks compile"
cargo check --quiet -p simdcrypt-bench --benches

step "Python extension (maturin develop --release)"
maturin develop --quiet --release -m crates/simdcrypt-py/Cargo.toml

step "Type stubs (mypy --strict, stubtest)"
python -m mypy --strict crates/simdcrypt-py/python/simdcrypt crates/simdcrypt-py/tests/typing_usage.py
python -m mypy.stubtest simdcrypt._native

step "Wheels: manylinux x86-64 and aarch64 (smoke-tested under qemu), contents checked"
./scripts/build-wheels.sh --quick

step "Python tests"
python -m pytest -q crates/simdcrypt-py/tests
