#!/usr/bin/env bash
# Builds the Python package's sdist and its manylinux wheels (x86_64 and aarch64) into
# dist/, then checks them:
#   - each wheel's tag is manylinux2014 (manylinux_2_17) and `auditwheel show` agrees;
#   - each wheel holds exactly the package's tracked Python files, the compiled
#     _native.abi3.so and the dist-info, nothing else (no tests, caches, build outputs);
#   - the x86_64 wheel installs into fresh venvs (python3, and the interpreters named in
#     PYTHONS, e.g. 3.9, the oldest abi3-py39 promises) and passes a smoke test with
#     known vectors;
#   - the aarch64 wheel passes the same smoke test in Debian's arm64 CPython under qemu
#     (downloaded into a private root under .tools/: the host's dpkg is not touched);
#   - every file of the sdist is a git-tracked file of the package or of the crates it
#     needs, and the sdist, unpacked alone, builds a wheel that passes the smoke test.
#
# Usage: scripts/build-wheels.sh [--quick | --tools-only]
#   --quick       skips building a wheel from the unpacked sdist (a third compile of the
#                 crates; its contents are still checked). A dev-profile build is no cheaper
#                 here: the workspace's dev profile optimizes every crate and keeps line tables.
#   --tools-only  installs the tools and the aarch64 Python below, builds nothing
#                 (scripts/test.sh runs it in the background while it compiles).
# The wheels link with zig (ziglang from PyPI), which targets glibc 2.17 from any host.
# Tools go into .tools/wheels-venv; the aarch64 Python into .tools/arm64-python.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

quick=0 tools_only=0
case "${1:-}" in
    --quick) quick=1 ;;
    --tools-only) tools_only=1 ;;
    "") ;;
    *) echo "usage: $0 [--quick | --tools-only]" >&2; exit 2 ;;
esac

step() { printf '\n== %s\n' "$*"; }
fail() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }

manifest=crates/simdcrypt-py/Cargo.toml
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
[ -n "$version" ] || fail "no version in Cargo.toml's [workspace.package]"
py=$(command -v "${PYTHON:-python3}")
work=$(mktemp -d /tmp/simdcrypt-wheels.XXXXXX)
trap 'rm -rf "$work"' EXIT

step "tools"
venv=.tools/wheels-venv
if [ ! -x "$venv/bin/maturin" ] || [ ! -x "$venv/bin/auditwheel" ] || ! "$venv/bin/python" -c 'import ziglang' 2>/dev/null; then
    "$py" -m venv "$venv"
    "$venv/bin/pip" install -q 'maturin>=1.8,<2' ziglang auditwheel
fi
if ! command -v qemu-aarch64 >/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    $sudo apt-get update -qq && $sudo apt-get install -y -qq qemu-user
fi
rustup target list --installed | grep -qx aarch64-unknown-linux-gnu || rustup target add aarch64-unknown-linux-gnu
# maturin runs `python -m ziglang`: the venv's python must come first.
export PATH="$root/$venv/bin:$PATH"
"$venv/bin/maturin" --version
echo "zig $("$venv/bin/python" -m ziglang version)"

