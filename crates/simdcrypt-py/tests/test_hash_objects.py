"""What every hash class shares (one implementation, src/hash_class.rs): the hashlib
attributes, update() with and without the GIL, copy(), repr(), the backend property, and
one parser of ``backend=`` for every class and function."""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np
import pytest

import simdcrypt
from conftest import HASH_CLASSES

KEY = bytes(range(32))

# (constructor of an empty object, algorithm in backends(), name, digest_size, block_size)
CLASSES: list[tuple[Callable[..., Any], str, str, int, int]] = [
    (simdcrypt.blake3, "blake3", "blake3", 32, 64),
    (simdcrypt.sha256, "sha256", "sha256", 32, 64),
    (simdcrypt.streebog256, "streebog", "streebog256", 32, 64),
    (simdcrypt.streebog512, "streebog", "streebog512", 64, 64),
    (lambda *a, **k: simdcrypt.hmac_streebog256(b"key", *a, **k), "streebog", "hmac-streebog256", 32, 64),
    (lambda *a, **k: simdcrypt.hmac_streebog512(b"key", *a, **k), "streebog", "hmac-streebog512", 64, 64),
    (simdcrypt.gost94, "gost94", "gost94", 32, 32),
    (lambda *a, **k: simdcrypt.gost94(*a, sbox="test", **k), "gost94", "gost94-test", 32, 32),
    (lambda *a, **k: simdcrypt.highwayhash64(*a, key=KEY, **k), "highwayhash", "highwayhash64", 8, 32),
    (lambda *a, **k: simdcrypt.highwayhash128(*a, key=KEY, **k), "highwayhash", "highwayhash128", 16, 32),
    (lambda *a, **k: simdcrypt.highwayhash256(*a, key=KEY, **k), "highwayhash", "highwayhash256", 32, 32),
]
IDS = [c[2] for c in CLASSES]


@pytest.mark.parametrize(("make", "algorithm", "name", "digest_size", "block_size"), CLASSES, ids=IDS)
def test_common_interface(
    make: Callable[..., Any], algorithm: str, name: str, digest_size: int, block_size: int
) -> None:
    h = make()
    assert (h.name, h.digest_size, h.block_size) == (name, digest_size, block_size)
    assert h.backend == simdcrypt.backends()[algorithm]["selected"]
    # 2048 bytes and more are hashed without the GIL: the same result either way, and the
    # constructor's data equals an update().
    data = bytes(range(256)) * 40
    pieces = make()
    for i in range(0, len(data), 100):
        pieces.update(data[i : i + 100])
    whole = make(data)
    assert whole.digest() == pieces.digest() and len(whole.digest()) == digest_size
    assert whole.hexdigest() == whole.digest().hex()
    # copy() is independent of the original.
    c = whole.copy()
    assert type(c) is type(whole) and c.digest() == whole.digest()
    c.update(b"more")
    assert c.digest() != whole.digest()
    assert whole.digest() == pieces.digest()
    # Any C-contiguous buffer.
    assert make(np.frombuffer(data, dtype=np.uint8)).digest() == whole.digest()
    assert make(memoryview(bytearray(data))).digest() == whole.digest()


@pytest.mark.parametrize(("make", "algorithm", "name", "digest_size", "block_size"), CLASSES, ids=IDS)
def test_update_returns_what_it_documents(
    make: Callable[..., Any], algorithm: str, name: str, digest_size: int, block_size: int
) -> None:
    h = make()
    for data in (b"x", bytes(4096)):
        returned = h.update(data)
        # blake3 returns the object (as the blake3 package); the others None (hashlib).
        if name == "blake3":
            assert returned is h
        else:
            assert returned is None


@pytest.mark.parametrize(("make", "algorithm", "name", "digest_size", "block_size"), CLASSES, ids=IDS)
def test_repr(make: Callable[..., Any], algorithm: str, name: str, digest_size: int, block_size: int) -> None:
    h = make()
    cls = type(h).__name__
    text = repr(h)
    assert text.startswith(f"<simdcrypt.{cls} object at 0x"), text
    assert f"backend '{h.backend}'" in text
    assert (f"name '{name}'" in text) == (name != cls), text


