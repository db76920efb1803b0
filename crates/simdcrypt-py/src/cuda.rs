//! `backend="cuda"`: the batch functions on the GPU (the library's `cuda` module), for host
//! inputs (copied to the GPU) and for arrays already there (CuPy, PyTorch, ... through the
//! CUDA Array Interface or DLPack, read by python/simdcrypt/_cuda.py), with `out=` device
//! arrays that keep the digests on the GPU.
//!
//! Order of checks, the same in every function: the arguments the CPU path checks too,
//! then whether a GPU is usable (a ValueError with the backend's reason if not), then the
//! arrays (protocol, item size, contiguity, device, size), then the driver's own check
//! that every device range lies inside one allocation of device 0 — so no address or size
//! from a caller reaches a kernel unchecked.

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use simdcrypt::cuda::{self as gpu, Cuda, Device as _, DeviceBuffer as _, DevicePtr};

use crate::args;

/// Whether `backend=` asks for the GPU.
pub(crate) fn is_cuda(backend: Option<&str>) -> bool {
    backend.is_some_and(|b| b.eq_ignore_ascii_case("cuda"))
}

/// The device, or a ValueError saying why there is none.
pub(crate) fn device() -> PyResult<&'static Cuda> {
    Cuda::get().map_err(args::value_error)
}

/// `out=` without `backend="cuda"`.
pub(crate) fn out_needs_cuda() -> PyErr {
    PyValueError::new_err("out= is only accepted with backend=\"cuda\" (a CUDA device array to write the digests into)")
}

/// An array on the GPU, as python/simdcrypt/_cuda.py read it; its DLPack capsule (if any)
/// is released when this drops, after the work on it has finished.
pub(crate) struct DeviceArray<'py> {
    pub(crate) ptr: DevicePtr,
    pub(crate) shape: Vec<usize>,
    pub(crate) len: usize,
    release: Option<Bound<'py, PyAny>>,
}

impl Drop for DeviceArray<'_> {
    fn drop(&mut self) {
        if let Some(release) = self.release.take() {
            // Nothing useful can be done with an error from the producer's deleter.
            let _ = release.call0();
        }
    }
}

/// `obj` as a device array (checked against the driver), or None for a host object.
pub(crate) fn device_array<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    writable: bool,
    dev: &Cuda,
) -> PyResult<Option<DeviceArray<'py>>> {
    let py = obj.py();
    let module = py.import("simdcrypt._cuda")?;
    let view = module.call_method1("device_view", (obj, what, writable, dev.stream_handle()))?;
    if view.is_none() {
        return Ok(None);
    }
    let (ptr, shape, stream, release): (u64, Vec<usize>, Option<u64>, Option<Bound<'py, PyAny>>) = view.extract()?;
    let release = release.filter(|r| !r.is_none());
    let len = shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| PyValueError::new_err(format!("{what}: shape {shape:?} is too large")))?;
    let array = DeviceArray { ptr, shape, len, release };
    dev.check_range(array.ptr, array.len).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
    if let Some(stream) = stream {
        // SAFETY: the CUDA Array Interface says `stream` is a live stream of the producer
        // (or 1/2, the default streams) on the array's device, which check_range found to
        // be device 0, in the process's primary context.
        unsafe { dev.wait_for_stream(stream) }.map_err(args::value_error)?;
    }
    Ok(Some(array))
}

/// `out=` for `len` bytes of digests: a writable device array of exactly that many bytes.
fn out_array<'py>(out: &Bound<'py, PyAny>, len: usize, dev: &Cuda) -> PyResult<DeviceArray<'py>> {
    let array = device_array(out, "out", true, dev)?.ok_or_else(|| {
        PyValueError::new_err(
            "out= must be a CUDA device array (__cuda_array_interface__ or DLPack on a CUDA device) of uint8",
        )
    })?;
    if array.len != len {
        return Err(PyValueError::new_err(format!(
            "out= must hold exactly {len} bytes (the digests), got {} bytes (shape {:?})",
            array.len, array.shape
        )));
    }
    Ok(array)
}

/// `n` messages of `len` bytes each, back to back: the offsets the `*_device` functions take.
fn equal_offsets(n: usize, len: usize) -> PyResult<Vec<u64>> {
    let mut offsets = Vec::new();
    offsets
        .try_reserve_exact(n + 1)
        .map_err(|_| PyMemoryError::new_err(format!("cannot allocate the offsets of {n} messages")))?;
    offsets.extend((0..=n).map(|i| (i * len) as u64));
    Ok(offsets)
}

