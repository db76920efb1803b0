//! Batches on NVIDIA GPUs: CUDA C kernels compiled at run time, and their host emulation.
//!
//! The kernels are the `.cu` files of this folder, one per algorithm, with `common.cuh`
//! prepended to each. They are embedded in the library and, with the `cuda` feature,
//! compiled by NVRTC for the device's own compute capability on first use; the CUDA driver
//! and NVRTC are loaded at run time, so nothing CUDA is needed to build, and a machine
//! without them reports why the backend is unavailable (`status`). With the
//! `cuda-emulation` feature the same sources are compiled as C++ by the host compiler and
//! run on the CPU (`Emulated`): the tests compare every kernel with the CPU backends that
//! way on machines without a GPU.
//!
//! Layout: `device.rs` is what a batch needs from a device; `driver.rs` (CUDA) and
//! `emulated.rs` (host) implement it; one file per algorithm holds the host side of its
//! batches (packing, grid sizes, launch chains), generic over the device, and `batch.rs` what
//! the one-thread-per-message batches share (ragged messages packed with an offsets array,
//! the offsets checked, the grid sized, the launch). `tables.rs` (tests only) keeps the
//! kernels' literal tables equal to the CPU backends'. Design and limits: docs/gpu.md.

#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
mod device;
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
pub use device::{Device, DeviceBuffer, DevicePtr};

#[cfg(feature = "cuda")]
mod driver;
#[cfg(feature = "cuda")]
mod embedded;
#[cfg(feature = "cuda")]
pub use driver::{Cuda, CudaBuffer};
#[cfg(feature = "cuda")]
pub mod nvrtc;

#[cfg(feature = "cuda-emulation")]
mod emulated;
#[cfg(feature = "cuda-emulation")]
pub use emulated::{Emulated, HostBuffer};

#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
mod batch;
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
pub use batch::Layout;
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
mod blake3;
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
mod gost94;
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
mod sha256;
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
mod streebog;
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
pub use blake3::{blake3_hash, blake3_hash_device, blake3_many, blake3_many_device};
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
pub use gost94::{gost94_many, gost94_many_device, gost94_many_device_scheme, gost94_many_scheme, Gost94Scheme};
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
pub use sha256::{merkle_root, merkle_root_device, sha256_blocks, sha256_blocks_device};
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
pub use streebog::{
    streebog_many, streebog_many_device, streebog_many_device_scheme, streebog_many_scheme, StreebogScheme,
};

#[cfg(test)]
mod tables;

/// `common.cuh`: prepended to every kernel file.
pub const COMMON_SOURCE: &str = include_str!("common.cuh");

/// `gpu_prelude.cuh`: what `SC_UNROLL` and `SC_SHARED` mean on a GPU, prepended to
/// [`COMMON_SOURCE`] when NVRTC compiles a kernel file (the host emulation has its own).
pub const GPU_PRELUDE: &str = include_str!("gpu_prelude.cuh");

/// One kernel file, compiled as one module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Module {
    // (one variant per kernel file)
    /// `sha256.cu`: SHA-256 of 64-byte blocks, and Merkle tree layers.
    Sha256,
    /// `blake3.cu`: BLAKE3 batches and one large input.
    Blake3,
    /// `streebog.cu`: Streebog-256 and -512.
    Streebog,
    /// `gost94.cu`: GOST R 34.11-94, both S-box sets.
    Gost94,
}

impl Module {
    /// Every kernel file.
    pub const ALL: &'static [Module] = &[Module::Sha256, Module::Blake3, Module::Streebog, Module::Gost94];

