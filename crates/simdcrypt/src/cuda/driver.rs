//! The CUDA driver as a [`Device`] (feature `cuda`): one process-wide context on device 0
//! with its own stream, buffers from the driver's allocator, and each kernel file compiled
//! by NVRTC to CUBIN for the device's own compute capability on first use.
//!
//! Everything CUDA is loaded at run time (cudarc's dynamic loading), and cudarc panics when
//! a library is missing, so [`status`] looks for the driver and NVRTC libraries before any
//! other call, and [`Cuda::get`] goes through it: without a GPU, driver or NVRTC every entry
//! point returns [`Error::Unavailable`] with the reason, and nothing is loaded twice.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    result as dres, sys, CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr as _,
    LaunchConfig, PinnedHostSlice, PushKernelArg,
};

use super::device::{sealed, Device, DeviceBuffer, DevicePtr};
use super::nvrtc::{self, Target};
use super::{embedded, DeviceInfo, Kernel, Module};
use crate::Error;

/// The backend's name in errors.
const BACKEND: &str = "cuda";

fn unavailable(reason: impl Into<String>) -> Error {
    Error::Unavailable { backend: BACKEND, reason: reason.into() }
}

/// A driver failure during work: what failed and the driver's error name.
pub(crate) fn device_error(what: &str, err: dres::DriverError) -> Error {
    let name = err.error_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{err:?}"));
    let text = err.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if text.is_empty() {
        Error::Device(format!("{what}: {name}"))
    } else {
        Error::Device(format!("{what}: {name} ({text})"))
    }
}

/// Whether the CUDA driver library (libcuda.so.1 / nvcuda.dll) can be loaded.
fn driver_library_present() -> bool {
    // SAFETY: only tries to open the library by its usual names (dlopen / dlclose).
    unsafe { sys::is_culib_present() }
}

/// The version of the NVRTC library that can be loaded, or why there is none.
pub(crate) fn nvrtc_version() -> Result<(u32, u32), Error> {
    static VERSION: OnceLock<Result<(u32, u32), Error>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            // SAFETY: only tries to open the library by its usual names.
            if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
                return Err(unavailable(
                    "no NVRTC library (libnvrtc.so.13, CUDA 13's run-time compiler) found: install the CUDA \
                     toolkit's NVRTC (e.g. `pip install nvidia-cuda-nvrtc`) and put the folder of libnvrtc.so.13 \
                     on LD_LIBRARY_PATH",
                ));
            }
            let (mut major, mut minor): (c_int, c_int) = (0, 0);
            // SAFETY: the library is present (checked above); two valid out-pointers.
            let rc = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
            if rc != cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
                return Err(unavailable(format!("NVRTC does not answer nvrtcVersion: {rc:?}")));
            }
            Ok((major.max(0) as u32, minor.max(0) as u32))
        })
        .clone()
}

/// What [`super::status`] reports with the feature on: computed once per process.
pub(crate) fn status() -> Result<DeviceInfo, Error> {
    static STATUS: OnceLock<Result<DeviceInfo, Error>> = OnceLock::new();
    STATUS.get_or_init(probe).clone()
}

