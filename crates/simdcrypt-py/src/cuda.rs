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
use simdcrypt::cuda::{self as gpu, Cuda, Device, DeviceBuffer as _, DevicePtr};
use simdcrypt::{blake3, gost94, streebog};

use crate::args;

/// Whether `backend=` asks for the GPU.
pub(crate) fn is_cuda(backend: Option<&str>) -> bool {
    backend.is_some_and(|b| b.eq_ignore_ascii_case("cuda"))
}

/// `out=` without `backend="cuda"`.
pub(crate) fn out_needs_cuda() -> PyErr {
    PyValueError::new_err("out= is only accepted with backend=\"cuda\" (a CUDA device array to write the digests into)")
}

/// What the bindings need from a device beyond [`Device`]: checks of caller-supplied
/// ranges, stream ordering with producers, and copies into caller-owned memory.
pub(crate) trait Gpu: Device<Buffer: Sync> + Sync + 'static {
    /// Whether DLPack tensors on the host (kDLCPU) count as device arrays: only in the
    /// host emulation, whose "device memory" is host memory.
    const HOST_TENSORS: bool;
    fn check_range(&self, ptr: DevicePtr, len: usize) -> Result<(), simdcrypt::Error>;
    /// # Safety
    /// `stream` must be a live stream of this device's context, or 1 or 2.
    unsafe fn wait_for_stream(&self, stream: u64) -> Result<(), simdcrypt::Error>;
    fn stream_handle(&self) -> u64;
    /// # Safety
    /// `[dst, dst + src.len())` must be writable memory of this device.
    unsafe fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<(), simdcrypt::Error>;
}

impl Gpu for Cuda {
    const HOST_TENSORS: bool = false;
    fn check_range(&self, ptr: DevicePtr, len: usize) -> Result<(), simdcrypt::Error> {
        Cuda::check_range(self, ptr, len)
    }
    unsafe fn wait_for_stream(&self, stream: u64) -> Result<(), simdcrypt::Error> {
        // SAFETY: the caller's contract.
        unsafe { Cuda::wait_for_stream(self, stream) }
    }
    fn stream_handle(&self) -> u64 {
        Cuda::stream_handle(self)
    }
    unsafe fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<(), simdcrypt::Error> {
        // SAFETY: the caller's contract.
        unsafe { Cuda::copy_to_device(self, dst, src) }
    }
}

/// The host emulation behind `backend="cuda"`, for the bindings' own tests: only in a build
/// with the `cuda-emulation` feature and only with SIMDCRYPT_CUDA_EMULATION=1 in the
/// environment. "Device arrays" are then host memory (numpy arrays behind fake CUDA Array
/// Interface or DLPack objects), which nothing can check: never in a release build.
#[cfg(feature = "cuda-emulation")]
impl Gpu for gpu::Emulated {
    const HOST_TENSORS: bool = true;
    fn check_range(&self, ptr: DevicePtr, len: usize) -> Result<(), simdcrypt::Error> {
        if ptr == 0 && len > 0 {
            return Err(simdcrypt::Error::InvalidArgument("a null address".into()));
        }
        Ok(())
    }
    unsafe fn wait_for_stream(&self, stream: u64) -> Result<(), simdcrypt::Error> {
        late::flush(stream);
        Ok(())
    }
    fn stream_handle(&self) -> u64 {
        late::OUR_STREAM
    }
    unsafe fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<(), simdcrypt::Error> {
        // SAFETY: the caller vouches for `dst` (host memory in the emulation).
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as usize as *mut u8, src.len()) };
        Ok(())
    }
}

#[cfg(feature = "cuda-emulation")]
static EMULATED: gpu::Emulated = gpu::Emulated;

/// Emulated streams whose copies complete late, for the tests of stream order
/// (test_cuda_emulated.py): a test queues writes to host memory "on a producer's stream";
/// they land only when something orders itself after that stream (our device's
/// `wait_for_stream`, or a DLPack producer asked to make our stream wait), or when the test
/// lets every stream finish. A consumer that forgets to order itself reads the old bytes, or
/// has its `out=` digests overwritten afterwards: the failure a GPU would show.
#[cfg(feature = "cuda-emulation")]
mod late {
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// The emulated device's own stream handle: any positive number (0 is forbidden by
    /// DLPack and the CUDA Array Interface).
    pub(super) const OUR_STREAM: u64 = 0x5C_5C;

    type Writes = Vec<(u64, Vec<u8>)>;
    static PENDING: Mutex<Option<HashMap<u64, Writes>>> = Mutex::new(None);

