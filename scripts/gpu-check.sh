#!/usr/bin/env bash
# The CUDA backend's check on a GPU machine (design item 6 of issue 39): one prepared run
# of at most ~8 minutes, each stage under its own timeout so that a hang costs only that
# stage. Built here first (no Rust and no network there):
#
#   ./scripts/build-gpu-carry.sh                       # wheel + CLI into gpu-carry/
#   device tool: run  command="bash scripts/gpu-check.sh"  carry=["gpu-carry"]  timeout_s=540
#
# Stages: environment (GPU, driver, NVRTC, CuPy, PyTorch); the wheel installed into a
# temporary target; tests/test_cuda.py on the GPU (every batch function against the CPU
# backends, host and device inputs through CuPy and PyTorch, out= arrays, streams, bad
# pointers); the CLI's `sum --backend cuda` against its CPU output; benchmarks
# (scripts/gpu_bench.py). Everything lands in $OUT (at most 8 files come back): summary.txt,
# env.txt, pytest.txt, cli.txt, bench.txt, bench.json. Exit status: 0 when the tests and
# the CLI comparison passed, 1 otherwise (benchmarks never fail the run), 2 at once (in
# well under a second) on a machine without a GPU or without gpu-carry/, saying which.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
OUT="${OUT:-$root/gpu-out}"
mkdir -p "$OUT"
carry="${GPU_CARRY:-$root/gpu-carry}"
summary="$OUT/summary.txt"
: >"$summary"
note() { printf '%s\n' "$*" | tee -a "$summary"; }
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
why() { [ "$1" -eq 124 ] || [ "$1" -eq 137 ] && echo ", timed out"; }
status=0

