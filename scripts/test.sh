#!/usr/bin/env bash
# Runs every test of simdcrypt: Rust (library, CLI, C ABI and its bindings, aarch64 under
# qemu) and Python (bindings, stubs, wheels). This is what CI runs.
# Sets itself up on a fresh machine that has Python >= 3.11 and a Rust toolchain: a
# virtual environment in .venv, rhash and qemu through apt, the official b3sum built from
# crates.io for byte-for-byte CLI comparison. Safe to run again.
#
# Usage: scripts/test.sh [--quick]
#   (none)   everything, in the order below; each step prints its elapsed seconds and the
#            run ends with a table of them.
#   --quick  the inner loop: the Rust tests of the workspace and the Python tests, on the
#            backends of this machine (no fallback reruns, b3sum suite, bindings, aarch64,
#            docs, wheels or stubs). The extension is built by `maturin develop` (dev
#            profile) instead of installed from the wheel.
#
# Builds are shared between steps, since compiling is most of the run's time:
#   - one `cargo test --all-targets --no-run` of the workspace builds the tests, the CLI,
#     the C ABI libraries, the benches and the examples, with the test-only CUDA host
#     emulation in (full run); the steps after it run what it built (the fallback reruns
#     and the CLI's emulated GPU path run its test executables directly: a `cargo test -p
#     ...` resolves features differently and would build the library again);
#   - code that only runs while compiling (proc macros, build helpers, the header
#     generator) or that the run only compiles (the benches) is built at opt-level 0
#     (Cargo.toml's profile.dev overrides);
#   - the official b3sum is the binary built with b3sum's own test suite (debug profile;
#     the same source and lock file as a `cargo install`);
#   - the wheel built by scripts/build-wheels.sh for this machine is the extension the Python tests
#     import, and the wheels use thin LTO (the release profile's fat LTO is for published
#     wheels: what these steps check is the code and the packaging, not the optimiser).
# To add a step: `step "what it checks"` then its commands; `quick_skip` after `step`
# leaves it out of --quick.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Nothing here reads the terminal: every tool gets an empty standard input (an inherited
# one that another process reuses once fed a stray line to the rustc that cargo probes).
exec </dev/null
root=$PWD

quick=0
case "${1:-}" in
    --quick) quick=1 ;;
    "") ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

# Steps and their elapsed seconds (printed as each ends, and as a table at exit).
step_name="" step_start=$SECONDS skipping=0
step_times=()
step_end() {
    if [ -n "$step_name" ] && [ "$skipping" = 0 ]; then
        local s=$((SECONDS - step_start))
        printf '<== %d s: %s\n' "$s" "$step_name"
        step_times+=("$(printf '%6d s  %s' "$s" "$step_name")")
    fi
    step_name=""
}
step() {
    step_end
    step_name=$* step_start=$SECONDS skipping=0
    printf '\n==> %s\n' "$*"
}
# Called right after `step`: in --quick, skips everything up to the next `step`.
quick_skip() {
    if [ "$quick" = 1 ]; then skipping=1; printf '    (skipped by --quick)\n'; return 0; fi
    return 1
}
summary() {
    local rc=$?
    step_end
    printf '\nTime per step (%s):\n' "$([ "$quick" = 1 ] && echo --quick || echo full run)"
    printf '%s\n' "${step_times[@]}"
    printf '%6d s  total, exit status %d\n' "$SECONDS" "$rc"
}
trap summary EXIT

target_dir=${CARGO_TARGET_DIR:-$root/target}

step "Python environment (.venv)"
if [ ! -x .venv/bin/python ]; then
    "${PYTHON:-python3}" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
# pip runs only when requirements-dev.txt changed since it last succeeded.
if ! cmp -s requirements-dev.txt .venv/requirements-dev.installed; then
    python -m pip install --quiet --disable-pip-version-check --upgrade pip
    python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
    cp requirements-dev.txt .venv/requirements-dev.installed
fi

step "rhash, to compare the GOST algorithms' CLI output against"
# --quick installs nothing: it compares with rhash only where it is already installed.
if [ "$quick" = 0 ] && ! command -v rhash >/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    { $sudo apt-get install -y -qq rhash || { $sudo apt-get update -qq && $sudo apt-get install -y -qq rhash; }; } \
        >/tmp/simdcrypt-rhash-setup.log 2>&1 \
        || printf '\n*** rhash NOT INSTALLED (see /tmp/simdcrypt-rhash-setup.log): CLI output not compared with RHash ***\n\n'
