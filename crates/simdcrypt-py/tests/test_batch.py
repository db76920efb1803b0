"""simdcrypt.blake3_many: many messages hashed in one call (SIMD across messages) give
the digests of per-message hashing, against simdcrypt.blake3 and the official `blake3`
package, on every backend: counts around each backend's lane count, equal and ragged
lengths, all modes and output lengths, threads, numpy rows, every buffer kind, and the
errors."""

from __future__ import annotations

import array
import collections.abc
import mmap
import random
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

import blake3 as official
import numpy as np
import pytest

import simdcrypt
from conftest import OtherSequence
from conftest import MODES, SUPPORTED_BACKENDS, releases_gil, mode_kwargs, record_backend, resize_while

AUTO = simdcrypt.blake3.AUTO
# Around the lane counts of the SIMD kernels (SSE4.1/NEON 4, AVX2 8, AVX-512 16), and more.
COUNTS: list[int] = sorted({1, 6, 13, 30, 1000} | {n + d for n in (4, 8, 16) for d in (-1, 0, 1)})
EQUAL_LENGTHS = [0, 1, 63, 64, 65, 1023, 1024, 1025, 4096 + 7]
OUT_LENGTHS = [1, 32, 64, 100]


def many(messages: Any, backend: str, **kwargs: Any) -> bytes:
    """blake3_many on `backend`, recorded as exercised."""
    record_backend(backend)
    return simdcrypt.blake3_many(messages, backend=backend, **kwargs)


def split(out: bytes, length: int) -> list[bytes]:
    assert len(out) % length == 0 if length else out == b""
    return [out[i : i + length] for i in range(0, len(out), length)] if length else []


def official_digests(messages: Sequence[Any], length: int = 32, **mode: Any) -> list[bytes]:
    return [official.blake3(bytes(m), **mode).digest(length) for m in messages]


def simdcrypt_digests(messages: Sequence[Any], backend: str, length: int = 32, **mode: Any) -> list[bytes]:
    return [simdcrypt.blake3(m, backend=backend, **mode).digest(length) for m in messages]


def check(messages: Sequence[Any], backend: str, length: int = 32, **kwargs: Any) -> None:
    """blake3_many(messages) against both per-message references, digest by digest."""
    mode = {k: v for k, v in kwargs.items() if k in ("key", "derive_key_context")}
    out = many(messages, backend, length=length, **kwargs)
    assert isinstance(out, bytes)
    assert len(out) == len(messages) * length
    got = split(out, length) if length else [b""] * len(messages)
    assert got == official_digests(messages, length, **mode)
    assert got == simdcrypt_digests(messages, backend, length, **mode)


def equal_length_messages(data: bytes, count: int, length: int) -> list[bytes]:
    """`count` different messages of `length` bytes (overlapping slices of random data)."""
    return [data[i * 13 : i * 13 + length] for i in range(count)]


def ragged_lengths(count: int, seed: int) -> list[int]:
    """Lengths from a fixed seed: mostly short (the SIMD path), some around one chunk, a few
    of several chunks."""
    rng = random.Random(seed)
    pools = [range(0, 130), range(1000, 1050), range(0, 6000)]
    return [rng.choice(pools[rng.choices([0, 1, 2], weights=[6, 2, 1])[0]]) for _ in range(count)]


def ragged_messages(data: bytes, count: int, seed: int) -> list[bytes]:
    return [data[i * 7 : i * 7 + n] for i, n in enumerate(ragged_lengths(count, seed))]


def test_counts_cover_every_lane_count() -> None:
    for lanes in (4, 8, 16):
        assert {lanes - 1, lanes, lanes + 1} <= set(COUNTS)


# --- against per-message hashing ----------------------------------------------------


@pytest.mark.parametrize("count", COUNTS)
def test_equal_lengths(count: int, backend: str, random_data: bytes) -> None:
    for length in EQUAL_LENGTHS:
        check(equal_length_messages(random_data, count, length), backend)


