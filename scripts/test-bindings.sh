#!/usr/bin/env bash
# Builds the C ABI (crates/simdcrypt-capi: libsimdcrypt_capi.a/.so, dev profile) and runs
# the C, Nim and Go binding tests against it. Installs nim through apt when it is missing;
# a binding whose toolchain cannot be found or installed is reported as NOT TESTED, and
# the script then fails (set SIMDCRYPT_BINDINGS_ALLOW_MISSING=1 to only warn).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
step() { printf '\n==> %s\n' "$*"; }
missing=()

# SIMDCRYPT_CAPI_DIR names a folder that already holds libsimdcrypt_capi.a and .so
# (scripts/test.sh passes its workspace build's); unset, they are built here.
if [ -n "${SIMDCRYPT_CAPI_DIR:-}" ]; then
    lib_dir=$SIMDCRYPT_CAPI_DIR
else
    step "C ABI: cargo build -p simdcrypt-capi"
    cargo build --quiet -p simdcrypt-capi
    lib_dir="${CARGO_TARGET_DIR:-$root/target}/debug"
fi
static_lib="$lib_dir/libsimdcrypt_capi.a"
include_dir="$root/crates/simdcrypt-capi/include"
# What the static library needs from the system (std's threads, dlsym, libm).
sys_libs="-lpthread -ldl -lm"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step "C binding test (cc, static and shared library)"
cc="${CC:-cc}"
if command -v "$cc" >/dev/null; then
    "$cc" -std=c99 -Wall -Wextra -Werror -I"$include_dir" crates/simdcrypt-capi/tests/c/test.c \
        "$static_lib" $sys_libs -o "$work/c_static"
    "$work/c_static" "$root/test-vectors"
    "$cc" -std=c99 -Wall -Wextra -Werror -I"$include_dir" crates/simdcrypt-capi/tests/c/test.c \
        -L"$lib_dir" -lsimdcrypt_capi -Wl,-rpath,"$lib_dir" -o "$work/c_shared"
    "$work/c_shared" "$root/test-vectors"
    # The header alone must compile as C++ too (cpp_compat).
    printf '#include "simdcrypt.h"\nint main(void) { return 0; }\n' >"$work/cxx.cc"
    if command -v c++ >/dev/null; then c++ -Wall -Werror -I"$include_dir" "$work/cxx.cc" -o "$work/cxx"; fi
else
    missing+=("C (no C compiler: $cc)")
fi

step "Nim binding test"
if ! command -v nim >/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    { $sudo apt-get install -y -qq nim || { $sudo apt-get update -qq && $sudo apt-get install -y -qq nim; }; } \
        >/tmp/simdcrypt-nim-setup.log 2>&1 \
        || printf '\n*** nim NOT INSTALLED (see /tmp/simdcrypt-nim-setup.log) ***\n\n'
fi
if command -v nim >/dev/null; then
    nim c --hints:off --nimcache:"$work/nimcache" -d:simdcryptLib="$static_lib" \
        -o:"$work/nim_test" -r bindings/nim/tests/test_simdcrypt.nim
else
    missing+=("Nim (nim not installed)")
fi

step "Go binding test (cgo, static library)"
go="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
if [ -x "$go" ]; then
    (cd bindings/go && CGO_ENABLED=1 CGO_LDFLAGS="$static_lib $sys_libs" "$go" vet ./... \
        && CGO_ENABLED=1 CGO_LDFLAGS="$static_lib $sys_libs" "$go" test -count=1 -v ./...) \
        | grep -E '^(---|ok|FAIL|PASS)|vectors|panic|\.go:'
else
    missing+=("Go (no go toolchain; set GO=/path/to/go)")
fi

if [ ${#missing[@]} -gt 0 ]; then
    printf '\n*** bindings NOT TESTED: %s ***\n' "${missing[@]}"
    [ "${SIMDCRYPT_BINDINGS_ALLOW_MISSING:-0}" = 1 ] || exit 1
fi
step "bindings: all tested"