fi
if command -v rhash >/dev/null; then export SIMDCRYPT_REQUIRE_RHASH=1; fi

step "Setup: apt packages, the aarch64 Rust target, the wheel tools"
# Each step that needs one of these still checks and installs what it needs, so a failure
# here only costs time; its log is $setup_log. It runs before the builds, not beside them:
# a fresh-clone run that overlapped them failed cargo's first rustc probe (stray bytes on
# the probe's standard input, cached in target/.rustc_info.json) and the cause was not
# pinned down; the overlap saved about a minute and a half of downloads.
setup_log=/tmp/simdcrypt-setup.log
if ! quick_skip; then
    (
        sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
        packages=()
        command -v qemu-aarch64 >/dev/null || packages+=(qemu-user)
        command -v aarch64-linux-gnu-gcc >/dev/null || packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
        command -v nim >/dev/null || packages+=(nim)
        if [ ${#packages[@]} -gt 0 ]; then
            $sudo apt-get update -qq && $sudo apt-get install -y -qq "${packages[@]}"
        fi
        rustup target list --installed | grep -qx aarch64-unknown-linux-gnu \
            || rustup target add aarch64-unknown-linux-gnu
        ./scripts/build-wheels.sh --tools-only
    ) >"$setup_log" 2>&1 </dev/null || echo "(the setup failed, see $setup_log; the steps install what they need)"
fi

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
    SIMDCRYPT_EXPECT_BACKENDS+=";gear=$(pick avx512 avx512f+avx2 avx2 avx2)"
    export SIMDCRYPT_EXPECT_BACKENDS
    echo "$SIMDCRYPT_EXPECT_BACKENDS" | tr ';' '\n'
fi

step "b3sum 1.8.2 from crates.io: the official CLI to compare against, and its test suite"
b3sum_official=$target_dir/b3sum-suite/b3sum-official
if ! quick_skip; then
    ./scripts/test-b3sum-suite.sh --build-only
    export B3SUM="$b3sum_official" SIMDCRYPT_REQUIRE_B3SUM=1
fi
# --quick compares with b3sum too when an earlier full run built it.
if [ "$quick" = 1 ] && [ -x "$b3sum_official" ]; then export B3SUM="$b3sum_official"; fi

step "NVRTC and ptxas of CUDA 13 from PyPI, for the kernels compiled ahead of time and the compile check"
cuda_env=()
if ! quick_skip; then
    # requirements-cuda.txt (about 500 MB) into .venv when the file changed since it was last
    # installed. cudarc opens libnvrtc.so.13 by name, so its folder goes on LD_LIBRARY_PATH
    # (of the Rust tests only). With the two REQUIRE variables a missing emulation build,
    # NVRTC or ptxas fails the CUDA tests instead of skipping them.
    if ! cmp -s requirements-cuda.txt .venv/requirements-cuda.installed; then
        python -m pip install --quiet --disable-pip-version-check -r requirements-cuda.txt
        cp requirements-cuda.txt .venv/requirements-cuda.installed
    fi
    cu13="$(python -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13"))')"
    cuda_env=(LD_LIBRARY_PATH="$cu13/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" SIMDCRYPT_PTXAS="$cu13/bin/ptxas"
        SIMDCRYPT_REQUIRE_NVRTC=1 SIMDCRYPT_REQUIRE_CUDA_EMULATION=1)
    # Every build from here on compiles the kernels ahead of time with this NVRTC and embeds
    # them (crates/simdcrypt/build.rs; cuda::embedded's test checks the images against the
    # sources), and fails rather than build without them. Exported before the first build,
    # so that no later cargo call sees other values and rebuilds the library.
    export SIMDCRYPT_NVRTC="$cu13/lib/libnvrtc.so.13" SIMDCRYPT_REQUIRE_EMBEDDED_KERNELS=1
fi

step "Rust build: the workspace's tests, CLI and C ABI (full run: benches, examples, CUDA emulation)"
exes=$target_dir/simdcrypt-test-executables.txt
# The full run builds the library and the CLI once, with the test-only CUDA host emulation
# in (it only runs where a test asks for it): the CUDA kernel tests are then part of the
# workspace's tests instead of a second build of both crates.
ws_features=()
if [ "$quick" = 0 ]; then ws_features=(--features simdcrypt/cuda-emulation,simdcrypt-cli/cuda-emulation); fi
if [ "$quick" = 1 ]; then
    cargo test --quiet --workspace --exclude simdcrypt-py --no-run
