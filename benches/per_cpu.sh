#!/usr/bin/env bash
# The per-CPU figures of BENCHMARKS.md: every algorithm's headline rows against the best
# peer, in one run per instruction-set level, on this machine.
#
#   benches/per_cpu.sh            full run (about a minute per level, three levels)
#   benches/per_cpu.sh --quick    smoke run (figures mean nothing; checks that it works)
#   benches/per_cpu.sh --every-backend [--quick]
#                                 every backend of every algorithm on this CPU instead
#                                 (per_cpu.rs --every-backend: each forced by set_platform,
#                                 one table with dispatch's pick and the fastest, and the
#                                 rows where they differ), to confirm or correct the rank
#                                 orders and cpu::PASS_OVER on a CPU of a new kind; one
#                                 build, no peers, no command-line rows
#
# For each level (SIMDCRYPT_DISABLE unset, `avx512,gfni`, `avx512,gfni,avx2`) it prints
# the markdown table of benches/examples/per_cpu.rs (library calls against the blake3,
# sha2, hashtree-rs, highway, streebog, gost94 and salsa20 crates, Nettle and libsodium in
# the same run) and the command-line rows on a cached file (256 MiB; 32 MiB with --quick),
# min of interleaved runs, one thread against one thread and defaults against defaults:
# BLAKE3 against b3sum; SHA-256 against sha256sum, `rhash --sha256` and `openssl dgst
# -sha256`; Streebog-256/512 and GOST R 34.11-94 (both parameter sets) against rhash;
# HighwayHash-256 alone (no command-line peer; the library rows are its yardstick).
#
# Needs: Rust (the workspace's toolchain); Debian packages nettle-dev (libnettle and its
# symlink, for `peer-nettle`), libsodium23 or libsodium-dev (`peer-libsodium` links
# libsodium.so.23 by its full name), rhash, openssl, coreutils (sha256sum), util-linux
# (lscpu), b3sum on PATH or in $B3SUM. Without rhash or b3sum the rows against them are
# skipped, without openssl that peer; the Nettle and libsodium
# features are required (the build fails without the libraries).
#
# What the levels mean: SIMDCRYPT_DISABLE hides CPU features from simdcrypt only
# (crates/simdcrypt/src/cpu.rs; `avx512` hides every AVX-512 feature). A backend needs its
# whole feature bundle, so hiding avx2 also removes every kernel that lists it (the AVX-512
# ones are already gone); SSE4.1, AVX, SHA-NI and BMI2 stay, so the third level stands in
# for a pre-Haswell CPU with SHA-NI where this CPU has it (the SHA-256 rows keep SHA-NI).
# The peers are held to the same level where they can be: the blake3 crate by its
# no_avx512 / no_avx2 features (one build per level), hashtree-rs by calling its kernels
# by name, highway by its SseHash type; sha2 uses SHA-NI, which no level hides. The table
# marks each peer: (rt, held) picks at run time but within this level's instruction set,
# (rt) picks from the full CPU (libsodium's Salsa20 keeps its AVX2 code at the last
# level), (fixed) is compiled code (RustCrypto streebog, gost94, salsa20; Nettle's
# Streebog and GOST R 34.11-94 are plain C). Keep RUSTFLAGS empty (no
# `-C target-cpu=native`): it would compile the fixed peers, and ours, for this CPU.
#
# Builds: the example with thin LTO (CARGO_PROFILE_RELEASE_LTO=thin; set PER_CPU_LTO=fat
# for the release profile's own setting) and the CLI the same way, in the workspace's
# target directory (or CARGO_TARGET_DIR).
set -euo pipefail

quick=""
every=""
for arg in "$@"; do
    case $arg in
        --quick) quick="--quick" ;;
        --every-backend) every="--every-backend" ;;
        *)
            echo "usage: $0 [--every-backend] [--quick]" >&2
            exit 2
            ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
lto="${PER_CPU_LTO:-thin}"
if [[ -n "${RUSTFLAGS:-}" ]]; then
    echo "warning: RUSTFLAGS is set ($RUSTFLAGS): the fixed-code peers are compiled with it too" >&2
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/per_cpu.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# What a table in BENCHMARKS.md must name: the CPU, its caches, the date and the commit.
echo "## $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
lscpu | grep -E '^(CPU family|Model|L1d cache|L2 cache|L3 cache):' || true

