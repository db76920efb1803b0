#!/bin/bash
# This round's command-line targets, measured against the peers in one interleaved run
# (min and median wall time of each): a tree of 20,000 files (BLAKE3 vs b3sum; SHA-256,
# Streebog, GOST-94 vs RHash and `xargs sha256sum`), several algorithms in one read,
# encrypt/decrypt with 1 and 2 threads, and Bao (the criterion bench's interleaved mode).
# Run from the repository root after `cargo build --release -p simdcrypt-cli`; installs the
# release b3sum into .tools/bin if it is not there; needs rhash, bc and ~2 GiB in $TMPDIR.
# Data goes to ${TMPDIR:-/tmp}/simdcrypt-targets. Timings on a shared machine are noise.
set -u
root=$PWD
S=$root/target/release/simdcrypt
B3=$root/.tools/bin/b3sum
# A release build, as users run it (scripts/test.sh compares output with a debug one).
[ -x "$B3" ] || cargo install --quiet --locked --root "$root/.tools" b3sum@1.8.2
W=${TMPDIR:-/tmp}/simdcrypt-targets
mkdir -p "$W"
cd "$W"
stat() { python3 -c "import sys,statistics; v=sorted(map(float,sys.argv[1:])); print(f'min {v[0]:.3f} med {statistics.median(v):.3f}')" "$@"; }
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1; local e=$(date +%s.%N); echo "$e - $s" | bc; }
lscpu | grep "Model name"; uptime
# --- tree of 20,000 files ---
if [ ! -d $W/tree ]; then
python3 - <<'PY'
import os, random
random.seed(7)
for d in range(100):
    os.makedirs(f"tree/d{d:03}", exist_ok=True)
    for f in range(200):
        with open(f"tree/d{d:03}/f{f:03}.bin","wb") as fh:
            fh.write(os.urandom(random.randint(1024, 65536)))
PY
fi
find $W/tree -type f | LC_ALL=C sort > $W/tree.list
cat $W/tree.list | xargs -d '\n' cat > /dev/null
declare -A R
for i in 1 2 3 4 5 6 7; do
  R[sum_auto]+=" $(t $S sum -r -j auto $W/tree)"
  R[sum_j1]+=" $(t $S sum -r -j 1 $W/tree)"
  R[b3sum]+=" $(t sh -c "xargs -d '\n' $B3 < $W/tree.list")"
  R[sha_auto]+=" $(t $S sum -r -a sha256 -j auto $W/tree)"
  R[xargs_sha]+=" $(t sh -c "xargs -d '\n' -P2 -n 500 sha256sum < $W/tree.list")"
  R[rhash_sha]+=" $(t rhash -r --sha256 $W/tree)"
  R[streebog_auto]+=" $(t $S sum -r -a streebog256 -j auto $W/tree)"
  R[rhash_streebog]+=" $(t rhash -r --gost12-256 $W/tree)"
  R[gost_auto]+=" $(t $S sum -r -a gost94 -j auto $W/tree)"
  R[rhash_gost]+=" $(t rhash -r --gost94-cryptopro $W/tree)"
done
for k in sum_auto sum_j1 b3sum sha_auto xargs_sha rhash_sha streebog_auto rhash_streebog gost_auto rhash_gost; do echo "tree $k $(stat ${R[$k]})"; done
# --- one 1 GiB file ---
[ -f $W/big ] || head -c $((1<<30)) /dev/urandom > $W/big
cat $W/big > /dev/null
unset R; declare -A R
for i in 1 2 3 4 5; do
  R[sha]+=" $(t $S sum -a sha256 $W/big)"
  R[both]+=" $(t $S sum -a blake3,sha256 $W/big)"
done
for k in sha both; do echo "multi $k $(stat ${R[$k]})"; done
# --- encryption ---
$S keygen -o $W/k.key --force 2>/dev/null || $S keygen -o $W/k.key
$S encrypt -k $W/k.key -o $W/big.enc --force $W/big
unset R; declare -A R
for i in 1 2 3 4 5; do
  for j in 1 2; do
    R[enc_null_j$j]+=" $(t sh -c "$S encrypt -k $W/k.key -j $j -o - $W/big > /dev/null")"
    R[dec_null_j$j]+=" $(t sh -c "$S decrypt -k $W/k.key -j $j -o - $W/big.enc > /dev/null")"
    R[enc_file_j$j]+=" $(t $S encrypt -k $W/k.key -j $j --force -o $W/out.enc $W/big)"
    R[dec_file_j$j]+=" $(t $S decrypt -k $W/k.key -j $j --force -o $W/out.dec $W/big.enc)"
  done
done
for k in enc_null_j1 enc_null_j2 dec_null_j1 dec_null_j2 enc_file_j1 enc_file_j2 dec_file_j1 dec_file_j2; do echo "crypt $k $(stat ${R[$k]})"; done
rm -f $W/out.enc $W/out.dec
# --- bao ---
(cd "$root" && BAO_INTERLEAVED_MIB=256 BAO_INTERLEAVED_ROUNDS=7 cargo bench -q -p simdcrypt-bench --bench bao 2>&1 | tail -15)
uptime
