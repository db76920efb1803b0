"""backend="cuda": the GPU backend of the batch functions.

Everywhere: without a usable GPU every entry point raises ValueError with the backend's
reason, backends()["cuda"] says why, out= needs backend="cuda", and the parsing of device
arrays (python/simdcrypt/_cuda.py) refuses what it must, tested with fake objects whose
pointers are never dereferenced. With CuPy or PyTorch on a GPU (scripts/gpu-check.sh
runs this file there) every function is compared with the CPU backends for host inputs,
device inputs (CUDA Array Interface and DLPack) and out= device arrays.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import simdcrypt
from simdcrypt import _cuda
from conftest import CUDA_BATCHES, random_rows

CUDA = simdcrypt.backends()["cuda"]
AVAILABLE = bool(CUDA["available"])

# Every entry point that takes backend="cuda", called with small valid host inputs.
ENTRY_POINTS: list[tuple[str, Callable[[str], Any]]] = [
    ("streebog_many", lambda b: simdcrypt.streebog_many([b"abc", b""], bits=512, backend=b)),
    ("gost94_many", lambda b: simdcrypt.gost94_many([b"abc"], sbox="test", backend=b)),
    ("sha256_many", lambda b: simdcrypt.sha256_many(bytes(128), backend=b)),
    ("merkle_root", lambda b: simdcrypt.merkle_root(bytes(96), backend=b)),
    ("blake3_many", lambda b: simdcrypt.blake3_many([b"abc"], length=40, backend=b)),
    ("blake3_digest", lambda b: simdcrypt.blake3_digest(b"abc" * 1000, backend=b)),
]


# --- backends() ---------------------------------------------------------------------------


def test_backends_has_a_cuda_entry() -> None:
    entry = simdcrypt.backends()["cuda"]
    assert set(entry) == {"selected", "supported", "available", "reason", "device", "verified", "note", "functions"}
    assert entry["verified"] is True  # scripts/gpu-check.sh passed on an H200 (docs/gpu.md)
    assert entry["note"] == "verified on an NVIDIA H200, sm_90"
    assert sorted(entry["functions"]) == sorted(name for name, _ in ENTRY_POINTS)
    if entry["available"]:
        assert entry["selected"] == "cuda" and entry["supported"] == ["cuda"]
        assert entry["reason"] is None and isinstance(entry["device"], str) and entry["device"]
    else:
        assert entry["selected"] == "" and entry["supported"] == []
        assert entry["device"] is None
        assert isinstance(entry["reason"], str) and entry["reason"]


# --- without a GPU ------------------------------------------------------------------------


@pytest.mark.skipif(AVAILABLE, reason="a GPU is usable here")
@pytest.mark.parametrize(("name", "call"), ENTRY_POINTS)
def test_unavailable_is_a_value_error_with_the_reason(name: str, call: Callable[[str], Any]) -> None:
    reason = CUDA["reason"]
    assert isinstance(reason, str)
    for backend in ("cuda", "CUDA", "Cuda"):
        with pytest.raises(ValueError) as info:
            call(backend)
        message = str(info.value)
        assert message == f'backend "cuda" is unavailable: {reason}', (name, message)


@pytest.mark.skipif(AVAILABLE, reason="a GPU is usable here")
def test_unavailable_reason_names_what_is_missing() -> None:
    reason = CUDA["reason"]
    assert isinstance(reason, str)
    assert any(
        words in reason
        for words in ("no CUDA driver library", "no NVRTC library", "no CUDA device", "failed to initialise", "driver supports CUDA", "cannot compile for")
    ), reason


def test_arguments_are_checked_before_the_device() -> None:
    with pytest.raises(ValueError, match="bits must be 256 or 512"):
        simdcrypt.streebog_many([b"a"], bits=300, backend="cuda")
    with pytest.raises(ValueError, match="sbox"):
        simdcrypt.gost94_many([b"a"], sbox="nope", backend="cuda")
    with pytest.raises(ValueError, match="max_threads"):
        simdcrypt.sha256_many(bytes(64), max_threads=0, backend="cuda")
    with pytest.raises(ValueError, match="depth"):
        simdcrypt.merkle_root(bytes(32), depth=-1, backend="cuda")
    with pytest.raises(ValueError, match="length must be non-negative"):
        simdcrypt.blake3_many([b"a"], length=-1, backend="cuda")
    with pytest.raises(ValueError, match="not both"):
        simdcrypt.blake3_digest(b"a", key=bytes(32), derive_key_context="c", backend="cuda")


def test_out_needs_backend_cuda() -> None:
    out = bytearray(64)
    for call in (
        lambda: simdcrypt.streebog_many([b"a"], out=out),
        lambda: simdcrypt.gost94_many([b"a", b"b"], out=out),
        lambda: simdcrypt.sha256_many(bytes(128), backend="portable", out=out),
        lambda: simdcrypt.blake3_many([b"a", b"b"], out=out),
    ):
        with pytest.raises(ValueError, match='out= is only accepted with backend="cuda"'):
            call()


def test_preload_nvrtc_finds_a_pip_installed_nvrtc() -> None:
    # In a fresh process without LD_LIBRARY_PATH: NVRTC on the loader's path is left alone;
    # else the nvidia-cuda-nvrtc wheel's library (requirements-cuda.txt) is loaded by path.
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    code = (
        "import ctypes\n"
        "try:\n    ctypes.CDLL('libnvrtc.so.13'); on_path = True\n"
        "except OSError:\n    on_path = False\n"
        "from simdcrypt import _cuda\n"
        "print(on_path, _cuda.preload_nvrtc(), _cuda.preload_nvrtc())\n"
        "ctypes.CDLL('libnvrtc.so.13')\n"  # found by name now, or this fails
    )
    wheels = [p for p in map(Path, sys.path) if (p / "nvidia" / "cu13" / "lib" / "libnvrtc.so.13").exists()]
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if not wheels and result.returncode != 0:
        pytest.skip("no NVRTC here, on the loader's path or from PyPI")
    assert result.returncode == 0, result.stderr
    on_path, first, second = result.stdout.split()
    assert first == second  # once per process
    if on_path == "True":
        assert first == "None"
    else:
        assert first.endswith("/nvidia/cu13/lib/libnvrtc.so.13"), result.stdout


# --- blake3_digest on the CPU -------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 1024, 1025, 100_000])
def test_blake3_digest_matches_the_class(size: int) -> None:
    data = os.urandom(size)
    assert simdcrypt.blake3_digest(data) == simdcrypt.blake3(data).digest()
    assert simdcrypt.blake3_digest(data, length=100) == simdcrypt.blake3(data).digest(100)
    key = bytes(range(32))
    assert simdcrypt.blake3_digest(data, key=key) == simdcrypt.blake3(data, key=key).digest()
    assert simdcrypt.blake3_digest(data, derive_key_context="ctx", length=7) == (
        simdcrypt.blake3(data, derive_key_context="ctx").digest(7)
    )
    for backend in simdcrypt.backends()["blake3"]["supported"]:
        assert simdcrypt.blake3_digest(memoryview(data), backend=backend, max_threads=4) == simdcrypt.blake3(data).digest()


# --- device-array parsing (no dereference) --------------------------------------------------


class FakeCAI:
    """Exposes a CUDA Array Interface dict; the pointer is never dereferenced here."""

    def __init__(self, **cai: Any) -> None:
        base: dict[str, Any] = {"shape": (4, 8), "typestr": "|u1", "data": (0x1000, False), "version": 3, "strides": None}
        base.update(cai)
        self.__cuda_array_interface__ = {k: v for k, v in base.items() if v is not _MISSING}


_MISSING = object()


# A stand-in for the backend's own stream handle (never 0: DLPack forbids it as ambiguous).
CONSUMER_STREAM = 0x5E


def view(obj: Any, writable: bool = False) -> Any:
    return _cuda.device_view(obj, "messages", writable, CONSUMER_STREAM)


def test_cai_valid() -> None:
    # No stream named: ordered after the legacy default stream (PyTorch's case).
    assert view(FakeCAI()) == (0x1000, (4, 8), _cuda.LEGACY_DEFAULT_STREAM, None)
    assert view(FakeCAI(strides=(8, 1))) == (0x1000, (4, 8), _cuda.LEGACY_DEFAULT_STREAM, None)
    assert view(FakeCAI(shape=(256,), strides=(1,), typestr="<i1", stream=7)) == (0x1000, (256,), 7, None)
    assert view(FakeCAI(typestr="|b1", version=2)) == (0x1000, (4, 8), _cuda.LEGACY_DEFAULT_STREAM, None)
    # Strides of dimensions of length 1 or 0 do not matter.
    assert view(FakeCAI(shape=(1, 8), strides=(999, 1))) == (0x1000, (1, 8), _cuda.LEGACY_DEFAULT_STREAM, None)
    assert view(FakeCAI(shape=(0, 8), data=(0, False))) == (0, (0, 8), _cuda.LEGACY_DEFAULT_STREAM, None)
    assert view(FakeCAI(data=(0x2000, True))) == (0x2000, (4, 8), _cuda.LEGACY_DEFAULT_STREAM, None)  # read-only input is fine


@pytest.mark.parametrize(
    ("cai", "message"),
    [
        ({"typestr": "<f4"}, "1-byte items"),
        ({"typestr": "<u2"}, "1-byte items"),
        ({"typestr": "|O8"}, "1-byte items"),
        ({"typestr": 3}, "1-byte items"),
        ({"strides": (1, 4)}, "C-contiguous"),
        ({"strides": (16, 1)}, "C-contiguous"),
        ({"shape": (8,), "strides": (2,)}, "C-contiguous"),
        ({"strides": (8,)}, "C-contiguous"),
        ({"shape": (4, -1)}, "non-negative"),
        ({"shape": "4x8"}, "shape"),
        ({"data": 0x1000}, "'data'"),
        ({"data": (None, False)}, "'data'"),
        ({"data": (0, False)}, "null data pointer"),
        ({"stream": 0}, "'stream'"),
        ({"stream": True}, "'stream'"),
        ({"stream": -5}, "'stream'"),
        ({"mask": object()}, "masked"),
        ({"version": 1}, "version"),
        ({"shape": _MISSING}, "lacks the key 'shape'"),
        ({"typestr": _MISSING}, "lacks the key 'typestr'"),
        ({"data": _MISSING}, "lacks the key 'data'"),
        ({"version": _MISSING}, "lacks the key 'version'"),
    ],
)
def test_cai_refused(cai: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        view(FakeCAI(**cai))


def test_cai_read_only_out_refused() -> None:
    with pytest.raises(ValueError, match="read-only"):
        view(FakeCAI(data=(0x1000, True)), writable=True)


def test_cai_not_a_dict() -> None:
    class Odd:
        __cuda_array_interface__ = [("shape", (1,))]

    with pytest.raises(ValueError, match="must be a dict"):
        view(Odd())


class FakeDLPack:
    def __init__(self, device: tuple[int, int], array: Any = None) -> None:
        self.device = device
        self.array = array
        self.streams: list[Any] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device

    def __dlpack__(self, *, stream: Any = None) -> Any:
        self.streams.append(stream)
        return self.array.__dlpack__()


def test_dlpack_host_arrays_are_host_inputs() -> None:
    assert view(np.zeros((2, 3), dtype=np.uint8)) is None  # numpy: kDLCPU
    assert view(FakeDLPack((1, 0))) is None
    assert view(FakeDLPack((3, 0))) is None  # kDLCUDAHost: pinned host memory
    assert view(b"abc") is None and view(bytearray(3)) is None and view([b"a"]) is None


@pytest.mark.parametrize(("device", "message"), [((10, 0), "not CUDA"), ((4, 0), "not CUDA"), ((2, 1), "device 1")])
def test_dlpack_other_devices_refused(device: tuple[int, int], message: str) -> None:
    fake = FakeDLPack(device, np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError, match=message):
        view(fake)
    assert fake.streams == []  # refused before asking for the capsule


def test_dlpack_capsule_of_a_host_tensor_is_refused_after_parsing() -> None:
    # A producer claiming CUDA but exporting a CPU tensor: the tensor's own device decides.
    fake = FakeDLPack((2, 0), np.zeros((2, 4), dtype=np.uint8))
    with pytest.raises(ValueError, match="not CUDA device 0"):
        view(fake)
    assert fake.streams == [CONSUMER_STREAM]  # the backend's stream was offered as the consumer's


def _capsule_name_is(capsule: Any, name: bytes) -> bool:
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    is_valid.restype = ctypes.c_int
    return bool(is_valid(capsule, name))


def test_parse_capsule_reads_the_tensor_and_releases_it() -> None:
    array = np.arange(24, dtype=np.uint8).reshape(4, 6)
    capsule = array.__dlpack__()
    device_type, device_id, data, shape, release = _cuda.parse_capsule(capsule)
    assert (device_type, device_id, shape) == (1, 0, (4, 6))
    assert data == array.ctypes.data
    assert _capsule_name_is(capsule, b"dltensor")
    release()
    assert _capsule_name_is(capsule, b"used_dltensor")  # consumed, deleter called
    release()  # once only
    with pytest.raises(ValueError, match="unused 'dltensor' capsule"):
        _cuda.parse_capsule(capsule)
    del capsule  # the producer's destructor leaves a used capsule alone


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: np.zeros(4, dtype=np.float32), "1-byte items"),
        (lambda: np.zeros(4, dtype=np.uint16), "1-byte items"),
        (lambda: np.zeros((4, 4), dtype=np.uint8)[:, ::2], "C-contiguous"),
        (lambda: np.zeros((4, 4), dtype=np.uint8).T, "C-contiguous"),
    ],
)
def test_parse_capsule_refuses(make: Callable[[], Any], message: str) -> None:
    capsule = make().__dlpack__()
    with pytest.raises(ValueError, match=message):
        _cuda.parse_capsule(capsule)
    # Not consumed: the producer's destructor frees it.
    assert _capsule_name_is(capsule, b"dltensor")


def test_parse_capsule_accepts_other_one_byte_types() -> None:
    for dtype in (np.int8, np.bool_):
        capsule = np.zeros((3, 5), dtype=dtype).__dlpack__()
        _, _, _, shape, release = _cuda.parse_capsule(capsule)
        assert shape == (3, 5)
        release()


def test_parse_capsule_refuses_non_capsules() -> None:
    with pytest.raises(ValueError, match="capsule"):
        _cuda.parse_capsule(object())


# --- on a GPU (CuPy or PyTorch) ----------------------------------------------------------


def _cupy() -> Any:
    try:
        import cupy  # type: ignore[import-not-found]

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return cupy
    except Exception:
        pass
    return None


def _torch() -> Any:
    try:
        import torch  # type: ignore[import-not-found]

        if torch.cuda.is_available():
            return torch
    except Exception:
        pass
    return None


gpu = pytest.mark.skipif(not AVAILABLE, reason="no usable GPU (backends()['cuda']['reason'])")


@gpu
@pytest.mark.parametrize(("name", "digest_len", "cpu", "cuda"), CUDA_BATCHES, ids=[b[0] for b in CUDA_BATCHES])
@pytest.mark.parametrize("length", [0, 1, 31, 32, 63, 64, 65, 1023, 1024, 1025, 4096, 10_000])
def test_host_batches_match_the_cpu(name: str, digest_len: int, cpu: Any, cuda: Any, length: int) -> None:
    rows = random_rows(37, length, length)
    assert cuda(rows) == cpu(rows)
    varied = [bytes(rows[i, : (i * 97) % (length + 1)]) for i in range(37)]
    assert cuda(varied) == cpu(varied)
    assert cuda([]) == b""


@gpu
@pytest.mark.parametrize(("name", "digest_len", "cpu", "cuda"), CUDA_BATCHES, ids=[b[0] for b in CUDA_BATCHES])
def test_device_batches_match_the_cpu(name: str, digest_len: int, cpu: Any, cuda: Any) -> None:
    libs = [lib for lib in (_cupy(), _torch()) if lib is not None]
    if not libs:
        pytest.skip("neither CuPy nor PyTorch with CUDA")
    for length in (0, 1, 64, 1000, 1024, 3000):
        rows = random_rows(50, length, 100 + length)
        expected = cpu(rows)
        for lib in libs:
            if lib.__name__ == "cupy":
                dev = lib.asarray(rows)
                out = lib.zeros(50 * digest_len, dtype=lib.uint8)
                stream = lib.cuda.Stream(non_blocking=True)
                with stream:
                    dev_s = lib.asarray(rows)  # written on a non-default stream: CAI 'stream' honoured
                    assert cuda(dev_s) == expected
                assert cuda(dev) == expected
                assert cuda(dev, out=out) is out
                assert bytes(lib.asnumpy(out)) == expected
            else:
                dev = lib.from_numpy(rows).cuda()
                out = lib.zeros(50 * digest_len, dtype=lib.uint8, device="cuda")
                assert cuda(dev) == expected  # PyTorch exposes both; CAI is read first
                assert cuda(DLPackOnly(dev)) == expected
                assert cuda(dev, out=DLPackOnly(out)) is not None
                assert bytes(out.cpu().numpy()) == expected
    # Wrong out= sizes and non-contiguous device arrays are errors, not crashes.
    lib = libs[0]
    rows = random_rows(4, 64, 1)
    if lib.__name__ == "cupy":
        dev, small = lib.asarray(rows), lib.zeros(4 * digest_len - 1, dtype=lib.uint8)
        with pytest.raises(ValueError, match="must be a 2-D array"):
            cuda(lib.asarray(rows[0]))
        with pytest.raises(ValueError, match="C-contiguous"):
            cuda(lib.asarray(random_rows(4, 64, 2))[:, ::2])
    else:
        dev, small = lib.from_numpy(rows).cuda(), lib.zeros(4 * digest_len - 1, dtype=lib.uint8, device="cuda")
    with pytest.raises(ValueError, match="exactly"):
        cuda(dev, out=small)


class DLPackOnly:
    """Hides everything of a tensor but DLPack."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def __dlpack__(self, *, stream: Any = None) -> Any:
        return self.tensor.__dlpack__(stream=stream)

    def __dlpack_device__(self) -> Any:
        return self.tensor.__dlpack_device__()