if [[ -n "$every" ]]; then
    # No peers, so no C libraries and one build; SIMDCRYPT_DISABLE would hide backends.
    if [[ -n "${SIMDCRYPT_DISABLE:-}" ]]; then
        echo "warning: SIMDCRYPT_DISABLE=$SIMDCRYPT_DISABLE hides backends from this table" >&2
    fi
    CARGO_PROFILE_RELEASE_LTO="$lto" cargo build --quiet --release -p simdcrypt-bench --example per_cpu
    "$target/release/examples/per_cpu" --every-backend $quick
    exit 0
fi

build_start=$(date +%s)
# One build of the example per level: the blake3 peer is held to the level by its own
# cargo features (no_avx512, no_avx2), which only a build can set.
declare -A example
for level in full avx512 avx2; do
    features=peer-nettle,peer-libsodium
    case $level in
        avx512) features+=,peer-blake3-no-avx512 ;;
        avx2) features+=,peer-blake3-no-avx512,peer-blake3-no-avx2 ;;
    esac
    CARGO_PROFILE_RELEASE_LTO="$lto" cargo build --quiet --release -p simdcrypt-bench --example per_cpu \
        --features "$features"
    cp "$target/release/examples/per_cpu" "$tmp/per_cpu-$level"
    example[$level]="$tmp/per_cpu-$level"
done
CARGO_PROFILE_RELEASE_LTO="$lto" cargo build --quiet --release -p simdcrypt-cli
echo "(built in $(($(date +%s) - build_start)) s, LTO $lto)" >&2
cli="$target/release/simdcrypt"

if [[ -n "$quick" ]]; then
    file_mib=32
    runs=2
else
    file_mib=256
    runs=5
fi
# The commands run in $tmp, with our binary first on PATH, so that they carry no paths
# (and print short in the table).
mkdir "$tmp/bin"
ln -s "$cli" "$tmp/bin/simdcrypt"
export PATH="$tmp/bin:$PATH"
file=input.bin
head -c "$((file_mib << 20))" /dev/urandom >"$tmp/$file"
cat "$tmp/$file" >/dev/null # in the page cache before any timing

have_rhash=1
command -v rhash >/dev/null || have_rhash=0
have_openssl=1
command -v openssl >/dev/null || have_openssl=0
# b3sum from $B3SUM, else PATH (`cargo install b3sum`).
have_b3sum=1
if [[ -n "${B3SUM:-}" ]]; then
    ln -s "$B3SUM" "$tmp/bin/b3sum"
else
    command -v b3sum >/dev/null || have_b3sum=0
fi
head -c 32 /dev/urandom >"$tmp/hh.key"

# Nanoseconds of one run of "$@", output discarded.
time_ns() {
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    echo $((end - start))
}

# The digest a command prints first (the first field of its first line).
digest_of() {
    "$@" | head -n 1 | awk '{print $1}'
}

