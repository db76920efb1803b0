"""backend="cuda" end to end without a GPU: the extension built with the `cuda-emulation`
feature runs the CUDA kernels' host emulation when SIMDCRYPT_CUDA_EMULATION=1, and "device
memory" is host memory. So numpy arrays behind fake CUDA Array Interface and DLPack
objects stand in for CuPy and PyTorch arrays, and every path of the bindings runs: host
and device inputs, out= arrays, equal-length rows and their offsets, empty batches,
DLPack capsules consumed and released, and the size checks.

scripts/test.sh builds the extension that way for this file only (then rebuilds it
without the feature); elsewhere the file is skipped. What the emulation cannot show (the
driver's range checks, streams, real CuPy/PyTorch objects) is test_cuda.py's on a GPU.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np
import pytest

import simdcrypt
from conftest import CUDA_BATCHES, random_rows

pytestmark = pytest.mark.skipif(
    os.environ.get("SIMDCRYPT_CUDA_EMULATION") != "1",
    reason="needs the extension built with --features cuda-emulation and SIMDCRYPT_CUDA_EMULATION=1",
)


class CAI:
    """A numpy array seen through the CUDA Array Interface (host memory: emulation only)."""

    def __init__(self, array: np.ndarray, readonly: bool = False, stream: int | None = None) -> None:
        assert array.flags.c_contiguous
        self.array = array
        self.__cuda_array_interface__ = {
            "shape": array.shape,
            "typestr": "|u1",
            "data": (array.ctypes.data if array.size else 0, readonly),
            "version": 3,
            "strides": None,
            "stream": stream,
        }


class DLPack:
    """A numpy array exported through DLPack by an object that claims a CUDA device."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.exports = 0

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, *, stream: Any = None) -> Any:
        self.exports += 1
        return self.array.__dlpack__()


IDS = [b[0] for b in CUDA_BATCHES]


@pytest.mark.parametrize(("name", "digest_len", "cpu", "cuda"), CUDA_BATCHES, ids=IDS)
@pytest.mark.parametrize("length", [0, 1, 63, 64, 65, 1024, 1025, 3000])
def test_batches(name: str, digest_len: int, cpu: Any, cuda: Any, length: int) -> None:
    m = random_rows(9, length, length)
    expected = cpu(m)
    assert len(expected) == 9 * digest_len
    # Host inputs: a 2-D array and a list of messages of different lengths.
    assert cuda(m) == expected
    varied = [bytes(m[i, : (i * 37) % (length + 1)]) for i in range(9)]
    assert cuda(varied) == cpu(varied)
    # Device inputs, bytes out.
    assert cuda(CAI(m)) == expected
    dl = DLPack(m)
    assert cuda(dl) == expected and dl.exports == 1
    # out= arrays: returned, and filled.
    out = np.zeros(9 * digest_len, dtype=np.uint8)
    wrapper = CAI(out)
    assert cuda(CAI(m), out=wrapper) is wrapper
    assert out.tobytes() == expected
    out[:] = 0
    assert cuda(m, out=CAI(out)) is not None  # host messages, digests to the device
    assert out.tobytes() == expected
    out2 = np.zeros((9, digest_len), dtype=np.uint8)  # any shape of the right size
    cuda(DLPack(m), out=DLPack(out2))
    assert out2.tobytes() == expected


@pytest.mark.parametrize(("name", "digest_len", "cpu", "cuda"), CUDA_BATCHES, ids=IDS)
def test_batch_edges(name: str, digest_len: int, cpu: Any, cuda: Any) -> None:
    assert cuda([]) == b""
    assert cuda(CAI(np.zeros((0, 64), dtype=np.uint8))) == b""
    empty_out = np.zeros(0, dtype=np.uint8)
    cuda(CAI(np.zeros((0, 5), dtype=np.uint8)), out=CAI(empty_out))
    m = random_rows(3, 10, 1)
    with pytest.raises(ValueError, match="2-D array"):
        cuda(CAI(m.reshape(-1)))
    with pytest.raises(ValueError, match="exactly"):
        cuda(CAI(m), out=CAI(np.zeros(3 * digest_len + 1, dtype=np.uint8)))
    with pytest.raises(ValueError, match="exactly"):
        cuda(m, out=CAI(np.zeros(3 * digest_len - 1, dtype=np.uint8)))
    with pytest.raises(ValueError, match="read-only"):
        cuda(CAI(m), out=CAI(np.zeros(3 * digest_len, dtype=np.uint8), readonly=True))
    with pytest.raises(ValueError, match="out= must be a CUDA device array"):
        cuda(CAI(m), out=bytearray(3 * digest_len))
    with pytest.raises(ValueError, match="C-contiguous"):
        fake = CAI(m)
        fake.__cuda_array_interface__["strides"] = (1, 3)
        cuda(fake)