@gpu
@pytest.mark.parametrize("blocks", [0, 1, 2, 63, 1000, 65_537])
def test_sha256_many_matches_the_cpu(blocks: int) -> None:
    data = random_rows(1, 64 * blocks, blocks).tobytes()
    expected = simdcrypt.sha256_many(data)
    assert simdcrypt.sha256_many(data, backend="cuda") == expected
    for lib in (lib for lib in (_cupy(), _torch()) if lib is not None):
        if lib.__name__ == "cupy":
            flat = lib.frombuffer(data, dtype=lib.uint8) if blocks else lib.zeros(0, dtype=lib.uint8)
            out = lib.zeros(32 * blocks, dtype=lib.uint8)
            assert simdcrypt.sha256_many(flat, backend="cuda") == expected
            assert simdcrypt.sha256_many(flat.reshape(blocks, 64), backend="cuda") == expected
            simdcrypt.sha256_many(flat, backend="cuda", out=out)
            assert bytes(lib.asnumpy(out)) == expected
        else:
            t = lib.frombuffer(bytearray(data), dtype=lib.uint8).cuda() if blocks else lib.zeros(0, dtype=lib.uint8).cuda()
            assert simdcrypt.sha256_many(t, backend="cuda") == expected
    with pytest.raises(ValueError, match="multiple of 64"):
        simdcrypt.sha256_many(bytes(65), backend="cuda")


