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
    result as dres, sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr as _, LaunchConfig,
    PushKernelArg,
};

use super::device::{sealed, Device, DeviceBuffer, DevicePtr};
use super::nvrtc::{self, Target};
use super::{DeviceInfo, Kernel, Module};
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
    let nvrtc = nvrtc_version()?;
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
    let info = DeviceInfo {
        name,
        compute_capability,
        target: compute_capability,
        memory: memory as u64,
        driver_version,
        nvrtc_version: nvrtc,
    };
    if driver_version.0 < nvrtc.0 {
        return Err(unavailable(format!(
            "the CUDA driver supports CUDA {}.{}, older than NVRTC {}.{}: its CUBINs need a driver for CUDA {}.x \
             or newer (or use an NVRTC of the driver's major version)",
            driver_version.0, driver_version.1, nvrtc.0, nvrtc.1, nvrtc.0
        )));
    }
    let mut info = info;
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
        let modules = Module::ALL.iter().map(|_| OnceLock::new()).collect();
        Ok(Cuda { ctx, stream, info, modules, functions: Mutex::new(HashMap::new()) })
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
    /// device 0, inside one allocation), so that a wrong address or size from a caller is an
    /// error instead of a fault in a kernel.
    pub fn check_range(&self, ptr: DevicePtr, len: usize) -> Result<(), Error> {
        if len == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread().map_err(|e| device_error("binding the CUDA context", e))?;
        let get = |attr: sys::CUpointer_attribute| -> Result<u64, dres::DriverError> {
            let mut value: u64 = 0;
            // SAFETY: every attribute asked for is at most 8 bytes (an int, a CUdeviceptr or a
            // size_t), written into a zeroed u64 (little-endian: the low bytes hold an int).
            unsafe { sys::cuPointerGetAttribute((&mut value as *mut u64).cast(), attr, ptr) }.result()?;
            Ok(value)
        };
        let bad = |e: dres::DriverError| {
            Error::InvalidArgument(format!(
                "address {ptr:#x} is not CUDA device memory of this process ({})",
                describe(e)
            ))
        };
        let ordinal = get(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL).map_err(bad)? as u32 as i32;
        if ordinal != 0 {
            return Err(Error::InvalidArgument(format!(
                "address {ptr:#x} is memory of CUDA device {ordinal}; the cuda backend runs on device 0"
            )));
        }
        let start = get(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR).map_err(bad)?;
        let size = get(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE).map_err(bad)?;
        let end = ptr.checked_add(len as u64);
        if start > ptr || end.is_none_or(|e| e > start.saturating_add(size)) {
            return Err(Error::InvalidArgument(format!(
                "{len} bytes at {ptr:#x} run past the end of their CUDA allocation ({size} bytes at {start:#x})"
            )));
        }
        Ok(())
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
                let cache = cache::CubinCache::new(module, self.info.target, self.info.nvrtc_version);
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
        let end = offset.checked_add(src.len()).filter(|&e| e <= size);
        let end = end.ok_or_else(|| out_of_range("an upload", offset, src.len(), size))?;
        if src.is_empty() {
            return Ok(());
        }
        // From pageable memory the copy has read `src` when the call returns.
        self.stream
            .memcpy_htod(src, &mut dst.slice.slice_mut(offset..end))
            .map_err(|e| device_error(&format!("copying {} bytes to the GPU", src.len()), e))
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
        if grid == 0 || block == 0 {
            return Err(Error::InvalidArgument(format!(
                "empty launch of {} ({grid} blocks of {block} threads)",
                kernel.name
            )));
        }
        let f = self.function(kernel)?;
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
    use super::target_arch;

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
