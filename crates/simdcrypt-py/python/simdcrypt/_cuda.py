"""Inputs and outputs already on the GPU, for ``backend="cuda"``.

Imported by the native module only when a ``backend="cuda"`` call is made, never by
``import simdcrypt``. Two protocols are read, without importing CuPy or PyTorch:

- the CUDA Array Interface (``__cuda_array_interface__``, versions 2 and 3): CuPy, Numba,
  PyTorch, JAX...;
- DLPack (``__dlpack__`` with ``__dlpack_device__``): PyTorch, CuPy, JAX...

Either way the array must be C-contiguous, of 1-byte items (uint8, int8, bool), on CUDA
device 0.

Stream order. Our work runs on a stream of our own, created non-blocking: it waits for no
other stream unless told to. An array whose contents are still being written by its
producer (a ``torch.zeros`` queued on PyTorch's stream, say) must be waited for, and so must
an ``out=`` array still being filled, or the producer's write lands after our digests.
So DLPack comes first when an object offers both protocols: ``__dlpack__(stream=ours)`` asks
the producer to make our stream wait for its pending work on the array, whatever stream
that is (PyTorch exports no stream in its CUDA Array Interface). Through the CUDA Array
Interface, a ``stream`` entry is waited for (1: the legacy default stream, 2: the per-thread
one, else a ``CUstream``); an interface without one (version 2, or ``None``) is taken to mean
the legacy default stream, which our stream is then ordered after: the specification lets
a producer say "no synchronization needed" with ``None``, but the cost of one event is
small and a producer that queued its work on the legacy stream without saying so is the
common case. :func:`device_view` checks what the protocol says; the native side then checks
with the driver that the whole range is memory of that device before any kernel reads or
writes it, so a wrong pointer or size is a ValueError, not a crash.
"""

from __future__ import annotations

import ctypes
import glob
import math
import os
import sys
from typing import Any, Callable, Optional, Tuple

__all__ = ["device_view", "is_device_array", "preload_nvrtc"]

_preloaded: Optional[Tuple[Optional[str]]] = None


def preload_nvrtc() -> Optional[str]:
    """Makes a pip-installed NVRTC (the ``nvidia-cuda-nvrtc`` wheel, whose
    ``libnvrtc.so.13`` lands in ``site-packages/nvidia/cu13/lib``, not on the loader's path)
    visible to the runtime, which opens ``libnvrtc.so.13`` by name: loaded here by its full
    path first, the name then finds it. Does nothing when the loader already finds NVRTC.
    Returns the path loaded, or None. Called once, by the native module, before the first
    look at the GPU (backends(), backend="cuda"); never at import."""
    global _preloaded
    if _preloaded is not None:
        return _preloaded[0]
    path: Optional[str] = None
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libnvrtc.so.13")
        except OSError:
            path = _load_pip_nvrtc()
    _preloaded = (path,)
    return path


def _load_pip_nvrtc() -> Optional[str]:
    try:
        import importlib.util

        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        for lib in (os.path.join(base, "cu13", "lib"), os.path.join(base, "cuda_nvrtc", "lib")):
            nvrtc = os.path.join(lib, "libnvrtc.so.13")
            if not os.path.exists(nvrtc):
                continue
            try:
                # NVRTC opens its builtins library by name when it compiles: load it first.
                for builtins in sorted(glob.glob(os.path.join(lib, "libnvrtc-builtins.so.13*"))):
                    if ".alt." not in builtins:
                        ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
                ctypes.CDLL(nvrtc, mode=ctypes.RTLD_GLOBAL)
            except OSError:
                continue
            return nvrtc
    return None

# DLPack device types (dlpack.h).
KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13

# CUDA Array Interface / DLPack stream numbers (0 is forbidden by both: it is ambiguous).
LEGACY_DEFAULT_STREAM = 1
PER_THREAD_DEFAULT_STREAM = 2

# What device_view returns: (address, shape, producer stream to wait for or None,
# a function to call once the GPU work is done, or None).
View = Tuple[int, Tuple[int, ...], Optional[int], Optional[Callable[[], None]]]


def is_device_array(obj: Any) -> bool:
    """Whether ``obj`` says it lives in CUDA device memory (CAI, or DLPack on kDLCUDA)."""
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        try:
            device_type = int(obj.__dlpack_device__()[0])
        except Exception:
            return False
        return device_type in (KDL_CUDA, KDL_CUDA_MANAGED)
    return False


