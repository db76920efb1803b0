#!/usr/bin/env bash
# The "Tree manifests" figures of BENCHMARKS.md: `sum -r DIR --update MANIFEST` on a tree of
# 100,000 files (2 GiB in all) with nothing changed, page cache warm, against a full
# `sum -r DIR` and against the stat floor `find DIR -printf '%s %T@ %i\n'`; then with one
# 100 MiB file changed, against hashing that file alone. Timed with hyperfine when it is on
# PATH, else by this script: RUNS interleaved runs (A B A B ...), each whole process, and
# the median wall time of each command and of the A/B ratios.
#
#   benches/manifest_update.sh             full run (builds the tree once in $DIR)
#   N=2000 benches/manifest_update.sh      smaller tree (figures mean little)
#
# The tree is built in $DIR (default /tmp/simdcrypt-manifest-bench, about 2.1 GiB) and
# kept for later runs; every file's mtime and ctime are set more than 2 s before the runs,
# so that no entry is racy (docs/manifest-format.md). BIN defaults to the release binary,
# built first. Figures are only worth writing down on a quiet machine (check `uptime`).
set -euo pipefail

cd "$(dirname "$0")/.."
N=${N:-100000}
TOTAL=${TOTAL:-$((2 << 30))}
DIR=${DIR:-/tmp/simdcrypt-manifest-bench}
RUNS=${RUNS:-5}
if [ -z "${BIN:-}" ]; then
    cargo build --release -p simdcrypt-cli
    BIN=$PWD/target/release/simdcrypt
fi
TREE=$DIR/tree-$N
MANIFEST=$DIR/manifest-$N.jsonl
BIG=$TREE/big-100MiB.bin

if [ ! -f "$TREE/.complete" ]; then
    rm -rf "$TREE"
    mkdir -p "$TREE"
    python3 - "$TREE" "$N" "$TOTAL" <<'PY'
import os, sys, time
tree, n, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
size = max(1, (total - (100 << 20)) // n)
block = os.urandom(1 << 20)
old = time.time() - 3600
for i in range(n):
    d = os.path.join(tree, f"shard-{i // 1000:03d}")
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    p = os.path.join(d, f"f{i:07d}.bin")
    off = (i * 4099) % (len(block) - size) if size < len(block) else 0
    with open(p, "wb") as f:
        f.write(i.to_bytes(8, "little") + block[off:off + size - 8] if size > 8 else i.to_bytes(8, "little")[:size])
    os.utime(p, (old, old))
with open(os.path.join(tree, "big-100MiB.bin"), "wb") as f:
    for _ in range(100):
        f.write(block)
os.utime(os.path.join(tree, "big-100MiB.bin"), (old, old))
PY
    touch "$TREE/.complete"
    # The ctimes were just set; let them age past the racy window before the manifest.
    sleep 3
fi

now() { date +%s.%N; }

bench() {
    if command -v hyperfine >/dev/null; then
        hyperfine -N --warmup 1 --runs "$RUNS" "sh -c '$1'" "sh -c '$2'"
        return
    fi
    sh -c "$1" && sh -c "$2"
    local a b t i ratios=() as=() bs=()
    for ((i = 0; i < RUNS; i++)); do
        t=$(now); sh -c "$1"; a=$(echo "$(now) - $t" | bc -l)
        t=$(now); sh -c "$2"; b=$(echo "$(now) - $t" | bc -l)
        as+=("$a"); bs+=("$b"); ratios+=("$(echo "$a / $b" | bc -l)")
    done
    median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
    printf 'A median %.3f s, B median %.3f s, A/B median %.3f (%d runs each)\n' \
        "$(median "${as[@]}")" "$(median "${bs[@]}")" "$(median "${ratios[@]}")" "$RUNS"
}

echo "# $(date -u +%F) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# tree: $N files + one of 100 MiB, $(du -sh "$TREE" | cut -f1); warming the page cache"
find "$TREE" -type f -exec cat {} + >/dev/null
rm -f "$MANIFEST"
"$BIN" sum -r "$TREE" --update "$MANIFEST" >/dev/null
"$BIN" sum -r "$TREE" --update "$MANIFEST" >/dev/null

echo "## nothing changed: --update (A) against a full sum -r (B)"
bench "exec $BIN sum -r $TREE --update $MANIFEST >/dev/null" "exec $BIN sum -r $TREE >/dev/null"
echo "## nothing changed: --update (A) against the stat floor, find -printf (B)"
bench "exec $BIN sum -r $TREE --update $MANIFEST >/dev/null" "exec find $TREE -printf \"%s %T@ %i\\n\" >/dev/null"
echo "## one 100 MiB file changed each run: --update (A) against find plus sum of that file (B)"
bench "printf x >>$BIG; exec $BIN sum -r $TREE --update $MANIFEST >/dev/null" \
      "printf x >>$BIG; find $TREE -printf \"%s %T@ %i\\n\" >/dev/null; exec $BIN sum $BIG >/dev/null"
