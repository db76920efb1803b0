#!/usr/bin/env bash
# Runs b3sum's own command-line test suite (tests/cli_tests.rs of the b3sum crate on
# crates.io) against simdcrypt invoked as `b3sum`.
#
# b3sum's source is taken from crates.io through cargo (never copied into this repository),
# unpacked into a scratch folder under target/, and its test executable is built there with
# its own Cargo.lock. Those tests run the binary cargo built for them (CARGO_BIN_EXE_b3sum,
# target/b3sum-suite/target/debug/b3sum); that file is replaced by a symbolic link named b3sum to
# our target/debug/simdcrypt, and the test executable is run directly (`cargo test` would
# rebuild b3sum over the link). Exits non-zero if any test fails.
#
# B3SUM_SUITE_VERSION picks another b3sum release (default 1.8.2); extra arguments go to
# the test executable (a test name filter, --nocapture, ...).
#
# The b3sum binary built for those tests is kept as target/b3sum-suite/b3sum-official
# (before the link replaces it): the official CLI, built from the same source and lock
# file as `cargo install b3sum`, which scripts/test.sh gives the CLI tests as $B3SUM.
#   --build-only     builds the test executable and b3sum-official, runs nothing.
#   SIMDCRYPT_BIN    the simdcrypt binary to test (scripts/test.sh passes the one its
#                    workspace build made); unset, `cargo build -p simdcrypt-cli` builds it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
version=${B3SUM_SUITE_VERSION:-1.8.2}
build_only=0
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
cargo_home=${CARGO_HOME:-$HOME/.cargo}
target_dir=${CARGO_TARGET_DIR:-$root/target}
scratch=$target_dir/b3sum-suite
src=$scratch/b3sum-$version

# The crate's source: as unpacked by an earlier `cargo install b3sum@$version` (benches/targets.sh
# does that), else the downloaded .crate (a gzipped tar), else have cargo download it by
# fetching for a throwaway project that depends on it.
find_crate() {
    local d f
    for d in "$cargo_home"/registry/src/*/b3sum-"$version"; do
        if [ -f "$d/tests/cli_tests.rs" ]; then printf 'dir %s\n' "$d"; return 0; fi
    done
    for f in "$cargo_home"/registry/cache/*/b3sum-"$version".crate; do
        if [ -f "$f" ]; then printf 'crate %s\n' "$f"; return 0; fi
    done
    return 1
}
if ! found=$(find_crate); then
    fetcher=$scratch/fetch
    rm -rf "$fetcher" && mkdir -p "$fetcher/src"
    printf '[package]\nname = "b3sum-suite-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\nb3sum = "=%s"\n\n[workspace]\n' \
        "$version" >"$fetcher/Cargo.toml"
    : >"$fetcher/src/lib.rs"
    # b3sum has no library target: cargo warns that it ignores it as a dependency, but
    # still downloads it.
    (cd "$fetcher" && cargo fetch --quiet)
    found=$(find_crate) || { echo "b3sum $version: cargo did not download it" >&2; exit 1; }
fi
rm -rf "$src" && mkdir -p "$scratch"
case $found in
    dir\ *) cp -Rp "${found#dir }" "$src" ;;
    crate\ *) tar -xzf "${found#crate }" -C "$scratch" ;;
esac
# Its own workspace: otherwise cargo takes it for a stray member of ours (it lies under our
# target/).
printf '\n[workspace]\n' >>"$src/Cargo.toml"

echo "building b3sum $version's test executable in $src"
# A target folder beside the source, kept between runs (the source is unpacked afresh).
build_suite() { (cd "$src" && CARGO_TARGET_DIR=$scratch/target cargo test --quiet --locked --no-run --test cli_tests); }
build_suite
# cargo puts its b3sum back on a rebuild, not necessarily on a fresh one: a link left by an
# earlier run must never be taken for the official binary.
b3sum_bin=$scratch/target/debug/b3sum
if [ -L "$b3sum_bin" ] || [ ! -x "$b3sum_bin" ]; then
    rm -f "$b3sum_bin" "$scratch"/target/debug/.fingerprint/b3sum-*/bin-b3sum*
    build_suite
fi
[ -x "$b3sum_bin" ] && [ ! -L "$b3sum_bin" ] || { echo "cargo did not build b3sum at $b3sum_bin" >&2; exit 1; }
cp -f "$b3sum_bin" "$scratch/b3sum-official"
"$scratch/b3sum-official" --version
# The newest, should an older build have left another.
tests_exe=$(find "$scratch/target/debug/deps" -maxdepth 1 -type f -name 'cli_tests-*' -perm -u+x \
    -printf '%T@ %p\n' | sort -rn | head -n 1 | cut -d' ' -f2-)
[ -n "$tests_exe" ] || { echo "no cli_tests executable under $scratch/target/debug/deps" >&2; exit 1; }

[ "$build_only" = 0 ] || exit 0

if [ -n "${SIMDCRYPT_BIN:-}" ]; then
    simdcrypt=$SIMDCRYPT_BIN
else
    echo "building simdcrypt"
    cargo build --quiet -p simdcrypt-cli
    simdcrypt=$target_dir/debug/simdcrypt
fi
[ -x "$simdcrypt" ] || { echo "no simdcrypt binary at $simdcrypt" >&2; exit 1; }
ln -sfn "$simdcrypt" "$scratch/target/debug/b3sum"

echo "running b3sum $version's tests against $scratch/target/debug/b3sum -> $simdcrypt"
cd "$src"
"$tests_exe" "$@"