fn probe() -> Result<DeviceInfo, Error> {
    if !driver_library_present() {
        return Err(unavailable(
            "no CUDA driver library (libcuda.so.1) found: this machine has no NVIDIA driver, or the loader does \
             not see it",
        ));
    }
    // NVRTC is only needed when no embedded image serves the device (found out below).
    let nvrtc = nvrtc_version();
    if let Err(err) = dres::init() {
        return Err(if err.0 == sys::cudaError_enum::CUDA_ERROR_NO_DEVICE {
            unavailable("no CUDA device (the driver found no GPU: cuInit returned CUDA_ERROR_NO_DEVICE)")
        } else {
            unavailable(format!("the CUDA driver failed to initialise: {}", describe(err)))
        });
    }
    let count =
        dres::device::get_count().map_err(|e| unavailable(format!("cuDeviceGetCount failed: {}", describe(e))))?;
    if count < 1 {
        return Err(unavailable("no CUDA device (the driver sees none; check CUDA_VISIBLE_DEVICES)"));
    }
    let dev = dres::device::get(0).map_err(|e| unavailable(format!("cuDeviceGet(0) failed: {}", describe(e))))?;
    let name =
        dres::device::get_name(dev).map_err(|e| unavailable(format!("cuDeviceGetName failed: {}", describe(e))))?;
    let attr = |a: sys::CUdevice_attribute| {
        // SAFETY: `dev` is a device handle the driver returned.
        unsafe { dres::device::get_attribute(dev, a) }
            .map_err(|e| unavailable(format!("cuDeviceGetAttribute failed: {}", describe(e))))
    };
    let multiprocessors = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let major = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    // SAFETY: as above.
    let memory = unsafe { dres::device::total_mem(dev) }
        .map_err(|e| unavailable(format!("cuDeviceTotalMem failed: {}", describe(e))))?;
    let mut version: c_int = 0;
    // SAFETY: a valid out-pointer; the driver is initialised.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(|e| unavailable(format!("cuDriverGetVersion failed: {}", describe(e))))?;
    let driver_version = ((version / 1000).max(0) as u32, ((version % 1000) / 10).max(0) as u32);
    let compute_capability = (major.max(0) as u32, minor.max(0) as u32);
    let mut info = DeviceInfo {
        name,
        compute_capability,
        target: compute_capability,
        memory: memory as u64,
        multiprocessors: multiprocessors.max(1) as u32,
        driver_version,
        nvrtc_version: nvrtc.as_ref().ok().copied(),
        kernels: String::new(),
    };
    if let (Some(kernels), Some(built)) = (embedded::describe(compute_capability), embedded::NVRTC) {
        if driver_version.0 >= built.0 {
            // The embedded images serve this GPU: no NVRTC needed.
            info.kernels = kernels;
            info.target = Module::ALL
                .first()
                .and_then(|&m| embedded::for_device(m, compute_capability))
                .map_or(compute_capability, |i| i.arch);
            return Ok(info);
        }
        // Built by a newer NVRTC than the driver supports: run-time NVRTC, if it is older.
    }
    let nvrtc = nvrtc?;
    if driver_version.0 < nvrtc.0 {
        return Err(unavailable(format!(
            "the CUDA driver supports CUDA {}.{}, older than NVRTC {}.{}: its CUBINs need a driver for CUDA {}.x \
             or newer (or use an NVRTC of the driver's major version)",
            driver_version.0, driver_version.1, nvrtc.0, nvrtc.1, nvrtc.0
        )));
    }
    info.kernels = format!("NVRTC {}.{} at run time", nvrtc.0, nvrtc.1);
    match nvrtc::supported_archs() {
        Ok(archs) => match target_arch(info.compute_capability, &archs) {
            Some(target) => info.target = target,
            None => {
                return Err(unavailable(format!(
                    "NVRTC {}.{} cannot compile for this GPU ({}, compute capability {}.{}); it supports sm_{}",
                    nvrtc.0,
                    nvrtc.1,
                    info.name,
                    info.compute_capability.0,
                    info.compute_capability.1,
                    archs.iter().map(u32::to_string).collect::<Vec<_>>().join(", sm_")
                )));
            }
        },
        Err(e) => return Err(e),
    }
    Ok(info)
}

/// The architecture to compile for: the device's own compute capability if NVRTC knows it,
/// else the newest one NVRTC knows of the same major version and no newer minor (a CUBIN
/// runs on devices of its major version and the same or a higher minor); None if there is
/// none. `archs` lists NVRTC's as `10 * major + minor` (an empty list: trust the device's).
pub(crate) fn target_arch((major, minor): (u32, u32), archs: &[u32]) -> Option<(u32, u32)> {
    if archs.is_empty() || archs.contains(&(major * 10 + minor)) {
        return Some((major, minor));
    }
    archs.iter().filter(|&&a| a / 10 == major && a % 10 <= minor).max().map(|&a| (a / 10, a % 10))
}

/// The allocation (or mapping) of device memory that holds an address, as the driver
/// reports it (`cuPointerGetAttribute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mapped {
    /// The device it belongs to.
    ordinal: i32,
    /// Its first address.
    start: u64,
    /// Its size in bytes.
    size: u64,
}

