"""Bao on file paths holds memory bounded whatever the file's size (issue #41,
docs/memory.md): bao_encode (outboard, and with output=), bao_slice, bao_scrub and
BaoReader on a 256 MiB file each run in a fresh interpreter whose peak resident set must
stay far below the file's size. And impossible digest lengths are refused with a message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import simdcrypt

LEN = 256 << 20
# The interpreter and the extension, the windows being read and hashed, the outboard.
LIMIT_KB = 96 * 1024

CHILD = r"""
import sys
import simdcrypt
op, big = sys.argv[1], sys.argv[2]
if op == "encode_outboard":
    root, ob = simdcrypt.bao_encode(big, outboard=True, max_threads=2)
    assert len(ob) == 8 + 64 * ((%(len)d // 1024) - 1)
elif op == "encode_output":
    root, none = simdcrypt.bao_encode(big, output=big + ".bao", max_threads=2)
    assert none is None
elif op == "slice":
    s = simdcrypt.bao_slice(big + ".bao", 200_000_000, 1_000_000)
    s2 = simdcrypt.bao_slice(big, 200_000_000, 1_000_000, outboard=big + ".ob")
    assert s == s2
elif op == "scrub":
    root = bytes.fromhex(sys.argv[3])
    assert simdcrypt.bao_scrub(root, big, big + ".ob", max_threads=2).ok
elif op == "reader":
    root = bytes.fromhex(sys.argv[3])
    with simdcrypt.BaoReader(root, big + ".bao") as r:
        while r.read(1 << 20):
            pass
# VmHWM, not ru_maxrss: the latter carries over the forking parent's peak across exec.
print(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM:")))
""" % {"len": LEN}


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("bao-memory") / "big"
    piece = os.urandom(1 << 20)
    with open(path, "wb") as f:
        f.truncate(LEN)  # a hole: reading it costs no disk
        for at in (0, 5 << 20, 100 << 20, LEN - (1 << 20)):
            f.seek(at)
            f.write(piece)
    root, ob = simdcrypt.bao_encode(str(path), outboard=True, max_threads=2)
    (path.parent / "big.ob").write_bytes(ob)
    return path, root.hex()


def peak_kb(op: str, big: tuple[Path, str]) -> int:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, op, str(big[0]), big[1]], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status, sparse files: Linux")
@pytest.mark.parametrize("op", ["encode_outboard", "encode_output", "slice", "scrub", "reader"])
def test_bao_paths_stay_within_a_fixed_memory_bound(op: str, big: tuple[Path, str]) -> None:
    if op in ("slice", "reader") and not Path(str(big[0]) + ".bao").exists():
        peak_kb("encode_output", big)
    peak = peak_kb(op, big)
    assert peak < LIMIT_KB, f"{op}: peak resident set {peak} KiB for a {LEN}-byte file"


def test_bao_encode_output_writes_the_encoding(tmp_path: Path) -> None:
    data = os.urandom(300_001)
    (tmp_path / "d").write_bytes(data)
    root, encoded = simdcrypt.bao_encode(data)
    for source in (tmp_path / "d", data):
        assert simdcrypt.bao_encode(source, output=tmp_path / "e") == (root, None)
        assert (tmp_path / "e").read_bytes() == encoded
    _, ob = simdcrypt.bao_encode(data, outboard=True)
    assert simdcrypt.bao_encode(tmp_path / "d", outboard=True, output=str(tmp_path / "o")) == (root, None)
    assert (tmp_path / "o").read_bytes() == ob
    with pytest.raises(FileNotFoundError):
        simdcrypt.bao_encode(tmp_path / "missing", output=tmp_path / "x")
    assert not (tmp_path / "x").exists()
    with pytest.raises(FileNotFoundError):
        simdcrypt.bao_encode(data, output=tmp_path / "no-such-folder" / "x")


@pytest.mark.parametrize("method", ["digest", "hexdigest"])
def test_impossible_digest_lengths_are_refused_with_a_message(method: str) -> None:
    h = simdcrypt.blake3(b"abc")
    with pytest.raises(MemoryError, match=r"digest of 4611686018427387904 bytes.*at most \d+ bytes"):
        getattr(h, method)(length=2**62)
    with pytest.raises(MemoryError, match=r"digest of 4611686018427387904 bytes"):
        getattr(h, method)(2**62, seek=5)
    assert getattr(h, method)(length=40)[:4] == getattr(h, method)()[:4]