else
    # One line per test executable: its source file (relative to the root), its path; and
    # the folder of the C ABI libraries this build made (cargo leaves a library that only
    # tests depend on in deps/, not uplifted into debug/).
    list_test_executables() {
        cargo test --workspace --exclude simdcrypt-py "${ws_features[@]}" --all-targets --no-run \
            --message-format=json-render-diagnostics \
            | python -c '
import json, os, sys
capi = ""
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact":
        continue
    if m["profile"]["test"] and m.get("executable"):
        print(os.path.relpath(m["target"]["src_path"]), m["executable"])
    for f in m["filenames"]:
        if os.path.basename(f) == "libsimdcrypt_capi.a":
            capi = os.path.dirname(f)
print("capi-dir", capi or "-")
' >"$exes"
    }
    # On fresh clones cargo's first probe of rustc (`rustc - --print=cfg ...`) failed twice
    # here right after the b3sum step, on stray bytes read as the probe's standard input
    # (cause not pinned down); cargo caches the failure in target/.rustc_info.json, so drop
    # that cache and try once more before giving up.
    if ! list_test_executables; then
        grep -q '"success":false' "$target_dir/.rustc_info.json" 2>/dev/null || exit 1
        echo "cargo's rustc probe failed (see above); retrying once with a fresh probe"
        rm -f "$target_dir/.rustc_info.json"
        list_test_executables
    fi
fi

step "Rust tests (library, CLI, C ABI; full run: CUDA kernels on the host emulation, NVRTC compile check, Xet hashes against hf_xet)"
# Full run: tests/chunking_xet.rs compares our Xet hashes with hf_xet (from .venv) on 200+ files.
xet_env=()
[ "$quick" = 1 ] || xet_env=(SIMDCRYPT_HF_XET_PYTHON="$PWD/.venv/bin/python" SIMDCRYPT_REQUIRE_HF_XET=1)
env "${cuda_env[@]}" "${xet_env[@]}" cargo test --workspace --exclude simdcrypt-py "${ws_features[@]}" --no-fail-fast -- --show-output 2>&1 \
    | grep -v '^---- .* stdout ----$' | grep -v '^successes:$'

step "Rust: dispatch falls back when the wide instruction sets are hidden"
if ! quick_skip; then
    # fallback DISABLE FILTER TEST...: runs the library's test files TEST (tests/TEST.rs)
    # with SIMDCRYPT_DISABLE=DISABLE, from the crate's folder as `cargo test` would.
    fallback() {
        local disable=$1 filter=$2 t exe; shift 2
        for t in "$@"; do
            exe=$(awk -v src="crates/simdcrypt/tests/$t.rs" '$1 == src { print $2 }' "$exes")
            [ -x "$exe" ] || { echo "no test executable for crates/simdcrypt/tests/$t.rs in $exes" >&2; exit 1; }
            echo "SIMDCRYPT_DISABLE=$disable $t"
            (cd crates/simdcrypt && env -u SIMDCRYPT_EXPECT_BACKENDS SIMDCRYPT_DISABLE="$disable" "$exe" --show-output 2>&1) \
                | grep -E "$filter"
        done
    }
    fallback avx512,avx2,sse4.1 'exercised|refused|test result' blake3_kat
    fallback sha 'exercised|refused|test result' sha256_kat
    fallback gfni 'exercised|test result' streebog_kat
    fallback avx512vbmi 'exercised|test result' gost94_kat
    fallback avx512 'exercised|test result' gost94_kat gost_differential
    fallback avx512,avx2 'exercised|test result' gost94_kat gost_differential
    fallback avx512,avx2,ssse3 'exercised|test result' gost94_kat
    fallback avx512,avx2 'exercised|test result' salsa20_kat
    fallback avx512,avx2,sse4.1 'exercised|test result' highwayhash_kat
    fallback avx512 'exercised|test result' chunking
    fallback avx512,avx2 'exercised|test result' chunking
    # The smallest read block (a 512 KiB L2): one-chunk encryption batches, 64 KiB file reads.
    for t in crates/simdcrypt/tests/salsa20_sealed_pipeline.rs crates/simdcrypt/tests/salsa20_sealed_v2.rs \
        crates/simdcrypt-cli/tests/threads_default.rs; do
        exe=$(awk -v src="$t" '$1 == src { print $2 }' "$exes")
        [ -x "$exe" ] || { echo "no test executable for $t in $exes" >&2; exit 1; }
        echo "SIMDCRYPT_ASSUME_L2=512K $(basename "$t" .rs)"
        (cd "${t%%/tests/*}" && SIMDCRYPT_ASSUME_L2=512K "$exe" 2>&1) | grep -E 'test result'
    done
