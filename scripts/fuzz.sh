#!/usr/bin/env bash
# Builds every fuzz target (fuzz/, cargo-fuzz, libFuzzer, AddressSanitizer) and runs each
# for SECONDS (default 60), then prints per target: executions, coverage (libFuzzer's
# final `cov:` edges and `ft:` features), corpus growth and crashes, with the command that
# reproduces a crash. Exits 1 if any target crashed (or leaked, or timed out on an input).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   SECONDS  how long each target runs (libFuzzer's -max_total_time); default 60
#   TARGET   only these targets (default: all of `cargo fuzz list`)
#
# Needs the nightly toolchain and cargo-fuzz: when missing, it installs them
# (`rustup toolchain install nightly --profile minimal`, `cargo install cargo-fuzz
# --locked` from crates.io). Each target starts from its committed seeds
# (fuzz/seeds/TARGET, read only) and keeps what it finds in fuzz/corpus/TARGET (not
# committed), so later runs go on from there; crashes are written to fuzz/artifacts/TARGET/.
# docs/testing.md ("Fuzzing") says how to run a long campaign.
#
# SIMDCRYPT_FUZZ_SEED=N fixes libFuzzer's random seed (-seed=N): the test command's short run
# sets it, so from the committed seeds and an empty work corpus (a fresh clone) every run
# explores the same inputs in the same order, as far as its time allows; a campaign leaves
# it unset and explores anew each time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec </dev/null
root=$PWD

seconds=${1:-60}
case "$seconds" in
    '' | *[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac
shift $(($# > 0 ? 1 : 0))

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "installing the nightly toolchain (cargo-fuzz needs -Zsanitizer)"
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz from crates.io"
    cargo install cargo-fuzz --locked
fi

cd fuzz
# -a: debug assertions and overflow checks on (an overflow is a finding); -O: optimised,
# as the library ships. AddressSanitizer is cargo-fuzz's default sanitizer.
build_start=$SECONDS
cargo +nightly fuzz build -a -O
echo "build: $((SECONDS - build_start)) s"

if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
bin_dir=$root/fuzz/target/$triple/release
logs=$root/fuzz/artifacts/logs
mkdir -p "$logs"

rows=()
failed=0
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t" "seeds/$t"
    log=$logs/$t.log
    rc=0
    # Work corpus first (new inputs go there), seeds second (read only). -timeout: an
    # input that runs 30 s is a hang. -rss_limit_mb: the stretched inputs stay far below.
    # -max_len: room for the 128-byte parameter head and a payload of several Bao chunks
    # or a sealed file (libFuzzer would otherwise start near the longest seed).
    seed_arg=()
    if [ -n "${SIMDCRYPT_FUZZ_SEED:-}" ]; then seed_arg=(-seed="$SIMDCRYPT_FUZZ_SEED"); fi
    "$bin_dir/$t" "corpus/$t" "seeds/$t" "${seed_arg[@]}" -max_total_time="$seconds" -print_final_stats=1 \
        -timeout=30 -rss_limit_mb=4096 -max_len=16384 -artifact_prefix="artifacts/$t/" >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | grep 'cov:' | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$done_line")
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    if [ "$rc" -eq 0 ]; then
        result="ok"
    else
        failed=1
        result="CRASH (exit $rc)"
        echo
        echo "=== $t: libFuzzer exited with status $rc; log: $log"
        grep -E 'panicked at|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY' "$log" | head -5 || true
        if [ -n "$artifact" ]; then
            echo "reproduce: (cd fuzz && cargo +nightly fuzz run -a -O $t $artifact)"
        fi
    fi
    rows+=("$(printf '%-20s %6s s %12s execs  cov %6s  ft %7s  corpus %-12s %s' "$t" "$seconds" "${execs:-?}" \
        "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result")")
done

echo
echo "Fuzz run: $seconds s per target (logs in fuzz/artifacts/logs/)"
printf '%s\n' "${rows[@]}"
exit "$failed"