/// Checks that `[ptr, ptr + len)` (`len > 0`) is device memory of device 0, going from one
/// mapped range to the next: `range_of(address)` is the range that holds `address`, or the
/// driver's reason why it is not device memory. A tensor of PyTorch's `expandable_segments`
/// allocator lies in one stretch of virtual addresses backed by several physical
/// allocations, each its own range to the driver: every one of them must be of device 0 and
/// they must follow each other with no gap.
fn check_covered(ptr: u64, len: u64, mut range_of: impl FnMut(u64) -> Result<Mapped, String>) -> Result<(), Error> {
    let end = ptr.checked_add(len).ok_or_else(|| {
        Error::InvalidArgument(format!("{len} bytes at {ptr:#x} run past the end of the address space"))
    })?;
    let mut at = ptr;
    while at < end {
        let mapped = range_of(at).map_err(|reason| {
            if at == ptr {
                Error::InvalidArgument(format!("address {ptr:#x} is not CUDA device memory of this process ({reason})"))
            } else {
                Error::InvalidArgument(format!(
                    "{len} bytes at {ptr:#x} run past the end of their CUDA memory at {at:#x} ({reason})"
                ))
            }
        })?;
        if mapped.ordinal != 0 {
            return Err(Error::InvalidArgument(format!(
                "address {at:#x} is memory of CUDA device {}; the cuda backend runs on device 0",
                mapped.ordinal
            )));
        }
        let next = mapped.start.saturating_add(mapped.size);
        if mapped.start > at || next <= at {
            return Err(Error::InvalidArgument(format!(
                "the driver places {at:#x} in {} bytes at {:#x}, which do not hold it",
                mapped.size, mapped.start
            )));
        }
        at = next;
    }
    Ok(())
}

/// Keeps freed device memory in the device's default pool instead of handing it back to the
/// driver at every synchronization (the pool's default release threshold is 0): every batch
/// allocates its buffers, and would otherwise pay for fresh mappings each time. Without
/// stream-ordered allocation (cudarc then uses cuMemAlloc) there is no pool to configure;
/// a refusal only costs speed, so it is not an error.
fn keep_pool_memory(ctx: &Arc<CudaContext>) {
    if !ctx.has_async_alloc() {
        return;
    }
    let Ok(dev) = dres::device::get(0) else { return };
    // SAFETY: `dev` is device 0, which the context was created on; the release threshold is
    // a u64 (cuMemPoolSetAttribute, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD).
    unsafe {
        if let Ok(pool) = dres::device::get_default_mem_pool(dev) {
            let mut threshold: u64 = u64::MAX;
            let _ = dres::mem_pool::set_attribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut threshold as *mut u64).cast(),
            );
        }
    }
}

/// A driver error's name and description, for the status reasons.
fn describe(err: dres::DriverError) -> String {
    match device_error("", err) {
        Error::Device(s) => s.trim_start_matches(": ").to_owned(),
        other => other.to_string(),
    }
}

/// The CUDA driver as a [`Device`]: device 0, a context shared by the process (the device's
/// primary context, the one CuPy and PyTorch use too), one stream of its own.
///
/// Work from several threads goes to the one stream in the order it is issued; each batch
/// function waits for its own results ([`Device::download`], [`Device::synchronize`]).
pub struct Cuda {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    /// One slot per entry of [`Module::ALL`]: the module, or why it failed to build.
    modules: Vec<OnceLock<Result<Arc<CudaModule>, Error>>>,
    functions: Mutex<HashMap<&'static str, CudaFunction>>,
    /// Page-locked buffers that uploads go through (allocated on the first upload; None in
    /// the slot if the driver refused them: uploads are then copied from pageable memory).
    staging: Mutex<Option<Option<Staging>>>,
}

/// The bytes of one staging buffer: large enough that a copy's fixed cost is small, small
/// enough that two of them cost little page-locked memory.
const STAGING_LEN: usize = 4 << 20;

/// Two page-locked host buffers, each with the event recorded after its last copy: the host
/// fills one while the GPU copies from the other. A copy from pageable memory is a copy by
/// the driver into its own pinned buffer and a synchronous DMA; from these it is one memcpy
/// by us, overlapped with the DMA of the previous buffer.
struct Staging {
    buffers: [(PinnedHostSlice<u8>, CudaEvent); 2],
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cuda").field("device", &self.info).finish_non_exhaustive()
    }
}

/// Device memory of [`Cuda`], freed (in stream order) when dropped.
#[derive(Debug)]
pub struct CudaBuffer {
    slice: CudaSlice<u8>,
    ptr: DevicePtr,
    len: usize,
}

impl DeviceBuffer for CudaBuffer {
    fn ptr(&self) -> DevicePtr {
        self.ptr
    }

    fn len(&self) -> usize {
        self.len
    }
}

fn out_of_range(what: &str, offset: usize, len: usize, size: usize) -> Error {
    Error::InvalidArgument(format!("{what} of {len} bytes at offset {offset} does not fit a buffer of {size} bytes"))
}