@pytest.mark.parametrize("blocks", [0, 1, 2, 7, 64, 257])
def test_sha256_many(blocks: int) -> None:
    data = random_rows(1, 64 * blocks, blocks).reshape(-1)
    expected = simdcrypt.sha256_many(data.tobytes())
    assert simdcrypt.sha256_many(data.tobytes(), backend="cuda") == expected
    assert simdcrypt.sha256_many(CAI(data), backend="cuda") == expected
    assert simdcrypt.sha256_many(CAI(data.reshape(blocks, 64)), backend="cuda") == expected
    assert simdcrypt.sha256_many(DLPack(data), backend="cuda") == expected
    out = np.zeros(32 * blocks, dtype=np.uint8)
    simdcrypt.sha256_many(CAI(data), backend="cuda", out=CAI(out))
    assert out.tobytes() == expected
    out[:] = 0
    simdcrypt.sha256_many(data.tobytes(), backend="cuda", out=CAI(out))
    assert out.tobytes() == expected
    with pytest.raises(ValueError, match="multiple of 64"):
        simdcrypt.sha256_many(CAI(np.zeros(65, dtype=np.uint8)), backend="cuda")
    with pytest.raises(ValueError, match="multiple of 64"):
        simdcrypt.sha256_many(bytes(63), backend="cuda")


@pytest.mark.parametrize("leaves", [0, 1, 2, 3, 5, 64, 1000])
@pytest.mark.parametrize("depth", [None, 10, 64])
def test_merkle_root(leaves: int, depth: int | None) -> None:
    data = random_rows(1, 32 * leaves, leaves).reshape(-1)
    expected = simdcrypt.merkle_root(data.tobytes(), depth=depth)
    assert simdcrypt.merkle_root(data.tobytes(), depth=depth, backend="cuda") == expected
    assert simdcrypt.merkle_root(CAI(data), depth=depth, backend="cuda") == expected
    assert simdcrypt.merkle_root(DLPack(data.reshape(leaves, 32)), depth=depth, backend="cuda") == expected


def test_merkle_root_errors() -> None:
    with pytest.raises(ValueError):
        simdcrypt.merkle_root(bytes(32 * 5), depth=2, backend="cuda")
    with pytest.raises(ValueError, match="multiple of 32"):
        simdcrypt.merkle_root(CAI(np.zeros(33, dtype=np.uint8)), backend="cuda")


@pytest.mark.parametrize("size", [0, 1, 64, 1024, 1025, 2048, 4097, 100_000, 1 << 20])
def test_blake3_digest(size: int) -> None:
    data = random_rows(1, size, size).reshape(-1)
    for kwargs in ({}, {"length": 131}, {"key": bytes(range(32))}, {"derive_key_context": "ctx", "length": 3}):
        hasher = simdcrypt.blake3(data.tobytes(), key=kwargs.get("key"), derive_key_context=kwargs.get("derive_key_context"))
        expected = hasher.digest(kwargs.get("length", 32))
        assert simdcrypt.blake3_digest(data.tobytes(), backend="cuda", **kwargs) == expected, kwargs
        assert simdcrypt.blake3_digest(CAI(data), backend="cuda", **kwargs) == expected, kwargs
        assert simdcrypt.blake3_digest(DLPack(data), backend="cuda", **kwargs) == expected, kwargs


def test_dlpack_capsules_are_consumed() -> None:
    # The capsule handed over is renamed and its deleter called once the work is done.
    capsules: list[Any] = []

    class Keep(DLPack):
        def __dlpack__(self, *, stream: Any = None) -> Any:
            capsule = super().__dlpack__(stream=stream)
            capsules.append(capsule)
            return capsule

    m = random_rows(4, 100, 9)
    assert simdcrypt.gost94_many(Keep(m), backend="cuda") == simdcrypt.gost94_many(m)
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    is_valid.restype = ctypes.c_int
    assert len(capsules) == 1 and is_valid(capsules[0], b"used_dltensor")
    # Also when the call fails after parsing (out= of the wrong size).
    with pytest.raises(ValueError, match="exactly"):
        simdcrypt.gost94_many(Keep(m), backend="cuda", out=Keep(np.zeros(5, dtype=np.uint8)))
    assert all(is_valid(c, b"used_dltensor") for c in capsules[1:]) and len(capsules) == 3


# Stream order: arrays whose contents (or out= fills) are still pending on the producer's
# stream. The emulation's "late" streams hold queued writes until something orders itself
# after that stream (see crates/simdcrypt-py/src/cuda.rs, `late`); `_emulation_flush_all`
# lets every stream finish, as a GPU eventually would.
_native: Any = simdcrypt._native  # type: ignore[attr-defined]
LEGACY = 1  # the legacy default stream, in CAI and DLPack numbering
TORCH_SIDE_STREAM = 0x7E57  # a producer's own non-default stream