@gpu
@pytest.mark.parametrize("leaves", [0, 1, 2, 3, 1000, 4097])
@pytest.mark.parametrize("depth", [None, 13, 40])
def test_merkle_root_matches_the_cpu(leaves: int, depth: int | None) -> None:
    data = random_rows(1, 32 * leaves, leaves).tobytes()
    expected = simdcrypt.merkle_root(data, depth=depth)
    assert simdcrypt.merkle_root(data, depth=depth, backend="cuda") == expected
    cupy = _cupy()
    if cupy is not None and leaves:
        assert simdcrypt.merkle_root(cupy.frombuffer(data, dtype=cupy.uint8).reshape(leaves, 32), depth=depth, backend="cuda") == expected
    with pytest.raises(ValueError):
        simdcrypt.merkle_root(bytes(32 * 5), depth=2, backend="cuda")


@gpu
@pytest.mark.parametrize("size", [0, 1, 1024, 1025, 2048, 1 << 20, (1 << 20) + 1, 5_000_003])
def test_blake3_digest_on_the_gpu(size: int) -> None:
    data = random_rows(1, size, size).tobytes()
    for kwargs in ({}, {"length": 131}, {"key": bytes(range(32))}, {"derive_key_context": "ctx"}):
        hasher = simdcrypt.blake3(data, key=kwargs.get("key"), derive_key_context=kwargs.get("derive_key_context"))
        expected = hasher.digest(kwargs.get("length", 32))
        assert simdcrypt.blake3_digest(data, backend="cuda", **kwargs) == expected, kwargs
        cupy = _cupy()
        if cupy is not None and size:
            assert simdcrypt.blake3_digest(cupy.frombuffer(data, dtype=cupy.uint8), backend="cuda", **kwargs) == expected