def _c_contiguous(shape: Tuple[int, ...], strides: Tuple[int, ...]) -> bool:
    """Whether byte ``strides`` of 1-byte items describe a C-contiguous array (strides of
    dimensions of length 0 or 1 do not matter)."""
    if len(strides) != len(shape):
        return False
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n > 1 and s != expected:
            return False
        expected *= n
    return True


def _shape(values: Any, what: str) -> Tuple[int, ...]:
    if not isinstance(values, (tuple, list)):
        raise ValueError(f"{what}: shape must be a tuple of integers, got {values!r}")
    shape = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{what}: shape must be a tuple of non-negative integers, got {values!r}")
        shape.append(int(v))
    return tuple(shape)


def _from_cai(obj: Any, what: str, writable: bool) -> View:
    cai = obj.__cuda_array_interface__
    if not isinstance(cai, dict):
        raise ValueError(f"{what}: __cuda_array_interface__ must be a dict, got {type(cai).__name__}")
    for key in ("shape", "typestr", "data", "version"):
        if key not in cai:
            raise ValueError(f"{what}: __cuda_array_interface__ lacks the key {key!r}")
    version = cai["version"]
    if not isinstance(version, int) or version < 2:
        raise ValueError(f"{what}: __cuda_array_interface__ version {version!r} is not supported (2 or 3)")
    shape = _shape(cai["shape"], what)
    typestr = cai["typestr"]
    if not isinstance(typestr, str) or len(typestr) < 3 or typestr[1] not in "uibV" or typestr[2:] != "1":
        raise ValueError(f"{what}: the array must be of 1-byte items (typestr '|u1'), got typestr {typestr!r}")
    data = cai["data"]
    if not (isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], int) and data[0] >= 0):
        raise ValueError(f"{what}: __cuda_array_interface__ 'data' must be (pointer, read_only), got {data!r}")
    ptr, readonly = data
    if writable and readonly:
        raise ValueError(f"{what}: the array is read-only")
    strides = cai.get("strides")
    if strides is not None:
        if not isinstance(strides, (tuple, list)) or not all(isinstance(s, int) for s in strides):
            raise ValueError(f"{what}: strides must be None or a tuple of integers, got {strides!r}")
        if not _c_contiguous(shape, tuple(strides)):
            raise ValueError(f"{what}: the array must be C-contiguous, got strides {tuple(strides)} for shape {shape}")
    if cai.get("mask") is not None:
        raise ValueError(f"{what}: masked arrays are not supported")
    stream = cai.get("stream")
    if stream is None:
        # No stream named (version 2, or None): order after the legacy default stream, where
        # a producer that says nothing (PyTorch) has queued its work by default.
        stream = LEGACY_DEFAULT_STREAM
    elif isinstance(stream, bool) or not isinstance(stream, int) or stream <= 0:
        # The interface forbids 0 (ambiguous between the default streams).
        raise ValueError(f"{what}: __cuda_array_interface__ 'stream' must be None or a positive int, got {stream!r}")
    if ptr == 0 and math.prod(shape) != 0:
        raise ValueError(f"{what}: null data pointer for a non-empty array")
    return ptr, shape, stream, None


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]

# The capsule names of the DLPack protocol. PyCapsule_SetName keeps the pointer it is
# given, so the renamed name must live as long as the capsule: a module constant does.
_DLTENSOR = b"dltensor"
_USED_DLTENSOR = b"used_dltensor"

_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_is_valid.restype = ctypes.c_int
_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_set_name = ctypes.pythonapi.PyCapsule_SetName
_capsule_set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_set_name.restype = ctypes.c_int


