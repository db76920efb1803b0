"""simdcrypt.hash_file: paths, lengths, options, and open()-style OSErrors."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

import blake3 as official
import pytest

import simdcrypt
from conftest import MODES, releases_gil, mode_kwargs, record_backend

SIZES = [0, 1, 1024, 1025, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7]


@pytest.mark.parametrize("mode", MODES)
def test_hash_file_matches(
    mode: str, backend: str, random_data: bytes, tmp_file: Callable[[bytes], Path]
) -> None:
    kwargs = mode_kwargs(mode)
    for n in SIZES:
        data = random_data[:n]
        path = tmp_file(data)
        ref = official.blake3(data, **kwargs)
        for threads in (1, simdcrypt.blake3.AUTO):
            got = simdcrypt.hash_file(path, backend=backend, max_threads=threads, **kwargs)
            assert got == ref.digest(), f"n={n}"
        assert simdcrypt.hash_file(path, length=64, backend=backend, **kwargs) == ref.digest(64)
    record_backend(backend)


def test_large_file_with_threads(
    backend: str, random_data: bytes, tmp_file: Callable[[bytes], Path]
) -> None:
    # About 24 MiB: large enough for the library to memory-map it when threads are allowed.
    data = random_data * 8
    path = tmp_file(data)
    expected = official.blake3(data).digest(64)
    for threads in (1, 2, simdcrypt.blake3.AUTO):
        assert simdcrypt.hash_file(path, length=64, max_threads=threads, backend=backend) == expected
    record_backend(backend)


def test_path_types(tmp_file: Callable[[bytes], Path]) -> None:
    path = tmp_file(b"abc")
    expected = official.blake3(b"abc").digest()
    assert simdcrypt.hash_file(path) == expected
    assert simdcrypt.hash_file(str(path)) == expected
    assert simdcrypt.hash_file(os.fsencode(path)) == expected

    class Custom:
        def __fspath__(self) -> str:
            return str(path)

    assert simdcrypt.hash_file(Custom()) == expected
    with pytest.raises(TypeError):
        simdcrypt.hash_file(123)  # type: ignore[arg-type]


def test_lengths(tmp_file: Callable[[bytes], Path]) -> None:
    path = tmp_file(b"abc")
    ref = official.blake3(b"abc")
    assert simdcrypt.hash_file(path, length=64) == ref.digest(64)
    assert simdcrypt.hash_file(path, length=0) == b""
    assert simdcrypt.hash_file(path, length=100_000) == ref.digest(100_000)
    assert simdcrypt.hash_file(path, "blake3", length=None) == ref.digest()
    with pytest.raises(ValueError, match="non-negative"):
        simdcrypt.hash_file(path, length=-1)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        simdcrypt.hash_file(path, length=2**64 + 1)
    with pytest.raises(MemoryError):
        simdcrypt.hash_file(path, length=2**63)
    with pytest.raises(MemoryError):
        simdcrypt.hash_file(path, length=2**62)  # refused up front, never an abort


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "does-not-exist"
    with pytest.raises(FileNotFoundError) as info:
        simdcrypt.hash_file(missing)
    assert info.value.filename == str(missing)
    assert info.value.errno is not None and info.value.strerror
    # The same exception open() raises.
    with pytest.raises(FileNotFoundError) as from_open:
        open(missing, "rb")
    assert (info.value.errno, info.value.strerror, info.value.filename) == (
        from_open.value.errno,
        from_open.value.strerror,
        from_open.value.filename,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="Windows reports PermissionError")
def test_directory(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError) as info:
        simdcrypt.hash_file(tmp_path)
    assert info.value.filename == str(tmp_path)


@pytest.mark.skipif(
    sys.platform == "win32" or (hasattr(os, "geteuid") and os.geteuid() == 0),
    reason="needs POSIX permissions and a non-root user",
)
def test_permission_denied(tmp_file: Callable[[bytes], Path]) -> None:
    path = tmp_file(b"secret")
    path.chmod(0)
    with pytest.raises(PermissionError):
        simdcrypt.hash_file(path)


def test_unknown_algorithm(tmp_file: Callable[[bytes], Path]) -> None:
    path = tmp_file(b"abc")
    with pytest.raises(ValueError, match="blake3"):
        simdcrypt.hash_file(path, "md4")
    assert simdcrypt.hash_file(path, "BLAKE3") == official.blake3(b"abc").digest()


def test_options_are_checked_before_reading(tmp_path: Path) -> None:
    # A bad option is reported even for a missing file: nothing is opened first.
    with pytest.raises(ValueError):
        simdcrypt.hash_file(tmp_path / "missing", key=b"short")


def test_releases_the_gil(tmp_file: Callable[[bytes], Path], random_data: bytes) -> None:
    path = tmp_file(random_data * 8)  # 24 MiB, hashed by the slowest backend
    assert releases_gil(lambda: simdcrypt.hash_file(path, backend="portable"))