    pub(super) fn push(stream: u64, address: u64, data: Vec<u8>) {
        let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
        pending.get_or_insert_with(HashMap::new).entry(stream).or_default().push((address, data));
    }

    fn land(writes: Writes) {
        for (address, data) in writes {
            // SAFETY: test-only: the test that queued the write keeps `data.len()` bytes of
            // its own host memory at `address` alive until every stream is flushed
            // (test_cuda_emulated.py, `_emulation_flush_all` at the end of each test).
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), address as usize as *mut u8, data.len()) };
        }
    }

    /// The writes queued on `stream` land now, in the order they were queued.
    pub(super) fn flush(stream: u64) {
        let writes = PENDING.lock().unwrap_or_else(|p| p.into_inner()).as_mut().and_then(|m| m.remove(&stream));
        land(writes.unwrap_or_default());
    }

    /// Every stream's writes land.
    pub(super) fn flush_all() {
        let all = PENDING.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_default();
        for (_, writes) in all {
            land(writes);
        }
    }
}

/// Test-only (`cuda-emulation` builds): queues a write of `data` to the host address
/// `address` on the emulated producer stream `stream`; see `late`.
#[cfg(feature = "cuda-emulation")]
#[pyfunction]
pub(crate) fn _emulation_late_write(stream: u64, address: u64, data: Vec<u8>) -> PyResult<()> {
    if !emulation_requested() || stream == 0 || address == 0 {
        return Err(PyValueError::new_err("only under SIMDCRYPT_CUDA_EMULATION=1, with a non-zero stream and address"));
    }
    late::push(stream, address, data);
    Ok(())
}

/// Test-only: what a DLPack producer does when a consumer passes `__dlpack__(stream=consumer)`:
/// the consumer's stream waits for `producer`'s queued work (here: it lands). Refuses any
/// consumer stream but the emulated device's, so a test sees which stream was passed.
#[cfg(feature = "cuda-emulation")]
#[pyfunction]
pub(crate) fn _emulation_stream_wait(consumer: u64, producer: u64) -> PyResult<()> {
    if consumer != late::OUR_STREAM {
        return Err(PyValueError::new_err(format!(
            "__dlpack__ was given stream {consumer}, not the cuda backend's own ({})",
            late::OUR_STREAM
        )));
    }
    late::flush(producer);
    Ok(())
}

/// Test-only: every emulated producer stream finishes its queued writes.
#[cfg(feature = "cuda-emulation")]
#[pyfunction]
pub(crate) fn _emulation_flush_all() {
    late::flush_all();
}

/// Test-only: the `_emulation_*` functions, in `cuda-emulation` builds.
#[cfg(feature = "cuda-emulation")]
pub(crate) fn register_emulation(m: &Bound<'_, pyo3::types::PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_emulation_late_write, m)?)?;
    m.add_function(wrap_pyfunction!(_emulation_stream_wait, m)?)?;
    m.add_function(wrap_pyfunction!(_emulation_flush_all, m)?)?;
    Ok(())
}

#[cfg(feature = "cuda-emulation")]
fn emulation_requested() -> bool {
    static REQUESTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REQUESTED.get_or_init(|| std::env::var_os("SIMDCRYPT_CUDA_EMULATION").is_some_and(|v| v == "1"))
}

/// Before the first look at the GPU: lets the runtime find a pip-installed NVRTC
/// (python/simdcrypt/_cuda.py, `preload_nvrtc`). Errors are ignored: the status then says
/// what is missing.
pub(crate) fn preload_nvrtc(py: Python<'_>) {
    static DONE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        let _ = py.import("simdcrypt._cuda").and_then(|m| m.call_method0("preload_nvrtc"));
    });
}