# One command-line row: LABEL, then commands separated by `--`, ours first. Every command
# must print the same digest; the runs are interleaved (forward, then reversed), and each
# command's time is its fastest run.
cli_row() {
    local label="$1"
    shift
    local -a cmds=()
    local cmd="" arg
    for arg in "$@" --; do
        if [[ "$arg" == "--" ]]; then
            cmds+=("$cmd")
            cmd=""
        else
            cmd+="${cmd:+ }$arg"
        fi
    done
    local n=${#cmds[@]} i r expected got
    expected="$(digest_of ${cmds[0]})"
    for ((i = 1; i < n; i++)); do
        got="$(digest_of ${cmds[i]})"
        if [[ "$got" != "$expected" ]]; then
            echo "| $label | digests differ: \`${cmds[0]}\` $expected, \`${cmds[i]}\` $got | | | |"
            return
        fi
    done
    local -a best=()
    for ((i = 0; i < n; i++)); do best+=(0); done
    for ((r = 0; r < runs; r++)); do
        local -a order=()
        if ((r % 2 == 0)); then
            for ((i = 0; i < n; i++)); do order+=("$i"); done
        else
            for ((i = n - 1; i >= 0; i--)); do order+=("$i"); done
        fi
        for i in "${order[@]}"; do
            local t
            t=$(time_ns ${cmds[i]})
            if ((best[i] == 0 || t < best[i])); then best[i]=$t; fi
        done
    done
    local peer_best=1 others=""
    for ((i = 2; i < n; i++)); do
        if ((best[i] < best[peer_best])); then peer_best=$i; fi
    done
    for ((i = 1; i < n; i++)); do
        if ((i != peer_best)); then
            others+="${others:+; }\`${cmds[i]% *}\` $(ms "${best[i]}")"
        fi
    done
    echo "| $label | \`${cmds[0]% *}\` $(ms "${best[0]}") ($(mbs "${best[0]}") MB/s) | \`${cmds[peer_best]% *}\` $(ms "${best[peer_best]}") ($(mbs "${best[peer_best]}") MB/s) | $(ratio "${best[peer_best]}" "${best[0]}") | $others |"
}

# A row with no peer: ours alone, fastest of $runs runs.
cli_solo() {
    local label="$1" best=0 r t
    shift
    for ((r = 0; r < runs; r++)); do
        t=$(time_ns "$@")
        if ((best == 0 || t < best)); then best=$t; fi
    done
    echo "| $label | \`simdcrypt sum -a ${4:-}\` $(ms "$best") ($(mbs "$best") MB/s) | | | |"
}

ms() { awk -v t="$1" 'BEGIN { printf "%.1f ms", t / 1e6 }'; }
mbs() { awk -v t="$1" -v m="$file_mib" 'BEGIN { printf "%.0f", m * 1048576 / (t / 1e9) / 1e6 }'; }
ratio() { awk -v p="$1" -v o="$2" 'BEGIN { printf "%.2f×", p / o }'; }

run_level() {
    local disable="$1" binary="$2"
    if [[ -n "$disable" ]]; then
        export SIMDCRYPT_DISABLE="$disable"
    else
        unset SIMDCRYPT_DISABLE
    fi
    local level_start
    level_start=$(date +%s)
    "$binary" $quick
    cd "$tmp"
    echo
    echo "Command line, ${file_mib} MiB cached file, min of $runs interleaved runs (wall clock); ratio = best peer / ours;"
    echo "\"one thread\" rows give simdcrypt -j 1 and b3sum --num-threads 1 (the other peers have one thread), \"defaults\" rows no option:"
    echo
    echo "| command-line row | simdcrypt | best peer | best peer / ours | other peers |"
    echo "| --- | --- | --- | ---: | --- |"
    if ((have_b3sum)); then
        cli_row "BLAKE3 file, one thread" simdcrypt sum -j 1 "$file" -- b3sum --num-threads 1 "$file"
        cli_row "BLAKE3 file, defaults" simdcrypt sum "$file" -- b3sum "$file"
    else
        echo "| (b3sum not on PATH or in \$B3SUM: its rows skipped) | | | | |"
    fi
    local -a sha_peers=(-- sha256sum "$file")
    if ((have_rhash)); then sha_peers+=(-- rhash --sha256 "$file"); fi
    if ((have_openssl)); then sha_peers+=(-- openssl dgst -sha256 -r "$file"); fi
    cli_row "SHA-256 file, one thread" simdcrypt sum -a sha256 -j 1 "$file" "${sha_peers[@]}"
    cli_row "SHA-256 file, defaults" simdcrypt sum -a sha256 "$file" "${sha_peers[@]}"
    if ((have_rhash)); then
        cli_row "Streebog-256 file, one thread" simdcrypt sum -a streebog256 -j 1 "$file" -- rhash --gost12-256 "$file"
        cli_row "Streebog-256 file, defaults" simdcrypt sum -a streebog256 "$file" -- rhash --gost12-256 "$file"
        cli_row "Streebog-512 file, defaults" simdcrypt sum -a streebog512 "$file" -- rhash --gost12-512 "$file"
        cli_row "GOST R 34.11-94 CryptoPro file, one thread" simdcrypt sum -a gost94 -j 1 "$file" -- rhash --gost94-cryptopro "$file"
        cli_row "GOST R 34.11-94 test parameters file, defaults" simdcrypt sum -a gost94-test "$file" -- rhash --gost94 "$file"
    else
        echo "| (rhash not installed: its Streebog and GOST rows skipped) | | | | |"
    fi
    # HighwayHash has no command-line peer: the library rows above are its yardstick.
    cli_solo "HighwayHash-256 file, defaults (no CLI peer: compare the library row)" \
        simdcrypt sum -a highwayhash256 --key-file "$tmp/hh.key" "$file"
    echo
    cd "$root"
    echo "(level ${disable:-full} took $(($(date +%s) - level_start)) s)"
    echo
}

run_level "" "${example[full]}"
run_level "avx512,gfni" "${example[avx512]}"
run_level "avx512,gfni,avx2" "${example[avx2]}"
