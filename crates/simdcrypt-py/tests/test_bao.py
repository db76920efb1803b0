"""simdcrypt's Bao functions: encodings against a pure-Python Bao encoder written here from
the spec (on test_subtree's pure-Python BLAKE3 compression), roots against the official
`blake3` package, decoding, slices, BaoReader, scrub, every kind of corruption raising
AuthenticationError with the offset, file paths as well as buffers, and randomly mutated
encodings never decoding to wrong bytes. The Rust tests compare byte for byte with the
`bao` crate itself."""

from __future__ import annotations

import io
import random
import struct
from pathlib import Path

import blake3 as official
import pytest

import simdcrypt
from test_subtree import IV, chunk_output, compress

CHUNK = 1024
PARENT_FLAG = 1 << 2
ROOT_FLAG = 1 << 3
SIZES = [0, 1, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4097, 8 * CHUNK + 1, 13 * CHUNK + 77]


def left_len(n: int) -> int:
    left = CHUNK
    while 2 * left < n:
        left *= 2
    return left


def reference_encode(data: bytes, outboard: bool = False) -> tuple[bytes, bytes]:
    """The Bao spec: 8-byte little-endian length, then the tree in pre-order."""

    def node(part: bytes, start: int, root: bool) -> tuple[bytes, bytes]:
        if len(part) <= CHUNK:
            return chunk_output(IV, part, start // CHUNK, 0, root), (b"" if outboard else part)
        split = left_len(len(part))
        left_cv, left_enc = node(part[:split], start, False)
        right_cv, right_enc = node(part[split:], start + split, False)
        flags = PARENT_FLAG | (ROOT_FLAG if root else 0)
        cv = struct.pack("<8I", *compress(IV, left_cv + right_cv, 0, 64, flags))
        return cv, left_cv + right_cv + left_enc + right_enc

    root, body = node(data, 0, True)
    return root, struct.pack("<Q", len(data)) + body


def data_of(n: int, seed: int = 1) -> bytes:
    return random.Random(seed * 7919 + n).randbytes(n)


@pytest.mark.parametrize("n", SIZES)
def test_encodings_match_the_reference(n: int) -> None:
    data = data_of(n)
    want_root, want = reference_encode(data)
    root, encoded = simdcrypt.bao_encode(data)
    assert root == want_root == official.blake3(data).digest()
    assert encoded == want
    ob_root, ob = simdcrypt.bao_encode(bytearray(data), outboard=True)
    assert ob_root == root and ob == reference_encode(data, outboard=True)[1]
    assert simdcrypt.bao_decode(root, encoded) == data
    assert simdcrypt.bao_decode(root, data, outboard=ob) == data
    with simdcrypt.BaoReader(root, io.BytesIO(encoded)) as reader:
        assert reader.read(100) == data[:100]
        assert reader.read() == data[100:]
        assert reader.read() == b""
    assert reader.closed


def test_large_input_threads_and_paths(tmp_path: Path) -> None:
    data = data_of(3 * 1024 * 1024 + 5000)
    root, encoded = simdcrypt.bao_encode(data, max_threads=2)
    assert root == official.blake3(data).digest()
    assert (root, encoded) == simdcrypt.bao_encode(memoryview(data))
    (tmp_path / "data").write_bytes(data)
    (tmp_path / "enc").write_bytes(encoded)
    assert simdcrypt.bao_encode(tmp_path / "data") == (root, encoded)
    assert simdcrypt.bao_decode(root, str(tmp_path / "enc")) == data
    _, ob = simdcrypt.bao_encode(str(tmp_path / "data"), outboard=True)
    (tmp_path / "ob").write_bytes(ob)
    assert simdcrypt.bao_decode(root, tmp_path / "data", outboard=tmp_path / "ob") == data
    with simdcrypt.BaoReader(root, tmp_path / "data", outboard=tmp_path / "ob") as reader:
        assert reader.read(10) == data[:10]
    assert simdcrypt.bao_scrub(root, tmp_path / "data", tmp_path / "ob").ok
    with pytest.raises(FileNotFoundError):
        simdcrypt.bao_decode(root, tmp_path / "missing")


@pytest.mark.parametrize("n", [0, 1, 1025, 5000, 40 * CHUNK + 3])
def test_slices(n: int) -> None:
    data = data_of(n, 2)
    root, encoded = simdcrypt.bao_encode(data)
    _, ob = simdcrypt.bao_encode(data, outboard=True)
    rng = random.Random(n)
    ranges = [(0, n), (0, 0), (n, 0), (n + 100, 5), (n // 2, 2**64 - 1)]
    ranges += [(rng.randrange(n + 10), rng.randrange(2 * n + 2)) for _ in range(10)]
    for start, count in ranges:
        piece = simdcrypt.bao_slice(encoded, start, count)
        assert piece == simdcrypt.bao_slice(data, start, count, outboard=ob)
        assert simdcrypt.bao_decode_slice(root, piece, start, count) == data[start : start + count]
    assert simdcrypt.bao_slice(encoded, 0, n) == encoded
    with pytest.raises(ValueError, match="start must be in"):
        simdcrypt.bao_slice(encoded, -1, 5)


def test_every_corruption_raises_authentication_error_with_the_offset() -> None:
    data = data_of(5 * CHUNK + 7)
    root, encoded = simdcrypt.bao_encode(data)
    # Pre-order: root parent, parent over 4 chunks, parent, chunk 0, chunk 1, parent, ...
    for position, offset in [(8, 0), (8 + 64, 0), (8 + 3 * 64 + 10, 0), (len(encoded) - 1, 5 * CHUNK)]:
        bad = bytearray(encoded)
        bad[position] ^= 1
        with pytest.raises(simdcrypt.AuthenticationError, match=f"content offset {offset}"):
            simdcrypt.bao_decode(root, bad)
        reader = simdcrypt.BaoReader(root, bytes(bad))
        with pytest.raises(simdcrypt.AuthenticationError):
            reader.read()
    assert issubclass(simdcrypt.AuthenticationError, ValueError)
    with pytest.raises(simdcrypt.AuthenticationError, match="truncated"):
        simdcrypt.bao_decode(root, encoded[:-1])
    with pytest.raises(simdcrypt.AuthenticationError, match="goes on past"):
        simdcrypt.bao_decode(root, encoded + b"\0")
    with pytest.raises(simdcrypt.AuthenticationError):
        simdcrypt.bao_decode(root, struct.pack("<Q", len(data) + 1) + encoded[8:])
    with pytest.raises(simdcrypt.AuthenticationError):
        simdcrypt.bao_decode(bytes(32), encoded)
    with pytest.raises(ValueError, match="root must be 32 bytes"):
        simdcrypt.bao_decode(b"short", encoded)


def test_scrub_reports_every_damaged_range() -> None:
    data = bytearray(data_of(300_000, 3))
    root, ob = simdcrypt.bao_encode(bytes(data), outboard=True)
    report = simdcrypt.bao_scrub(root, bytes(data), ob)
    assert report.ok and report.damaged == [] and report.length == 300_000
    for i in (0, 1500, 2100, 299_999):
        data[i] ^= 0x80
    report = simdcrypt.bao_scrub(root, data, ob, max_threads=2)
    assert not report.ok
    assert report.damaged == [(0, 3072), (299_008, 300_000)]
    assert report.outboard_damaged == []
    bad_ob = bytearray(ob)
    bad_ob[100] ^= 1
    report = simdcrypt.bao_scrub(root, bytes(data), bytes(bad_ob))
    assert report.outboard_damaged and "BaoScrubReport(" in repr(report)


def test_chunk_groups() -> None:
    data = data_of(100_000, 4)
    root, ob = simdcrypt.bao_encode(data, outboard=True, chunk_group_log=4)
    assert root == official.blake3(data).digest()
    assert len(ob) == 8 + 6 * 64  # 7 leaves of 16 KiB
    assert simdcrypt.bao_decode(root, data, outboard=ob, chunk_group_log=4) == data
    with pytest.raises(simdcrypt.AuthenticationError):
        simdcrypt.bao_decode(root, data, outboard=ob)  # read as the 1 KiB format
    with pytest.raises(ValueError, match="chunk group exponent"):
        simdcrypt.bao_encode(data, chunk_group_log=40)


def test_mutated_encodings_never_decode_wrong() -> None:
    rng = random.Random(2024)
    for _ in range(150):
        n = rng.randrange(0, 12_000)
        data = data_of(n, 5)
        root, encoded = simdcrypt.bao_encode(data)
        bad = bytearray(encoded)
        for _ in range(rng.randrange(1, 4)):
            bad[rng.randrange(len(bad))] ^= rng.randrange(1, 256)
        if rng.random() < 0.3:
            del bad[rng.randrange(len(bad) + 1) :]
        try:
            assert simdcrypt.bao_decode(root, bad) == data
        except simdcrypt.AuthenticationError:
            pass
        reader = simdcrypt.BaoReader(root, bytes(bad))
        got = b""
        try:
            while chunk := reader.read(777):
                got += chunk
            assert got == data
        except simdcrypt.AuthenticationError:
            assert data.startswith(got)
        start, count = rng.randrange(n + 2), rng.randrange(3000)
        piece = bytearray(simdcrypt.bao_slice(encoded, start, count))
        piece[rng.randrange(len(piece))] ^= 1
        try:
            assert simdcrypt.bao_decode_slice(root, piece, start, count) == data[start : start + count]
        except simdcrypt.AuthenticationError:
            pass


def test_readme_example_runs() -> None:
    readme = (Path(__file__).parents[3] / "README.md").read_text()
    section = readme.split("## Bao: verified streaming", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})


def test_reader_shared_between_threads_with_a_slow_python_source() -> None:
    # The reader's lock is never waited for with the GIL held: a source whose read()
    # sleeps (releasing the GIL) while another thread calls read() must not deadlock.
    import threading
    import time

    data = bytes(range(256)) * 64  # 16 KiB: several chunks
    root, encoded = simdcrypt.bao_encode(data)

    class SlowSource:
        def __init__(self, payload: bytes) -> None:
            self.f = io.BytesIO(payload)

        def read(self, n: int) -> bytes:
            time.sleep(0.01)
            return self.f.read(n)

    reader = simdcrypt.BaoReader(root, SlowSource(encoded))
    parts: list[bytes] = []
    lock = threading.Lock()

    def worker() -> None:
        while True:
            chunk = reader.read(1500)
            if not chunk:
                return
            with lock:
                parts.append(chunk)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "BaoReader deadlocked"
    assert sum(len(p) for p in parts) == len(data)
    assert reader.closed is False
    reader.close()
    assert reader.closed is True