/// Runs `$body` with `$dev` bound to the device of `backend="cuda"`: the GPU (a ValueError
/// saying why when there is none), or the host emulation when requested (tests only).
macro_rules! with_device {
    (|$py:ident, $dev:ident| $body:expr) => {{
        #[cfg(feature = "cuda-emulation")]
        {
            if emulation_requested() {
                let $dev: &'static gpu::Emulated = &EMULATED;
                return $body;
            }
        }
        preload_nvrtc($py);
        let $dev: &'static Cuda = Cuda::get().map_err(args::value_error)?;
        $body
    }};
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
pub(crate) fn device_array<'py, D: Gpu>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    writable: bool,
    dev: &D,
) -> PyResult<Option<DeviceArray<'py>>> {
    let py = obj.py();
    let module = py.import("simdcrypt._cuda")?;
    let view = module.call_method1("device_view", (obj, what, writable, dev.stream_handle(), D::HOST_TENSORS))?;
    if view.is_none() {
        return Ok(None);
    }
    let (ptr, shape, stream, release): (u64, Vec<usize>, Option<u64>, Option<Bound<'py, PyAny>>) = view.extract()?;
    let release = release.filter(|r| !r.is_none());
    let len = shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n)).filter(|&n| n <= isize::MAX as usize);
    // The capsule (if any) is released on every path from here on.
    let mut array = DeviceArray { ptr, shape, len: 0, release };
    array.len = len.ok_or_else(|| PyValueError::new_err(format!("{what}: shape {:?} is too large", array.shape)))?;
    dev.check_range(array.ptr, array.len).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
    if let Some(stream) = stream {
        // SAFETY: the CUDA Array Interface says `stream` is a live stream of the producer
        // (or 1/2, the default streams; _cuda.py puts 1 where the interface names none) on
        // the array's device, which check_range found to be device 0, in the process's
        // primary context.
        unsafe { dev.wait_for_stream(stream) }.map_err(args::value_error)?;
    }
    Ok(Some(array))
}

/// `out=` for `len` bytes of digests: a writable device array of exactly that many bytes.
fn out_array<'py, D: Gpu>(out: &Bound<'py, PyAny>, len: usize, dev: &D) -> PyResult<DeviceArray<'py>> {
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

/// Runs `run(out_ptr)` writing `len` bytes of results on the device, into `out` if given
/// (then returns `out`), else into a device buffer copied back to a new `bytes`.
fn into_out<'py, D: Gpu>(
    py: Python<'py>,
    dev: &'static D,
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

/// The batch kernels of the `*_many` functions.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Batch<'a> {
    Streebog(streebog::Bits),
    Gost94(gost94::SBox),
    /// The mode and the digest length.
    Blake3(blake3::Mode<'a>, usize),
}

impl Batch<'_> {
    fn digest_len(&self) -> usize {
        match *self {
            Batch::Streebog(bits) => bits.out_len(),
            Batch::Gost94(_) => gost94::OUT_LEN,
            Batch::Blake3(_, len) => len,
        }
    }

    fn host<D: Device>(&self, dev: &D, messages: &[&[u8]], out: &mut [u8]) -> Result<(), simdcrypt::Error> {
        match *self {
            Batch::Streebog(bits) => gpu::streebog_many(dev, messages, bits, out),
            Batch::Gost94(sbox) => gpu::gost94_many(dev, messages, sbox, out),
            Batch::Blake3(mode, len) => gpu::blake3_many(dev, messages, mode, len, out),
        }
    }

    /// # Safety
    /// As the library's `*_many_device`: `data` holds every message of `layout` readable and
    /// `out` `n * digest_len` writable bytes of the device.
    unsafe fn device<D: Device>(
        &self,
        dev: &D,
        data: DevicePtr,
        layout: gpu::Layout<'_>,
        out: DevicePtr,
    ) -> Result<(), simdcrypt::Error> {
        // SAFETY: the caller's contract.
        unsafe {
            match *self {
                Batch::Streebog(bits) => gpu::streebog_many_device(dev, data, layout, bits, out),
                Batch::Gost94(sbox) => gpu::gost94_many_device(dev, data, layout, sbox, out),
                Batch::Blake3(mode, len) => gpu::blake3_many_device(dev, data, layout, mode, len, out),
            }
        }
    }
}

/// The body of the `*_many` functions with `backend="cuda"`: `messages` on the device (a
/// 2-D C-contiguous array of 1-byte items, one message per row) or held as on the CPU path;
/// digests into `out` (returned) or a new `bytes`.
pub(crate) fn many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    batch: Batch<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    with_device!(|py, dev| many_on(py, dev, messages, out, batch))
}

fn many_on<'py, D: Gpu>(
    py: Python<'py>,
    dev: &'static D,
    messages: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    batch: Batch<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let digest_len = batch.digest_len();
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
        // The rows' offsets are written on the device: nothing per message crosses the bus.
        let layout = gpu::Layout::Rows { count: n as u64, len: len as u64 };
        let data = input.ptr;
        let result = into_out(py, dev, out, total, input.len.saturating_add(total), |out_ptr| {
            if n == 0 {
                return Ok(());
            }
            // SAFETY: `data` holds n * len readable bytes (checked against the device), and
            // `out_ptr` n * digest_len writable ones (out_array checked `out=`'s size, or our
            // own buffer of that size).
            unsafe { batch.device(dev, data, layout, out_ptr) }
        });
        drop(input);
        return result;
    }
    let digests = crate::batch::hash_batch(py, messages, digest_len, |m, o| batch.host(dev, m, o))?;
    host_digests_to(out, digests, dev)
}