@pytest.mark.parametrize("count", COUNTS)
def test_ragged_lengths(count: int, backend: str, random_data: bytes) -> None:
    check(ragged_messages(random_data, count, seed=count), backend)


@pytest.mark.parametrize("mode", MODES)
def test_modes_and_output_lengths(mode: str, backend: str, random_data: bytes) -> None:
    ragged = ragged_messages(random_data, 45, seed=7)
    equal = equal_length_messages(random_data, 33, 64)
    for messages in (ragged, equal):
        for length in [0, *OUT_LENGTHS, 1000]:
            check(messages, backend, length, **mode_kwargs(mode))


@pytest.mark.parametrize("threads", [1, 2, 3, AUTO], ids=["1", "2", "3", "AUTO"])
def test_max_threads(threads: int, backend: str, random_data: bytes) -> None:
    # ~1.5 MB in all, so that AUTO uses more than one thread where there are CPUs for it.
    big = ragged_messages(random_data, 600, seed=99) + [random_data[: 300 * 1024]]
    check(big, backend, max_threads=threads)
    check(equal_length_messages(random_data, 2000, 64), backend, max_threads=threads)
    check(ragged_messages(random_data, 50, seed=5), backend, length=100, max_threads=threads, key=bytes(32))


def test_empty_batch(backend: str) -> None:
    for mode in MODES:
        for length in (0, 32, 100):
            assert many([], backend, length=length, **mode_kwargs(mode)) == b""
    assert many((), backend) == b""
    assert many(np.zeros((0, 64), dtype=np.uint8), backend) == b""
    assert simdcrypt.blake3_many([]) == b""


def test_length_zero_still_checks_the_messages() -> None:
    assert simdcrypt.blake3_many([b"a", b"b"], length=0) == b""
    with pytest.raises(TypeError, match=r"messages\[1\]"):
        simdcrypt.blake3_many([b"a", "b"], length=0)  # type: ignore[list-item]


def test_default_backend_and_keywords() -> None:
    messages = [b"abc", b"", b"x" * 2000]
    expected = b"".join(official_digests(messages))
    assert simdcrypt.blake3_many(messages) == expected
    assert simdcrypt.blake3_many(messages, length=32, key=None, derive_key_context=None) == expected
    assert simdcrypt.blake3_many(messages, max_threads=1, backend=None) == expected
    assert simdcrypt.blake3_many(messages, backend=SUPPORTED_BACKENDS[0].upper()) == expected


def test_long_output_lengths(backend: str) -> None:
    messages = [b"", b"abc", bytes(range(200))]
    check(messages, backend, length=5000)
    check(messages, backend, length=65, derive_key_context="ctx")


# --- numpy rows and other buffers -----------------------------------------------------


@pytest.mark.parametrize("cols", [0, 1, 63, 64, 65, 1024, 1025, 3000])
@pytest.mark.parametrize("rows", [0, 1, 17, 100])
def test_numpy_rows(rows: int, cols: int, backend: str) -> None:
    rng = np.random.default_rng(rows * 10_000 + cols)
    array_2d = rng.integers(0, 256, size=(rows, cols), dtype=np.uint8)
    messages = [row.tobytes() for row in array_2d]
    out = many(array_2d, backend)
    assert out == b"".join(official_digests(messages))
    assert out == many(messages, backend)
    if rows:
        assert many(array_2d, backend, length=100, key=bytes(range(32))) == b"".join(
            official_digests(messages, 100, key=bytes(range(32)))
        )


