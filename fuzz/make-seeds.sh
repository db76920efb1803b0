#!/usr/bin/env bash
# Regenerates fuzz/seeds/ (committed; small): each seed is the targets' parameter head of
# zeros (fuzz/src/lib.rs, HEAD_LEN) and a real input:
#   - messages of the official vectors (test-vectors/*.json) for the differential targets
#     and the C ABI;
#   - checksum lines printed by the CLI (`simdcrypt sum`, GNU, --tag, RHash algorithms,
#     escaped names) for check_line (no head: the whole input is the line);
#   - library-made samples (examples/make_seeds.rs): sealed files of both versions, one
#     Bao encoding per mode, a state of every algorithm, HighwayHash checkpoints.
# Usage: fuzz/make-seeds.sh   (builds the CLI and the example; run from anywhere)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
seeds=$root/fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds"

python3 - "$seeds" <<'PY'
import json, os, sys
seeds = sys.argv[1]
HEAD = 128
def put(target, name, payload):
    os.makedirs(os.path.join(seeds, target), exist_ok=True)
    with open(os.path.join(seeds, target, name), "wb") as f:
        f.write(bytes(HEAD) + payload)
def pattern(n):
    return bytes(i % 251 for i in range(n))
v = lambda name: json.load(open(os.path.join("test-vectors", name)))
for n in (0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 3073):
    put("diff_blake3", f"vector-{n}", pattern(n))
    put("diff_highway", f"vector-{n}", pattern(n))
# The million-byte vectors are left out: seeds stay small.
small = lambda cases: [c for c in cases if "message_repeat" not in c]
for c in small(v("sha256.json")["cases"]):
    put("diff_sha256", "vector-" + c["name"].replace(" ", "_"), c["message_ascii"].encode())
for c in v("streebog.json")["cases"]:
    put("diff_streebog", "vector-" + c["name"].replace(" ", "_"), bytes.fromhex(c["message_hex"]))
for i, c in enumerate(small(v("gost94.json")["cases"])):
    put("diff_gost94", f"vector-{i}", c["message_ascii"].encode())
for i, c in enumerate(v("salsa20.json")["core"]):
    put("diff_salsa20", f"core-{i}", bytes.fromhex(c["input"]))
for i, c in enumerate(small(v("sha256.json")["cases"])[:3]):
    put("capi", f"vector-{i}", c["message_ascii"].encode())
# The Gear scan: random bytes (cut points where real data has them), zeros and a short
# period (candidates everywhere or nowhere); one head of 0xff bytes, which picks the
# largest sizes and a payload stretched to up to 320 KiB.
import random
rng = random.Random(46)
put("diff_gear", "random-4k", bytes(rng.getrandbits(8) for _ in range(4096)))
put("diff_gear", "zeros-3k", bytes(3000))
put("diff_gear", "period-61", bytes(i % 61 for i in range(4000)))
with open(os.path.join(seeds, "diff_gear", "stretched"), "wb") as f:
    f.write(bytes([0xFF] * HEAD) + bytes(rng.getrandbits(8) for _ in range(300)))
PY

cargo build --quiet -p simdcrypt-cli
cli=${CARGO_TARGET_DIR:-$root/target}/debug/simdcrypt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'abc' >"$work/plain"
printf 'x' >"$work/back\\slash"
printf 'y' >"$work/new
line"
mkdir -p "$seeds/check_line"
i=0
for algo in blake3 sha256 gost94 gost94-test streebog256 streebog512; do
    for style in "" --tag; do
        (cd "$work" && "$cli" sum -a "$algo" $style plain "back\\slash" "new
line") | while IFS= read -r line; do
            printf '%s' "$line" >"$seeds/check_line/$algo${style:+-tag}-$i"
            i=$((i + 1))
        done
    done
done

# Tree manifests written by `sum -r --update` (docs/manifest-format.md), one plain and one
# of two algorithms; the manifest target reads its first byte as the mode (0: as is).
mkdir -p "$work/tree/sub" "$seeds/manifest"
printf 'one' >"$work/tree/a.txt"
printf 'two' >"$work/tree/sub/b.bin"
printf '\377' >"$work/tree/$(printf 'x\377')"
(cd "$work" && "$cli" sum -r tree --update m1 >/dev/null && "$cli" sum -a blake3,sha256 -r tree --update m2 >/dev/null)
for m in m1 m2; do
    { printf '\0'; cat "$work/$m"; } >"$seeds/manifest/$m"
done

# Chunk manifests written by `chunks --json` (Xet, and FastCDC 2020 with small sizes), read
# back by `chunks --diff`: after the parameter head of zeros, as the target's text.
mkdir -p "$seeds/chunk_manifest"
head -c 300000 /dev/zero | tr '\0' 'q' >"$work/c1"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "%d\n", (i * 7919) % 10007 }' >"$work/c2"
for args in "c1" "--chunker fastcdc2020 --min 256 --avg 1024 --max 4096 --digest sha256 c2"; do
    name=$(echo "$args" | tr -c 'a-z0-9\n' '_' | cut -c1-40)
    # shellcheck disable=SC2086 # the arguments are words
    { head -c 128 /dev/zero; (cd "$work" && "$cli" chunks --json $args); } >"$seeds/chunk_manifest/$name"
done

(cd fuzz && cargo run --quiet --example make_seeds -- "$seeds")
echo "seeds: $(find "$seeds" -type f | wc -l) files, $(du -sh "$seeds" | cut -f1)"