/// Returns digests hashed from host input: as they are, or copied into the device array
/// `out` (which is returned) when the caller wants them kept on the GPU.
fn host_digests_to<'py, D: Gpu>(
    out: Option<&Bound<'py, PyAny>>,
    digests: Bound<'py, PyBytes>,
    dev: &'static D,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(out) = out else { return Ok(digests.into_any()) };
    let array = out_array(out, digests.as_bytes().len(), dev)?;
    // SAFETY: out_array found `array` to be writable device memory of that size.
    unsafe { dev.copy_to_device(array.ptr, digests.as_bytes()) }.map_err(args::value_error)?;
    drop(array);
    Ok(out.clone())
}

/// `sha256_many(blocks, backend="cuda")`: blocks on the device (any C-contiguous array of
/// 1-byte items, n × 64 bytes) or on the host.
pub(crate) fn sha256_many<'py>(
    py: Python<'py>,
    blocks: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    with_device!(|py, dev| sha256_many_on(py, dev, blocks, out))
}

fn whole(len: usize, unit: usize, what: &str) -> PyResult<usize> {
    if len.is_multiple_of(unit) {
        Ok(len / unit)
    } else {
        Err(PyValueError::new_err(format!(
            "{what} must be a whole number of {unit}-byte {what} (its length a multiple of {unit}), got {len} bytes"
        )))
    }
}

fn sha256_many_on<'py, D: Gpu>(
    py: Python<'py>,
    dev: &'static D,
    blocks: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    use simdcrypt::sha256::{BLOCK_LEN, OUT_LEN};
    if let Some(input) = device_array(blocks, "blocks", false, dev)? {
        let count = whole(input.len, BLOCK_LEN, "blocks")?;
        let data = input.ptr;
        let result = into_out(py, dev, out, count * OUT_LEN, input.len, |out_ptr| {
            if count == 0 {
                return Ok(());
            }
            // SAFETY: `count * 64` readable bytes at `data` (checked against the device);
            // the output range (`out` or our own buffer) holds `count * 32`.
            unsafe { gpu::sha256_blocks_device(dev, data, count as u64, out_ptr) }
        });
        drop(input);
        return result;
    }
    let digests = crate::buffer::with_bytes(blocks, |data| {
        let count = whole(data.len(), BLOCK_LEN, "blocks")?;
        crate::buffer::new_bytes(py, count * OUT_LEN, |o| {
            if count == 0 {
                return Ok(());
            }
            args::detach_if_long(py, data.len(), || gpu::sha256_blocks(dev, data, o)).map_err(args::value_error)
        })
    })??;
    host_digests_to(out, digests, dev)
}

/// `merkle_root(leaves, backend="cuda")`: leaves on the device (n × 32 bytes, any
/// C-contiguous array of 1-byte items) or on the host; the root comes back as bytes.
pub(crate) fn merkle_root<'py>(
    py: Python<'py>,
    leaves: &Bound<'py, PyAny>,
    depth: Option<u32>,
) -> PyResult<Bound<'py, PyBytes>> {
    with_device!(|py, dev| merkle_root_on(py, dev, leaves, depth))
}

fn merkle_root_on<'py, D: Gpu>(
    py: Python<'py>,
    dev: &'static D,
    leaves: &Bound<'py, PyAny>,
    depth: Option<u32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let root = if let Some(input) = device_array(leaves, "leaves", false, dev)? {
        let count = whole(input.len, 32, "leaves")?;
        let data = input.ptr;
        // SAFETY: `count * 32` readable bytes at `data` (checked against the device).
        let root =
            args::detach_if_long(py, input.len, || unsafe { gpu::merkle_root_device(dev, data, count as u64, depth) });
        drop(input);
        root.map_err(args::value_error)?
    } else {
        crate::buffer::with_bytes(leaves, |data| {
            whole(data.len(), 32, "leaves")?;
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
    mode: blake3::Mode<'_>,
    out_len: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    with_device!(|py, dev| blake3_digest_on(py, dev, data, mode, out_len))
}

fn blake3_digest_on<'py, D: Gpu>(
    py: Python<'py>,
    dev: &'static D,
    data: &Bound<'py, PyAny>,
    mode: blake3::Mode<'_>,
    out_len: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let digest = if let Some(input) = device_array(data, "data", false, dev)? {
        let (ptr, len) = (input.ptr, input.len);
        // SAFETY: `len` readable bytes at `ptr` (checked against the device).
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
    preload_nvrtc(py);
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
