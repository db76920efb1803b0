"""simdcrypt: fast, verified cryptographic primitives with SIMD kernels chosen at run time.

The hash objects follow hashlib's interface::

    >>> import simdcrypt
    >>> simdcrypt.blake3(b"abc").hexdigest()
    '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85'
    >>> simdcrypt.new("blake3", b"abc").digest(8, seek=0).hex()
    '6437b3ac38465133'
    >>> simdcrypt.sha256(b"abc").hexdigest()
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'

``simdcrypt.hash_file(path)`` hashes a file without holding the GIL, and
``simdcrypt.backends()`` says which kernels this CPU can run (any of them may be
forced with ``backend=``; every backend gives the same result).
``simdcrypt.algorithms_available`` holds the names ``new()`` accepts, and
``simdcrypt.__version__`` the package's version.

BLAKE3 also has functions for many messages and for inputs hashed in pieces::

    >>> digests = simdcrypt.blake3_many([b"abc", b"xyz"])  # 2 x 32 bytes, SIMD across messages
    >>> digests[:32] == simdcrypt.blake3(b"abc").digest()
    True
    >>> data = bytes(5000)
    >>> left = simdcrypt.blake3_subtree(data[:4096], offset=0)
    >>> right = simdcrypt.blake3_subtree(data[4096:], offset=4096)
    >>> simdcrypt.blake3_merge(left, right, root=True) == simdcrypt.blake3(data).digest()
    True

SHA-256 has hashtree-style batches: each 64-byte block hashed as a whole message::

    >>> simdcrypt.sha256_many(bytes(128))[32:] == simdcrypt.sha256(bytes(64)).digest()
    True

and SSZ-style Merkle roots of 32-byte leaves built with them (zero-hash padding)::

    >>> leaves = bytes(range(64))
    >>> simdcrypt.merkle_root(leaves) == simdcrypt.sha256(leaves).digest()
    True
    >>> len(simdcrypt.merkle_layers(leaves, depth=3))  # leaves, 3 layers up to the root
    4

The Russian standards: Streebog (GOST R 34.11-2012), HMAC-Streebog (RFC 7836) and
GOST R 34.11-94, digests in the byte order of OpenSSL, RHash and Nettle (the standards
print them reversed)::

    >>> simdcrypt.streebog256(b"abc").hexdigest()[:16]
    '4e2919cf137ed41e'
    >>> simdcrypt.gost94(b"abc", sbox="test").hexdigest()[:16]
    'f3134348c44fb1b2'
    >>> len(simdcrypt.hmac_streebog512(b"key", b"data").digest())
    64
    >>> simdcrypt.streebog_many([b"abc", b"x"], bits=256)[:32] == simdcrypt.streebog256(b"abc").digest()
    True

Salsa20/20 (/12, /8) and XSalsa20 stream ciphers with seek, and NaCl's secretbox::

    >>> c = simdcrypt.Salsa20(bytes(32), bytes(8))
    >>> ct = c.encrypt(b"attack at dawn")
    >>> simdcrypt.Salsa20(bytes(32), bytes(8)).decrypt(ct)
    b'attack at dawn'
    >>> boxed = simdcrypt.secretbox_seal(bytes(32), bytes(24), b"hi")
    >>> simdcrypt.secretbox_open(bytes(32), bytes(24), boxed)
    b'hi'

Files in the format of ``simdcrypt encrypt`` (a 32-byte key or a passphrase; chunks
authenticated before any byte is returned; random access when reading)::

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> with simdcrypt.open_encrypted(os.path.join(d, "f.enc"), "wb", key=bytes(32)) as f:
    ...     f.write(b"hello world")
    11
    >>> with simdcrypt.open_encrypted(os.path.join(d, "f.enc"), key=bytes(32)) as f:
    ...     _ = f.seek(6)
    ...     f.read()
    b'world'

``encrypt_file(src, dst, key=... or passphrase=...)`` and ``decrypt_file`` do whole
files (on several threads with ``max_threads``); files appear whole or not at all.

HighwayHash (64, 128 or 256 bits, a 32-byte key) with checkpoints and batches::

    >>> key = bytes(range(32))
    >>> simdcrypt.highwayhash64(b"", key=key).hexdigest()  # each u64 little-endian
    '536ec222de567a90'
    >>> h = simdcrypt.highwayhash256(b"part one", key=key)
    >>> resumed = simdcrypt.highwayhash256.restore(h.export(), key=key)
    >>> resumed.digest() == h.digest()
    True
    >>> simdcrypt.highwayhash_many([b"", b"x"], key=key)[:8].hex()
    '536ec222de567a90'

Bao verified streaming over BLAKE3's tree (the ``bao`` crate's formats)::

    >>> data = bytes(range(256)) * 40
    >>> root, encoded = simdcrypt.bao_encode(data)
    >>> simdcrypt.bao_decode(root, encoded) == data
    True
    >>> proof = simdcrypt.bao_slice(encoded, 5000, 100)
    >>> simdcrypt.bao_decode_slice(root, proof, 5000, 100) == data[5000:5100]
    True
"""