def test_class_names_unchanged() -> None:
    for cls in (*HASH_CLASSES, simdcrypt.Salsa20, simdcrypt.XSalsa20):
        assert cls.__module__ == "simdcrypt"
        assert cls.__qualname__ == cls.__name__
        assert getattr(simdcrypt, cls.__name__) is cls


# --- backend= ------------------------------------------------------------------------

# Every entry point that takes backend=, as (algorithm in backends(), call with a backend).
ENTRY_POINTS: list[tuple[str, Callable[[str], Any]]] = [
    ("blake3", lambda b: simdcrypt.blake3(backend=b)),
    ("blake3", lambda b: simdcrypt.blake3_many([b"x"], backend=b)),
    ("sha256", lambda b: simdcrypt.sha256(backend=b)),
    ("sha256-batch", lambda b: simdcrypt.sha256_many(bytes(64), backend=b)),
    ("sha256-batch", lambda b: simdcrypt.merkle_root(bytes(64), backend=b)),
    ("sha256-batch", lambda b: simdcrypt.merkle_layers(bytes(64), backend=b)),
    ("streebog", lambda b: simdcrypt.streebog256(backend=b)),
    ("streebog", lambda b: simdcrypt.streebog512(backend=b)),
    ("streebog", lambda b: simdcrypt.hmac_streebog256(b"k", backend=b)),
    ("streebog", lambda b: simdcrypt.hmac_streebog512(b"k", backend=b)),
    ("streebog", lambda b: simdcrypt.streebog_many([b"x"], backend=b)),
    ("gost94", lambda b: simdcrypt.gost94(backend=b)),
    ("gost94", lambda b: simdcrypt.gost94_many([b"x"], backend=b)),
    ("highwayhash", lambda b: simdcrypt.highwayhash64(key=KEY, backend=b)),
    ("highwayhash", lambda b: simdcrypt.highwayhash128(key=KEY, backend=b)),
    ("highwayhash", lambda b: simdcrypt.highwayhash256(key=KEY, backend=b)),
    ("highwayhash", lambda b: simdcrypt.highwayhash_many([b"x"], key=KEY, backend=b)),
    ("salsa20", lambda b: simdcrypt.Salsa20(bytes(32), bytes(8), backend=b)),
    ("salsa20", lambda b: simdcrypt.XSalsa20(bytes(32), bytes(24), backend=b)),
    ("blake3", lambda b: simdcrypt.hash_file(__file__, backend=b)),
]


@pytest.mark.parametrize(("algorithm", "call"), ENTRY_POINTS)
def test_backend_argument(algorithm: str, call: Callable[[str], Any]) -> None:
    info = simdcrypt.backends()[algorithm]
    supported = info["supported"]
    listed = ", ".join(supported)
    for name in supported:
        call(name)
        call(name.upper())  # case-insensitive
    with pytest.raises(ValueError) as err:
        call("no-such-kernel")
    message = str(err.value)
    # Every backend name the algorithm has (on any architecture), then what this CPU runs.
    assert message.startswith(f'unknown {algorithm} backend "no-such-kernel"; {algorithm} backends: '), message
    assert message.endswith(f"; supported on this CPU: {listed}"), message
    # Names of other algorithms' kernels: unknown here, or known but beyond this CPU.
    others = {n for a in simdcrypt.backends().values() for n in a["supported"]}
    others |= {"neon", "armv8", "avx512", "avx2", "sse41", "sse2", "shani", "avx512-gfni"}
    for name in sorted(others - set(supported)):
        with pytest.raises(ValueError) as err:
            call(name)
        message = str(err.value)
        unknown = message.startswith(f'unknown {algorithm} backend "{name}"; {algorithm} backends: ')
        unsupported = message.startswith(f'{algorithm} backend "{name}" is not supported by this CPU (')
        assert unknown or unsupported, message
        assert message.endswith(f"supported on this CPU: {listed}" if unknown else f"supported: {listed}"), message


def test_backend_property_follows_the_argument() -> None:
    for make, algorithm, *_ in CLASSES:
        for name in simdcrypt.backends()[algorithm]["supported"]:
            assert make(backend=name).backend == name
            assert make(backend=name).copy().backend == name
    assert re.fullmatch(r"[a-z0-9+_-]+", simdcrypt.sha256().backend)