class LateCAI:
    """A CUDA Array Interface whose bytes arrive late: `pending` is written to the array on
    emulated stream `on`; the interface names `stream` (or no stream at all)."""

    MISSING = object()

    def __init__(self, array: np.ndarray, pending: bytes, on: int, stream: Any = MISSING, version: int = 3) -> None:
        self.array = array
        _native._emulation_late_write(on, array.ctypes.data, pending)
        cai: dict[str, Any] = {"shape": array.shape, "typestr": "|u1", "data": (array.ctypes.data, False), "version": version}
        if stream is not LateCAI.MISSING:
            cai["stream"] = stream
        self.__cuda_array_interface__ = cai


class LateTensor(LateCAI):
    """A PyTorch-like tensor: a CAI without a stream, and DLPack whose `stream=` argument
    makes the consumer wait for the producer's own stream `on`."""

    def __init__(self, array: np.ndarray, pending: bytes, on: int) -> None:
        super().__init__(array, pending, on, version=2)
        self.on = on

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, *, stream: Any = None) -> Any:
        _native._emulation_stream_wait(stream, self.on)
        return self.array.__dlpack__()


@pytest.fixture
def late_streams() -> Any:
    yield
    _native._emulation_flush_all()


@pytest.mark.parametrize(
    ("on", "stream"),
    [(LEGACY, LateCAI.MISSING), (LEGACY, None), (LEGACY, LEGACY), (TORCH_SIDE_STREAM, TORCH_SIDE_STREAM)],
    ids=["no-stream-key", "stream-None", "stream-1", "named-stream"],
)
def test_cai_inputs_and_out_wait_for_their_stream(late_streams: Any, on: int, stream: Any) -> None:
    m = random_rows(8, 200, 3)
    expected = simdcrypt.streebog_many(m, bits=256)
    # The messages land late: hashing before they do gives other digests.
    empty = np.zeros_like(m)
    assert simdcrypt.streebog_many(LateCAI(empty, m.tobytes(), on, stream), bits=256, backend="cuda") == expected
    # An out= array whose zero fill is still pending: it must land before our digests.
    out = np.full(8 * 32, 0xEE, dtype=np.uint8)
    simdcrypt.streebog_many(m, bits=256, backend="cuda", out=LateCAI(out, bytes(out.size), on, stream))
    _native._emulation_flush_all()
    assert out.tobytes() == expected


def test_dlpack_is_preferred_and_given_our_stream(late_streams: Any) -> None:
    # PyTorch's CAI names no stream while its work is queued on its current (side) stream:
    # only __dlpack__(stream=ours) orders us after it.
    m = random_rows(8, 100, 4)
    expected = simdcrypt.blake3_many(m)
    assert simdcrypt.blake3_many(LateTensor(np.zeros_like(m), m.tobytes(), TORCH_SIDE_STREAM), backend="cuda") == expected
    out = np.full(8 * 32, 0xEE, dtype=np.uint8)
    simdcrypt.blake3_many(m, backend="cuda", out=LateTensor(out, bytes(out.size), TORCH_SIDE_STREAM))
    _native._emulation_flush_all()
    assert out.tobytes() == expected
    blocks = random_rows(1, 64 * 5, 5).reshape(-1)
    assert simdcrypt.sha256_many(
        LateTensor(np.zeros_like(blocks), blocks.tobytes(), TORCH_SIDE_STREAM), backend="cuda"
    ) == simdcrypt.sha256_many(blocks.tobytes())


def test_the_late_streams_do_reorder(late_streams: Any) -> None:
    # The hook itself: a consumer that does not wait sees the old bytes (so the tests above
    # can fail), and the pending write lands when the stream is waited for.
    a = np.zeros(64, dtype=np.uint8)
    _native._emulation_late_write(TORCH_SIDE_STREAM, a.ctypes.data, bytes(range(64)))
    assert simdcrypt.sha256_many(CAI(a, stream=LEGACY), backend="cuda") == simdcrypt.sha256_many(bytes(64))
    assert not a.any()
    with pytest.raises(ValueError, match="not the cuda backend's own"):
        _native._emulation_stream_wait(12345, TORCH_SIDE_STREAM)
    _native._emulation_stream_wait(0x5C5C, TORCH_SIDE_STREAM)
    assert a.tobytes() == bytes(range(64))


def test_the_gpu_kernel_drivers_cases_pass_on_the_emulation() -> None:
    """The cases of scripts/gpu_kernels_once.py (gpu-check's stage 1, and what
    compute-sanitizer runs): each one, the two schemes of Streebog and GOST R 34.11-94
    forced in turn, matches the CPU, and the environment variable that forces them is
    unset again after each. (Its main() asks backends() for a real device, which the
    emulation is not.)"""
    import importlib.util

    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "gpu_kernels_once.py")
    spec = importlib.util.spec_from_file_location("gpu_kernels_once", path)
    assert spec is not None and spec.loader is not None
    driver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(driver)
    cases = driver.cases(16)
    names = [name for name, _ in cases]
    for scheme in ("one", "lanes"):
        assert f"gost94 list ({scheme})" in names and f"streebog512 list ({scheme})" in names
    for name, run in cases:
        assert run("cuda") == run(None), name
        assert "SIMDCRYPT_CUDA_SCHEME" not in os.environ, name