from __future__ import annotations

# Private names only: `dir(simdcrypt)` lists the API (``__all__``) and nothing else.
import typing as _typing
import io as _io

# The native module's API: every class and function it registers (its ``__all__``), the
# hash classes included, so that a new class needs no line here. ALGORITHMS stays private:
# the names ``new()`` takes are ``algorithms_available``.
from . import _native
from ._native import *  # noqa: F403
from ._native import _HASH_CLASSES
from ._chunking import Chunks as Chunks
from ._chunking import chunks as chunks

del ALGORITHMS  # noqa: F821 (bound by the star import)

if _typing.TYPE_CHECKING:
    from typing import Any, Callable, Literal

    from typing_extensions import Buffer

    from ._native import _AnyHash as _Hash

# Readers and writers of encrypted files are binary file objects.
_io.BufferedIOBase.register(EncryptedReader)
_io.BufferedIOBase.register(EncryptedWriter)

# The API: the native module's public names and what this file adds. tests/test_api.py pins
# the list, so no name joins or leaves it unnoticed.
__all__ = sorted(
    {name for name in _native.__all__ if not name.startswith("_")} - {"ALGORITHMS"}
    | {"__version__", "algorithms_available", "new", "Chunks", "chunks"}
)


def _gost94_test(data: Buffer = b"", **kwargs: Any) -> gost94:
    return gost94(data, sbox="test", **kwargs)


# One constructor per algorithm of the native library: its class (registered by name in
# _HASH_CLASSES), and GOST R 34.11-94's test parameters as gost94's option. A name without
# one is left out of algorithms_available (and the test suite flags it).
_CONSTRUCTORS: dict[str, Callable[..., object]] = {**_HASH_CLASSES, "gost94-test": _gost94_test}

algorithms_available: frozenset[str] = frozenset(
    name for name in _native.ALGORITHMS if name in _CONSTRUCTORS
)
"""The names ``new()`` and ``hash_file()`` accept. (``backends()`` also lists
``"sha256-batch"``, the kernels of ``sha256_many``, ``merkle_root`` and
``merkle_layers``; ``"gear"``, the Gear-scan kernels of ``chunks`` and ``xet_hash``; ``"highwayhash"``, ``"streebog"`` and ``"gost94"``, each the kernels of
all sizes or parameter sets of one algorithm; and ``"salsa20"``, the kernels of the
``Salsa20``/``XSalsa20`` ciphers.)"""


@_typing.overload
def new(name: Literal["blake3"], data: Buffer = b"", **kwargs: Any) -> blake3: ...
@_typing.overload
def new(name: Literal["sha256"], data: Buffer = b"", **kwargs: Any) -> sha256: ...
@_typing.overload
def new(name: Literal["highwayhash64"], data: Buffer = b"", **kwargs: Any) -> highwayhash64: ...
@_typing.overload
def new(name: Literal["highwayhash128"], data: Buffer = b"", **kwargs: Any) -> highwayhash128: ...
@_typing.overload
def new(name: Literal["highwayhash256"], data: Buffer = b"", **kwargs: Any) -> highwayhash256: ...
@_typing.overload
def new(name: Literal["streebog256"], data: Buffer = b"", **kwargs: Any) -> streebog256: ...
@_typing.overload
def new(name: Literal["streebog512"], data: Buffer = b"", **kwargs: Any) -> streebog512: ...
@_typing.overload
def new(name: Literal["gost94", "gost94-test"], data: Buffer = b"", **kwargs: Any) -> gost94: ...
@_typing.overload
def new(name: str, data: Buffer = b"", **kwargs: Any) -> _Hash: ...


def new(name: str, data: Buffer = b"", **kwargs: Any) -> _Hash:
    """A new hash object for the algorithm ``name`` (case-insensitive), like ``hashlib.new``.

    ``data`` is hashed first; ``kwargs`` go to the algorithm's constructor (for BLAKE3:
    key, derive_key_context, max_threads, usedforsecurity, backend; for SHA-256:
    usedforsecurity, backend; for HighwayHash: key (required), backend; for Streebog: backend; ``"gost94"`` is GOST R 34.11-94 with
    the CryptoPro parameters, ``"gost94-test"`` with the test parameters).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be str, not {type(name).__name__}")
    constructor = _CONSTRUCTORS.get(name.lower())
    if constructor is None or name.lower() not in algorithms_available:
        available = ", ".join(sorted(algorithms_available))
        raise ValueError(f"unsupported hash type {name!r}; available: {available}")
    # Every name in algorithms_available is an algorithm of the library, whose class is one
    # of _Hash (the HMAC classes in _HASH_CLASSES are no algorithms).
    return _typing.cast("_Hash", constructor(data, **kwargs))


# `from __future__ import annotations` binds the name `annotations`; it is no API.
del annotations