impl Cuda {
    /// The process's device: the context is created on the first call (after [`status`](super::status)
    /// says the device is usable), later calls return the same one, or the same error.
    pub fn get() -> Result<&'static Cuda, Error> {
        static CUDA: OnceLock<Result<Cuda, Error>> = OnceLock::new();
        CUDA.get_or_init(Cuda::open).as_ref().map_err(Clone::clone)
    }

    fn open() -> Result<Cuda, Error> {
        let info = status()?;
        let ctx = CudaContext::new(0)
            .map_err(|e| unavailable(format!("creating the CUDA context failed: {}", describe(e))))?;
        // One stream, and every wait between it and other streams is explicit (wait_for_stream),
        // so cudarc's per-buffer events would only cost time.
        // SAFETY: no buffer exists yet; all of ours are used on `stream` alone.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(|e| device_error("creating a CUDA stream", e))?;
        keep_pool_memory(&ctx);
        let modules = Module::ALL.iter().map(|_| OnceLock::new()).collect();
        Ok(Cuda { ctx, stream, info, modules, functions: Mutex::new(HashMap::new()), staging: Mutex::new(None) })
    }

    /// Copies `parts` one after another to device memory from `dst` on through the staging
    /// buffers; returns once every byte of `parts` has been read (the copies may still be
    /// in flight on the stream, which orders the kernels after them). Without staging
    /// buffers, each part is copied from pageable memory.
    ///
    /// # Safety
    ///
    /// `[dst, dst + total length of parts)` must be writable device memory of this context.
    unsafe fn upload_staged(&self, dst: DevicePtr, parts: &[&[u8]]) -> Result<(), Error> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if total == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread().map_err(|e| device_error("binding the CUDA context", e))?;
        let copy_error = |e| device_error(&format!("copying {total} bytes to the GPU"), e);
        let mut slot = self.staging.lock().unwrap_or_else(|p| p.into_inner());
        let staging = slot.get_or_insert_with(|| self.new_staging().ok()).as_mut();
        let Some(staging) = staging else {
            let mut at = dst;
            for part in parts.iter().filter(|p| !p.is_empty()) {
                // SAFETY: the caller vouches for the range; a copy from pageable memory has
                // read `part` when it returns.
                unsafe { dres::memcpy_htod_async(at, part, self.stream.cu_stream()) }.map_err(copy_error)?;
                at += part.len() as u64;
            }
            return Ok(());
        };
        let (mut which, mut fill, mut at) = (0usize, 0usize, dst);
        // Waits until the GPU has finished copying from buffer `which`, then hands it out.
        let take = |staging: &mut Staging, which: usize| -> Result<*mut u8, Error> {
            let (buffer, event) = &mut staging.buffers[which];
            event.synchronize().map_err(|e| device_error("waiting for a copy to the GPU", e))?;
            buffer.as_mut_ptr().map_err(|e| device_error("using a staging buffer", e))
        };
        let mut buffer = take(staging, which)?;
        let mut parts = parts.iter().copied();
        let mut rest: &[u8] = &[];
        loop {
            while rest.is_empty() {
                match parts.next() {
                    Some(p) => rest = p,
                    None => break,
                }
            }
            let n = rest.len().min(STAGING_LEN - fill);
            // SAFETY: `buffer` is STAGING_LEN bytes of page-locked memory that no copy is
            // reading any more (`take` waited for its event), and fill + n <= STAGING_LEN.
            unsafe { std::ptr::copy_nonoverlapping(rest.as_ptr(), buffer.add(fill), n) };
            fill += n;
            rest = &rest[n..];
            let done = rest.is_empty() && parts.len() == 0;
            if fill == STAGING_LEN || (done && fill > 0) {
                let (_, event) = &staging.buffers[which];
                // SAFETY: `fill` bytes of the staging buffer, written above; it stays
                // untouched until `event`, recorded right after the copy, has completed.
                let staged = unsafe { std::slice::from_raw_parts(buffer.cast_const(), fill) };
                // SAFETY: a copy from page-locked memory kept alive and unchanged until it
                // completes (above); the caller vouches for the destination range.
                unsafe { dres::memcpy_htod_async(at, staged, self.stream.cu_stream()) }.map_err(copy_error)?;
                event.record(&self.stream).map_err(|e| device_error("recording a copy to the GPU", e))?;
                at += fill as u64;
                fill = 0;
                which ^= 1;
                if !done {
                    buffer = take(staging, which)?;
                }
            }
            if done {
                return Ok(());
            }
        }
    }

    fn new_staging(&self) -> Result<Staging, dres::DriverError> {
        let one = || -> Result<(PinnedHostSlice<u8>, CudaEvent), dres::DriverError> {
            // SAFETY: the contents are unspecified; only bytes we wrote are ever copied.
            let buffer = unsafe { self.ctx.alloc_pinned::<u8>(STAGING_LEN) }?;
            Ok((buffer, self.ctx.new_event(None)?))
        };
        Ok(Staging { buffers: [one()?, one()?] })
    }

    /// The device's name, compute capability, memory and versions.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The handle of this device's stream (a `CUstream`), e.g. to pass as the consumer's
    /// stream to a DLPack producer (`__dlpack__(stream=...)`).
    pub fn stream_handle(&self) -> u64 {
        self.stream.cu_stream() as u64
    }

    /// Makes the work issued to this device from now on wait for everything issued so far
    /// to `producer`, a `CUstream` of this process in the same context (CUDA Array Interface
    /// `stream` values: 1 is the legacy default stream, 2 the per-thread default stream).
    ///
    /// # Safety
    ///
    /// `producer` must be a live stream handle of the primary context of device 0, or 1 or 2.
    pub unsafe fn wait_for_stream(&self, producer: u64) -> Result<(), Error> {
        let event = self.ctx.new_event(None).map_err(|e| device_error("creating a CUDA event", e))?;
        // SAFETY: `event` is live; the caller vouches for `producer`.
        unsafe { dres::event::record(event.cu_event(), producer as sys::CUstream) }
            .map_err(|e| device_error("recording an event on the producer's stream", e))?;
        self.stream.wait(&event).map_err(|e| device_error("waiting for the producer's stream", e))
    }

    /// Checks that `[ptr, ptr + len)` is memory of this device (device or managed memory of
    /// device 0), so that a wrong address or size from a caller is an error instead of a
    /// fault in a kernel. The range may span several allocations mapped back to back, as
    /// PyTorch's `expandable_segments` allocator maps a tensor's pages ([`check_covered`]).
    pub fn check_range(&self, ptr: DevicePtr, len: usize) -> Result<(), Error> {
        if len == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread().map_err(|e| device_error("binding the CUDA context", e))?;
        check_covered(ptr, len as u64, |at| {
            let get = |attr: sys::CUpointer_attribute| -> Result<u64, dres::DriverError> {
                let mut value: u64 = 0;
                // SAFETY: every attribute asked for is at most 8 bytes (an int, a CUdeviceptr
                // or a size_t), written into a zeroed u64 (little-endian: the low bytes hold
                // an int).
                unsafe { sys::cuPointerGetAttribute((&mut value as *mut u64).cast(), attr, at) }.result()?;
                Ok(value)
            };
            let range = || -> Result<Mapped, dres::DriverError> {
                Ok(Mapped {
                    ordinal: get(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)? as u32 as i32,
                    start: get(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)?,
                    size: get(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE)?,
                })
            };
            range().map_err(describe)
        })
    }

    /// Copies `src` to the device address `dst` (memory the caller owns, e.g. an `out=`
    /// array), after all work issued so far, and waits for the copy.
    ///
    /// # Safety
    ///
    /// `[dst, dst + src.len())` must be device memory, writable and not in use elsewhere
    /// ([`Cuda::check_range`] checks that it is memory of this device).
    pub unsafe fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<(), Error> {
        if src.is_empty() {
            return Ok(());
        }
        self.ctx.bind_to_thread().map_err(|e| device_error("binding the CUDA context", e))?;
        // SAFETY: the caller vouches for `dst`; `src` is pageable host memory that the
        // copy has read when it returns, and we wait for the stream anyway.
        unsafe { dres::memcpy_htod_async(dst, src, self.stream.cu_stream()) }
            .map_err(|e| device_error(&format!("copying {} bytes to the GPU", src.len()), e))?;
        self.synchronize()
    }

    fn module(&self, module: Module) -> Result<&Arc<CudaModule>, Error> {
        let index = Module::ALL
            .iter()
            .position(|&m| m == module)
            .ok_or_else(|| Error::InvalidArgument(format!("{module:?} is not in Module::ALL")))?;
        self.modules[index]
            .get_or_init(|| {
                let load = |image: Vec<u8>| self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(image));
                if let Some(image) = embedded::for_device(module, self.info.compute_capability) {
                    // A CUBIN loads as it is; PTX is compiled by the driver here.
                    match load(image.image.to_vec()) {
                        Ok(loaded) => return Ok(loaded),
                        Err(e) if self.info.nvrtc_version.is_none() => {
                            return Err(device_error(
                                &format!("loading the embedded kernels of {}", module.file_name()),
                                e,
                            ))
                        }
                        // Otherwise compiled by NVRTC below.
                        Err(_) => {}
                    }
                }
                let nvrtc_version = nvrtc_version()?;
                let cache = cache::CubinCache::new(module, self.info.target, nvrtc_version);
                if let Some(image) = cache.as_ref().and_then(cache::CubinCache::read) {
                    if let Ok(loaded) = load(image) {
                        return Ok(loaded);
                    }
                    // A damaged or foreign file: compiled again and replaced below.
                }
                let compiled = nvrtc::compile(module, self.info.target, Target::Cubin)?;
                if let Some(cache) = &cache {
                    cache.write(&compiled.image);
                }
                load(compiled.image)
                    .map_err(|e| device_error(&format!("loading the CUBIN of {}", module.file_name()), e))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn function(&self, kernel: Kernel) -> Result<CudaFunction, Error> {
        let mut functions = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = functions.get(kernel.name) {
            return Ok(f.clone());
        }
        let f = self.module(kernel.module)?.load_function(kernel.name).map_err(|e| {
            device_error(&format!("finding kernel {} in {}", kernel.name, kernel.module.file_name()), e)
        })?;
        functions.insert(kernel.name, f.clone());
        Ok(f)
    }

    /// Compiles and loads every kernel file now rather than on first use (NVRTC takes a
    /// moment per file), e.g. before timing.
    pub fn load_all(&self) -> Result<(), Error> {
        Module::ALL.iter().try_for_each(|&m| self.module(m).map(|_| ()))
    }
}

impl sealed::Sealed for Cuda {}

impl Device for Cuda {
    type Buffer = CudaBuffer;

    fn alloc(&self, len: usize) -> Result<CudaBuffer, Error> {
        // cuMemAlloc returns 256-byte aligned memory; a zero-byte request gets one byte so
        // that every buffer has a distinct, valid address.
        // SAFETY: the contents are unspecified, as the trait says; u8 has no invalid values.
        let slice = unsafe { self.stream.alloc::<u8>(len.max(1)) }
            .map_err(|e| device_error(&format!("allocating {len} bytes of GPU memory"), e))?;
        let (ptr, _) = slice.device_ptr(&self.stream);
        Ok(CudaBuffer { ptr, slice, len })
    }

    fn upload(&self, dst: &mut CudaBuffer, offset: usize, src: &[u8]) -> Result<(), Error> {
        let size = dst.len;
        offset
            .checked_add(src.len())
            .filter(|&e| e <= size)
            .ok_or_else(|| out_of_range("an upload", offset, src.len(), size))?;
        // SAFETY: `[offset, offset + src.len())` lies inside `dst`, memory of this context.
        unsafe { self.upload_staged(dst.ptr + offset as u64, &[src]) }
    }

    fn upload_parts(&self, dst: &mut CudaBuffer, parts: &[&[u8]]) -> Result<(), Error> {
        let total = parts.iter().try_fold(0usize, |t, p| t.checked_add(p.len()));
        if total.is_none_or(|t| t > dst.len) {
            return Err(out_of_range("an upload", 0, total.unwrap_or(usize::MAX), dst.len));
        }
        // SAFETY: the parts fit `dst` (checked above), memory of this context.
        unsafe { self.upload_staged(dst.ptr, parts) }
    }

    fn download(&self, src: &CudaBuffer, offset: usize, dst: &mut [u8]) -> Result<(), Error> {
        let end = offset.checked_add(dst.len()).filter(|&e| e <= src.len);
        let end = end.ok_or_else(|| out_of_range("a download", offset, dst.len(), src.len))?;
        if !dst.is_empty() {
            self.stream
                .memcpy_dtoh(&src.slice.slice(offset..end), dst)
                .map_err(|e| device_error(&format!("copying {} bytes from the GPU", dst.len()), e))?;
        }
        // The bytes are on the host only once the stream has reached the copy (and a
        // kernel's fault surfaces here).
        self.synchronize()
    }

    unsafe fn copy_from_device(&self, src: DevicePtr, dst: &mut [u8]) -> Result<(), Error> {
        if dst.is_empty() {
            return Ok(());
        }
        self.ctx.bind_to_thread().map_err(|e| device_error("binding the CUDA context", e))?;
        // SAFETY: the caller vouches for `src` (the trait's contract); we wait for the copy
        // before returning.
        unsafe { dres::memcpy_dtoh_async(dst, src, self.stream.cu_stream()) }
            .map_err(|e| device_error(&format!("copying {} bytes from the GPU", dst.len()), e))?;
        self.synchronize()
    }

    unsafe fn launch(&self, kernel: Kernel, grid: u32, block: u32, args: &[u64]) -> Result<(), Error> {
        super::check_geometry(kernel, grid, block)?;
        let f = self.function(kernel)?;
        // What the compiled kernel can really take (registers and shared memory per block),
        // at most MAX_BLOCK by its __launch_bounds__: a clear error rather than a failed launch.
        let most = f
            .get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .map_err(|e| device_error(&format!("asking the block limit of {}", kernel.name), e))?;
        if i64::from(block) > i64::from(most) {
            return Err(Error::InvalidArgument(format!(
                "a launch of {} with blocks of {block} threads: this GPU runs it with at most {most}",
                kernel.name
            )));
        }
        let mut builder = self.stream.launch_builder(&f);
        // Each parameter is 8 bytes (a pointer or a 64-bit integer): cuLaunchKernel takes a
        // pointer to each.
        for arg in args {
            builder.arg(arg);
        }
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the caller guarantees the addresses in `args` (this function's contract);
        // the argument count and sizes match the kernel's signature (every kernel parameter
        // is 8 bytes, and the emulation tests check the count of the same launches).
        unsafe { builder.launch(cfg) }
            .map(|_| ())
            .map_err(|e| device_error(&format!("launching {} ({grid} blocks of {block} threads)", kernel.name), e))
    }

    fn synchronize(&self) -> Result<(), Error> {
        self.stream.synchronize().map_err(|e| device_error("running the GPU work", e))
    }

    fn multiprocessors(&self) -> u32 {
        self.info.multiprocessors
    }
}

/// CUBINs kept on disk between processes, so that NVRTC (seconds per kernel file) runs once
/// per source, options, architecture and NVRTC version, not once per process: every
/// `simdcrypt sum --backend cuda` would pay it otherwise.
///
/// The folder: `SIMDCRYPT_CUDA_CACHE` (`off` or empty: no cache), else
/// `$XDG_CACHE_HOME/simdcrypt/cuda`, else `~/.cache/simdcrypt/cuda`. A file's name holds the
/// BLAKE3 of everything that determines its contents; a file that fails to load is compiled
/// again and replaced; writes go to a temporary file renamed into place; any I/O error just
/// means no caching.
mod cache {
    use std::path::PathBuf;

    use super::{nvrtc, Module, Target};

    pub(super) struct CubinCache {
        path: PathBuf,
    }

    fn folder() -> Option<PathBuf> {
        match std::env::var_os("SIMDCRYPT_CUDA_CACHE") {
            Some(v) if v.is_empty() || v == "off" || v == "0" => None,
            Some(v) => Some(PathBuf::from(v)),
            None => std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))
                .map(|base| base.join("simdcrypt").join("cuda")),
        }
    }

    impl CubinCache {
        pub(super) fn new(module: Module, target: (u32, u32), nvrtc_version: (u32, u32)) -> Option<Self> {
            Some(Self::in_folder(folder()?, module, target, nvrtc_version))
        }

        pub(super) fn in_folder(
            folder: PathBuf,
            module: Module,
            target: (u32, u32),
            nvrtc_version: (u32, u32),
        ) -> Self {
            let mut key = crate::blake3::Hasher::new();
            key.update(module.full_source().as_bytes());
            for option in nvrtc::options(target, Target::Cubin) {
                key.update(b"\0").update(option.as_bytes());
            }
            key.update(format!("\0nvrtc {}.{}", nvrtc_version.0, nvrtc_version.1).as_bytes());
            let hex = crate::to_hex(&key.finalize()[..16]);
            let stem = module.file_name().trim_end_matches(".cu");
            CubinCache { path: folder.join(format!("{stem}-sm_{}{}-{hex}.cubin", target.0, target.1)) }
        }

        pub(super) fn read(&self) -> Option<Vec<u8>> {
            let image = std::fs::read(&self.path).ok()?;
            image.starts_with(b"\x7fELF").then_some(image)
        }

        pub(super) fn write(&self, image: &[u8]) {
            let Some(dir) = self.path.parent() else { return };
            if std::fs::create_dir_all(dir).is_err() {
                return;
            }
            let tmp = self.path.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, image).is_ok() && std::fs::rename(&tmp, &self.path).is_ok() {
                return;
            }
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{check_covered, target_arch, Mapped};

    /// A fake driver: ranges (start, size, device) of an address space.
    fn ranges(map: &[(u64, u64, i32)]) -> impl FnMut(u64) -> Result<Mapped, String> + '_ {
        move |at| {
            map.iter()
                .find(|&&(start, size, _)| start <= at && at < start + size)
                .map(|&(start, size, ordinal)| Mapped { ordinal, start, size })
                .ok_or_else(|| "CUDA_ERROR_INVALID_VALUE".to_owned())
        }
    }

    #[test]
    fn device_ranges_may_span_back_to_back_mappings() {
        // One allocation, and an expandable segment mapped as two 2 MiB pieces.
        let map = [(0x1000, 0x1000, 0), (0x20_0000, 0x20_0000, 0), (0x40_0000, 0x20_0000, 0), (0x80_0000, 0x1000, 1)];
        assert!(check_covered(0x1000, 0x1000, ranges(&map)).is_ok());
        assert!(check_covered(0x30_0000, 0x20_0000, ranges(&map)).is_ok(), "across two mappings");
        let err = check_covered(0x1800, 0x1000, ranges(&map)).unwrap_err().to_string();
        assert!(err.contains("run past the end of their CUDA memory at 0x2000"), "{err}");
        let err = check_covered(0x50_0000, 0x20_0000, ranges(&map)).unwrap_err().to_string();
        assert!(err.contains("run past the end"), "a gap after the segment: {err}");
        let err = check_covered(0x10, 1, ranges(&map)).unwrap_err().to_string();
        assert!(err.contains("is not CUDA device memory"), "{err}");
        let err = check_covered(0x80_0000, 1, ranges(&map)).unwrap_err().to_string();
        assert!(err.contains("device 1"), "{err}");
        assert!(check_covered(u64::MAX, 2, ranges(&map)).is_err());
    }

    #[test]
    fn the_compile_target_is_the_device_or_a_compatible_older_minor() {
        let nvrtc13 = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121];
        assert_eq!(target_arch((9, 0), &nvrtc13), Some((9, 0)));
        assert_eq!(target_arch((8, 6), &nvrtc13), Some((8, 6)));
        assert_eq!(target_arch((12, 1), &nvrtc13), Some((12, 1)));
        // Unknown minors fall back within the major version, never across it.
        assert_eq!(target_arch((8, 9), &[80, 86]), Some((8, 6)));
        assert_eq!(target_arch((10, 7), &nvrtc13), Some((10, 3)));
        assert_eq!(target_arch((9, 5), &nvrtc13), Some((9, 0)));
        assert_eq!(target_arch((7, 0), &nvrtc13), None); // Volta: CUDA 13 dropped it
        assert_eq!(target_arch((13, 0), &nvrtc13), None);
        assert_eq!(target_arch((9, 0), &[]), Some((9, 0)));
    }

    #[test]
    fn cubin_cache_round_trip_and_keys() {
        use super::cache::CubinCache;
        use super::Module;
        let Some(&module) = Module::ALL.first() else { return };
        let dir = std::env::temp_dir().join(format!("simdcrypt-cubin-cache-{}", std::process::id()));
        let cache = CubinCache::in_folder(dir.clone(), module, (9, 0), (13, 0));
        assert_eq!(cache.read(), None);
        cache.write(b"not an ELF image");
        assert_eq!(cache.read(), None, "only ELF images are taken");
        let image = b"\x7fELF and the rest".to_vec();
        cache.write(&image);
        assert_eq!(cache.read(), Some(image.clone()));
        // Another architecture or NVRTC version is another file.
        assert_eq!(CubinCache::in_folder(dir.clone(), module, (8, 0), (13, 0)).read(), None);
        assert_eq!(CubinCache::in_folder(dir.clone(), module, (9, 0), (13, 1)).read(), None);
        assert_eq!(CubinCache::in_folder(dir.clone(), module, (9, 0), (13, 0)).read(), Some(image));
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