/// Runs `run(out_ptr)` writing `len` bytes of results on the device, into `out` if given
/// (then returns `out`), else into a device buffer copied back to a new `bytes`.
fn into_out<'py>(
    py: Python<'py>,
    dev: &'static Cuda,
    out: Option<&Bound<'py, PyAny>>,
    len: usize,
    work: usize,
    run: impl Fn(DevicePtr) -> Result<(), simdcrypt::Error> + Send + Sync,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(out) = out {
        let array = out_array(out, len, dev)?;
        if len > 0 {
            let ptr = array.ptr;
            args::detach_if_long(py, work, || run(ptr).and_then(|()| dev.synchronize())).map_err(args::value_error)?;
        }
        drop(array);
        return Ok(out.clone());
    }
    if len == 0 {
        return Ok(PyBytes::new(py, b"").into_any());
    }
    let buffer = dev.alloc(len).map_err(args::value_error)?;
    let bytes = crate::buffer::new_bytes(py, len, |host| {
        args::detach_if_long(py, work, || run(buffer.ptr()).and_then(|()| dev.download(&buffer, 0, host)))
            .map_err(args::value_error)
    })?;
    Ok(bytes.into_any())
}

/// The body of the `*_many` functions with `backend="cuda"`: `messages` on the device (a
/// 2-D C-contiguous array of 1-byte items, one message per row) go to `on_device(data,
/// offsets, out)`; anything else is held as on the CPU path and goes to `on_host(messages,
/// out)`; digests of `digest_len` bytes each, into `out` or a new `bytes`.
pub(crate) fn many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    digest_len: usize,
    out: Option<&Bound<'py, PyAny>>,
    on_host: impl Fn(&Cuda, &[&[u8]], &mut [u8]) -> Result<(), simdcrypt::Error> + Send + Sync,
    on_device: impl Fn(&Cuda, DevicePtr, &[u64], DevicePtr) -> Result<(), simdcrypt::Error> + Send + Sync,
) -> PyResult<Bound<'py, PyAny>> {
    let dev = device()?;
    if let Some(input) = device_array(messages, "messages", false, dev)? {
        let (n, len) = match input.shape[..] {
            [n, len] => (n, len),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "messages on the GPU must be a 2-D array, one message per row, got shape {:?}",
                    input.shape
                )))
            }
        };
        let total = n
            .checked_mul(digest_len)
            .filter(|&t| t <= isize::MAX as usize)
            .ok_or_else(|| PyMemoryError::new_err(format!("cannot allocate {n} digests of {digest_len} bytes")))?;
        let offsets = equal_offsets(n, len)?;
        let data = input.ptr;
        let result = into_out(py, dev, out, total, input.len.saturating_add(total), |out_ptr| {
            if n == 0 {
                return Ok(());
            }
            on_device(dev, data, &offsets, out_ptr)
        });
        drop(input);
        return result;
    }
    match out {
        None => Ok(crate::batch::hash_batch(py, messages, digest_len, |m, o| on_host(dev, m, o))?.into_any()),
        Some(out) => {
            // Host messages, digests kept on the GPU: hashed into host memory, then copied.
            let digests = crate::batch::hash_batch(py, messages, digest_len, |m, o| on_host(dev, m, o))?;
            let array = out_array(out, digests.as_bytes().len(), dev)?;
            // SAFETY: check_range found `array` to be device memory of that many bytes, and
            // it was declared writable.
            unsafe { dev.copy_to_device(array.ptr, digests.as_bytes()) }.map_err(args::value_error)?;
            drop(array);
            Ok(out.clone())
        }
    }
}

/// `sha256_many(blocks, backend="cuda")`: blocks on the device (any C-contiguous array of
/// 1-byte items, n × 64 bytes) or on the host.
pub(crate) fn sha256_many<'py>(
    py: Python<'py>,
    blocks: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    use simdcrypt::sha256::{BLOCK_LEN, OUT_LEN};
    let dev = device()?;
    let whole = |len: usize| {
        if len.is_multiple_of(BLOCK_LEN) {
            Ok(len / BLOCK_LEN)
        } else {
            Err(PyValueError::new_err(format!(
                "blocks must be a whole number of {BLOCK_LEN}-byte blocks (its length a multiple of 64), got {len} bytes"
            )))
        }
    };
    if let Some(input) = device_array(blocks, "blocks", false, dev)? {
        let count = whole(input.len)?;
        let data = input.ptr;
        let result = into_out(py, dev, out, count * OUT_LEN, input.len, |out_ptr| {
            // SAFETY: check_range found `count * 64` readable bytes at `data` and the output
            // range (`out` or our own buffer) holds `count * 32`.
            unsafe { gpu::sha256_blocks_device(dev, data, count as u64, out_ptr) }
        });
        drop(input);
        return result;
    }
    let digests = crate::buffer::with_bytes(blocks, |data| {
        let count = whole(data.len())?;
        crate::buffer::new_bytes(py, count * OUT_LEN, |o| {
            args::detach_if_long(py, data.len(), || gpu::sha256_blocks(dev, data, o)).map_err(args::value_error)
        })
    })??;
    match out {
        None => Ok(digests.into_any()),
        Some(out) => {
            let array = out_array(out, digests.as_bytes().len(), dev)?;
            // SAFETY: as in `many`.
            unsafe { dev.copy_to_device(array.ptr, digests.as_bytes()) }.map_err(args::value_error)?;
            drop(array);
            Ok(out.clone())
        }
    }
}

