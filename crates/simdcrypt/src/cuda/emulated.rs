//! The host emulation of the CUDA backend: the kernel sources compiled as C++ (build.rs,
//! `emulation.cpp`) and run grid by grid on the calling thread (a block's threads as fibers,
//! with real barriers, shuffled orders and junk shared memory), behind the same [`Device`]
//! interface as a GPU. Tests compare every kernel run this way with the CPU backends; see
//! `emulation_prelude.h` for what the emulation does and does not model.

use std::ffi::{c_char, c_int, CString};

use super::device::{sealed, Device, DeviceBuffer, DevicePtr};
use super::Kernel;
use crate::Error;

extern "C" {
    fn simdcrypt_emu_launch(name: *const c_char, grid: u32, block: u32, args: *const u64, nargs: usize) -> c_int;
}

/// The host emulation as a [`Device`]. "Device memory" is host memory.
#[derive(Debug, Default, Clone, Copy)]
pub struct Emulated;

/// Host memory standing in for device memory: 16-byte aligned, as CUDA allocations are at
/// least that.
#[derive(Debug)]
pub struct HostBuffer {
    words: Vec<u128>,
    len: usize,
}

impl HostBuffer {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `words` holds `words.len() * 16 >= len` initialised bytes; u8 has no
        // alignment or validity requirements.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

impl DeviceBuffer for HostBuffer {
    fn ptr(&self) -> DevicePtr {
        self.words.as_ptr() as DevicePtr
    }

    fn len(&self) -> usize {
        self.len
    }
}

fn out_of_range(what: &str, offset: usize, len: usize, size: usize) -> Error {
    Error::InvalidArgument(format!("{what} of {len} bytes at offset {offset} does not fit a buffer of {size} bytes"))
}

impl sealed::Sealed for Emulated {}

impl Device for Emulated {
    type Buffer = HostBuffer;

    fn alloc(&self, len: usize) -> Result<HostBuffer, Error> {
        Ok(HostBuffer { words: vec![0u128; len.div_ceil(16)], len })
    }

    fn upload(&self, dst: &mut HostBuffer, offset: usize, src: &[u8]) -> Result<(), Error> {
        let size = dst.len;
        let end = offset.checked_add(src.len()).filter(|&e| e <= size);
        let end = end.ok_or_else(|| out_of_range("an upload", offset, src.len(), size))?;
        dst.bytes_mut()[offset..end].copy_from_slice(src);
        Ok(())
    }

    fn download(&self, src: &HostBuffer, offset: usize, dst: &mut [u8]) -> Result<(), Error> {
        let end = offset.checked_add(dst.len()).filter(|&e| e <= src.len);
        let end = end.ok_or_else(|| out_of_range("a download", offset, dst.len(), src.len))?;
        dst.copy_from_slice(&src.bytes()[offset..end]);
        Ok(())
    }

    unsafe fn copy_from_device(&self, src: DevicePtr, dst: &mut [u8]) -> Result<(), Error> {
        // SAFETY: emulated device addresses are host addresses, and the caller guarantees
        // `dst.len()` readable bytes at `src`; `dst` is a distinct, exclusively borrowed slice.
        unsafe { std::ptr::copy_nonoverlapping(src as usize as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    unsafe fn launch(&self, kernel: Kernel, grid: u32, block: u32, args: &[u64]) -> Result<(), Error> {
        super::check_geometry(kernel, grid, block)?;
        let name = CString::new(kernel.name).expect("kernel names have no NUL");
        // SAFETY: `name` is a NUL-terminated string and `args` a slice of `args.len()` u64s,
        // both alive for the call; the kernel dereferences the addresses in `args`, which
        // the caller guarantees valid (this function's contract), and the emulation checks
        // the argument count against the kernel's signature before calling it.
        let rc = unsafe { simdcrypt_emu_launch(name.as_ptr(), grid, block, args.as_ptr(), args.len()) };
        match rc {
            0 => Ok(()),
            1 => Err(Error::InvalidArgument(format!("the emulation has no kernel {}", kernel.name))),
            2 => Err(Error::InvalidArgument(format!(
                "kernel {} takes another number of arguments than {}",
                kernel.name,
                args.len()
            ))),
            3 => Err(Error::InvalidArgument(format!(
                "empty launch of {} ({grid} blocks of {block} threads)",
                kernel.name
            ))),
            4 => Err(Error::Device(format!(
                "{}: threads of a block waited at barriers they could never all pass (different __syncthreads() in divergent code, or a __syncwarp() some of whose lanes waited elsewhere or had no bit in its mask)",
                kernel.name
            ))),
            _ => Err(Error::Device(format!("{}: the emulation could not set up the block's threads", kernel.name))),
        }
    }

    fn synchronize(&self) -> Result<(), Error> {
        Ok(())
    }

    /// An H100's or H200's 132: the launches the tests run are those such a GPU would get.
    fn multiprocessors(&self) -> u32 {
        132
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Kernel, Module, MAX_BLOCK};
    use super::{Device, Emulated};

    #[test]
    fn blocks_over_the_launch_bound_are_refused_before_running() {
        let k = Kernel { module: Module::Sha256, name: "sc_sha256_blocks" };
        // SAFETY: refused before the kernel runs (no block of more than MAX_BLOCK threads), so
        // the null addresses are never read; a count of 0 blocks reads nothing either.
        let err = unsafe { Emulated.launch(k, 1, MAX_BLOCK + 1, &[0, 0, 0]) }.unwrap_err().to_string();
        assert!(err.contains("__launch_bounds__"), "{err}");
        // SAFETY: count 0: the kernel's threads all return before touching memory.
        unsafe { Emulated.launch(k, 1, MAX_BLOCK, &[0, 0, 0]) }.unwrap();
    }
}