def test_numpy_rows_views_and_item_types(backend: str) -> None:
    grid = np.arange(40 * 64, dtype=np.uint32).astype(np.uint8).reshape(40, 64)
    # A slice of whole rows is C-contiguous.
    assert many(grid[5:30], backend) == b"".join(official_digests([r.tobytes() for r in grid[5:30]]))
    # Any 1-byte item type is hashed as raw bytes.
    for dtype in (np.int8, np.bool_):
        typed = grid.view(dtype) if dtype is np.int8 else grid % 2 == 1
        assert many(typed, backend) == b"".join(official_digests([r.tobytes() for r in typed]))
    # So is a 2-D memoryview, and a read-only array.
    shaped = memoryview(bytearray(range(240))).cast("B", (4, 60))
    shaped_rows = [bytes(range(240))[i * 60 : i * 60 + 60] for i in range(4)]
    assert many(shaped, backend) == b"".join(official_digests(shaped_rows))
    readonly = np.frombuffer(bytes(range(200)), dtype=np.uint8).reshape(10, 20)
    assert many(readonly, backend) == b"".join(official_digests([r.tobytes() for r in readonly]))
    # Wider items viewed as bytes, as the error message suggests.
    wide = np.arange(12, dtype=np.uint32).reshape(3, 4)
    assert many(wide.view(np.uint8), backend) == b"".join(official_digests([r.tobytes() for r in wide]))


def test_numpy_rows_without_memory() -> None:
    # A (rows, 0) array has no memory at all; every row is the empty message.
    empty_rows = np.zeros((5, 0), dtype=np.uint8)
    assert simdcrypt.blake3_many(empty_rows) == official.blake3(b"").digest() * 5
    assert simdcrypt.blake3_many(np.zeros((0, 0), dtype=np.uint8)) == b""
    # length=0 needs no work (nor memory) per row, however many rows.
    huge = np.broadcast_to(np.zeros((1, 0), dtype=np.uint8), (2**40, 0))
    assert simdcrypt.blake3_many(huge, length=0) == b""
    # Too many digests to count in bytes.
    with pytest.raises(MemoryError, match="digests"):
        simdcrypt.blake3_many(huge, length=2**30)


class BytesSubclass(bytes):
    pass


class ListSubclass(list):  # type: ignore[type-arg]
    pass


def test_every_kind_of_element(backend: str, tmp_path: Path) -> None:
    sizes = [0, 5, 64, 100, 1024, 3000]
    payloads = [bytes((i * 7 + j) % 256 for j in range(n)) for i, n in enumerate(sizes)]
    path = tmp_path / "mapped.bin"
    path.write_bytes(payloads[4])
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        elements: list[Any] = [
            bytearray(payloads[0]),
            memoryview(payloads[1]),
            array.array("B", payloads[2]),
            np.frombuffer(payloads[3], dtype=np.uint8),
            mapped,
            BytesSubclass(payloads[5]),
            memoryview(b"xx" + payloads[3] + b"yy")[2:-2],
            memoryview(bytearray(payloads[2])).toreadonly(),
        ]
        raw = [bytes(e) for e in elements]
        expected = b"".join(official_digests(raw))
        assert many(elements, backend) == expected
        assert many(tuple(elements), backend) == expected
        assert many(OtherSequence(elements), backend) == expected
        assert many(ListSubclass(elements), backend) == expected
    assert mapped.closed  # the export was released: the map could close


def test_wide_items_and_multidimensional_elements_hash_raw_bytes(backend: str) -> None:
    words = array.array("I", range(100))
    doubles = memoryview(array.array("d", [0.5] * 10))
    grid = np.arange(60, dtype=np.uint16).reshape(3, 20)
    scalar = np.array(200, dtype=np.uint8)
    elements: list[Any] = [words, doubles, grid, scalar]
    expected = official_digests([words.tobytes(), doubles.tobytes(), grid.tobytes(), b"\xc8"])
    assert split(many(elements, backend), 32) == expected


# --- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "type_name"),
    [
        ("abc", "str"),
        (123, "int"),
        (None, "NoneType"),
        ([b"x"], "list"),
        (1.5, "float"),
        (object(), "object"),
    ],
)
def test_element_without_buffer_protocol(bad: Any, type_name: str) -> None:
    messages = [b"a", b"b", bytearray(b"c"), bad, b"e"]
    with pytest.raises(TypeError, match=rf"^messages\[3\] must be a bytes-like object, not {type_name}$"):
        simdcrypt.blake3_many(messages)
    with pytest.raises(TypeError, match=r"messages\[0\]"):
        simdcrypt.blake3_many((bad,))


