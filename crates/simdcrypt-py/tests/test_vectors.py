"""The official BLAKE3 test vectors, in all three modes, on every supported backend."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import simdcrypt
from conftest import MODES, mode_kwargs, record_backend, vector_input


def test_vector_file_constants(vectors: dict[str, Any]) -> None:
    # conftest's constants are the ones the vectors were made with.
    assert vectors["key"].encode() == mode_kwargs("keyed_hash")["key"]
    assert vectors["context_string"] == mode_kwargs("derive_key")["derive_key_context"]
    assert len(vectors["cases"]) > 30


def _kwargs(vectors: dict[str, Any], mode: str) -> dict[str, Any]:
    return mode_kwargs(mode, key=vectors["key"].encode(), context=vectors["context_string"])


@pytest.mark.parametrize("mode", MODES)
def test_official_vectors(
    vectors: dict[str, Any], mode: str, make_hasher: Callable[..., simdcrypt.blake3]
) -> None:
    kwargs = _kwargs(vectors, mode)
    for case in vectors["cases"]:
        n = case["input_len"]
        expected = bytes.fromhex(case[mode])
        data = vector_input(n)
        h = make_hasher(data, **kwargs)
        context = f"input_len={n} mode={mode}"
        # The full extended output, and its first 32 bytes as the default digest.
        assert h.digest(len(expected)) == expected, context
        assert h.hexdigest(len(expected)) == expected.hex(), context
        assert h.digest() == expected[:32], context
        assert h.hexdigest() == expected[:32].hex(), context
        # Any window of the output stream, by seek.
        for seek in (1, 31, 32, 33, 63, 64, 65, len(expected) - 1):
            for length in sorted({1, 7, len(expected) - seek}):
                if seek + length > len(expected):
                    continue
                assert h.digest(length, seek=seek) == expected[seek : seek + length], (
                    f"{context} seek={seek} length={length}"
                )
        assert h.digest(0, seek=5) == b""
        # Incremental input (byte-at-a-time for short inputs) gives the same output.
        g = make_hasher(**kwargs)
        step = 1 if n <= 1025 else 1000
        for i in range(0, n, step):
            g.update(data[i : i + step])
        assert g.digest(len(expected)) == expected, context


@pytest.mark.parametrize("mode", MODES)
def test_official_vectors_hash_file(
    vectors: dict[str, Any],
    mode: str,
    backend: str,
    tmp_file: Callable[[bytes], Any],
) -> None:
    kwargs = _kwargs(vectors, mode)
    for case in vectors["cases"]:
        expected = bytes.fromhex(case[mode])
        path = tmp_file(vector_input(case["input_len"]))
        assert simdcrypt.hash_file(path, backend=backend, **kwargs) == expected[:32]
        got = simdcrypt.hash_file(str(path), "blake3", length=len(expected), backend=backend, **kwargs)
        assert got == expected, f"input_len={case['input_len']} mode={mode}"
    record_backend(backend)


@pytest.mark.parametrize("mode", MODES)
def test_official_vectors_via_new(vectors: dict[str, Any], mode: str, backend: str) -> None:
    kwargs = _kwargs(vectors, mode)
    for case in vectors["cases"]:
        expected = bytes.fromhex(case[mode])
        h = simdcrypt.new("blake3", vector_input(case["input_len"]), backend=backend, **kwargs)
        assert h.backend == backend
        assert h.digest(len(expected)) == expected
    record_backend(backend)
