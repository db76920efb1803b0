"""simdcrypt.hash_tree: every file under a directory, its digests checked against hashlib
and the blake3 package, the tree digest against an encoding of docs/tree-digest.md made
here, and the manifest cache (the format `simdcrypt sum -r --update` keeps): reused when
nothing changed, re-read after a change, damaged ones refused with their line."""

from __future__ import annotations

import hashlib
import os
import struct
import sys
import time
from pathlib import Path

import blake3 as blake3_ref
import pytest

import simdcrypt


def make_tree(root: Path) -> None:
    (root / "sub" / "empty").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"alpha\n")
    (root / "sub" / "big.bin").write_bytes(os.urandom(3 << 20))
    (root / "sub" / "c").write_bytes(b"")
    if sys.platform != "win32":
        os.symlink("a.txt", root / "link")
    hour_ago = time.time() - 3600
    for f in ("a.txt", "sub/big.bin", "sub/c"):
        os.utime(root / f, (hour_ago, hour_ago))


def independent_tree_digest(root: Path) -> bytes:
    """docs/tree-digest.md, with the blake3 package."""
    items = []
    for dirpath, dirnames, filenames in os.walk(os.fsencode(root)):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            items.append((os.path.relpath(full, os.fsencode(root)), full))
    h = blake3_ref.blake3(b"simdcrypt-tree-v1\n")
    for rel, full in sorted(items):
        if os.path.islink(full):
            target = os.readlink(full)
            h.update(b"l" + struct.pack("<Q", len(rel)) + rel + struct.pack("<Q", len(target)) + target)
        elif os.path.isdir(full):
            h.update(b"d" + struct.pack("<Q", len(rel)) + rel)
        else:
            data = Path(os.fsdecode(full)).read_bytes()
            h.update(b"f" + struct.pack("<Q", len(rel)) + rel + struct.pack("<Q", len(data)))
            h.update(blake3_ref.blake3(data).digest())
    return h.digest()


def test_digests_and_tree_digest(tmp_path: Path) -> None:
    root = tmp_path / "data"
    make_tree(root)
    result = simdcrypt.hash_tree(root, algorithms=["blake3", "sha256"])
    assert result.algorithms == ["blake3", "sha256"]
    assert [e[0] for e in result.entries] == ["a.txt", "sub/big.bin", "sub/c"]
    for path, size, digests in result.entries:
        data = (root / path).read_bytes()
        assert size == len(data)
        assert digests == {"blake3": blake3_ref.blake3(data).digest(), "sha256": hashlib.sha256(data).digest()}
    assert result.errors == []
    assert result.tree_digest == independent_tree_digest(root)
    assert (result.hashed, result.reused) == (3, 0)
    # No tree digest without plain BLAKE3 first.
    assert simdcrypt.hash_tree(root, algorithms=["sha256"]).tree_digest is None
    assert simdcrypt.hash_tree(os.fsencode(root), max_threads=1).tree_digest == result.tree_digest


def test_manifest_cache(tmp_path: Path) -> None:
    root = tmp_path / "data"
    make_tree(root)
    manifest = tmp_path / "m.jsonl"
    first = simdcrypt.hash_tree(root, manifest=manifest, trust_mtime=True)
    assert (first.hashed, first.reused) == (3, 0)
    assert manifest.read_text().startswith("{")
    second = simdcrypt.hash_tree(root, manifest=manifest, trust_mtime=True)
    assert (second.hashed, second.reused) == (0, 3)
    assert second.entries == first.entries and second.tree_digest == first.tree_digest
    (root / "a.txt").write_bytes(b"changed\n")
    (root / "new").write_bytes(b"new")
    third = simdcrypt.hash_tree(root, manifest=str(manifest), trust_mtime=True)
    assert (third.hashed, third.reused) == (2, 2)
    assert dict((p, d) for p, _, d in third.entries)["a.txt"]["blake3"] == blake3_ref.blake3(b"changed\n").digest()
    assert third.tree_digest == independent_tree_digest(root)
    # Without trust_mtime the recent ctimes make every entry stale: still correct.
    fourth = simdcrypt.hash_tree(root, manifest=manifest)
    assert fourth.entries == third.entries


@pytest.mark.skipif(sys.platform == "win32", reason="files have no inode identity there")
def test_a_manifest_inside_the_tree_is_not_one_of_its_files(tmp_path: Path) -> None:
    root = tmp_path / "data"
    make_tree(root)
    without = simdcrypt.hash_tree(root)
    manifest = root / "m.jsonl"
    for _ in range(2):
        result = simdcrypt.hash_tree(root, manifest=manifest, trust_mtime=True)
        assert [e[0] for e in result.entries] == ["a.txt", "sub/big.bin", "sub/c"]
        assert result.tree_digest == without.tree_digest
    assert manifest.exists() and b"m.jsonl" not in manifest.read_bytes()
    assert (result.hashed, result.reused) == (0, 3)


def test_damaged_manifest_names_its_line(tmp_path: Path) -> None:
    root = tmp_path / "data"
    make_tree(root)
    manifest = tmp_path / "m.jsonl"
    simdcrypt.hash_tree(root, manifest=manifest)
    lines = manifest.read_bytes().splitlines(keepends=True)
    manifest.write_bytes(b"".join(lines[:-1]))
    with pytest.raises(ValueError, match=r"^line 5: .*truncated"):
        simdcrypt.hash_tree(root, manifest=manifest)
    assert manifest.read_bytes() == b"".join(lines[:-1])
    manifest.write_bytes(b"not a manifest\n")
    with pytest.raises(ValueError, match=r"^line 1: not a simdcrypt manifest"):
        simdcrypt.hash_tree(root, manifest=manifest)


@pytest.mark.skipif(sys.platform == "win32", reason="file names are bytes only on POSIX")
def test_names_that_are_not_utf8(tmp_path: Path) -> None:
    root = tmp_path / "data"
    root.mkdir()
    name = os.fsdecode(b"\xff\xfe")
    (root / name).write_bytes(b"x")
    manifest = tmp_path / "m.jsonl"
    result = simdcrypt.hash_tree(root, manifest=manifest)
    assert [e[0] for e in result.entries] == [name]
    assert b'"path_hex":"fffe"' in manifest.read_bytes()
    assert simdcrypt.hash_tree(root, manifest=manifest).entries == result.entries


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        simdcrypt.hash_tree(tmp_path / "absent")
    with pytest.raises(ValueError, match="unknown"):
        simdcrypt.hash_tree(tmp_path, algorithms=["nope"])
    with pytest.raises(ValueError, match="at least one"):
        simdcrypt.hash_tree(tmp_path, algorithms=[])
    (tmp_path / "f").write_bytes(b"")
    with pytest.raises(ValueError, match="not a directory"):
        simdcrypt.hash_tree(tmp_path / "f")
    assert repr(simdcrypt.hash_tree(tmp_path)).startswith("TreeHash(files=1,")