NON_CONTIGUOUS: dict[str, Any] = {
    "memoryview_step": memoryview(bytes(range(100)))[::2],
    "memoryview_negative_step": memoryview(bytes(range(100)))[::-1],
    "numpy_step": np.arange(100, dtype=np.uint8)[::2],
    "numpy_column_slice": np.zeros((10, 10), dtype=np.uint8)[:, :5],
    "numpy_fortran": np.asfortranarray(np.zeros((10, 10), dtype=np.uint8)),
}


@pytest.mark.parametrize("kind", list(NON_CONTIGUOUS))
def test_non_contiguous_element(kind: str) -> None:
    with pytest.raises(BufferError, match=r"messages\[1\] is not C-contiguous"):
        simdcrypt.blake3_many([b"ok", NON_CONTIGUOUS[kind]])


NON_CONTIGUOUS_ROWS: dict[str, Any] = {
    "column_slice": np.zeros((10, 10), dtype=np.uint8)[:, :5],
    "row_step": np.zeros((10, 10), dtype=np.uint8)[::2],
    "reversed_rows": np.arange(100, dtype=np.uint8).reshape(10, 10)[::-1],
    "fortran": np.asfortranarray(np.arange(100, dtype=np.uint8).reshape(10, 10)),
    "transpose": np.arange(100, dtype=np.uint8).reshape(10, 10).T,
    "memoryview_strided": np.zeros((10, 10), dtype=np.uint8)[:, ::3].data,
}


@pytest.mark.parametrize("kind", list(NON_CONTIGUOUS_ROWS))
def test_non_contiguous_rows(kind: str) -> None:
    with pytest.raises(BufferError, match="not C-contiguous"):
        simdcrypt.blake3_many(NON_CONTIGUOUS_ROWS[kind])
    # A contiguous copy works.
    contiguous = np.ascontiguousarray(NON_CONTIGUOUS_ROWS[kind])
    assert simdcrypt.blake3_many(contiguous) == b"".join(official_digests([r.tobytes() for r in contiguous]))


@pytest.mark.parametrize(
    ("bad", "ndim"),
    [
        (b"abc", 1),
        (bytearray(b"abc"), 1),
        (memoryview(b"abc"), 1),
        (array.array("B", b"abc"), 1),
        (np.zeros(10, dtype=np.uint8), 1),
        (np.zeros((2, 3, 4), dtype=np.uint8), 3),
        (np.array(7, dtype=np.uint8), 0),
    ],
)
def test_buffer_of_wrong_dimension(bad: Any, ndim: int) -> None:
    with pytest.raises(ValueError, match=rf"must be 2-D.*got a {ndim}-D.*\[data\]"):
        simdcrypt.blake3_many(bad)


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.float64, np.int64])
def test_rows_of_wide_items(dtype: Any) -> None:
    itemsize = np.dtype(dtype).itemsize
    with pytest.raises(TypeError, match=rf"1-byte items.*got {itemsize}-byte items.*view"):
        simdcrypt.blake3_many(np.zeros((3, 4), dtype=dtype))


def _generator() -> Iterator[bytes]:
    yield b"a"
    yield b"b"


@pytest.mark.parametrize(
    "make",
    [
        _generator,
        lambda: iter([b"a", b"b"]),
        lambda: map(bytes, [b"a", b"b"]),
        lambda: {b"a", b"b"},
        lambda: {b"a": 1, b"b": 2},
        lambda: {b"a": 1, b"b": 2}.keys(),
    ],
    ids=["generator", "list_iterator", "map", "set", "dict", "dict_keys"],
)
def test_iterables_that_are_not_sequences_are_refused(make: Any) -> None:
    # Digests are positional (digest i is messages[i]'s), so the messages must have an
    # order and stay available: iterators and sets are refused, with the fix in the message.
    iterable = make()
    with pytest.raises(TypeError, match=r"sequence of bytes-like objects.*list\(messages\)"):
        simdcrypt.blake3_many(iterable)
    # Nothing was consumed.
    assert sorted(iterable) == [b"a", b"b"]
    items = list(make())
    assert simdcrypt.blake3_many(items) == b"".join(official_digests(items))


