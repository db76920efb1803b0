//! What the host side of every GPU batch needs from a device: memory, copies and launches.
//!
//! Two implementations: the CUDA driver (`driver.rs`, feature `cuda`) and the host emulation
//! (`emulated.rs`, feature `cuda-emulation`), which runs the same kernel sources on the CPU.
//! The algorithm files (`sha256.rs`, `blake3.rs`, ...) are generic over [`Device`], so the
//! code that packs batches, sizes grids and chains launches is the code the emulation tests.
//!
//! Addresses are plain `u64` device addresses (`CUdeviceptr` on a GPU, host addresses in the
//! emulation): a batch may live in our own [`Device::Buffer`]s or in memory the caller
//! already has on the device (a CuPy array, a PyTorch tensor).

use super::Kernel;
use crate::Error;

/// A device address.
pub type DevicePtr = u64;

/// Only this crate's devices implement [`Device`]: its launches trust their callers.
pub(crate) mod sealed {
    /// The seal.
    pub trait Sealed {}
}

/// Device memory owned by a [`Device`], freed when dropped.
pub trait DeviceBuffer {
    /// The address of the first byte.
    fn ptr(&self) -> DevicePtr;
    /// The size in bytes.
    fn len(&self) -> usize;

    /// Whether it has no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A device the batch code can run on. Work is ordered: copies and launches run in the order
/// they were issued, and [`Device::download`] returns once the bytes are on the host.
pub trait Device: sealed::Sealed {
    /// Memory of this device.
    type Buffer: DeviceBuffer;

    /// `len` bytes of device memory, aligned to at least 16 bytes, contents unspecified.
    fn alloc(&self, len: usize) -> Result<Self::Buffer, Error>;

    /// Copies `src` into `dst` at byte `offset`; an error if it does not fit.
    fn upload(&self, dst: &mut Self::Buffer, offset: usize, src: &[u8]) -> Result<(), Error>;

    /// Copies `parts` one after another into `dst` from byte 0 (a batch of messages, laid
    /// out as [`message_offsets`](super::batch::message_offsets) says, without first packing
    /// them into one host buffer); an error if they do not fit.
    fn upload_parts(&self, dst: &mut Self::Buffer, parts: &[&[u8]]) -> Result<(), Error> {
        let mut offset = 0;
        for part in parts {
            self.upload(dst, offset, part)?;
            offset += part.len();
        }
        Ok(())
    }

    /// Copies `dst.len()` bytes of `src` from byte `offset` into `dst`, after all work issued
    /// before it; an error if `src` is too short.
    fn download(&self, src: &Self::Buffer, offset: usize, dst: &mut [u8]) -> Result<(), Error>;

    /// Copies `dst.len()` bytes from the device address `src` (memory the caller owns, such
    /// as a device array handed in by the user) to the host, after all work issued so far.
    ///
    /// # Safety
    ///
    /// `[src, src + dst.len())` must be readable device memory of this device.
    unsafe fn copy_from_device(&self, src: DevicePtr, dst: &mut [u8]) -> Result<(), Error>;

    /// Runs `kernel` over `grid` blocks of `block` threads with `args`, each a 64-bit integer
    /// or a device address as the kernel's signature declares.
    ///
    /// # Safety
    ///
    /// Every address in `args` must be device memory that stays valid until the launch
    /// completes and is large enough for what the kernel reads and writes with these
    /// arguments (each kernel's comment in its `.cu` file says how much).
    unsafe fn launch(&self, kernel: Kernel, grid: u32, block: u32, args: &[u64]) -> Result<(), Error>;

    /// Waits for all work issued so far.
    fn synchronize(&self) -> Result<(), Error>;

    /// How many multiprocessors (SMs) the device has: launches are sized to keep them busy.
    fn multiprocessors(&self) -> u32;
}