    /// The file's name in this folder, e.g. `"sha256.cu"`.
    pub fn file_name(self) -> &'static str {
        match self {
            Module::Sha256 => "sha256.cu",
            Module::Blake3 => "blake3.cu",
            Module::Streebog => "streebog.cu",
            Module::Gost94 => "gost94.cu",
        }
    }

    /// The file's text as embedded in the library.
    pub fn source(self) -> &'static str {
        match self {
            Module::Sha256 => include_str!("sha256.cu"),
            Module::Blake3 => include_str!("blake3.cu"),
            Module::Streebog => include_str!("streebog.cu"),
            Module::Gost94 => include_str!("gost94.cu"),
        }
    }

    /// What NVRTC compiles: [`GPU_PRELUDE`], [`COMMON_SOURCE`], then the file.
    pub fn full_source(self) -> String {
        format!("{GPU_PRELUDE}\n{COMMON_SOURCE}\n#line 1 \"{}\"\n{}", self.file_name(), self.source())
    }
}

/// A `__global__` function: the file that defines it and its (unmangled) name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The file that defines it.
    pub module: Module,
    /// Its `extern "C"` name.
    pub name: &'static str,
}

/// The most threads a block of any kernel may have: `SC_MAX_BLOCK` of `common.cuh`, the
/// `__launch_bounds__` of every kernel. [`check_geometry`] refuses larger blocks on every
/// device, the emulation included, so a launch a GPU would refuse fails in the tests too.
pub const MAX_BLOCK: u32 = 256;

/// The largest grid of a one-dimensional launch (CUDA's limit on `gridDim.x`).
pub const MAX_GRID: u32 = i32::MAX as u32;

/// Checks a launch of `grid` blocks of `block` threads of `kernel` against the limits every
/// kernel is compiled for: not empty, at most [`MAX_BLOCK`] threads a block (the kernels'
/// `__launch_bounds__`), at most [`MAX_GRID`] blocks. Both devices call it before a launch.
pub fn check_geometry(kernel: Kernel, grid: u32, block: u32) -> Result<(), crate::Error> {
    if grid == 0 || block == 0 {
        return Err(crate::Error::InvalidArgument(format!(
            "empty launch of {} ({grid} blocks of {block} threads)",
            kernel.name
        )));
    }
    if block > MAX_BLOCK {
        return Err(crate::Error::InvalidArgument(format!(
            "a launch of {} with blocks of {block} threads: its kernels are compiled for at most {MAX_BLOCK} \
             (__launch_bounds__), and a GPU would refuse it",
            kernel.name
        )));
    }
    if grid > MAX_GRID {
        return Err(crate::Error::InvalidArgument(format!(
            "a launch of {} with {grid} blocks, more than the {MAX_GRID} a launch can have",
            kernel.name
        )));
    }
    Ok(())
}

/// The NVRTC options of every compilation, besides the target architecture
/// (`--gpu-architecture=sm_XY`, added for the device at hand). The compile check of the
/// test suite uses the same list, and fails on any warning.
pub const NVRTC_OPTIONS: &[&str] = &include!("nvrtc_options.in");

/// Whether the CUDA backend has passed its checks on a real GPU (scripts/gpu-check.sh: every
/// kernel against the CPU, compute-sanitizer, the GPU Python tests, the CLI). It has, on an
/// NVIDIA H200 (docs/gpu.md, "Verified on"); a change to a kernel or its launch is verified
/// again by the next session lent a GPU.
pub const VERIFIED_ON_GPU: bool = true;

/// The words every report of the backend adds: on which GPU it was verified (or that it
/// was not).
pub const VERIFICATION_NOTE: &str =
    if VERIFIED_ON_GPU { "verified on an NVIDIA H200, sm_90" } else { "not yet verified on a GPU" };

