"""The hashlib-style interface: attributes, arguments and their errors, copy/reset, new(),
algorithms_available, backends(), __version__, hashlib.file_digest."""

from __future__ import annotations

import hashlib
import io
import re
import sys
from typing import Any, Callable

import blake3 as official
import pytest

import simdcrypt
from conftest import SUPPORTED_BACKENDS

ABC = "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"


def test_attributes() -> None:
    h = simdcrypt.blake3()
    assert h.name == simdcrypt.blake3.name == "blake3"
    assert h.digest_size == simdcrypt.blake3.digest_size == 32
    assert h.block_size == simdcrypt.blake3.block_size == 64
    assert simdcrypt.blake3.key_size == 32
    assert simdcrypt.blake3.AUTO == -1
    assert h.backend == simdcrypt.backends()["blake3"]["selected"]
    assert type(h).__module__ == "simdcrypt"


def test_basic_digests() -> None:
    assert simdcrypt.blake3(b"abc").hexdigest() == ABC
    assert simdcrypt.blake3(b"abc").digest() == bytes.fromhex(ABC)
    with pytest.raises(TypeError):
        simdcrypt.blake3(data=b"abc")  # type: ignore[call-arg]  # positional-only, as in hashlib
    assert simdcrypt.blake3(None).digest() == simdcrypt.blake3().digest()  # type: ignore[arg-type]


def test_update_returns_self_and_chains() -> None:
    h = simdcrypt.blake3()
    assert h.update(b"a") is h
    assert h.update(b"b").update(b"c").hexdigest() == ABC
    # Digesting does not finalize: the object keeps accepting input.
    h.update(b"def")
    assert h.digest() == official.blake3(b"abcdef").digest()


def test_copy_is_independent(backend: str, make_hasher: Callable[..., simdcrypt.blake3]) -> None:
    h = make_hasher(b"x" * 5000, key=bytes(range(32)))
    c = h.copy()
    assert type(c) is simdcrypt.blake3
    assert c is not h and c.backend == backend
    assert c.digest(100) == h.digest(100)
    h.update(b"more")
    assert c.digest() == official.blake3(b"x" * 5000, key=bytes(range(32))).digest()
    c.update(b"other")
    assert h.digest() == official.blake3(b"x" * 5000 + b"more", key=bytes(range(32))).digest()
    assert c.digest() == official.blake3(b"x" * 5000 + b"other", key=bytes(range(32))).digest()


@pytest.mark.parametrize("mode_kwargs", [{}, {"key": b"k" * 32}, {"derive_key_context": "ctx"}])
def test_reset_keeps_mode_and_backend(
    mode_kwargs: dict[str, Any], backend: str, make_hasher: Callable[..., simdcrypt.blake3]
) -> None:
    h = make_hasher(b"y" * 70000, **mode_kwargs)
    assert h.reset() is None
    assert h.backend == backend
    assert h.digest() == official.blake3(**mode_kwargs).digest()
    h.update(b"abc")
    assert h.digest() == official.blake3(b"abc", **mode_kwargs).digest()


def test_usedforsecurity_is_accepted() -> None:
    assert simdcrypt.blake3(b"abc", usedforsecurity=False).hexdigest() == ABC
    assert simdcrypt.new("blake3", b"abc", usedforsecurity=False).hexdigest() == ABC


# --- key / derive_key_context -------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 16, 31, 33, 64])
def test_key_of_wrong_length(length: int) -> None:
    with pytest.raises(ValueError, match=rf"\b32\b.*\b{length}\b"):
        simdcrypt.blake3(key=b"k" * length)
    with pytest.raises(ValueError, match=rf"\b32\b.*\b{length}\b"):
        simdcrypt.hash_file(__file__, key=b"k" * length)


def test_key_and_context_are_exclusive() -> None:
    with pytest.raises(ValueError, match="derive_key_context"):
        simdcrypt.blake3(key=bytes(32), derive_key_context="ctx")


def test_context_must_be_str() -> None:
    with pytest.raises(TypeError):
        simdcrypt.blake3(derive_key_context=b"ctx")  # type: ignore[arg-type]
    assert simdcrypt.blake3(b"km", derive_key_context="").digest() == (
        official.blake3(b"km", derive_key_context="").digest()
    )


# --- backend= -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["neon", "", "avx3", "portable2", " "])
def test_bad_backend_lists_supported(bad: str) -> None:
    with pytest.raises(ValueError) as info:
        simdcrypt.blake3(backend=bad)
    for name in SUPPORTED_BACKENDS:
        assert name in str(info.value)
    with pytest.raises(ValueError):
        simdcrypt.hash_file(__file__, backend=bad)


def test_unsupported_known_backend_lists_supported() -> None:
    known = {"portable", "sse41", "avx2", "avx512", "neon"}
    for name in sorted(known - set(SUPPORTED_BACKENDS)):
        with pytest.raises(ValueError) as info:
            simdcrypt.blake3(backend=name)
        for supported in SUPPORTED_BACKENDS:
            assert supported in str(info.value)


