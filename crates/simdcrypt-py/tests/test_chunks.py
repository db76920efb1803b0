"""simdcrypt.chunks and simdcrypt.xet_hash: the same chunks from every kind of source
(buffers, paths, file objects, fsspec files), as arrays and as an iterator, for any read
pattern and thread count; chunk digests equal to hashlib / blake3 over the chunk's bytes;
clear errors; and Xet file hashes equal to ``hf_xet.hash_files`` (the Hugging Face Hub's).

The chunkers' cut points themselves are tested against hf_xet and the fastcdc crate in the
library's tests (crates/simdcrypt/tests/chunking_*.rs).
"""

from __future__ import annotations

import hashlib
import io
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import blake3 as blake3_ref
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdcrypt
from conftest import record_backend

XET_MIN, XET_MAX = 8 << 10, 128 << 10
FASTCDC = dict(chunker="fastcdc2020", min_size=2048, avg_size=8192, max_size=32768, level=2)
CHUNKERS: list[dict[str, Any]] = [{}, {"chunker": "fastcdc2020"}, FASTCDC]


def rand(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


def as_lists(c: simdcrypt.Chunks) -> tuple[list[int], list[int], list[bytes] | None]:
    digests = None if c.digests is None else [bytes(d) for d in c.digests]
    return [int(o) for o in c.offsets], [int(n) for n in c.lengths], digests


def as_tuples(c: simdcrypt.Chunks) -> list[tuple[int, int, bytes | None]]:
    offsets, lengths, digests = as_lists(c)
    return [(o, n, None if digests is None else digests[i]) for i, (o, n) in enumerate(zip(offsets, lengths))]


class ReadOnly:
    """A file object with only read(n), returning at most the sizes of ``pattern`` in turn."""

    def __init__(self, data: bytes, pattern: list[int]) -> None:
        self.data, self.at, self.pattern, self.calls = data, 0, pattern or [1 << 20], 0

    def read(self, n: int) -> bytes:
        k = min(n, self.pattern[self.calls % len(self.pattern)])
        self.calls += 1
        out = self.data[self.at : self.at + k]
        self.at += len(out)
        return out


class ReadIntoOnly:
    """A file object with only readinto, filling at most the sizes of ``pattern`` in turn."""

    def __init__(self, data: bytes, pattern: list[int]) -> None:
        self.inner = ReadOnly(data, pattern)

    def readinto(self, buf: bytearray) -> int:
        got = self.inner.read(len(buf))
        buf[: len(got)] = got
        return len(got)


def test_table_shape_dtypes_and_tiling() -> None:
    data = rand(1_000_003, 1)
    c = simdcrypt.chunks(data)
    assert isinstance(c, simdcrypt.Chunks)
    assert c.offsets.dtype == np.uint64 and c.lengths.dtype == np.uint32 and c.digests.dtype == np.uint8
    assert c.digests.shape == (len(c.offsets), 32) and len(c.lengths) == len(c.offsets)
    assert c.offsets[0] == 0 and int(c.offsets[-1]) + int(c.lengths[-1]) == len(data)
    assert np.array_equal(c.offsets[1:], c.offsets[:-1] + c.lengths[:-1])
    assert c.lengths[:-1].min() >= XET_MIN and c.lengths.max() <= XET_MAX
    c.offsets[0] = 5  # the arrays are the caller's, writable
    empty = simdcrypt.chunks(b"")
    assert len(empty.offsets) == 0 and empty.digests.shape == (0, 32)


@pytest.mark.parametrize("kwargs", CHUNKERS, ids=["xet", "fastcdc-default", "fastcdc-small"])
def test_every_source_gives_the_same_chunks(kwargs: dict[str, Any], tmp_path: Path) -> None:
    fsspec = pytest.importorskip("fsspec")
    data = rand(700_001, 2)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    want = as_lists(simdcrypt.chunks(data, **kwargs))
    assert len(want[0]) > 3
    mem = fsspec.filesystem("memory")
    mem.pipe("/simdcrypt-test-chunks.bin", data)
    sources: list[tuple[str, Any]] = [
        ("bytearray", bytearray(data)),
        ("memoryview", memoryview(data)),
        ("numpy", np.frombuffer(data, dtype=np.uint8)),
        ("str path", str(path)),
        ("Path", path),
        ("BytesIO", io.BytesIO(data)),
        ("open file", open(path, "rb")),
        ("unbuffered file", open(path, "rb", buffering=0)),
        ("fsspec memory", mem.open("/simdcrypt-test-chunks.bin", "rb")),
        ("fsspec local", fsspec.open(str(path), "rb").open()),
        ("read only", ReadOnly(data, [5000, 1, 70_000])),
        ("readinto only", ReadIntoOnly(data, [100_000, 3])),
    ]
    try:
        for name, source in sources:
            assert as_lists(simdcrypt.chunks(source, **kwargs)) == want, name
    finally:
        for _, source in sources:
            if hasattr(source, "close"):
                source.close()
        mem.rm("/simdcrypt-test-chunks.bin")


@pytest.mark.parametrize("digest", ["xet", "blake3", "sha256", None])
def test_iterator_equals_arrays(digest: str | None, tmp_path: Path) -> None:
    data = rand(900_000, 3)
    path = tmp_path / "f"
    path.write_bytes(data)
    table = simdcrypt.chunks(data, digest=digest)
    want = as_tuples(table)
    if digest is None:
        assert table.digests is None
    for source in (data, path, io.BytesIO(data)):
        it = simdcrypt.chunks(source, digest=digest, as_arrays=False)
        assert isinstance(it, Iterator)
        assert list(it) == want
        assert next(it, None) is None  # stays exhausted


def test_digests_are_those_of_the_chunk_bytes() -> None:
    data = rand(600_000, 4)
    for digest, ref in (
        ("blake3", lambda b: blake3_ref.blake3(b).digest()),
        ("sha256", lambda b: hashlib.sha256(b).digest()),
    ):
        for offset, length, d in simdcrypt.chunks(data, digest=digest, as_arrays=False):
            assert d == ref(data[offset : offset + length]), (digest, offset)


@pytest.mark.parametrize("kwargs", CHUNKERS, ids=["xet", "fastcdc-default", "fastcdc-small"])
def test_threads_do_not_change_the_result(kwargs: dict[str, Any], tmp_path: Path) -> None:
    data = rand(3_000_001, 5)
    path = tmp_path / "f"
    path.write_bytes(data)
    want = as_lists(simdcrypt.chunks(data, threads=1, **kwargs))
    for threads in (2, 3, 8, None):
        assert as_lists(simdcrypt.chunks(data, threads=threads, **kwargs)) == want, threads
        assert as_lists(simdcrypt.chunks(path, threads=threads, **kwargs)) == want, threads


def test_without_numpy_the_table_is_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    data = rand(400_000, 6)
    want = as_lists(simdcrypt.chunks(data))
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` raises ImportError
    got = simdcrypt.chunks(data)
    assert isinstance(got.offsets, list) and isinstance(got.digests, list)
    assert (got.offsets, got.lengths, got.digests) == want
    assert simdcrypt.chunks(data, digest=None).digests is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"chunker": "rabin"}, "chunker"),
        ({"digest": "md5"}, "digest"),
        ({"min_size": 4096}, "min_size"),
        ({"avg_size": 4096}, "avg_size"),
        ({"max_size": 4096}, "max_size"),
        ({"level": 1}, "level"),
        ({"chunker": "fastcdc2020", "level": 4}, "level"),
        ({"chunker": "fastcdc2020", "level": -1}, "level"),
        ({"chunker": "fastcdc2020", "min_size": -1}, "min_size"),
        ({"chunker": "fastcdc2020", "max_size": 2**32}, "max_size"),
        ({"chunker": "fastcdc2020", "min_size": 32}, "minimum"),
        ({"chunker": "fastcdc2020", "min_size": 4096, "avg_size": 1 << 30, "max_size": 1 << 24}, "average"),
        ({"chunker": "fastcdc2020", "avg_size": 1 << 30}, "fastcdc2020"),
        ({"chunker": "fastcdc2020", "min_size": 1 << 16, "avg_size": 1 << 15}, "minimum <= average"),
        ({"chunker": "fastcdc2020", "min_size": 4097}, "even"),
        ({"threads": 0}, "threads"),
    ],
)
def test_parameters_out_of_range_raise_value_error(kwargs: dict[str, Any], message: str) -> None:
    for as_arrays in (True, False):
        with pytest.raises(ValueError, match=message):
            simdcrypt.chunks(b"abc", as_arrays=as_arrays, **kwargs)
        with pytest.raises(ValueError, match=message):
            simdcrypt.chunks(io.BytesIO(b"abc"), as_arrays=as_arrays, **kwargs)


def test_wrong_types_and_unreadable_files(tmp_path: Path) -> None:
    for bad in (3, 1.5, ["a"], None):
        with pytest.raises(TypeError, match="source must be"):
            simdcrypt.chunks(bad)
        with pytest.raises(TypeError, match="source must be"):
            simdcrypt.chunks(bad, as_arrays=False)
        with pytest.raises(TypeError):
            simdcrypt.xet_hash(bad)
    with pytest.raises(TypeError):
        simdcrypt.chunks(b"x", level="1")  # type: ignore[call-overload]
    with pytest.raises(BufferError):
        simdcrypt.chunks(np.zeros((4, 4), dtype=np.uint8)[:, ::2])
    for call in (simdcrypt.chunks, lambda p: simdcrypt.chunks(p, as_arrays=False), simdcrypt.xet_hash):
        with pytest.raises(FileNotFoundError) as e:
            call(tmp_path / "missing")
        assert e.value.filename == str(tmp_path / "missing")
        with pytest.raises(IsADirectoryError):
            call(tmp_path)


def test_file_object_errors_propagate() -> None:
    class Failing:
        def __init__(self) -> None:
            self.calls = 0

        def read(self, n: int) -> bytes:
            self.calls += 1
            if self.calls > 2:
                raise ConnectionError("the network went away")
            return b"x" * min(n, 50_000)

    with pytest.raises(ConnectionError, match="network"):
        simdcrypt.chunks(Failing())
    it = simdcrypt.chunks(Failing(), as_arrays=False)
    with pytest.raises(ConnectionError):
        list(it)
    assert next(it, None) is None  # a failed iterator is finished

    class TooMuch:
        def read(self, n: int) -> bytes:
            return b"x" * (n + 1)

    with pytest.raises(TypeError, match="returned"):
        simdcrypt.chunks(TooMuch())
    with pytest.raises(ConnectionError):
        simdcrypt.xet_hash(Failing())


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(0, 400_000),
    pattern=st.lists(st.integers(1, 200_000), min_size=1, max_size=6),
    chunker=st.sampled_from(CHUNKERS),
    readinto=st.booleans(),
)
def test_any_split_of_a_stream_into_reads_gives_the_same_chunks(
    seed: int, size: int, pattern: list[int], chunker: dict[str, Any], readinto: bool
) -> None:
    data = rand(size, seed)
    want = as_tuples(simdcrypt.chunks(data, **chunker))
    source = ReadIntoOnly(data, pattern) if readinto else ReadOnly(data, pattern)
    assert list(simdcrypt.chunks(source, as_arrays=False, **chunker)) == want


def xet_files(tmp_path: Path) -> list[Path]:
    """Files for the comparison with hf_xet: 0 B, around the minimum and maximum chunk
    lengths, several chunks, all zeros, and short periods near the Gear window."""
    files = []
    cases: list[tuple[str, bytes]] = [("empty", b"")]
    for n in (1, XET_MIN - 1, XET_MIN, XET_MIN + 1, XET_MAX - 1, XET_MAX, XET_MAX + 1, 2 * XET_MAX + 1, 1_000_000):
        cases.append((f"rand{n}", rand(n, n)))
    cases.append(("zeros", bytes(3 * XET_MAX + 5)))
    for period in (63, 64, 65):
        cases.append((f"period{period}", (rand(period, period) * (400_000 // period + 1))[:400_000]))
    for name, data in cases:
        p = tmp_path / name
        p.write_bytes(data)
        files.append(p)
    return files


def test_xet_hash_equals_hf_xet(tmp_path: Path) -> None:
    hf_xet = pytest.importorskip("hf_xet", reason="hf-xet is in requirements-dev.txt")
    files = xet_files(tmp_path)
    expected = [info.hash for info in hf_xet.hash_files([str(p) for p in files])]
    for path, want in zip(files, expected):
        data = path.read_bytes()
        assert simdcrypt.xet_hash(path) == want, path.name
        assert simdcrypt.xet_hash(str(path), threads=1) == want, path.name
        assert simdcrypt.xet_hash(data) == want, path.name
        assert simdcrypt.xet_hash(memoryview(data)) == want, path.name
        with open(path, "rb") as f:
            assert simdcrypt.xet_hash(f) == want, path.name
        assert simdcrypt.xet_hash(ReadOnly(data, [10_000, 77])) == want, path.name


def test_fastcdc_sizes_not_given_scale_with_avg_size() -> None:
    data = rand(300_000, 8)
    explicit = as_lists(simdcrypt.chunks(data, chunker="fastcdc2020", min_size=2048, avg_size=8192, max_size=32768))
    assert as_lists(simdcrypt.chunks(data, chunker="fastcdc2020", avg_size=8192)) == explicit
    defaults = as_lists(simdcrypt.chunks(data, chunker="fastcdc2020"))
    assert defaults == as_lists(
        simdcrypt.chunks(data, chunker="fastcdc2020", min_size=16384, avg_size=65536, max_size=262144, level=1)
    )


def test_every_gear_backend_gives_the_same_chunks(gear_backend: str, tmp_path: Path) -> None:
    data = rand(1_300_001, 9)
    path = tmp_path / "f"
    path.write_bytes(data)
    for kwargs in CHUNKERS:
        want = as_lists(simdcrypt.chunks(data, backend="portable", threads=1, **kwargs))
        for threads in (1, 3):
            assert as_lists(simdcrypt.chunks(data, backend=gear_backend, threads=threads, **kwargs)) == want
        assert as_lists(simdcrypt.chunks(path, backend=gear_backend, **kwargs)) == want
        stream = simdcrypt.chunks(io.BytesIO(data), backend=gear_backend, as_arrays=False, **kwargs)
        assert list(stream) == as_tuples(simdcrypt.chunks(data, backend="portable", **kwargs))
    want_hash = simdcrypt.xet_hash(data)
    assert simdcrypt.xet_hash(data, backend=gear_backend) == want_hash
    assert simdcrypt.xet_hash(path, backend=gear_backend) == want_hash
    record_backend(gear_backend, "gear")


def test_unknown_gear_backend_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="gear"):
        simdcrypt.chunks(b"abc", backend="nope")
    with pytest.raises(ValueError, match="gear"):
        simdcrypt.xet_hash(b"abc", backend="nope")