@gpu
def test_device_memory_checks() -> None:
    cupy = _cupy()
    if cupy is None:
        pytest.skip("CuPy absent")
    a = cupy.zeros((4, 64), dtype=cupy.uint8)
    # A CAI that claims more bytes than the allocation holds: refused by the driver check.
    class Liar:
        __cuda_array_interface__ = dict(a.__cuda_array_interface__, shape=(4, 1 << 30))

    with pytest.raises(ValueError, match="run past the end of their CUDA memory"):
        simdcrypt.streebog_many(Liar(), backend="cuda")
    host = np.zeros((4, 64), dtype=np.uint8)

    class HostLiar:
        __cuda_array_interface__ = {"shape": (4, 64), "typestr": "|u1", "data": (host.ctypes.data, False), "version": 3}

    with pytest.raises(ValueError, match="not CUDA device memory"):
        simdcrypt.streebog_many(HostLiar(), backend="cuda")


@gpu
def test_torch_expandable_segments_tensor() -> None:
    # PyTorch's expandable_segments allocator maps a tensor's pages from several physical
    # allocations into one stretch of addresses: each is its own range to the driver, and the
    # range check must walk them (driver.rs, check_covered). The allocator's setting only
    # takes effect before CUDA starts in a process, hence a process of its own.
    if _torch() is None:
        pytest.skip("PyTorch absent")
    code = (
        "import torch, simdcrypt\n"
        "keep = [torch.empty(30 << 20, dtype=torch.uint8, device='cuda') for _ in range(3)]\n"
        "t = torch.randint(0, 256, (3 << 20, 64), dtype=torch.uint8, device='cuda')\n"
        "expected = simdcrypt.blake3_many(t.cpu().numpy())\n"
        "assert simdcrypt.blake3_many(t, backend='cuda') == expected\n"
        "assert simdcrypt.blake3_many(t[1000:], backend='cuda') == expected[32 * 1000:]\n"
        "stats = torch.cuda.memory_stats()\n"
        "print('segments', stats.get('segment.all.current'), 'reserved', torch.cuda.memory_reserved())\n"
    )
    env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-3000:]
    print(result.stdout)
