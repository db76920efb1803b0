#!/usr/bin/env bash
# The CUDA backend's check on a GPU machine (issue 49, item 5): one device call of at most
# 300 s that verifies everything, each stage under its own time budget and log. Built here
# first (the GPU machine has no Rust and no network):
#
#   ./scripts/build-gpu-carry.sh          # wheel + CLI + tests into gpu-carry/ (git-ignored)
#   device tool: run  command="bash scripts/gpu-check.sh"  carry=["gpu-carry"]  timeout_s=420
#
# Stages (budget in seconds; one CUDA process each, except stage 2's one per sanitizer tool
# and stage 4's one per algorithm):
#   1 kernels   (30)  every kernel loaded and run once against the CPU (gpu_kernels_once.py);
#                     prints backends()["cuda"], whose "device" says which image was used
#                     (embedded CUBIN / embedded PTX / NVRTC at run time); stops the run if
#                     none loads
#   1b paths   (60)  the same with SIMDCRYPT_CUDA_KERNELS=ptx (the embedded PTX, compiled by
#                     the driver) and =nvrtc (run-time NVRTC), into kernels.log
#   2 sanitizer (100) compute-sanitizer memcheck, racecheck, synccheck, initcheck over the
#                     same driver on small batches (skipped, not failed, without the tool
#                     or where it refuses the device)
#   3 pytest    (75)  crates/simdcrypt-py/tests/test_cuda.py (PyTorch and CuPy inputs,
#                     streams, out=)
#   4 cli       (30)  `simdcrypt sum --backend cuda` against the CPU on a set of files
#   5 bench     (60)  the figures of issue 49 item 6 (scripts/gpu_bench.py) into bench.json
#   6 tune      (90)  kernel-only timings of each batch kernel at each block size
#                     (scripts/gpu_tune.py) into tune.json; GPU_TUNE_OLD=REV adds the kernels
#                     of git revision REV
#   7 profile   (20)  where a small call's fixed cost goes (gpu_tune.py --profile-call: the
#                     call, its Python part, and each driver call it makes, alone) into
#                     bench.log
# What comes back in $OUT (8 files, the device tool's limit): summary.json (stage, pass/fail,
# seconds, exit code), summary.txt (environment and each stage's tail), kernels.log,
# sanitizer.log, tests.log (pytest and the CLI), bench.log (bench and tune), bench.json,
# tune.json. Compilation caches
# (SIMDCRYPT_CUDA_CACHE, the driver's CUDA_CACHE_PATH, CuPy's) go under /tmp, never $HOME.
# A stage that exits 75 is recorded as skipped (the sanitizer where the machine refuses it:
# "Device not supported" on the gVisor runtime). Exit status: 0 when every stage passed or
# was skipped (summary.json says which), 1 when one failed, 2 at once on a machine without a GPU or without gpu-carry/.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
root=$PWD
OUT="${OUT:-$root/gpu-out}"
mkdir -p "$OUT"
carry="${GPU_CARRY:-$root/gpu-carry}"
summary="$OUT/summary.txt"
: >"$summary"
note() { printf '%s\n' "$*" | tee -a "$summary"; }
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
TOTAL=${GPU_CHECK_TOTAL:-300}
stages_json=""
status=0