def test_backend_must_be_str() -> None:
    with pytest.raises(TypeError):
        simdcrypt.blake3(backend=1)  # type: ignore[arg-type]


def test_backend_names_are_case_insensitive(backend: str) -> None:
    h = simdcrypt.blake3(b"abc", backend=backend.upper())
    assert h.backend == backend and h.hexdigest() == ABC


# --- max_threads ----------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -2, -100, -(2**70)])
def test_bad_max_threads(bad: int) -> None:
    with pytest.raises((ValueError, OverflowError)):
        simdcrypt.blake3(max_threads=bad)
    with pytest.raises((ValueError, OverflowError)):
        simdcrypt.hash_file(__file__, max_threads=bad)


def test_max_threads_zero_message() -> None:
    with pytest.raises(ValueError, match="max_threads"):
        simdcrypt.blake3(max_threads=0)


@pytest.mark.parametrize("threads", [1, 2, 3, 64, simdcrypt.blake3.AUTO])
def test_good_max_threads(threads: int) -> None:
    data = bytes(range(256)) * 4096  # 1 MiB
    assert simdcrypt.blake3(data, max_threads=threads).digest() == official.blake3(data).digest()


def test_max_threads_type() -> None:
    with pytest.raises(TypeError):
        simdcrypt.blake3(max_threads=1.0)  # type: ignore[arg-type]


# --- digest(length, seek) -----------------------------------------------------------


def test_digest_lengths_and_seeks() -> None:
    h = simdcrypt.blake3(b"abc")
    ref = official.blake3(b"abc")
    for length in (0, 1, 31, 32, 33, 64, 65, 1000, 5000):
        assert h.digest(length) == ref.digest(length)
        assert h.hexdigest(length) == ref.hexdigest(length)
        for seek in (0, 1, 64, 10**6, 2**63):
            assert h.digest(length, seek=seek) == ref.digest(length, seek=seek)
    # A long output is produced with the GIL released and through bytes.hex().
    assert h.hexdigest(100_000, seek=3) == ref.hexdigest(100_000, seek=3)
    assert h.digest(length=16) == ref.digest(16)


def test_digest_at_the_end_of_the_stream() -> None:
    h = simdcrypt.blake3(b"abc")
    full_tail = h.digest(64, seek=2**64 - 64)
    assert len(full_tail) == 64
    assert h.digest(1, seek=2**64 - 1) == full_tail[-1:]
    assert h.digest(0, seek=2**64) == b""
    assert h.hexdigest(0, seek=2**64) == ""


@pytest.mark.parametrize(
    ("length", "seek", "message"),
    [
        (-1, 0, "length must be non-negative"),
        (32, -1, "seek must be non-negative"),
        (-(2**200), 0, "length must be non-negative"),
        (0, -(2**200), "seek must be non-negative"),
        (1, 2**64, "2\\*\\*64"),
        (65, 2**64 - 64, "2\\*\\*64"),
        (2**64 + 1, 0, "2\\*\\*64"),
        (2**200, 0, "2\\*\\*64"),
        (1, 2**200, "2\\*\\*64"),
    ],
)
def test_digest_range_errors(length: int, seek: int, message: str) -> None:
    h = simdcrypt.blake3(b"abc")
    with pytest.raises(ValueError, match=message):
        h.digest(length, seek=seek)
    with pytest.raises(ValueError, match=message):
        h.hexdigest(length, seek=seek)


def test_digest_too_large_to_allocate() -> None:
    h = simdcrypt.blake3()
    with pytest.raises(MemoryError):
        h.digest(2**63)
    with pytest.raises(MemoryError):
        h.digest(2**62)  # Python's allocator refuses; no abort
    with pytest.raises(MemoryError):
        h.hexdigest(2**62)
    assert h.digest() == official.blake3().digest()


