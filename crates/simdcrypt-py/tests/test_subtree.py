"""simdcrypt.blake3_subtree and blake3_merge: an input hashed in pieces and merged gives
the digest of hashing it whole (checked against the official `blake3` package), in every
mode, split at the root and recursively; chaining values checked against a pure-Python
BLAKE3 compression written here; and the errors, with messages that say what is wrong."""

from __future__ import annotations

import struct
from typing import Any, Optional

import blake3 as official
import numpy as np
import pytest

import simdcrypt
from conftest import MODES, TEST_CONTEXT, TEST_KEY, releases_gil, mode_kwargs

CHUNK = 1024
INPUT_LENGTHS = [1025, 2048, 5000, 70 * CHUNK + 5, CHUNK * CHUNK + 1]
ROOT_LENGTHS = [0, 1, 32, 64, 100, 1000]


def left_len(n: int) -> int:
    """Where BLAKE3 splits an input of n > 1024 bytes: the largest power-of-two multiple of
    1024 that is strictly less than n."""
    assert n > CHUNK
    left = CHUNK
    while 2 * left < n:
        left *= 2
    return left


def test_left_len() -> None:
    assert [left_len(n) for n in (1025, 2048, 2049, 4096, 4097, 5000, 70 * CHUNK + 5)] == [
        1024, 1024, 2048, 2048, 4096, 4096, 64 * CHUNK,
    ]  # fmt: skip


def subtree_cv(data: bytes, offset: int, depth: Optional[int], **mode: Any) -> bytes:
    """The chaining value of `data` at `offset`: directly, or (while depth allows) merged
    from its two children, each computed the same way."""
    if depth == 0 or len(data) <= CHUNK:
        cv = simdcrypt.blake3_subtree(data, offset=offset, **mode)
    else:
        split = left_len(len(data))
        next_depth = None if depth is None else depth - 1
        left = subtree_cv(data[:split], offset, next_depth, **mode)
        right = subtree_cv(data[split:], offset + split, next_depth, **mode)
        cv = simdcrypt.blake3_merge(left, right, **mode)
    assert isinstance(cv, bytes) and len(cv) == 32
    return cv


def digest_in_pieces(data: bytes, depth: Optional[int], length: int, **mode: Any) -> bytes:
    """The digest of `data` (more than one chunk) from its root's two children, each split
    into subtrees `depth - 1` more levels (None: down to single chunks)."""
    split = left_len(len(data))
    next_depth = None if depth is None else depth - 1
    left = subtree_cv(data[:split], 0, next_depth, **mode)
    right = subtree_cv(data[split:], split, next_depth, **mode)
    return simdcrypt.blake3_merge(left, right, root=True, length=length, **mode)


