"""The one conversion of batch inputs (src/messages.rs), through every ``*_many``
function: a list, a tuple or another sequence of bytes, bytearray, memoryview or numpy
rows gives exactly what the 2-D numpy array of the same messages gives, at the edge
counts. (Timings are in BENCHMARKS.md, not here.)"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np
import pytest

import simdcrypt
from conftest import OtherSequence

KEY = bytes(range(32))
COUNTS = [0, 1, 15, 16, 17, 100_000]
WIDTH = 64

MANY: list[tuple[str, Callable[[Any], bytes]]] = [
    ("blake3", lambda m: simdcrypt.blake3_many(m)),
    ("blake3-len7-keyed", lambda m: simdcrypt.blake3_many(m, length=7, key=KEY)),
    ("streebog256", lambda m: simdcrypt.streebog_many(m, bits=256)),
    ("streebog512", lambda m: simdcrypt.streebog_many(m, bits=512)),
    ("gost94", lambda m: simdcrypt.gost94_many(m)),
    ("highwayhash64", lambda m: simdcrypt.highwayhash_many(m, key=KEY, bits=64)),
    ("highwayhash256", lambda m: simdcrypt.highwayhash_many(m, key=KEY, bits=256)),
]

ITEM_TYPES: dict[str, Callable[[np.ndarray[Any, Any]], list[Any]]] = {
    "bytes": lambda a: [bytes(row) for row in a],
    "bytearray": lambda a: [bytearray(row.tobytes()) for row in a],
    "memoryview": lambda a: [memoryview(row.tobytes()) for row in a],
    "numpy-rows": lambda a: list(a),
    "mixed": lambda a: [
        (bytes, bytearray, lambda b: memoryview(b), lambda b: np.frombuffer(b, dtype=np.uint8))[i % 4](
            row.tobytes()
        )
        for i, row in enumerate(a)
    ],
}


def _array(count: int) -> np.ndarray[Any, Any]:
    return np.random.default_rng(count).integers(0, 256, size=(count, WIDTH), dtype=np.uint8)


@pytest.fixture(scope="module")
def arrays() -> dict[int, np.ndarray[Any, Any]]:
    return {n: _array(n) for n in COUNTS}


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize(("name", "many"), MANY, ids=[m[0] for m in MANY])
def test_list_equals_numpy(
    arrays: dict[int, np.ndarray[Any, Any]], name: str, many: Callable[[Any], bytes], count: int
) -> None:
    arr = arrays[count]
    expected = many(arr)
    # The reference: the 2-D array's rows, one at a time (not the batch code path).
    if count <= 17:
        assert expected == b"".join(many(arr[i : i + 1]) for i in range(count))
    if count <= 17:
        kinds = ITEM_TYPES
    elif name == "blake3":
        kinds = {k: ITEM_TYPES[k] for k in ("bytes", "numpy-rows", "mixed")}
    else:
        kinds = {"bytes": ITEM_TYPES["bytes"]}
    for kind, convert in kinds.items():
        items = convert(arr)
        assert many(items) == expected, kind
        if kind in ("bytes", "mixed"):
            assert many(tuple(items)) == expected, kind
            assert many(OtherSequence(items)) == expected, kind


def test_lengths_may_differ() -> None:
    messages = [bytes(range(n % 256)) * (1 + n // 256) for n in range(300)]
    expected = b"".join(simdcrypt.blake3(m).digest() for m in messages)
    assert simdcrypt.blake3_many(messages) == expected
    assert simdcrypt.blake3_many(tuple(messages)) == expected
    assert simdcrypt.blake3_many([bytearray(m) for m in messages]) == expected


def test_batches_of_decreasing_and_increasing_size() -> None:
    # Each thread keeps its vectors between calls: a small batch after a large one (and
    # the reverse) must not see the earlier messages.
    big = [bytes([i % 256]) * 40 for i in range(5000)]
    for messages in (big, big[:3], [], big[:1], big, big[::7]):
        expected = b"".join(simdcrypt.blake3(m).digest() for m in messages)
        assert simdcrypt.blake3_many(messages) == expected
        assert simdcrypt.blake3_many(tuple(messages)) == expected


def test_threads_and_a_list_changed_while_hashing() -> None:
    messages = [bytes([i % 256]) * 200 for i in range(20_000)]
    expected = simdcrypt.blake3_many(messages)
    zeros = [bytes(10)] * len(messages)
    expected_zeros = simdcrypt.blake3_many(zeros)
    shared = list(messages)
    errors: list[BaseException] = []

    def hash_loop() -> None:
        try:
            for _ in range(10):
                # The list is read with the GIL held, so whole: one content or the other.
                assert simdcrypt.blake3_many(shared) in (expected, expected_zeros)
                assert simdcrypt.blake3_many(messages) == expected
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=hash_loop) for _ in range(3)]
    for t in threads:
        t.start()
    for _ in range(50):
        # Replacing the items drops the list's references; the hashing keeps its own.
        shared[:] = zeros
        shared[:] = messages
    for t in threads:
        t.join()
    assert not errors, errors