fi

step "simdcrypt sum --backend cuda on the kernels' host emulation"
if ! quick_skip; then
    # The CLI's cuda tests again, now with the GPU path on the emulation: the same lines as
    # the CPU, batch edges included (the Rust tests step ran them on the unavailable path).
    exe=$(awk '$1 == "crates/simdcrypt-cli/tests/cuda.rs" { print $2 }' "$exes")
    [ -x "$exe" ] || { echo "no test executable for crates/simdcrypt-cli/tests/cuda.rs in $exes" >&2; exit 1; }
    (cd crates/simdcrypt-cli && SIMDCRYPT_CUDA_EMULATION=1 "$exe" 2>&1) | grep -E '^test |test result'
fi

step "b3sum's own CLI tests against simdcrypt as b3sum"
if ! quick_skip; then
    SIMDCRYPT_BIN=$target_dir/debug/simdcrypt ./scripts/test-b3sum-suite.sh
fi

step "C ABI and its C, Nim and Go bindings"
if ! quick_skip; then
    capi_dir=$(awk '$1 == "capi-dir" { print $2 }' "$exes")
    [ -f "$capi_dir/libsimdcrypt_capi.a" ] || { echo "the workspace build made no libsimdcrypt_capi.a" >&2; exit 1; }
    SIMDCRYPT_CAPI_DIR=$capi_dir ./scripts/test-bindings.sh
fi

step "aarch64 (NEON) under qemu"
if ! quick_skip; then
    # The expectations above are this x86-64 machine's, not the emulated aarch64 one's.
    env -u SIMDCRYPT_EXPECT_BACKENDS ./scripts/test-aarch64.sh
fi

step "Library docs (every public item documented, no broken links)"
if ! quick_skip; then
    RUSTDOCFLAGS="-D warnings" cargo doc --quiet -p simdcrypt --no-deps
fi

step "Fuzz targets: a short run of each (fuzz/, cargo-fuzz, AddressSanitizer)"
if ! quick_skip; then
    # Builds the targets (the nightly toolchain and cargo-fuzz are installed when missing)
    # and runs each for a few seconds from its committed seeds: the targets still build and
    # the seeds still run clean. The campaign is longer: docs/testing.md, "Fuzzing". A fixed
    # seed: what this step explores on a fresh clone is the same each time (a prefix of a
    # longer run with the same seed), so it fails for a code change, not for a lucky draw.
    SIMDCRYPT_FUZZ_SEED=${SIMDCRYPT_FUZZ_SEED:-1} ./scripts/fuzz.sh "${SIMDCRYPT_FUZZ_SECONDS:-5}"
fi

step "Wheels: manylinux x86-64 and aarch64 (smoke-tested under qemu), contents checked"
if ! quick_skip; then
    CARGO_PROFILE_RELEASE_LTO=thin CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 ./scripts/build-wheels.sh --quick
fi

step "Python bindings of backend=\"cuda\" on the kernels' host emulation (no GPU needed)"
if ! quick_skip; then
    # A dev build with the test-only cuda-emulation feature, for this one file; the next
    # step installs the extension the other tests run.
    maturin develop --quiet -m crates/simdcrypt-py/Cargo.toml --features cuda-emulation
    SIMDCRYPT_CUDA_EMULATION=1 python -m pytest -q crates/simdcrypt-py/tests/test_cuda_emulated.py
fi

step "Python extension"
if [ "$quick" = 1 ]; then
    maturin develop --quiet -m crates/simdcrypt-py/Cargo.toml
else
    # The wheel just built and checked for this machine: the Python tests run what is shipped.
    version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
    wheels=(dist/simdcrypt-"$version"-*_"$(uname -m)".whl)
    [ -f "${wheels[0]}" ] || { echo "no $(uname -m) wheel in dist/" >&2; exit 1; }
    python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "${wheels[0]}"
fi

step "Type stubs (mypy --strict, stubtest)"
if ! quick_skip; then
    python -m mypy --strict crates/simdcrypt-py/python/simdcrypt crates/simdcrypt-py/tests/typing_usage.py
    python -m mypy.stubtest simdcrypt._native
fi

step "Python tests"
python -m pytest -q crates/simdcrypt-py/tests