@pytest.mark.parametrize("depth", [1, 2, 3, None], ids=["root_split", "2_levels", "3_levels", "all_chunks"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", INPUT_LENGTHS)
def test_pieces_merge_to_the_digest(n: int, mode: str, depth: Optional[int], random_data: bytes) -> None:
    data = random_data[:n]
    kwargs = mode_kwargs(mode)
    reference = official.blake3(data, **kwargs)
    ours = simdcrypt.blake3(data, **kwargs)
    for length in ROOT_LENGTHS if depth == 1 else [32, 100]:
        got = digest_in_pieces(data, depth, length, **kwargs)
        assert got == reference.digest(length)
        assert got == ours.digest(length)
    assert digest_in_pieces(data, depth, 32, **kwargs) == reference.digest()


def test_merge_root_defaults_and_long_output(random_data: bytes) -> None:
    data = random_data[:5000]
    left = simdcrypt.blake3_subtree(data[:4096], offset=0)
    right = simdcrypt.blake3_subtree(data[4096:], offset=4096)
    assert simdcrypt.blake3_merge(left, right, root=True) == official.blake3(data).digest()
    # A long output is computed without the GIL; any position of the stream is reachable.
    long_output = simdcrypt.blake3_merge(left, right, root=True, length=100_000)
    assert long_output == official.blake3(data).digest(100_000)
    # Chaining values as any bytes-like object.
    from_views = simdcrypt.blake3_merge(bytearray(left), memoryview(right), root=True)
    assert from_views == official.blake3(data).digest()
    # A non-root merge is not the digest.
    assert simdcrypt.blake3_merge(left, right) != official.blake3(data).digest()
    assert simdcrypt.blake3_merge(left, right, root=False, length=32) == simdcrypt.blake3_merge(left, right)


@pytest.mark.parametrize("mode", MODES)
def test_whole_subtree_equals_merged_halves(mode: str, random_data: bytes) -> None:
    kwargs = mode_kwargs(mode)
    pieces = [(0, 8 * CHUNK), (8 * CHUNK, 8 * CHUNK), (64 * CHUNK, 64 * CHUNK), (3 * CHUNK, CHUNK)]
    for offset, size in pieces:
        data = random_data[offset : offset + size]
        whole = simdcrypt.blake3_subtree(data, offset=offset, **kwargs)
        if size > CHUNK:
            half = size // 2
            left = simdcrypt.blake3_subtree(data[:half], offset=offset, **kwargs)
            right = simdcrypt.blake3_subtree(data[half:], offset=offset + half, **kwargs)
            assert whole == simdcrypt.blake3_merge(left, right, **kwargs)
        assert whole == subtree_cv(data, offset, None, **kwargs)


def test_subtree_accepts_any_buffer(random_data: bytes) -> None:
    data = random_data[:3000]
    expected = simdcrypt.blake3_subtree(data, offset=0)
    buffers: list[Any] = [bytearray(data), memoryview(data), np.frombuffer(data, dtype=np.uint8)]
    for obj in buffers:
        assert simdcrypt.blake3_subtree(obj, offset=0) == expected
    assert simdcrypt.blake3_subtree(data[:CHUNK], offset=np.int64(4 * CHUNK)) == (  # type: ignore[arg-type]
        simdcrypt.blake3_subtree(data[:CHUNK], offset=4 * CHUNK)
    )


# --- chaining values against a pure-Python BLAKE3 -------------------------------------

MASK = 0xFFFFFFFF
IV = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
PERMUTATION = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)
CHUNK_START, CHUNK_END, PARENT, ROOT = 1, 2, 4, 8
KEYED_HASH, DERIVE_KEY_CONTEXT, DERIVE_KEY_MATERIAL = 16, 32, 64


def _g(s: list[int], a: int, b: int, c: int, d: int, x: int, y: int) -> None:
    s[a] = (s[a] + s[b] + x) & MASK
    s[d] = ((s[d] ^ s[a]) >> 16 | (s[d] ^ s[a]) << 16) & MASK
    s[c] = (s[c] + s[d]) & MASK
    s[b] = ((s[b] ^ s[c]) >> 12 | (s[b] ^ s[c]) << 20) & MASK
    s[a] = (s[a] + s[b] + y) & MASK
    s[d] = ((s[d] ^ s[a]) >> 8 | (s[d] ^ s[a]) << 24) & MASK
    s[c] = (s[c] + s[d]) & MASK
    s[b] = ((s[b] ^ s[c]) >> 7 | (s[b] ^ s[c]) << 25) & MASK


def compress(cv: tuple[int, ...], block: bytes, counter: int, block_len: int, flags: int) -> tuple[int, ...]:
    """BLAKE3's compression function (the specification's), first 8 output words."""
    m = list(struct.unpack("<16I", block.ljust(64, b"\0")))
    s = [*cv, *IV[:4], counter & MASK, counter >> 32, block_len, flags]
    for round_ in range(7):
        _g(s, 0, 4, 8, 12, m[0], m[1])
        _g(s, 1, 5, 9, 13, m[2], m[3])
        _g(s, 2, 6, 10, 14, m[4], m[5])
        _g(s, 3, 7, 11, 15, m[6], m[7])
        _g(s, 0, 5, 10, 15, m[8], m[9])
        _g(s, 1, 6, 11, 12, m[10], m[11])
        _g(s, 2, 7, 8, 13, m[12], m[13])
        _g(s, 3, 4, 9, 14, m[14], m[15])
        if round_ < 6:
            m = [m[i] for i in PERMUTATION]
    return tuple(s[i] ^ s[i + 8] for i in range(8))


def chunk_output(key: tuple[int, ...], chunk: bytes, counter: int, flags: int, root: bool) -> bytes:
    """The chaining value of one chunk (or, with root=True, the first 32 bytes of the digest
    of an input of one chunk)."""
    blocks = [chunk[i : i + 64] for i in range(0, len(chunk), 64)] or [b""]
    cv = key
    for i, block in enumerate(blocks):
        last = i == len(blocks) - 1
        block_flags = flags | (CHUNK_START if i == 0 else 0)
        if last:
            block_flags |= CHUNK_END | (ROOT if root else 0)
        cv = compress(cv, block, counter, len(block), block_flags)
    return struct.pack("<8I", *cv)


def key_and_flags(mode: str) -> tuple[tuple[int, ...], int]:
    if mode == "hash":
        return IV, 0
    if mode == "keyed_hash":
        return struct.unpack("<8I", TEST_KEY), KEYED_HASH
    context_key = chunk_output(IV, TEST_CONTEXT.encode(), 0, DERIVE_KEY_CONTEXT, root=True)
    return struct.unpack("<8I", context_key), DERIVE_KEY_MATERIAL


@pytest.mark.parametrize("mode", MODES)
def test_reference_implementation_matches_official(mode: str, random_data: bytes) -> None:
    key, flags = key_and_flags(mode)
    for n in (0, 1, 64, 65, 1000, 1024):
        data = random_data[:n]
        expected = official.blake3(data, **mode_kwargs(mode)).digest()
        assert chunk_output(key, data, 0, flags, root=True) == expected


@pytest.mark.parametrize("mode", MODES)
def test_single_chunk_chaining_values(mode: str, random_data: bytes) -> None:
    key, flags = key_and_flags(mode)
    kwargs = mode_kwargs(mode)
    for n in (0, 1, 64, 65, 1000, 1024):
        data = random_data[:n]
        cv = simdcrypt.blake3_subtree(data, offset=0, **kwargs)
        # A single chunk at offset 0 is the whole input: its chaining value is the root
        # node's without the ROOT flag, so it differs from the digest.
        assert cv == chunk_output(key, data, 0, flags, root=False)
        assert cv != simdcrypt.blake3(data, **kwargs).digest()
        assert cv != official.blake3(data, **kwargs).digest()
        # At another offset, the chunk counter differs, and so does the chaining value.
        if n:
            at_5 = simdcrypt.blake3_subtree(data, offset=5 * CHUNK, **kwargs)
            assert at_5 == chunk_output(key, data, 5, flags, root=False)
            assert at_5 != cv


@pytest.mark.parametrize("mode", MODES)
def test_merge_matches_reference_parent(mode: str, random_data: bytes) -> None:
    key, flags = key_and_flags(mode)
    kwargs = mode_kwargs(mode)
    left, right = random_data[:32], random_data[32:64]
    parent = struct.pack("<8I", *compress(key, left + right, 0, 64, flags | PARENT))
    assert simdcrypt.blake3_merge(left, right, **kwargs) == parent
    root = struct.pack("<8I", *compress(key, left + right, 0, 64, flags | PARENT | ROOT))
    assert simdcrypt.blake3_merge(left, right, root=True, **kwargs) == root
    assert simdcrypt.blake3_merge(left, right, root=True, length=16, **kwargs) == root[:16]


# --- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [1, 1000, 1023, 1025, 3 * CHUNK + 512])
def test_misaligned_offset(offset: int) -> None:
    with pytest.raises(ValueError, match=rf"offset {offset} is not a multiple of the chunk length 1024"):
        simdcrypt.blake3_subtree(b"x" * 10, offset=offset)


@pytest.mark.parametrize(
    ("offset", "size", "limit"),
    [(3072, 2048, 1024), (1024, 1025, 1024), (4096, 4097, 4096), (6 * CHUNK, 4 * CHUNK, 2048)],
)
def test_subtree_too_long(offset: int, size: int, limit: int) -> None:
    expected = rf"offset {offset} can be at most {limit} bytes.*power of two.*got {size}"
    with pytest.raises(ValueError, match=expected):
        simdcrypt.blake3_subtree(bytes(size), offset=offset)
    # The largest allowed size is fine.
    assert len(simdcrypt.blake3_subtree(bytes(limit), offset=offset)) == 32


def test_empty_subtree_at_nonzero_offset() -> None:
    with pytest.raises(ValueError, match="offset 2048 must not be empty"):
        simdcrypt.blake3_subtree(b"", offset=2048)
    # At offset 0, the empty input is the whole (empty) input.
    assert len(simdcrypt.blake3_subtree(b"", offset=0)) == 32


@pytest.mark.parametrize(
    ("offset", "message"),
    [
        (-1, "non-negative"),
        (-1024, "non-negative"),
        (-(2**70), "non-negative"),
        (2**64, r"2\*\*64"),
        (2**100, r"2\*\*64"),
    ],
)
def test_offset_out_of_range(offset: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simdcrypt.blake3_subtree(b"x", offset=offset)


def test_largest_offsets() -> None:
    top = 2**64 - CHUNK
    assert len(simdcrypt.blake3_subtree(b"x", offset=top)) == 32
    assert len(simdcrypt.blake3_subtree(bytes(CHUNK), offset=2**63)) == 32


def test_subtree_argument_kinds() -> None:
    with pytest.raises(TypeError):
        simdcrypt.blake3_subtree(b"x")  # type: ignore[call-arg]  # offset is required
    with pytest.raises(TypeError):
        simdcrypt.blake3_subtree(b"x", 0)  # type: ignore[misc]  # and keyword-only
    with pytest.raises(TypeError):
        simdcrypt.blake3_subtree(b"x", offset=1024.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        simdcrypt.blake3_subtree("text", offset=0)  # type: ignore[arg-type]
    with pytest.raises(BufferError):
        simdcrypt.blake3_subtree(memoryview(bytes(100))[::2], offset=0)
    with pytest.raises(ValueError, match="derive_key_context"):
        simdcrypt.blake3_subtree(b"x", offset=0, key=bytes(32), derive_key_context="ctx")
    with pytest.raises(ValueError, match=r"key.*\b32\b.*\b31\b"):
        simdcrypt.blake3_subtree(b"x", offset=0, key=bytes(31))


@pytest.mark.parametrize("size", [0, 1, 31, 33, 64])
def test_chaining_values_of_wrong_length(size: int) -> None:
    good = bytes(32)
    with pytest.raises(ValueError, match=rf"left must be a 32-byte chaining value.*got {size} bytes"):
        simdcrypt.blake3_merge(bytes(size), good)
    with pytest.raises(ValueError, match=rf"right must be a 32-byte chaining value.*got {size} bytes"):
        simdcrypt.blake3_merge(good, bytes(size), root=True)


def test_merge_argument_errors() -> None:
    cv = bytes(32)
    with pytest.raises(ValueError, match=r"length must be 32 with root=False.*root=True"):
        simdcrypt.blake3_merge(cv, cv, length=64)
    with pytest.raises(ValueError, match=r"length must be 32 with root=False"):
        simdcrypt.blake3_merge(cv, cv, length=2**100)
    with pytest.raises(ValueError, match="length must be non-negative"):
        simdcrypt.blake3_merge(cv, cv, root=True, length=-1)
    with pytest.raises(ValueError, match=r"2\*\*64"):
        simdcrypt.blake3_merge(cv, cv, root=True, length=2**65)
    with pytest.raises(TypeError):
        simdcrypt.blake3_merge("x" * 32, cv)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        simdcrypt.blake3_merge(cv, cv, True)  # type: ignore[misc]  # root is keyword-only
    with pytest.raises(ValueError, match="derive_key_context"):
        simdcrypt.blake3_merge(cv, cv, key=bytes(32), derive_key_context="ctx")
    with pytest.raises(ValueError, match=r"key.*\b32\b.*\b5\b"):
        simdcrypt.blake3_merge(cv, cv, key=bytes(5))
    assert simdcrypt.blake3_merge(cv, cv, root=True, length=0) == b""


def test_large_subtree_releases_the_gil() -> None:
    data = bytearray(256 << 20)  # a 256 MiB subtree: tens of milliseconds on any backend
    assert releases_gil(lambda: simdcrypt.blake3_subtree(data, offset=0))
    assert releases_gil(lambda: simdcrypt.blake3_subtree(data, offset=2**40))