# Debian's CPython for arm64 and the libraries it needs, unpacked into a private root
# (a private apt state: the host's package lists and dpkg database are left alone).
arm64_root=.tools/arm64-python
if [ ! -x "$arm64_root/usr/bin/python3" ]; then
    step "aarch64 CPython (Debian's python3 for arm64, unpacked)"
    apt_dir=$work/apt
    mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial"
    : >"$apt_dir/state/status"
    apt_opts=(-o "Dir::State=$apt_dir/state" -o "Dir::State::status=$apt_dir/state/status"
        -o "Dir::Cache=$apt_dir/cache" -o APT::Architecture=arm64 -o APT::Architectures::=arm64
        -o Debug::NoLocking=1)
    apt-get "${apt_opts[@]}" update -qq
    # With an empty status, apt downloads the whole dependency closure (libc6 included).
    apt-get "${apt_opts[@]}" install -y -qq --download-only --no-install-recommends python3-minimal python3 >/dev/null
    rm -rf "$arm64_root.tmp" && mkdir -p "$arm64_root.tmp"
    for deb in "$apt_dir"/cache/archives/*.deb; do dpkg-deb -x "$deb" "$arm64_root.tmp"; done
    rm -rf "$arm64_root" && mv "$arm64_root.tmp" "$arm64_root"
fi
arm64_python() { qemu-aarch64 -L "$root/$arm64_root" "$root/$arm64_root/usr/bin/python3" "$@"; }
arm64_python -c 'import platform, sys; print("aarch64 python", sys.version.split()[0], platform.machine())'
[ "$tools_only" = 0 ] || exit 0

mkdir -p dist
rm -f dist/simdcrypt-"$version"*

step "sdist"
"$venv/bin/maturin" sdist -m "$manifest" -o dist
sdist=dist/simdcrypt-$version.tar.gz
[ -f "$sdist" ] || fail "maturin did not write $sdist"

# The CUDA kernels compiled ahead of time and embedded (crates/simdcrypt/build.rs): NVRTC
# from PyPI in the tools venv, and the build fails rather than ship wheels without them.
# (The compilation runs on this machine for both targets: the kernels are GPU code.)
nvrtc_req=$(grep -E '^nvidia-cuda-nvrtc==' requirements-cuda.txt)
"$venv/bin/python" -c 'import nvidia.cu13' 2>/dev/null || "$venv/bin/pip" install -q "$nvrtc_req"
for arch in x86_64 aarch64; do
    step "wheel $arch"
    SIMDCRYPT_PYTHON="$root/$venv/bin/python" SIMDCRYPT_REQUIRE_EMBEDDED_KERNELS=1 \
        "$venv/bin/maturin" build --release --strip --zig --compatibility manylinux2014 \
        --target "$arch-unknown-linux-gnu" -m "$manifest" -o dist
done

step "wheel tags and contents"
# The one wheel built for $1 (maturin orders the two tags its own way).
wheel_for() {
    local found=(dist/simdcrypt-"$version"-*_"$1".whl)
    [ "${#found[@]}" = 1 ] && [ -f "${found[0]}" ] || fail "expected one $1 wheel in dist/, found: ${found[*]}"
    echo "${found[0]}"
}
# What every wheel must hold: the package's tracked Python files, the extension, the
# dist-info. Anything else (tests, __pycache__, .venv, target/) fails the check.
git ls-files crates/simdcrypt-py/python | sed 's#^crates/simdcrypt-py/python/##' >"$work/expected-py"
for arch in x86_64 aarch64; do
    wheel=$(wheel_for "$arch")
    case "$wheel" in
        *-cp39-abi3-*manylinux2014_$arch*.whl) ;;
        *) fail "$wheel is not tagged cp39-abi3 manylinux2014_$arch" ;;
    esac
    "$venv/bin/auditwheel" show "$wheel" | tee "$work/audit"
    tr -s ' \n' ' ' <"$work/audit" | grep -q "consistent with the following platform tag: \"manylinux_2_17_$arch\"" \
        || fail "auditwheel does not find $wheel consistent with manylinux_2_17_$arch"
    { cat "$work/expected-py"
      echo simdcrypt/_native.abi3.so
      for f in METADATA WHEEL RECORD entry_points.txt sboms/simdcrypt-py.cyclonedx.json; do
          echo "simdcrypt-$version.dist-info/$f"
      done
    } | sort >"$work/expected"
    "$venv/bin/python" - "$wheel" "$arch" >"$work/actual" <<'EOF'
import sys, zipfile
machines = {"x86_64": 62, "aarch64": 183}  # ELF e_machine
with zipfile.ZipFile(sys.argv[1]) as z:
    names = sorted(n for n in z.namelist() if not n.endswith("/"))
    so = z.read("simdcrypt/_native.abi3.so")
    machine = int.from_bytes(so[18:20], "little")
    if so[:4] != b"\x7fELF" or machine != machines[sys.argv[2]]:
        sys.exit(f"_native.abi3.so is not an {sys.argv[2]} ELF file (e_machine {machine})")
print("\n".join(names))
EOF
    if ! diff -u "$work/expected" "$work/actual"; then
        fail "$wheel holds other files than expected (- missing, + unexpected)"
    fi
    echo "$wheel: $(wc -l <"$work/actual") files, as expected; $(du -k "$wheel" | cut -f1) KiB"
done

# The smoke test: imports the installed package (not the source tree: it runs from an
# empty directory) and checks known vectors of a few algorithms through it.
cat >"$work/smoke.py" <<'EOF'
import platform, sys
import simdcrypt
from simdcrypt import _native
assert "site-packages" in simdcrypt.__file__, simdcrypt.__file__
# BLAKE3 and SHA-256 of b"abc", XSalsa20-Poly1305 (NaCl's secretbox) round trip.
assert simdcrypt.blake3(b"abc").hexdigest() == "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
assert simdcrypt.sha256(b"abc").hexdigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
# blake3_many returns the digests concatenated.
assert simdcrypt.blake3_many([b"abc", b""]) == simdcrypt.blake3(b"abc").digest() + simdcrypt.blake3(b"").digest()
key, nonce = bytes(range(32)), bytes(range(24))
sealed = simdcrypt.secretbox_seal(key, nonce, b"smoke test")
assert simdcrypt.secretbox_open(key, nonce, sealed) == b"smoke test"
backends = simdcrypt.backends()
print(f"smoke test passed: Python {sys.version.split()[0]} on {platform.machine()}, "
      f"blake3 backend {simdcrypt.blake3().backend!r} of {backends['blake3']['supported']}")
EOF

step "x86_64 wheel: install into fresh venvs, smoke test"
x86_wheel=$(wheel_for x86_64)
# abi3-py39 promises 3.9 and later: PYTHONS (space-separated) may name more interpreters,
# such as the oldest and newest at hand; by default python3.9 and python3.13 if they run.
smoke_pythons=("$py")
if [ -n "${PYTHONS:-}" ]; then
    read -ra more <<<"$PYTHONS"; smoke_pythons+=("${more[@]}")
else
    for v in 3.9 3.13; do "python$v" -c '' 2>/dev/null && smoke_pythons+=("python$v"); done
fi
for p in "${smoke_pythons[@]}"; do
    rm -rf "$work/venv"
    "$p" -m venv "$work/venv"
    "$work/venv/bin/pip" install -q --no-index --no-deps "$x86_wheel"
    (cd "$work" && venv/bin/python smoke.py)
done

step "aarch64 wheel: pip installs it for an aarch64 CPython, smoke test under qemu"
arm_wheel=$(wheel_for aarch64)
arm_py_version=$(arm64_python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
# pip checks the tag against the target interpreter's (a wrong tag is refused here).
"$venv/bin/pip" install -q --no-index --no-deps --target "$work/arm64-site-packages" \
    --platform manylinux2014_aarch64 --implementation cp --python-version "$arm_py_version" --abi abi3 \
    --only-binary=:all: "$arm_wheel"
(cd "$work" && PYTHONPATH="$work/arm64-site-packages" arm64_python smoke.py)

step "sdist contents"
# Every file must be a tracked file of the package or of a crate it builds from; the
# paths maturin moves to the sdist's root map back to crates/simdcrypt-py.
tar tzf "$sdist" | grep -v '/$' | sed "s#^simdcrypt-$version/##" | sort >"$work/sdist-files"
git ls-files >"$work/tracked"
bad=0
while read -r f; do
    case "$f" in
        PKG-INFO) continue ;;                                # generated
        pyproject.toml | README.md) src=crates/simdcrypt-py/$f ;;
        python/*) src=crates/simdcrypt-py/$f ;;
        crates/simdcrypt/README.md)
            # cargo package copies the workspace README for the crate's `readme`.
            tar xzf "$sdist" -O "simdcrypt-$version/$f" | cmp -s - README.md && continue
            src=$f ;;
        crates/simdcrypt/* | crates/simdcrypt-py/* | Cargo.toml | Cargo.lock) src=$f ;;
        *) echo "unexpected in the sdist: $f"; bad=1; continue ;;
    esac
    grep -qxF "$src" "$work/tracked" || { echo "not a tracked file: $f (from $src)"; bad=1; }
done <"$work/sdist-files"
for f in Cargo.lock crates/simdcrypt/Cargo.toml crates/simdcrypt/src/lib.rs crates/simdcrypt-py/Cargo.toml python/simdcrypt/py.typed; do
    grep -qxF "$f" "$work/sdist-files" || { echo "missing from the sdist: $f"; bad=1; }
done
[ "$bad" = 0 ] || fail "$sdist's contents"
echo "$sdist: $(wc -l <"$work/sdist-files") files, all tracked sources of crates/simdcrypt and crates/simdcrypt-py"

if [ "$quick" = 1 ]; then
    step "done (--quick: the sdist was not built alone)"
    ls -l dist
    exit 0
fi

step "sdist builds alone (unpacked in an empty directory; pip fetches maturin from PyPI)"
mkdir "$work/sdist-build"
tar xzf "$sdist" -C "$work/sdist-build"
rm -rf "$work/venv"
"$py" -m venv "$work/venv"
# A target directory of its own, kept between runs, so only the crates rebuild.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}/sdist-check
"$work/venv/bin/pip" wheel -q --no-deps -w "$work/sdist-wheel" "$work/sdist-build/simdcrypt-$version"
ls "$work/sdist-wheel"
"$work/venv/bin/pip" install -q --no-index --no-deps "$work"/sdist-wheel/*.whl
(cd "$work" && venv/bin/python smoke.py)

step "done"
ls -l dist