def test_digest_argument_types() -> None:
    h = simdcrypt.blake3()
    with pytest.raises(TypeError):
        h.digest(32.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        h.digest("32")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        h.digest(32, 0)  # type: ignore[misc]  # seek is keyword-only

    class Index:
        def __index__(self) -> int:
            return 40

    assert h.digest(Index()) == official.blake3().digest(40)  # type: ignore[arg-type]
    assert h.digest(True) == official.blake3().digest(1)


# --- new(), algorithms_available, backends(), __version__ ------------------------------


# backends() reports kernel sets: one "streebog" for both sizes, one "gost94" for both
# parameter sets, one "highwayhash" for the three result sizes.
BACKEND_FAMILY = {
    "streebog256": "streebog",
    "streebog512": "streebog",
    "gost94-test": "gost94",
    "highwayhash64": "highwayhash",
    "highwayhash128": "highwayhash",
    "highwayhash256": "highwayhash",
}


def test_algorithms_available() -> None:
    assert isinstance(simdcrypt.algorithms_available, frozenset)
    assert "blake3" in simdcrypt.algorithms_available
    # Every algorithm of the native library has a constructor; backends() also lists the
    # kernels of sha256_many and the salsa20 cipher's, which are not algorithms of new(),
    # and the GPU backend of the batch functions (test_cuda.py).
    assert {BACKEND_FAMILY.get(n, n) for n in simdcrypt.algorithms_available} == set(simdcrypt.backends()) - {
        "sha256-batch",
        "salsa20",
        "cuda",
    }
    for name in simdcrypt.algorithms_available:
        h = simdcrypt.new(name, b"abc", **({"key": bytes(32)} if name.startswith("highwayhash") else {}))
        assert h.name == name
        assert isinstance(h.digest(), bytes)


def test_new() -> None:
    assert simdcrypt.new("blake3", b"abc").hexdigest() == ABC
    assert simdcrypt.new("BLAKE3", b"abc").hexdigest() == ABC
    assert simdcrypt.new("blake3").digest() == official.blake3().digest()
    assert simdcrypt.new("blake3", b"abc", key=bytes(32)).digest() == (
        official.blake3(b"abc", key=bytes(32)).digest()
    )
    assert simdcrypt.new("blake3", data=b"abc").hexdigest() == ABC
    assert type(simdcrypt.new("blake3")) is simdcrypt.blake3
    with pytest.raises(ValueError) as info:
        simdcrypt.new("sha999")
    for name in simdcrypt.algorithms_available:
        assert name in str(info.value)
    with pytest.raises(TypeError):
        simdcrypt.new(b"blake3")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        simdcrypt.new("blake3", bogus=1)


def test_backends_shape() -> None:
    info = simdcrypt.backends()
    families = {BACKEND_FAMILY.get(n, n) for n in simdcrypt.algorithms_available}
    assert isinstance(info, dict) and set(info) == families | {"sha256-batch", "salsa20", "cuda"}
    # The CPU kernel sets; the "cuda" entry has its own shape (test_cuda.py).
    del info["cuda"]
    for name, entry in info.items():
        assert set(entry) == {"selected", "supported"}
        assert isinstance(entry["selected"], str)
        assert isinstance(entry["supported"], list) and entry["supported"]
        assert all(isinstance(b, str) for b in entry["supported"])
        assert entry["selected"] == entry["supported"][0]
        assert "portable" in entry["supported"]
        assert len(set(entry["supported"])) == len(entry["supported"])
    # A fresh dict each call: mutating it changes nothing.
    info["blake3"]["supported"].clear()
    assert simdcrypt.backends()["blake3"]["supported"] == SUPPORTED_BACKENDS


def test_version() -> None:
    assert isinstance(simdcrypt.__version__, str)
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)*", simdcrypt.__version__)
    if sys.version_info >= (3, 10):
        from importlib.metadata import version

        assert version("simdcrypt") == simdcrypt.__version__


def test_all() -> None:
    assert sorted(simdcrypt.__all__) == sorted(
        [
            "AuthenticationError",
            "BaoReader",
            "BaoScrubReport",
            "TreeHash",
            "EncryptedReader",
            "EncryptedWriter",
            "decrypt_file",
            "encrypt_file",
            "open_encrypted",
            "Salsa20",
            "XSalsa20",
            "secretbox_open",
            "secretbox_seal",
            "__version__",
            "algorithms_available",
            "backends",
            "bao_decode",
            "bao_decode_slice",
            "bao_encode",
            "bao_scrub",
            "bao_slice",
            "blake3",
            "blake3_digest",
            "blake3_many",
            "blake3_merge",
            "blake3_subtree",
            "gost94",
            "gost94_many",
            "hash_file",
            "hash_tree",
            "hmac_streebog256",
            "hmac_streebog512",
            "highwayhash64",
            "highwayhash128",
            "highwayhash256",
            "highwayhash_many",
            "merkle_layers",
            "merkle_root",
            "new",
            "sha256",
            "sha256_many",
            "streebog256",
            "streebog512",
            "streebog_many",
        ]
    )
    for name in simdcrypt.__all__:
        assert hasattr(simdcrypt, name)


def test_not_subclassable_or_mutable() -> None:
    with pytest.raises(TypeError):
        type("Sub", (simdcrypt.blake3,), {})
    h = simdcrypt.blake3()
    with pytest.raises(AttributeError):
        h.name = "x"  # type: ignore[misc]


# --- hashlib interoperability ---------------------------------------------------------


@pytest.mark.skipif(sys.version_info < (3, 11), reason="hashlib.file_digest is new in 3.11")
def test_hashlib_file_digest(tmp_path: Any) -> None:
    data = bytes(range(256)) * 1000
    expected = official.blake3(data).digest()
    assert hashlib.file_digest(io.BytesIO(data), simdcrypt.blake3).digest() == expected
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    with open(path, "rb") as f:
        assert hashlib.file_digest(f, simdcrypt.blake3).digest() == expected
    with open(path, "rb") as f:
        keyed = hashlib.file_digest(f, lambda: simdcrypt.blake3(key=bytes(32)))
        assert keyed.digest() == official.blake3(data, key=bytes(32)).digest()