# A stage's record in summary.json; written after every stage so a cut-short run keeps them.
record() { # name result seconds exit detail
    local entry
    entry=$(printf '{"stage": "%s", "result": "%s", "seconds": %s, "exit": %s, "detail": "%s"}' \
        "$1" "$2" "$3" "$4" "$(printf '%s' "$5" | tr -d '"' | tr '\n' ' ')")
    stages_json="${stages_json:+$stages_json, }$entry"
    write_summary_json running
}
write_summary_json() {
    printf '{"result": "%s", "seconds": %s, "budget_s": %s, "carry_commit": "%s", "stages": [%s]}\n' \
        "$1" "$(elapsed)" "$TOTAL" "$(cat "$carry/COMMIT" 2>/dev/null || echo unknown)" "$stages_json" \
        >"$OUT/summary.json"
}
# Runs one stage: name, budget (s), log file, command...; the budget shrinks to what is left
# of TOTAL. Returns the command's exit status (124: timed out).
stage() {
    local name=$1 budget=$2 log=$3; shift 3
    local left=$((TOTAL - $(elapsed) - 5)) t0 rc secs result
    [ "$budget" -gt "$left" ] && budget=$left
    if [ "$budget" -lt 5 ]; then
        note "== stage $name: skipped, no time left of ${TOTAL}s"
        record "$name" fail 0 -1 "no time left"
        status=1
        return 1
    fi
    note "== stage $name (budget ${budget}s) at $(elapsed)s"
    t0=$(date +%s)
    timeout -k 5 "$budget" "$@" >>"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    tail -15 "$log" >>"$summary"
    local why=""
    if [ $rc -eq 0 ]; then result=pass
    elif [ $rc -eq 75 ]; then result=skipped; why="not supported on this machine (see $(basename "$log"))"
    else result=fail; status=1; fi
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && why="timed out after ${budget}s"
    record "$name" "$result" "$secs" "$rc" "$why"
    note "== stage $name: $result (exit $rc${why:+, $why}) in ${secs}s"
    return $rc
}

# --- fail fast without a GPU: nothing below means anything there, and device time is short.
gpus=$(timeout 10 nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [ "${gpus:-0}" -lt 1 ] && ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    note "gpu-check: FAILED at once: no NVIDIA GPU on this machine (nvidia-smi lists none, no /dev/nvidiaN)." \
        "Run it with the device tool on a machine that has one."
    record gpu fail "$(elapsed)" 2 "no NVIDIA GPU on this machine"
    write_summary_json "fail: no GPU"
    exit 2
fi
for f in simdcrypt COMMIT; do
    if [ ! -e "$carry/$f" ] || ! ls "$carry"/simdcrypt-*.whl >/dev/null 2>&1; then
        note "gpu-check: FAILED at once: $carry lacks the wheel or $f: build it with scripts/build-gpu-carry.sh and pass it in the run's carry."
        record carry fail "$(elapsed)" 2 "gpu-carry incomplete"
        write_summary_json "fail: no carry"
        exit 2
    fi
done

# --- environment (not a stage: a few seconds) -------------------------------------------------
cache=/tmp/simdcrypt-gpu-check
rm -rf "$cache"
mkdir -p "$cache"
export SIMDCRYPT_CUDA_CACHE="$cache/simdcrypt" CUDA_CACHE_PATH="$cache/nv" CUPY_CACHE_DIR="$cache/cupy" \
    PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python=python3
for p in /opt/torch/.venv/bin/python3 python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then python=$p; break; fi
done
# The driver library, in case the loader's cache lacks it. NVRTC is not needed (the kernels
# are embedded); if one is found it is only reported.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then
    for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
        if [ -e "$d/libcuda.so.1" ]; then export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; break; fi
    done
fi
# shellcheck disable=SC2012 # fixed paths
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
site=$cache/site
# shellcheck disable=SC2012 # names made by maturin
wheel=$(ls "$carry"/simdcrypt-*.whl | head -1)
if ! timeout 30 "$python" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$wheel" >>"$summary" 2>&1; then
    note "gpu-check: FAILED: $wheel did not install into $site with $python"
    record install fail "$(elapsed)" 1 "wheel did not install"
    write_summary_json fail
    exit 1
fi
export PYTHONPATH="$site:$root/scripts${PYTHONPATH:+:$PYTHONPATH}"
{
    echo "carry built from: $(cat "$carry/COMMIT") $([ -s "$carry/DIRTY" ] && echo '(with uncommitted changes)')"
    echo "working tree: $(git rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
    echo "python: $python ($("$python" --version 2>&1)); wheel: $(basename "$wheel")"
    echo "compute-sanitizer: ${sanitizer:-not found}"
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    timeout 10 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
} >>"$summary" 2>&1
if [ "$(cat "$carry/COMMIT")" != "$(git rev-parse HEAD 2>/dev/null)" ]; then
    # The device tool sends the checkout's files with a copy of .git that can be older than
    # they are, so a mismatch here is a hint, not proof.
    note "note: gpu-carry was built from $(cat "$carry/COMMIT"), this checkout's .git says $(git rev-parse HEAD 2>/dev/null || echo unknown): if the files are older than the carry, tests and scripts may not match the wheel and CLI"
fi
note "== environment ready at $(elapsed)s"

# --- stage 1: every kernel loads and runs once -------------------------------------------------
stage kernels 30 "$OUT/kernels.log" "$python" scripts/gpu_kernels_once.py 64
rc=$?
if [ $rc -ne 0 ] && ! grep -q '^ok ' "$OUT/kernels.log" && [ "${GPU_CHECK_ANYWAY:-0}" != 1 ]; then
    # No kernel ran: nothing below can pass, keep the device time for a rerun.
    note "gpu-check: FAILED: no kernel loaded or ran (kernels.log says why); later stages not run" \
        "(GPU_CHECK_ANYWAY=1 runs them regardless: a dry run of the script's plumbing)"
    write_summary_json fail
    exit 1
fi

# --- stage 1b: the other two ways kernels are loaded ----------------------------------------------
# SIMDCRYPT_CUDA_KERNELS=ptx loads the embedded compute_90 PTX (what a GPU newer than the
# CUBINs gets: the driver compiles it), =nvrtc compiles with run-time NVRTC (what a GPU none
# of the images serves gets); each runs every kernel once against the CPU.
# shellcheck disable=SC2016 # expanded by the inner bash
stage paths 60 "$OUT/kernels.log" bash -c '
fail=0
for how in ptx nvrtc; do
    echo "--- SIMDCRYPT_CUDA_KERNELS=$how"
    SIMDCRYPT_CUDA_KERNELS=$how "$1" scripts/gpu_kernels_once.py 16 || fail=1
done
exit $fail
' _ "$python"

# --- stage 2: compute-sanitizer over each kernel on small batches -----------------------------
if [ -n "$sanitizer" ]; then
    # shellcheck disable=SC2329 # run by the stage through bash -c (export -f)
    sanitize() {
        local tool fail=0
        for tool in memcheck racecheck synccheck initcheck; do
            echo "--- compute-sanitizer --tool $tool"
            # 24 s a tool: a hang in one tool must leave the others their turn.
            timeout -k 3 24 "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
                "$python" scripts/gpu_kernels_once.py 8
            local rc=$?
            echo "--- $tool: exit $rc"
            if [ "$tool" = memcheck ] && [ "$rc" -ne 0 ] && grep -q 'Device not supported' "$OUT/sanitizer.log"; then
                # Seen on the gVisor runtime (KINDS.md): the sanitizer refuses the device.
                echo "compute-sanitizer does not support this device here: stage skipped"
                return 75
            fi
            [ "$rc" -eq 0 ] || fail=1
        done
        return "$fail"
    }
    export -f sanitize
    export sanitizer python OUT
    stage sanitizer 100 "$OUT/sanitizer.log" bash -c sanitize
else
    echo "compute-sanitizer not found on this machine: stage skipped" >"$OUT/sanitizer.log"
    record sanitizer skipped 0 0 "compute-sanitizer not found"
    note "== stage sanitizer: skipped (no compute-sanitizer)"
fi

# --- stage 3: the GPU Python tests ---------------------------------------------------------------
# test_cuda.py needs numpy and pytest (CuPy and PyTorch where present); --noconftest keeps
# the suite's fixtures out (test_cuda.py imports the helpers it needs from conftest itself).
stage pytest 75 "$OUT/tests.log" "$python" -m pytest -q -rs --noconftest -p no:cacheprovider \
    crates/simdcrypt-py/tests/test_cuda.py

# --- stage 4: the CLI against the CPU --------------------------------------------------------------
cli="$carry/simdcrypt"
chmod +x "$cli" 2>/dev/null
# shellcheck disable=SC2016 # the script is expanded by the inner bash
stage cli 30 "$OUT/tests.log" bash -c '
set -u
cli=$1; dir=$(mktemp -d); cd "$dir"
i=0
for n in 0 1 31 32 63 64 65 1000 1024 1025 4096 100003 1048576 3000001; do
    head -c "$n" /dev/urandom >"f$i"; i=$((i+1))
done
mkdir sub; for j in $(seq 1 300); do head -c $((j * 37)) /dev/urandom >"sub/g$j"; done
fail=0
"$cli" backends | tail -1
compare() { # label, then the arguments of sum
    local label=$1; shift
    local cpu gpu
    cpu=$("$cli" sum "$@" 2>&1; echo "exit $?")
    gpu=$("$cli" sum --backend cuda "$@" 2>&1; echo "exit $?")
    if [ "$cpu" = "$gpu" ]; then echo "ok   $label ($(echo "$cpu" | wc -l) lines)"
    else echo "DIFF $label"; diff <(echo "$cpu") <(echo "$gpu") | head -5; fail=1; fi
}
for algo in blake3 streebog256 streebog512 gost94 gost94-test; do
    compare "$algo" -a "$algo" -r f* missing sub
done
compare "blake3 -l 77 --derive-key" -l 77 --derive-key ctx f*
exit $fail
' _ "$cli"

# --- stage 5: the figures of issue 49 item 6 ------------------------------------------------------
left=$((TOTAL - $(elapsed) - 5))
bench_budget=60
[ $bench_budget -gt "$left" ] && bench_budget=$left
stage bench "$bench_budget" "$OUT/bench.log" "$python" scripts/gpu_bench.py --json "$OUT/bench.json" \
    --budget $((bench_budget > 15 ? bench_budget - 10 : 5))

# --- stage 6: kernel-only timings per launch geometry (scripts/gpu_tune.py) -----------------------
# GPU_TUNE_OLD=REV also times the kernel files of git revision REV, beside this tree's.
left=$((TOTAL - $(elapsed) - 5))
tune_budget=90
[ $tune_budget -gt "$left" ] && tune_budget=$left
stage tune "$tune_budget" "$OUT/bench.log" "$python" scripts/gpu_tune.py --json "$OUT/tune.json" \
    --budget $((tune_budget > 15 ? tune_budget - 10 : 5)) ${GPU_TUNE_OLD:+--old "$GPU_TUNE_OLD"}

# --- stage 7: a small call's fixed cost, piece by piece (scripts/gpu_tune.py --profile-call) ----
left=$((TOTAL - $(elapsed) - 5))
profile_budget=20
[ $profile_budget -gt "$left" ] && profile_budget=$left
stage profile "$profile_budget" "$OUT/bench.log" "$python" scripts/gpu_tune.py --profile-call

rm -rf "$cache"
result=$([ $status -eq 0 ] && echo pass || echo fail)
write_summary_json "$result"
note "RESULT: $result after $(elapsed)s (summary.json has each stage)"
exit $status
