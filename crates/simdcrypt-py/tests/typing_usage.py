"""Exercises the public API for `mypy --strict` (see the README of the bindings' tests):
every line must type-check against the hand-written stubs. Also runnable as a script."""

from __future__ import annotations

import array
import hashlib
import mmap
import os
import pathlib
import sys
import tempfile
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

import simdcrypt
from simdcrypt import blake3

# Construction in every mode, from any buffer.
h: blake3 = simdcrypt.blake3()
h = blake3(b"abc")
h = blake3(bytearray(b"abc"), max_threads=blake3.AUTO)
h = blake3(memoryview(b"abc"), key=bytes(32), usedforsecurity=False)
h = blake3(array.array("B", b"abc"), derive_key_context="app 2026-01-01 v1")
h = blake3(b"", key=bytearray(32), backend=simdcrypt.backends()["blake3"]["selected"])

# Methods and attributes.
same: blake3 = h.update(b"more").update(bytearray(b"!"))
digest: bytes = h.digest()
long_digest: bytes = h.digest(64, seek=128)
hex_digest: str = h.hexdigest(length=16)
clone: blake3 = h.copy()
h.reset()
name: str = h.name
sizes: tuple[int, int, int] = (h.digest_size, h.block_size, blake3.key_size)
auto: int = blake3.AUTO
backend: str = h.backend

# SHA-256, with hashlib's interface (update returns None).
s: simdcrypt.sha256 = simdcrypt.sha256()
s = simdcrypt.sha256(b"abc", usedforsecurity=False, backend=simdcrypt.backends()["sha256"]["selected"])
s.update(memoryview(b"more"))
sha_digest: bytes = s.digest()
sha_hex: str = s.hexdigest()
sha_clone: simdcrypt.sha256 = s.copy()
sha_sizes: tuple[str, int, int, str] = (s.name, s.digest_size, s.block_size, s.backend)
sha_by_name: simdcrypt.sha256 = simdcrypt.new("sha256", b"data", backend="portable")
some_hasher: (
    simdcrypt.blake3
    | simdcrypt.sha256
    | simdcrypt.highwayhash64
    | simdcrypt.highwayhash128
    | simdcrypt.highwayhash256
    | simdcrypt.streebog256
    | simdcrypt.streebog512
    | simdcrypt.gost94
) = simdcrypt.new(str("sha256"))
sha_file: bytes = simdcrypt.hash_file(__file__, "sha256")
with open(__file__, "rb") as sha_f:
    if sys.version_info >= (3, 11):
        assert hashlib.file_digest(sha_f, simdcrypt.sha256).digest() == sha_file

# Module functions.
available: frozenset[str] = simdcrypt.algorithms_available
by_name: blake3 = simdcrypt.new("blake3", b"data", key=bytes(32))
info = simdcrypt.backends()
selected: str = info["blake3"]["selected"]
supported: list[str] = info["blake3"]["supported"]
version: str = simdcrypt.__version__
exported: list[str] = simdcrypt.__all__

with tempfile.TemporaryDirectory() as tmp:
    path = pathlib.Path(tmp) / "f.bin"
    path.write_bytes(b"hello")
    file_digest: bytes = simdcrypt.hash_file(path)
    file_digest = simdcrypt.hash_file(str(path), "blake3", length=64, max_threads=2)
    file_digest = simdcrypt.hash_file(os.fsencode(path), key=bytes(32), backend="portable")
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        mapped: bytes = blake3(m).digest()
    if sys.version_info >= (3, 11):
        with open(path, "rb") as f:
            # typeshed's hashlib protocol wants update() -> None; blake3.update returns
            # self (as in the `blake3` package), so mypy rejects what works at run time.
            via_hashlib = hashlib.file_digest(f, blake3)  # type: ignore[arg-type]
            assert via_hashlib.digest() == file_digest[:0] + blake3(b"hello").digest()

# Batches: any sequence of buffers, or a 2-D array (one message per row).
messages: list[bytes] = [b"a", b"bc", b""]
digests: bytes = simdcrypt.blake3_many(messages)
digests = simdcrypt.blake3_many((b"a", bytearray(b"b"), memoryview(b"c"), array.array("B", b"d")))
mixed: Sequence[bytes | bytearray] = [b"x", bytearray(b"y")]
digests = simdcrypt.blake3_many(mixed, length=64, key=bytes(32), max_threads=blake3.AUTO, backend="portable")
digests = simdcrypt.blake3_many(messages, derive_key_context="app 2026-01-01 v1", length=1)
rows: npt.NDArray[np.uint8] = np.zeros((100, 64), dtype=np.uint8)
digests = simdcrypt.blake3_many(rows)
digests = simdcrypt.blake3_many(np.arange(64, dtype=np.uint8).reshape(4, 16), max_threads=2)
digests = simdcrypt.blake3_many(memoryview(bytes(64)).cast("B", (4, 16)))
assert len(digests) == 4 * 32