@pytest.mark.parametrize("bad", ["abc", "", 5, None, 1.5, object()])
def test_messages_of_the_wrong_type(bad: Any) -> None:
    expected = rf"messages must be a sequence of bytes-like objects.*not {type(bad).__name__}"
    with pytest.raises(TypeError, match=expected):
        simdcrypt.blake3_many(bad)


def test_sequence_claiming_a_huge_length() -> None:
    # range() is a Sequence whose length costs no memory: nothing is sized by it.
    with pytest.raises(TypeError, match=r"^messages\[0\] must be a bytes-like object, not int$"):
        simdcrypt.blake3_many(range(10**15))  # type: ignore[arg-type]

    class Claims(OtherSequence):
        def __len__(self) -> int:
            return 2**62

    claims = Claims([b"a", b"bc"])
    assert simdcrypt.blake3_many(claims) == b"".join(official_digests([b"a", b"bc"]))


def test_failing_sequence_propagates_its_error() -> None:
    class Broken(collections.abc.Sequence):  # type: ignore[type-arg]
        def __len__(self) -> int:
            return 3

        def __getitem__(self, i: Any) -> Any:
            if i == 1:
                raise KeyError("boom")
            if i >= 3:
                raise IndexError(i)
            return b"x"

    with pytest.raises(KeyError, match="boom"):
        simdcrypt.blake3_many(Broken())

    class BadLength(OtherSequence):
        def __len__(self) -> int:
            raise RuntimeError("no length")

    with pytest.raises(RuntimeError, match="no length"):
        simdcrypt.blake3_many(BadLength([b"a"]))


@pytest.mark.parametrize("length", [0, 1, 16, 31, 33, 64])
def test_key_of_wrong_length(length: int) -> None:
    with pytest.raises(ValueError, match=rf"key.*\b32\b.*\b{length}\b"):
        simdcrypt.blake3_many([b"a"], key=b"k" * length)


def test_mode_argument_errors() -> None:
    with pytest.raises(ValueError, match="derive_key_context"):
        simdcrypt.blake3_many([b"a"], key=bytes(32), derive_key_context="ctx")
    with pytest.raises(TypeError):
        simdcrypt.blake3_many([b"a"], key="k" * 32)  # type: ignore[arg-type]
    with pytest.raises(BufferError):
        simdcrypt.blake3_many([b"a"], key=memoryview(bytes(64))[::2])
    with pytest.raises(TypeError):
        simdcrypt.blake3_many([b"a"], derive_key_context=b"ctx")  # type: ignore[arg-type]
    # Key as any buffer, context as any str (empty included).
    assert simdcrypt.blake3_many([b"a"], key=bytearray(32)) == official.blake3(b"a", key=bytes(32)).digest()
    assert simdcrypt.blake3_many([b"a"], derive_key_context="") == (
        official.blake3(b"a", derive_key_context="").digest()
    )


@pytest.mark.parametrize("bad", [0, -2, -100, -(2**70)])
def test_bad_max_threads(bad: int) -> None:
    with pytest.raises((ValueError, OverflowError)):
        simdcrypt.blake3_many([b"a"], max_threads=bad)
    with pytest.raises(TypeError):
        simdcrypt.blake3_many([b"a"], max_threads=1.0)  # type: ignore[arg-type]


def test_max_threads_zero_message() -> None:
    with pytest.raises(ValueError, match="max_threads"):
        simdcrypt.blake3_many([b"a"], max_threads=0)