/// The GPU the `cuda` backend would run on (device 0), as [`status`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's name, e.g. `"NVIDIA H100 80GB HBM3"`.
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (u32, u32),
    /// The compute capability the kernels are compiled for (`sm_XY`): the device's own, or,
    /// if NVRTC does not know it, the newest it knows of the same major version and no
    /// newer minor.
    pub target: (u32, u32),
    /// Device memory in bytes.
    pub memory: u64,
    /// Multiprocessors (SMs): launches are sized to give each at least two blocks.
    pub multiprocessors: u32,
    /// The CUDA version the driver supports (major, minor), e.g. (13, 0).
    pub driver_version: (u32, u32),
    /// The version of the NVRTC library found at run time, if any (not needed when the
    /// kernels embedded at build time serve this GPU).
    pub nvrtc_version: Option<(u32, u32)>,
    /// Where the kernels come from: e.g. "embedded CUBIN for sm_90", "embedded PTX for
    /// compute_90, compiled by the driver", or "NVRTC 13.0 at run time".
    pub kernels: String,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (compute capability {}.{}, {} SMs, kernels for sm_{}{}: {}, {} MiB, driver for CUDA {}.{})",
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.multiprocessors,
            self.target.0,
            self.target.1,
            self.kernels,
            self.memory >> 20,
            self.driver_version.0,
            self.driver_version.1,
        )
    }
}

/// Whether the `cuda` backend can run here: the GPU it would use, or
/// [`Error::Unavailable`](crate::Error::Unavailable) with the reason (this build has no CUDA support; no driver
/// library; no NVRTC library; the driver failed to initialise; no device; a driver older
/// than NVRTC; a GPU NVRTC cannot compile for).
///
/// Nothing is looked at before the first call, which loads the driver and NVRTC libraries
/// if present (no context is created); the answer is computed once per process.
pub fn status() -> Result<DeviceInfo, crate::Error> {
    #[cfg(feature = "cuda")]
    {
        driver::status()
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(crate::Error::Unavailable {
            backend: "cuda",
            reason: "this build has no CUDA support (cargo feature `cuda` off)".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Module, COMMON_SOURCE, MAX_BLOCK};

    #[test]
    fn every_kernel_is_bounded_by_max_block() {
        assert!(
            COMMON_SOURCE.contains(&format!("#define SC_MAX_BLOCK {MAX_BLOCK}\n")),
            "common.cuh must define SC_MAX_BLOCK as cuda::MAX_BLOCK ({MAX_BLOCK})"
        );
        let mut kernels = 0;
        for &module in Module::ALL {
            for line in module.source().lines().filter(|l| l.contains("__global__")) {
                assert!(
                    line.contains("__global__ void __launch_bounds__(SC_MAX_BLOCK) "),
                    "{}: a kernel without __launch_bounds__(SC_MAX_BLOCK): {line}",
                    module.file_name()
                );
                kernels += 1;
            }
        }
        assert!(kernels >= Module::ALL.len(), "found only {kernels} kernels");
    }

    #[test]
    fn kernel_code_has_no_emulation_branch() {
        // The emulation runs the code a GPU runs: no branch on where it runs, and shared
        // arrays only through SC_SHARED (junk-filled per block in the emulation).
        let files = Module::ALL.iter().map(|m| (m.file_name(), m.source())).chain([("common.cuh", COMMON_SOURCE)]);
        for (name, text) in files {
            assert!(!text.contains("SC_HOST_EMULATION"), "{name} branches on the emulation");
            assert!(!text.contains("__shared__"), "{name} declares __shared__ memory directly: use SC_SHARED");
        }
    }

    #[test]
    fn check_geometry_refuses_what_a_gpu_would() {
        let k = super::Kernel { module: Module::Sha256, name: "sc_sha256_blocks" };
        assert!(super::check_geometry(k, 1, MAX_BLOCK).is_ok());
        for (grid, block, words) in [
            (0, 1, "empty launch"),
            (1, 0, "empty launch"),
            (1, MAX_BLOCK + 1, "__launch_bounds__"),
            (super::MAX_GRID + 1, 1, "more than the"),
        ] {
            let err = super::check_geometry(k, grid, block).unwrap_err().to_string();
            assert!(err.contains(words), "{grid} x {block}: {err}");
        }
    }
}