/// `merkle_root(leaves, backend="cuda")`: leaves on the device (n × 32 bytes, any
/// C-contiguous array of 1-byte items) or on the host; the root comes back as bytes.
pub(crate) fn merkle_root<'py>(
    py: Python<'py>,
    leaves: &Bound<'py, PyAny>,
    depth: Option<u32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let dev = device()?;
    let whole = |len: usize| {
        if len.is_multiple_of(32) {
            Ok(len / 32)
        } else {
            Err(PyValueError::new_err(format!(
                "leaves must be a whole number of 32-byte leaves (its length a multiple of 32), got {len} bytes"
            )))
        }
    };
    let root = if let Some(input) = device_array(leaves, "leaves", false, dev)? {
        let count = whole(input.len)?;
        let data = input.ptr;
        // SAFETY: check_range found `count * 32` readable bytes at `data`.
        let root = args::detach_if_long(py, input.len, || unsafe { gpu::merkle_root_device(dev, data, count as u64, depth) });
        drop(input);
        root.map_err(args::value_error)?
    } else {
        crate::buffer::with_bytes(leaves, |data| {
            whole(data.len())?;
            args::detach_if_long(py, data.len(), || gpu::merkle_root(dev, data, depth)).map_err(args::value_error)
        })??
    };
    Ok(PyBytes::new(py, &root))
}

/// `blake3_digest(data, backend="cuda")`: one input on the device (any C-contiguous array
/// of 1-byte items) or on the host, hashed on the GPU.
pub(crate) fn blake3_digest<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    mode: simdcrypt::blake3::Mode<'_>,
    out_len: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let dev = device()?;
    let digest = if let Some(input) = device_array(data, "data", false, dev)? {
        let (ptr, len) = (input.ptr, input.len);
        // SAFETY: check_range found `len` readable bytes at `ptr`.
        let digest =
            args::detach_if_long(py, len, || unsafe { gpu::blake3_hash_device(dev, ptr, len as u64, mode, out_len) });
        drop(input);
        digest.map_err(args::value_error)?
    } else {
        crate::buffer::with_bytes(data, |bytes| {
            args::detach_if_long(py, bytes.len(), || gpu::blake3_hash(dev, bytes, mode, out_len))
                .map_err(args::value_error)
        })??
    };
    Ok(PyBytes::new(py, &digest))
}

/// The `"cuda"` entry of `backends()`: `selected`/`supported` as for the CPU kernel sets
/// ("cuda" and ["cuda"] when usable, "" and [] when not), plus `available`, `reason`,
/// `device`, `verified` and `note`.
pub(crate) fn backends_entry(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let entry = PyDict::new(py);
    let status = gpu::status();
    let available = status.is_ok();
    entry.set_item("selected", if available { "cuda" } else { "" })?;
    entry.set_item("supported", if available { vec!["cuda"] } else { Vec::new() })?;
    entry.set_item("available", available)?;
    match status {
        Ok(info) => {
            entry.set_item("reason", py.None())?;
            entry.set_item("device", info.to_string())?;
        }
        Err(simdcrypt::Error::Unavailable { reason, .. }) => {
            entry.set_item("reason", reason)?;
            entry.set_item("device", py.None())?;
        }
        Err(other) => {
            entry.set_item("reason", other.to_string())?;
            entry.set_item("device", py.None())?;
        }
    }
    entry.set_item("verified", gpu::VERIFIED_ON_GPU)?;
    entry.set_item("note", gpu::VERIFICATION_NOTE)?;
    entry.set_item(
        "functions",
        vec!["streebog_many", "gost94_many", "sha256_many", "merkle_root", "blake3_many", "blake3_digest"],
    )?;
    Ok(entry)
}