@pytest.mark.parametrize("bad", ["neon", "", "avx3", "portable2", " "])
def test_bad_backend_lists_supported(bad: str) -> None:
    if bad in SUPPORTED_BACKENDS:
        pytest.skip(f"{bad} is supported here")
    with pytest.raises(ValueError) as info:
        simdcrypt.blake3_many([b"a"], backend=bad)
    for name in SUPPORTED_BACKENDS:
        assert name in str(info.value)
    with pytest.raises(TypeError):
        simdcrypt.blake3_many([b"a"], backend=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("length", "error", "message"),
    [
        (-1, ValueError, "length must be non-negative"),
        (-(2**200), ValueError, "length must be non-negative"),
        (2**64 + 1, ValueError, r"2\*\*64"),
        (2**200, ValueError, r"2\*\*64"),
        (2**62, MemoryError, None),  # Python's allocator refuses; no abort
    ],
)
def test_bad_length(length: int, error: type[Exception], message: Optional[str]) -> None:
    with pytest.raises(error, match=message):
        simdcrypt.blake3_many([b"a"], length=length)


def test_too_much_output_is_a_memory_error() -> None:
    # One digest past the machine's memory is refused before the batch is sized.
    with pytest.raises(MemoryError, match="cannot make a digest of 4611686018427387904 bytes"):
        simdcrypt.blake3_many([b"a"] * 4, length=2**62)


def test_argument_kinds() -> None:
    with pytest.raises(TypeError):
        simdcrypt.blake3_many(messages=[b"a"])  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        simdcrypt.blake3_many([b"a"], 32)  # type: ignore[misc]
    with pytest.raises(TypeError):
        simdcrypt.blake3_many([b"a"], length=32.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        simdcrypt.blake3_many([b"a"], bogus=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        simdcrypt.blake3_many()  # type: ignore[call-arg]

    class Index:
        def __index__(self) -> int:
            return 40

    forty = simdcrypt.blake3_many([b"a"], length=Index())  # type: ignore[arg-type]
    assert forty == official.blake3(b"a").digest(40)


# --- buffers are pinned while hashed, and released after --------------------------------


def test_exports_are_released_after_success_and_errors() -> None:
    data = bytearray(b"abc" * 1000)
    simdcrypt.blake3_many([data, data])
    data.extend(b"more")  # no BufferError: the exports were released
    with pytest.raises(TypeError):
        simdcrypt.blake3_many([data, "not bytes"])  # type: ignore[list-item]
    data.extend(b"more")
    with pytest.raises(BufferError):
        simdcrypt.blake3_many([data, memoryview(b"abcd")[::2]])
    data.extend(b"more")
    rows = bytearray(64 * 10)
    grid = np.frombuffer(rows, dtype=np.uint8).reshape(10, 64)
    simdcrypt.blake3_many(grid)
    del grid
    rows.extend(b"more")


def test_large_batch_releases_the_gil() -> None:
    record_backend("portable")
    messages = [bytearray(64 * 1024)] * 1024  # 64 MiB, hashed by the slowest backend
    assert releases_gil(lambda: simdcrypt.blake3_many(messages, backend="portable"))
    short = [b"\x01" * 64] * (1 << 19)  # 32 MiB of 64-byte messages
    assert releases_gil(lambda: simdcrypt.blake3_many(short, backend="portable"))


def test_bytearray_is_pinned_while_hashed() -> None:
    # While another thread hashes the batch without the GIL, resizing one of its messages
    # fails with BufferError (the export is held) instead of freeing memory being read.
    record_backend("portable")
    data = bytearray(b"\x5a" * (32 << 20))
    original = bytes(data)
    messages: list[Any] = [b"first", data, b"last"]
    refused, digests = resize_while(data, lambda: simdcrypt.blake3_many(messages, backend="portable"))
    assert refused > 0
    assert isinstance(digests, bytes)
    first, middle, last = split(digests, 32)
    assert first == official.blake3(b"first").digest() and last == official.blake3(b"last").digest()
    # If the export began between an append and its undo, the extra byte was hashed.
    assert middle in {official.blake3(original).digest(), official.blake3(original + b"\0").digest()}