# Hashtree-style batches: each 64-byte block hashed as a whole message.
block_digests: bytes = simdcrypt.sha256_many(bytes(128))
block_digests = simdcrypt.sha256_many(bytearray(64), max_threads=blake3.AUTO, backend="portable")
block_digests = simdcrypt.sha256_many(memoryview(bytes(640)), max_threads=2, backend=None)
batch_backends: list[str] = simdcrypt.backends()["sha256-batch"]["supported"]
assert len(block_digests) == 10 * 32

# SSZ-style Merkle trees of 32-byte leaves.
merkle: bytes = simdcrypt.merkle_root(bytes(96))
merkle = simdcrypt.merkle_root(bytearray(64), depth=5, max_threads=blake3.AUTO, backend="portable")
merkle = simdcrypt.merkle_root(memoryview(bytes(320)), depth=None, max_threads=2, backend=None)
tree: list[bytes] = simdcrypt.merkle_layers(bytes(96), depth=4, max_threads=2, backend=None)
assert tree[-1] == simdcrypt.merkle_root(bytes(96), depth=4) and len(merkle) == 32

# An input hashed in pieces: subtree chaining values merged into the digest.
whole = bytes(5000)
left_cv: bytes = simdcrypt.blake3_subtree(whole[:4096], offset=0)
right_cv: bytes = simdcrypt.blake3_subtree(memoryview(whole)[4096:], offset=4096, key=None)
root: bytes = simdcrypt.blake3_merge(left_cv, right_cv, root=True, length=64)
parent: bytes = simdcrypt.blake3_merge(left_cv, bytearray(right_cv), derive_key_context=None)
keyed_cv: bytes = simdcrypt.blake3_subtree(whole[:1024], offset=1024, key=bytes(32), derive_key_context=None)
assert root == blake3(whole).digest(64)

# Streebog, HMAC-Streebog, GOST R 34.11-94 and their batches.
st: simdcrypt.streebog256 = simdcrypt.streebog256(b"abc", backend="portable")
st.update(memoryview(b"more"))
st_hex: str = st.hexdigest()
st_name: str = st.name
st5: simdcrypt.streebog512 = simdcrypt.new("streebog512", b"abc").copy()
st5_bytes: bytes = st5.digest()
mac: simdcrypt.hmac_streebog256 = simdcrypt.hmac_streebog256(b"key", b"data")
mac_tag: bytes = mac.copy().digest()
mac5: bytes = simdcrypt.hmac_streebog512(bytearray(b"key")).digest()
g94: simdcrypt.gost94 = simdcrypt.gost94(b"abc", sbox="test")
g94_sbox: str = g94.sbox
g94_named: simdcrypt.gost94 = simdcrypt.new("gost94-test")
many_st: bytes = simdcrypt.streebog_many([b"a", b"b"], bits=512, max_threads=2)
many_g94: bytes = simdcrypt.gost94_many((b"a", bytearray(b"b")), sbox="cryptopro")
# Salsa20 family and secretbox.
s20 = simdcrypt.Salsa20(bytes(32), bytearray(8), rounds=12, counter=3, max_threads=2, backend=None)
ct: bytes = s20.encrypt(b"abc")
pt: bytes = s20.decrypt(memoryview(ct))
buf = bytearray(16)
s20.encrypt_into(buf, buf)
s20.seek(1 << 40)
pos: int = s20.position
ks: bytes = simdcrypt.XSalsa20(bytes(32), bytes(24)).keystream(64)
sealed: bytes = simdcrypt.secretbox_seal(bytes(32), bytes(24), b"x")
try:
    opened: bytes = simdcrypt.secretbox_open(bytes(32), bytes(24), sealed)
except simdcrypt.AuthenticationError as err:
    assert isinstance(err, ValueError)
