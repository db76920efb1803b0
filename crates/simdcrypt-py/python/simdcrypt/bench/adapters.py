"""What the benchmark can time: one small adapter per (algorithm, implementation).

Each ``AlgorithmSpec`` names how simdcrypt computes the algorithm (``simdcrypt_builder``)
and which peers compute the same function (``PeerSpec``). A builder turns a backend and a
thread count into a plain function ``data -> bytes`` (the digest, the ciphertext, ...):
the runner calls it on the same input for every implementation, checks that the outputs
agree, and only then times it.

Availability is decided here and never silently: an algorithm whose function is missing
from the installed simdcrypt build is "not built", a peer whose package cannot be
imported is "missing" (with the pip package to install), and each such fact ends up in
the printed report and the JSON output.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

# A function under test: the input (a memoryview, or bytes for peers that need bytes)
# to the output that is compared across implementations.
Kernel = Callable[[Any], bytes]
# (module, backend or None, thread count) -> kernel.
SimdcryptBuilder = Callable[[ModuleType, "str | None", int], Kernel]
# (peer module, thread count) -> kernel.
PeerBuilder = Callable[[ModuleType, int], Kernel]

# Fixed keys and nonces: the benchmark inputs are public, and the known-answer checks
# below use the same keys. HighwayHash's golden values use the key 0x00..0x1f; the
# eSTREAM Salsa20 set 1 vector 0 uses the key 0x80 0x00.. and an all-zero nonce.
HIGHWAY_KEY = bytes(range(32))
SALSA_KEY = b"\x80" + bytes(31)
SALSA_NONCE = bytes(8)
SECRETBOX_KEY = bytes(range(100, 132))
SECRETBOX_NONCE = bytes(range(24))


def import_module(name: str) -> ModuleType:
    """Imports a peer package (one place, so that tests can simulate a missing peer)."""
    return importlib.import_module(name)


@dataclass(frozen=True)
class PeerSpec:
    """A peer implementation of an algorithm from another package."""

    name: str  # shown in tables: "hashlib", "blake3", "pycryptodome", ...
    module: str  # the module to import
    pip_name: str  # what to install when it is missing
    build: PeerBuilder
    threads: bool = False  # accepts a thread count
    needs_bytes: bool = False  # refuses memoryviews: gets a bytes copy (made untimed)
    # Extra memory per input byte while it runs (Python loops keep lists of objects).
    memory_factor: float = 0.0


@dataclass(frozen=True)
class AlgorithmSpec:
    """One benchmarked function and everything that computes it."""

    name: str
    title: str
    # Attributes the installed simdcrypt must have for the algorithm to count as built
    # (empty: a reference algorithm that simdcrypt does not implement, timed for comparison).
    simdcrypt_attrs: tuple[str, ...]
    simdcrypt_builder: SimdcryptBuilder | None
    # Candidate keys of simdcrypt.backends() for --backends (first present wins).
    backend_keys: tuple[str, ...] = ()
    simdcrypt_threads: bool = False
    simdcrypt_backend_arg: bool = True
    peers: tuple[PeerSpec, ...] = ()
    # Input lengths must be a multiple of this (64-byte blocks, 32-byte leaves).
    unit: int = 1
    # Output bytes per input byte (ciphers: 1), for the memory budget.
    output_factor: float = 0.0
    # Known answers (input, expected hex output), checked on every implementation before
    # anything is timed; they catch a wrong adapter even where no peer is installed.
    kats: tuple[tuple[bytes, str], ...] = ()
    note: str = ""
    # Plot its throughput against threads.
    scaling: bool = False


@dataclass(frozen=True)
class Implementation:
    """A ready-to-time implementation of one algorithm."""

    algorithm: str
    name: str  # "simdcrypt" or the peer's name
    backend: str | None  # simdcrypt's backend; None for peers
    is_simdcrypt: bool
    make: Callable[[int], Kernel]  # thread count -> kernel
    threads: bool
    needs_bytes: bool = False
    version: str = ""
    memory_factor: float = 0.0

    @property
    def label(self) -> str:
        if self.is_simdcrypt:
            return f"simdcrypt ({self.backend})" if self.backend else "simdcrypt"
        return self.name


@dataclass
class Availability:
    """What could and could not be set up for one algorithm."""

    spec: AlgorithmSpec
    implementations: list[Implementation] = field(default_factory=list)
    # (implementation name, reason): "not built", "missing: pip install ...", ...
    unavailable: list[tuple[str, str]] = field(default_factory=list)

    @property
    def simdcrypt_built(self) -> bool:
        return any(i.is_simdcrypt for i in self.implementations)


# --- simdcrypt builders (the Python API as the issues specify it) -------------------


def _kw(backend: str | None, threads: int | None = None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if backend is not None:
        kwargs["backend"] = backend
    if threads is not None:
        kwargs["max_threads"] = threads
    return kwargs


def _sc_blake3(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
    kwargs = _kw(backend, threads)
    return lambda data: sc.blake3(data, **kwargs).digest()


def _sc_sha256(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
    kwargs = _kw(backend)
    return lambda data: sc.sha256(data, **kwargs).digest()


def _sc_sha256_many(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
    kwargs = _kw(backend, threads)
    return lambda data: sc.sha256_many(data, **kwargs)


def _sc_merkle_root(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
    kwargs = _kw(backend, threads)
    return lambda data: sc.merkle_root(data, **kwargs)


def _sc_salsa20(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
    kwargs = _kw(backend, threads)
    return lambda data: sc.Salsa20(SALSA_KEY, SALSA_NONCE, **kwargs).encrypt(data)


def _sc_secretbox(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
    return lambda data: sc.secretbox_seal(SECRETBOX_KEY, SECRETBOX_NONCE, data)


def _sc_highway(bits: int) -> SimdcryptBuilder:
    def build(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
        constructor = getattr(sc, f"highwayhash{bits}")
        kwargs = _kw(backend)
        return lambda data: constructor(data, key=HIGHWAY_KEY, **kwargs).digest()

    return build


def _sc_streebog(bits: int) -> SimdcryptBuilder:
    def build(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
        constructor = getattr(sc, f"streebog{bits}")
        kwargs = _kw(backend)
        return lambda data: constructor(data, **kwargs).digest()

    return build


def _sc_gost94(sc: ModuleType, backend: str | None, threads: int) -> Kernel:
    kwargs = _kw(backend)
    return lambda data: sc.gost94(data, sbox="cryptopro", **kwargs).digest()


# --- peers ---------------------------------------------------------------------------


def _hashlib(name: str) -> PeerBuilder:
    def build(module: ModuleType, threads: int) -> Kernel:
        constructor = getattr(module, name)
        return lambda data: constructor(data).digest()

    return build


def _peer_blake3(module: ModuleType, threads: int) -> Kernel:
    return lambda data: module.blake3(data, max_threads=threads).digest()


def _peer_sha256_loop(module: ModuleType, threads: int) -> Kernel:
    """What a user without a batch API writes: one hashlib call per 64-byte block."""
    sha256 = module.sha256

    def run(data: Any) -> bytes:
        view = memoryview(data)
        return b"".join([sha256(view[i : i + 64]).digest() for i in range(0, len(view), 64)])

    return run


def _zero_hashes(depth: int) -> list[bytes]:
    zeros = [bytes(32)]
    for _ in range(depth):
        zeros.append(hashlib.sha256(zeros[-1] + zeros[-1]).digest())
    return zeros


def _peer_merkle_loop(module: ModuleType, threads: int) -> Kernel:
    """An SSZ-style Merkle root written with hashlib pairs (zero-hash padding), the
    independent reference of issue 8."""
    sha256 = module.sha256

    def run(data: Any) -> bytes:
        view = memoryview(data)
        layer = [bytes(view[i : i + 32]) for i in range(0, len(view), 32)]
        depth = max(0, (len(layer) - 1).bit_length())
        zeros = _zero_hashes(depth)
        if not layer:
            return zeros[depth]
        for level in range(depth):
            if len(layer) % 2:
                layer.append(zeros[level])
            layer = [sha256(layer[i] + layer[i + 1]).digest() for i in range(0, len(layer), 2)]
        return layer[0]

    return run


def _peer_pycryptodome_salsa20(module: ModuleType, threads: int) -> Kernel:
    return lambda data: module.new(key=SALSA_KEY, nonce=SALSA_NONCE).encrypt(data)


def _peer_pynacl_secretbox(module: ModuleType, threads: int) -> Kernel:
    box = module.SecretBox(SECRETBOX_KEY)
    # NaCl's combined form: the 16-byte tag, then the ciphertext (no nonce).
    return lambda data: box.encrypt(bytes(data), SECRETBOX_NONCE).ciphertext


def _peer_highway(bits: int) -> PeerBuilder:
    def build(module: ModuleType, threads: int) -> Kernel:
        function = getattr(module, f"highwayhash_{bits}")
        return lambda data: function(HIGHWAY_KEY, data)

    return build


def _peer_gostcrypto(bits: int) -> PeerBuilder:
    def build(module: ModuleType, threads: int) -> Kernel:
        return lambda data: module.new(f"streebog{bits}", data=data).digest()

    return build


HASHLIB = "hashlib"


def _hashlib_peer(name: str) -> PeerSpec:
    return PeerSpec(HASHLIB, "hashlib", "(standard library)", _hashlib(name))


_GOSTCRYPTO = "gostcrypto.gosthash"

# The known answers come from the official vectors (see test-vectors/README.md and
# the vector files there): BLAKE3 and SHA-256 of "abc" (the BLAKE3 README, FIPS 180-4), SHA3-256
# (FIPS 202 example), BLAKE2b-512 (RFC 7693 appendix A), Salsa20 eSTREAM set 1 vector 0
# (64 zero bytes encrypted), HighwayHash golden values (input 00 01 02, key 00..1f),
# Streebog M1 (GOST R 34.11-2012 / RFC 6986, library byte order), GOST R 34.11-94 "abc"
# with the CryptoPro S-boxes.
_STREEBOG_M1 = b"012345678901234567890123456789012345678901234567890123456789012"

ALGORITHMS: tuple[AlgorithmSpec, ...] = (
    AlgorithmSpec(
        "blake3",
        "BLAKE3",
        ("blake3",),
        _sc_blake3,
        backend_keys=("blake3",),
        simdcrypt_threads=True,
        peers=(PeerSpec("blake3", "blake3", "blake3", _peer_blake3, threads=True),),
        kats=((b"abc", "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"),),
        scaling=True,
    ),
    AlgorithmSpec(
        "sha256",
        "SHA-256",
        ("sha256",),
        _sc_sha256,
        backend_keys=("sha256",),
        peers=(_hashlib_peer("sha256"),),
        kats=((b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),),
    ),
    AlgorithmSpec(
        "sha256_many",
        "SHA-256 batches of 64-byte blocks",
        ("sha256_many",),
        _sc_sha256_many,
        backend_keys=("sha256-batch",),
        simdcrypt_threads=True,
        peers=(
            PeerSpec(
                "hashlib loop", "hashlib", "(standard library)", _peer_sha256_loop, memory_factor=3
            ),
        ),
        unit=64,
        scaling=True,
    ),
    AlgorithmSpec(
        "merkle_root",
        "SHA-256 Merkle root of 32-byte leaves",
        ("merkle_root",),
        _sc_merkle_root,
        backend_keys=("sha256-batch",),
        simdcrypt_threads=True,
        peers=(
            PeerSpec(
                "hashlib pairs", "hashlib", "(standard library)", _peer_merkle_loop, memory_factor=6
            ),
        ),
        unit=32,
    ),
    AlgorithmSpec(
        "sha3_256",
        "SHA3-256 (reference: simdcrypt has none)",
        (),
        None,
        peers=(_hashlib_peer("sha3_256"),),
        kats=((b"abc", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"),),
        note="simdcrypt does not implement SHA3-256; hashlib is timed for comparison",
    ),
    AlgorithmSpec(
        "blake2b",
        "BLAKE2b-512 (reference: simdcrypt has none)",
        (),
        None,
        peers=(_hashlib_peer("blake2b"),),
        kats=(
            (
                b"abc",
                "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
            ),
        ),
        note="simdcrypt does not implement BLAKE2b; hashlib is timed for comparison",
    ),
    AlgorithmSpec(
        "salsa20",
        "Salsa20/20 encryption",
        ("Salsa20",),
        _sc_salsa20,
        backend_keys=("salsa20",),
        simdcrypt_threads=True,
        peers=(
            PeerSpec(
                "pycryptodome", "Crypto.Cipher.Salsa20", "pycryptodome", _peer_pycryptodome_salsa20
            ),
        ),
        output_factor=1.0,
        kats=(
            (
                bytes(64),
                "e3be8fdd8beca2e3ea8ef9475b29a6e7003951e1097a5c38d23b7a5fad9f6844"
                "b22c97559e2723c7cbbd3fe4fc8d9a0744652a83e72a9c461876af4d7ef1a117",
            ),
        ),
        scaling=True,
    ),
    AlgorithmSpec(
        "secretbox",
        "XSalsa20-Poly1305 secretbox seal",
        ("secretbox_seal",),
        _sc_secretbox,
        simdcrypt_backend_arg=False,
        peers=(
            PeerSpec("PyNaCl", "nacl.secret", "PyNaCl", _peer_pynacl_secretbox, needs_bytes=True),
        ),
        output_factor=1.0,
    ),
    *(
        AlgorithmSpec(
            f"highwayhash{bits}",
            f"HighwayHash-{bits}",
            (f"highwayhash{bits}",),
            _sc_highway(bits),
            backend_keys=(f"highwayhash{bits}", "highwayhash"),
            peers=(
                PeerSpec(
                    "highwayhash-cffi",
                    "highwayhash",
                    "highwayhash-cffi",
                    _peer_highway(bits),
                    needs_bytes=True,
                ),
            ),
            kats=((bytes(range(3)), kat),),
        )
        for bits, kat in (
            (64, "803d468aabef6b5c"),
            (128, "eb0b5f291b62070679ddced90f9ae6bf"),
            (256, "5cd9d10dd7a00a48d0d111697c5e22895a86bb8b6b42a88e22c7e190c3fb3de2"),
        )
    ),
    *(
        AlgorithmSpec(
            f"streebog{bits}",
            f"Streebog-{bits} (GOST R 34.11-2012)",
            (f"streebog{bits}",),
            _sc_streebog(bits),
            backend_keys=(f"streebog{bits}", "streebog"),
            peers=(
                PeerSpec(
                    "gostcrypto",
                    _GOSTCRYPTO,
                    "gostcrypto",
                    _peer_gostcrypto(bits),
                    needs_bytes=True,
                ),
            ),
            kats=((_STREEBOG_M1, kat),),
        )
        for bits, kat in (
            (256, "9d151eefd8590b89daa6ba6cb74af9275dd051026bb149a452fd84e5e57b5500"),
            (
                512,
                "1b54d01a4af5b9d5cc3d86d68d285462b19abc2475222f35c085122be4ba1ffa"
                "00ad30f8767b3a82384c6574f024c311e2a481332b08ef7f41797891c1646f48",
            ),
        )
    ),
    AlgorithmSpec(
        "gost94",
        "GOST R 34.11-94 (CryptoPro S-boxes)",
        ("gost94",),
        _sc_gost94,
        backend_keys=("gost94",),
        kats=((b"abc", "b285056dbf18d7392d7677369524dd14747459ed8143997e163b2986f92fd42c"),),
        note="no Python peer: gostcrypto implements only GOST R 34.11-2012; "
        "verified by the known answer only",
    ),
)

BY_NAME: dict[str, AlgorithmSpec] = {spec.name: spec for spec in ALGORITHMS}


def _version(pip_name: str) -> str:
    try:
        return importlib.metadata.version(pip_name)
    except importlib.metadata.PackageNotFoundError:
        return ""


def backend_info(sc: ModuleType, spec: AlgorithmSpec) -> tuple[str | None, list[str]]:
    """(selected backend, supported backends) of the algorithm, from simdcrypt.backends()."""
    report: dict[str, Any] = sc.backends()
    for key in spec.backend_keys:
        if key in report:
            return str(report[key]["selected"]), [str(b) for b in report[key]["supported"]]
    return None, []


def available(
    spec: AlgorithmSpec,
    sc: ModuleType | None,
    *,
    all_backends: bool,
    peers: Sequence[str] | None = None,
) -> Availability:
    """The implementations of ``spec`` that can run here, and why the others cannot.

    ``all_backends``: one simdcrypt implementation per supported backend (else only the
    selected one). ``peers``: restrict the peers to these names (None: all).
    """
    result = Availability(spec)
    if spec.simdcrypt_builder is not None:
        builder = spec.simdcrypt_builder
        missing = [a for a in spec.simdcrypt_attrs if sc is None or not hasattr(sc, a)]
        if sc is None or missing:
            result.unavailable.append(
                ("simdcrypt", f"not built (this simdcrypt has no {', '.join(missing)})")
            )
        else:
            selected, supported = backend_info(sc, spec)
            module = sc
            version = str(getattr(sc, "__version__", ""))
            if all_backends and spec.simdcrypt_backend_arg and supported:
                backends: list[str | None] = list(supported)
            else:
                backends = [None]
            for backend in backends:

                def make(
                    threads: int, backend: str | None = backend, module: ModuleType = module
                ) -> Kernel:
                    return builder(module, backend, threads)

                result.implementations.append(
                    Implementation(
                        spec.name,
                        "simdcrypt",
                        backend if backend is not None else selected,
                        True,
                        make,
                        spec.simdcrypt_threads,
                        version=version,
                    )
                )
    for peer in spec.peers:
        if peers is not None and peer.name not in peers:
            continue
        try:
            peer_module = import_module(peer.module)
            # Building once checks that the module has what the adapter uses.
            peer.build(peer_module, 1)
        except (ImportError, AttributeError) as error:
            result.unavailable.append(
                (peer.name, f"missing: pip install {peer.pip_name} ({error})")
            )
            continue

        def make_peer(
            threads: int, peer: PeerSpec = peer, module: ModuleType = peer_module
        ) -> Kernel:
            return peer.build(module, threads)

        result.implementations.append(
            Implementation(
                spec.name,
                peer.name,
                None,
                False,
                make_peer,
                peer.threads,
                needs_bytes=peer.needs_bytes,
                memory_factor=peer.memory_factor,
                version=_version(peer.pip_name) if peer.module != "hashlib" else "",
            )
        )
    return result