# --- fail fast without a GPU: nothing below means anything there, and device time is short.
gpus=$(timeout 20 nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [ "${gpus:-0}" -lt 1 ] && ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    note "gpu-check: no NVIDIA GPU on this machine (nvidia-smi lists none, no /dev/nvidiaN): nothing to check." \
        "Run it with the device tool on a machine that has one."
    exit 2
fi
if [ ! -d "$carry" ]; then
    note "gpu-check: no $carry: build it first with scripts/build-gpu-carry.sh and pass it in the run's carry."
    exit 2
fi

# --- stage 0: environment (30 s) -----------------------------------------------------------
python=python3
for p in /opt/torch/.venv/bin/python3 python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then python=$p; break; fi
done
# NVRTC 13: the CUDA toolkit's, or the nvidia-cuda-nvrtc wheel in the Python environment.
nvrtc_dir=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    if [ -e "$d/libnvrtc.so.13" ]; then nvrtc_dir=$d; break; fi
done
if [ -z "$nvrtc_dir" ]; then
    nvrtc_dir=$(timeout 20 "$python" - <<'PY' 2>/dev/null
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()] + sys.path
for r in roots:
    for hit in glob.glob(os.path.join(r, "nvidia", "*", "lib", "libnvrtc.so.1[3-9]")) + glob.glob(os.path.join(r, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.1[3-9]")):
        print(os.path.dirname(hit)); raise SystemExit
PY
)
fi
if [ -z "$nvrtc_dir" ]; then
    nvrtc_dir=$(dirname "$(find / -xdev -name 'libnvrtc.so.13' -print -quit 2>/dev/null)" 2>/dev/null || true)
fi
# The driver library, in case the loader's cache lacks it.
driver_dir=""
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then
    for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
        if [ -e "$d/libcuda.so.1" ]; then driver_dir=$d; break; fi
    done
fi
export LD_LIBRARY_PATH="${nvrtc_dir:+$nvrtc_dir:}${driver_dir:+$driver_dir:}${LD_LIBRARY_PATH:-}"
{
    echo "commit of the carry: $(cat "$carry/COMMIT" 2>/dev/null || echo unknown) $( [ -s "$carry/DIRTY" ] && echo '(with uncommitted changes)')"
    echo "working tree: $(git rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
    echo "python: $python ($("$python" --version 2>&1))"
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    echo "nvrtc: ${nvrtc_dir:-NOT FOUND}"
    timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
    echo "cpus: $(nproc)"
    timeout 20 "$python" - <<'PY' 2>&1
for name in ("cupy", "torch", "dask", "blake3", "pytest"):
    try:
        m = __import__(name)
        extra = ""
        if name == "torch":
            extra = f" cuda={m.cuda.is_available()} {m.version.cuda}"
        if name == "cupy":
            extra = f" devices={m.cuda.runtime.getDeviceCount()}"
        print(f"{name} {getattr(m, '__version__', '?')}{extra}")
    except Exception as e:
        print(f"{name}: not usable ({type(e).__name__}: {e})")
PY
    command -v b3sum && b3sum --version
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt" >>"$summary"

# --- stage 1: install the wheel (30 s) -------------------------------------------------------
site=/tmp/simdcrypt-site
rm -rf "$site"
wheel=$(ls "$carry"/simdcrypt-*.whl 2>/dev/null | head -1)
if [ -z "$wheel" ] || ! timeout 30 "$python" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$wheel" >>"$summary" 2>&1; then
    note "FAILED: no wheel in $carry, or it did not install (build it with scripts/build-gpu-carry.sh)"
    exit 1
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
note "== $(elapsed)s: simdcrypt installed from $(basename "$wheel")"
timeout 60 "$python" -c '
import json, simdcrypt
print("simdcrypt from", simdcrypt.__file__)
cuda = simdcrypt.backends()["cuda"]
print(json.dumps(cuda, indent=1))
raise SystemExit(0 if cuda["available"] else 3)
' 2>&1 | tee -a "$summary"
if [ "${PIPESTATUS[0]}" -ne 0 ] && [ "${GPU_CHECK_ANYWAY:-0}" != 1 ]; then
    # Nothing below can pass without a usable GPU: keep the device time.
    note "FAILED: the cuda backend is unavailable (reason above); GPU_CHECK_ANYWAY=1 runs the stages regardless"
    exit 1
fi

# --- stage 2: the tests on the GPU (200 s) ---------------------------------------------------
# test_cuda.py needs numpy and pytest only (CuPy/PyTorch when present); --noconftest keeps
# the suite's conftest (and its imports) out of it.
timeout -k 10 200 "$python" -m pytest -q -rs --noconftest -p no:cacheprovider \
    crates/simdcrypt-py/tests/test_cuda.py >"$OUT/pytest.txt" 2>&1
rc=$?
tail -25 "$OUT/pytest.txt" >>"$summary"
if [ $rc -ne 0 ]; then status=1; note "FAILED: test_cuda.py (exit $rc$(why $rc))"; fi
note "== $(elapsed)s: tests done (exit $rc)"

# --- stage 3: the CLI against its CPU path (60 s) -------------------------------------------
cli="$carry/simdcrypt"
chmod +x "$cli" 2>/dev/null
timeout -k 5 60 bash -c '
set -u
cli=$1; dir=$(mktemp -d); cd "$dir"
i=0
for n in 0 1 31 32 63 64 65 1000 1024 1025 4096 100003 1048576 3000001; do
    head -c "$n" /dev/urandom >"f$i"; i=$((i+1))
done
mkdir sub; for j in $(seq 1 300); do head -c $((j * 37)) /dev/urandom >"sub/g$j"; done
fail=0
"$cli" backends | tail -1
for algo in blake3 streebog256 streebog512 gost94 gost94-test; do
    for style in "" --tag --json --no-names; do
        cpu=$("$cli" sum -a $algo $style -r f* missing sub 2>&1; echo "exit $?")
        gpu=$("$cli" sum --backend cuda -a $algo $style -r f* missing sub 2>&1; echo "exit $?")
        if [ "$cpu" = "$gpu" ]; then echo "ok   $algo $style"; else echo "DIFF $algo $style"; diff <(echo "$cpu") <(echo "$gpu") | head -5; fail=1; fi
    done
done
cpu=$("$cli" sum -l 77 --derive-key ctx f*); gpu=$("$cli" sum --backend cuda -l 77 --derive-key ctx f*)
if [ "$cpu" = "$gpu" ]; then echo "ok   blake3 -l 77 --derive-key"; else echo "DIFF blake3 -l 77 --derive-key"; fail=1; fi
exit $fail
' _ "$cli" >"$OUT/cli.txt" 2>&1
rc=$?
grep -c '^ok' "$OUT/cli.txt" | sed 's/^/CLI comparisons ok: /' >>"$summary"
grep -A5 '^DIFF' "$OUT/cli.txt" | head -40 >>"$summary"
if [ $rc -ne 0 ]; then status=1; note "FAILED: CLI sum --backend cuda (exit $rc$(why $rc))"; fi
note "== $(elapsed)s: CLI done (exit $rc)"

# --- stage 4: benchmarks (what is left of ~8 minutes, at most 230 s) ------------------------
left=$((470 - $(elapsed)))
[ $left -gt 230 ] && left=230
if [ $left -gt 30 ]; then
    timeout -k 10 "$left" "$python" scripts/gpu_bench.py --json "$OUT/bench.json" --budget $((left - 15)) \
        >"$OUT/bench.txt" 2>&1
    rc=$?
    tail -60 "$OUT/bench.txt" >>"$summary"
    note "== $(elapsed)s: benchmarks done (exit $rc$(why $rc))"
else
    note "benchmarks skipped: no time left"
fi
note "RESULT: $([ $status -eq 0 ] && echo PASSED || echo FAILED) after $(elapsed)s"
exit $status