def parse_capsule(capsule: Any, what: str = "array") -> Tuple[int, int, int, Tuple[int, ...], Callable[[], None]]:
    """Reads a ``"dltensor"`` capsule: (device type, device id, address, shape, release).

    Nothing is consumed until ``release()`` is called: it renames the capsule
    ``"used_dltensor"`` and calls the tensor's deleter, as the DLPack protocol asks of
    the consumer. If it is never called (an error before the work), the capsule keeps its
    name and the producer's capsule destructor frees the tensor.
    """
    if not _capsule_is_valid(capsule, _DLTENSOR):
        raise ValueError(f"{what}: __dlpack__() did not return an unused 'dltensor' capsule")
    address = _capsule_get_pointer(capsule, _DLTENSOR)
    if not address:
        raise ValueError(f"{what}: the DLPack capsule holds a null pointer")
    managed = _DLManagedTensor.from_address(address)
    tensor = managed.dl_tensor
    dtype = tensor.dtype
    if dtype.bits * dtype.lanes != 8 or dtype.code not in (0, 1, 6):
        raise ValueError(
            f"{what}: the array must be of 1-byte items (uint8, int8 or bool), got DLPack dtype "
            f"code {dtype.code}, {dtype.bits} bits x {dtype.lanes} lanes"
        )
    ndim = tensor.ndim
    if ndim < 0 or ndim > 64:
        raise ValueError(f"{what}: DLPack ndim {ndim} is out of range")
    shape = tuple(int(tensor.shape[i]) for i in range(ndim)) if ndim else ()
    if any(n < 0 for n in shape):
        raise ValueError(f"{what}: DLPack shape {shape} has a negative length")
    if tensor.strides:
        strides = tuple(int(tensor.strides[i]) for i in range(ndim))  # in items of 1 byte
        if not _c_contiguous(shape, strides):
            raise ValueError(f"{what}: the array must be C-contiguous, got strides {strides} for shape {shape}")
    data = (tensor.data or 0) + int(tensor.byte_offset)
    if data == 0 and math.prod(shape) != 0:
        raise ValueError(f"{what}: null data pointer for a non-empty array")
    released = False

    def release() -> None:
        nonlocal released
        if released:
            return
        released = True
        if _capsule_set_name(capsule, _USED_DLTENSOR) != 0:
            return
        deleter = _DLManagedTensor.from_address(address).deleter
        if deleter:
            deleter(ctypes.cast(address, ctypes.POINTER(_DLManagedTensor)))

    return int(tensor.device.device_type), int(tensor.device.device_id), data, shape, release


def _from_dlpack(obj: Any, what: str, writable: bool, stream: int, host_tensors: bool, fallback: bool) -> Optional[View]:
    device_type, device_id = (int(v) for v in obj.__dlpack_device__())
    if device_type not in (KDL_CUDA, KDL_CUDA_MANAGED):
        raise ValueError(f"{what}: DLPack device type {device_type} is not CUDA ({KDL_CUDA})")
    if device_id != 0:
        raise ValueError(f"{what}: the array is on CUDA device {device_id}; the cuda backend runs on device 0")
    # The consumer's stream: the producer makes it wait for the array's pending work.
    if stream <= 0:
        raise ValueError(f"{what}: internal error: stream {stream} cannot be passed to __dlpack__ (0 is ambiguous)")
    try:
        capsule = obj.__dlpack__(stream=stream)
    except TypeError:
        # A DLPack producer from before the `stream` argument: its CUDA Array Interface then
        # (`fallback`), or the error.
        if fallback:
            return None
        raise
    device_type, device_id, data, shape, release = parse_capsule(capsule, what)
    accepted = (KDL_CUDA, KDL_CUDA_MANAGED) + ((KDL_CPU,) if host_tensors else ())
    if device_type not in accepted or device_id != 0:
        raise ValueError(f"{what}: the DLPack tensor is on device ({device_type}, {device_id}), not CUDA device 0")
    # DLPack has no read-only flag before version 1.0; out= arrays are written in place.
    del writable
    return data, shape, None, release


def device_view(obj: Any, what: str, writable: bool, stream: int, host_tensors: bool = False) -> Optional[View]:
    """``obj`` as a device array: (address, shape, producer stream or None, release or
    None); or None if ``obj`` is not a device array (a host buffer, to be copied).

    ``stream`` is the backend's own stream handle (positive), given to DLPack producers
    as the consumer's stream; DLPack is preferred to the CUDA Array Interface for that
    reason. The CAI's ``stream`` (the legacy default stream when it names none) is
    returned for the native side to wait on.
    ``host_tensors``: accept a DLPack tensor on kDLCPU from an object that claims CUDA
    (only for the host emulation of the bindings' tests, where device memory is host
    memory).
    """
    has_cai = hasattr(obj, "__cuda_array_interface__")
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        device_type = int(obj.__dlpack_device__()[0])
        if device_type in (KDL_CPU, KDL_CUDA_HOST) and not has_cai:
            return None  # host memory: read through the buffer protocol
        if device_type not in (KDL_CPU, KDL_CUDA_HOST):
            view = _from_dlpack(obj, what, writable, stream, host_tensors, fallback=has_cai)
            if view is not None:
                return view
    if has_cai:
        return _from_cai(obj, what, writable)
    return None