# HighwayHash: a required 32-byte key, three result sizes, checkpoints, batches.
hh_key = bytes(range(32))
hh: simdcrypt.highwayhash64 = simdcrypt.highwayhash64(b"abc", key=hh_key, backend=None)
hh.update(bytearray(b"more"))
hh_int: int = hh.intdigest()
hh_bytes: bytes = hh.digest()
hh_hex: str = hh.hexdigest()
hh_clone: simdcrypt.highwayhash64 = hh.copy()
hh_blob: bytes = hh.export()
hh_back: simdcrypt.highwayhash64 = simdcrypt.highwayhash64.restore(hh_blob, key=memoryview(hh_key))
hh_sizes: tuple[str, int, int, str] = (hh.name, hh.digest_size, hh.block_size, hh.backend)
hh128: simdcrypt.highwayhash128 = simdcrypt.new("highwayhash128", b"x", key=hh_key)
hh256: simdcrypt.highwayhash256 = simdcrypt.highwayhash256(key=hh_key, backend="portable")
hh256_back: simdcrypt.highwayhash256 = simdcrypt.highwayhash256.restore(hh256.export(), key=hh_key)
hh_many: bytes = simdcrypt.highwayhash_many([b"a", bytearray(b"b")], key=hh_key, bits=128, max_threads=2, backend=None)
hh_file: bytes = simdcrypt.hash_file(__file__, "highwayhash256", key=hh_key)
assert hh_back.digest() == hh_bytes and len(hh_many) == 32 and len(hh_file) == 32 and len(hh128.digest()) == 16

# Bao verified streaming.
bao_root, bao_encoded = simdcrypt.bao_encode(b"data", outboard=False, max_threads=1)
bao_plain: bytes = simdcrypt.bao_decode(bao_root, bao_encoded)
bao_proof: bytes = simdcrypt.bao_slice(bao_encoded, 0, 2)
bao_part: bytes = simdcrypt.bao_decode_slice(bao_root, bao_proof, 0, 2, chunk_group_log=0)
bao_report: simdcrypt.BaoScrubReport = simdcrypt.bao_scrub(bao_root, b"data", simdcrypt.bao_encode(b"data", outboard=True)[1])
bao_ranges: list[tuple[int, int]] = bao_report.damaged
with simdcrypt.BaoReader(bao_root, bao_encoded) as bao_reader:
    bao_read: bytes = bao_reader.read(2)
# Saved states: export() / restore(), pickle and deepcopy of every hash class.
import copy  # noqa: E402
import pickle  # noqa: E402

b3_state: bytes = blake3(b"abc", key=bytes(32)).export()
b3_back: blake3 = blake3.restore(b3_state, key=bytes(32))
sha_back: simdcrypt.sha256 = simdcrypt.sha256.restore(bytearray(simdcrypt.sha256(b"x").export()))
gost_back: simdcrypt.gost94 = simdcrypt.gost94.restore(simdcrypt.gost94(b"x", sbox="test").export())
hmac_obj = simdcrypt.hmac_streebog256(b"key", b"msg")
hmac_back: simdcrypt.hmac_streebog256 = simdcrypt.hmac_streebog256.restore(hmac_obj.export(), key=b"key")
sb_copy: simdcrypt.streebog512 = copy.deepcopy(simdcrypt.streebog512(b"x"))
b3_pickled: blake3 = pickle.loads(pickle.dumps(b3_back))
assert b3_pickled.digest() == b3_back.digest() and hmac_back.digest() == hmac_obj.digest()
assert sha_back.digest() == hashlib.sha256(b"x").digest() and len(gost_back.digest() + sb_copy.digest()) == 96


# backend="cuda" (type-checked here; the function is never called, so no GPU is needed).
class _DeviceArray:
    """Stands for a CuPy array: anything with a CUDA Array Interface."""

    @property
    def __cuda_array_interface__(self) -> dict[str, object]:
        return {}


def _gpu_usage(rows: _DeviceArray, out: _DeviceArray) -> None:
    cuda_info = simdcrypt.backends()["cuda"]
    available: bool = cuda_info.get("available", False)
    reason: str | None = cuda_info.get("reason")
    digests: bytes = simdcrypt.streebog_many([b"abc"], bits=512, backend="cuda")
    digests = simdcrypt.gost94_many(rows, backend="cuda")
    same_out: _DeviceArray = simdcrypt.streebog_many(rows, bits=512, backend="cuda", out=out)
    same_out = simdcrypt.blake3_many(rows, length=64, backend="cuda", out=out)
    same_out = simdcrypt.sha256_many(rows, backend="cuda", out=out)
    same_out = simdcrypt.gost94_many([b"a"], backend="cuda", out=out)
    root: bytes = simdcrypt.merkle_root(rows, depth=20, backend="cuda")
    one: bytes = simdcrypt.blake3_digest(rows, length=64, backend="cuda")
    one = simdcrypt.blake3_digest(b"abc", key=bytes(32))
    print(available, reason, digests, same_out, root, one)


def _tree_usage(root: str) -> None:
    result: simdcrypt.TreeHash = simdcrypt.hash_tree(root, manifest=root + ".manifest", algorithms=["blake3", "sha256"])
    for path, size, digests in result.entries:
        first: bytes = digests["blake3"]
        print(path.encode(), size + 1, first.hex())
    tree: bytes | None = result.tree_digest
    counts: int = result.hashed + result.reused + len(result.errors)
    print(tree, counts, result.algorithms[0].upper())
