"""Every kind of C-contiguous buffer is hashed as its raw bytes; others are refused."""

from __future__ import annotations

import array
import mmap
from pathlib import Path
from typing import Any, Callable

import blake3 as official
import numpy as np
import pytest

import simdcrypt
from conftest import BUFFER_KINDS, NON_CONTIGUOUS, payload

# Both sides of the 2048-byte threshold above which hashing releases the GIL.
SIZES = [0, 100, 5000]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", list(BUFFER_KINDS))
def test_byte_buffers(
    kind: str, size: int, make_hasher: Callable[..., simdcrypt.blake3]
) -> None:
    data = payload(size)
    expected = official.blake3(data).digest()
    obj = BUFFER_KINDS[kind](data)
    assert make_hasher(obj).digest() == expected
    assert make_hasher().update(obj).digest() == expected
    assert make_hasher(key=BUFFER_KINDS[kind](bytes(32))).update(data).digest() == (
        official.blake3(data, key=bytes(32)).digest()
    )


@pytest.mark.parametrize("size", SIZES)
def test_wide_item_types_hash_raw_bytes(size: int, backend: str, make_hasher: Callable[..., simdcrypt.blake3]) -> None:
    words = array.array("I", range(size))
    assert make_hasher(words).digest() == official.blake3(words.tobytes()).digest()
    arr = np.arange(size, dtype=np.uint32)
    assert make_hasher(arr).digest() == official.blake3(arr.tobytes()).digest()
    doubles = memoryview(array.array("d", [0.5] * size))
    assert make_hasher(doubles).digest() == official.blake3(doubles.tobytes()).digest()


def test_numpy_multidimensional_c_contiguous(make_hasher: Callable[..., simdcrypt.blake3]) -> None:
    grid = np.arange(64 * 100, dtype=np.uint8).reshape(64, 100)
    assert make_hasher(grid).digest() == official.blake3(grid.tobytes()).digest()
    # A slice of whole rows is still C-contiguous.
    rows = grid[10:50]
    assert make_hasher(rows).digest() == official.blake3(rows.tobytes()).digest()
    # Zero-dimensional arrays are one item.
    scalar = np.array(200, dtype=np.uint8)
    assert make_hasher(scalar).digest() == official.blake3(b"\xc8").digest()
    # Memoryview casts to several dimensions.
    shaped = memoryview(bytearray(range(240))).cast("B", (4, 6, 10))
    assert make_hasher(shaped).digest() == official.blake3(bytes(range(240))).digest()


def test_mmap(tmp_path: Path, make_hasher: Callable[..., simdcrypt.blake3]) -> None:
    data = payload(300_000)
    path = tmp_path / "mapped.bin"
    path.write_bytes(data)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert make_hasher(m).digest() == official.blake3(data).digest()
        # The export is released afterwards: the map can be closed (no BufferError).
    assert m.closed


@pytest.mark.parametrize("bad", ["abc", "", 123, 1.5, None, [1, 2], object()])
def test_non_buffers_raise_type_error(bad: Any) -> None:
    h = simdcrypt.blake3()
    with pytest.raises(TypeError):
        h.update(bad)
    if bad is not None:  # blake3(None) is the same as blake3(), as in the blake3 package
        with pytest.raises(TypeError):
            simdcrypt.blake3(bad)
    with pytest.raises(TypeError):
        simdcrypt.blake3(key=bad if bad is not None else "k" * 32)
    # A failed update leaves the state untouched.
    assert h.digest() == official.blake3().digest()


@pytest.mark.parametrize("kind", list(NON_CONTIGUOUS))
def test_non_contiguous_buffers_raise_buffer_error(kind: str) -> None:
    obj = NON_CONTIGUOUS[kind]()
    h = simdcrypt.blake3()
    with pytest.raises(BufferError):
        h.update(obj)
    with pytest.raises(BufferError):
        simdcrypt.blake3(obj)
    with pytest.raises(BufferError):
        simdcrypt.blake3(key=obj)
    assert h.digest() == official.blake3().digest()


def test_bytearray_cannot_resize_while_exported_and_can_after() -> None:
    data = bytearray(payload(10_000))
    h = simdcrypt.blake3(data)
    data.extend(b"more")  # the export was released when update() returned
    h.update(data)
    assert h.digest() == official.blake3(bytes(data[:10_000]) + bytes(data)).digest()
