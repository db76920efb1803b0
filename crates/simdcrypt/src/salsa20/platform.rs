//! Salsa20 backend selection and the one dispatch point into the kernels.
//!
//! ## What this file holds
//!
//! `Platform` (`avx512`, `avx2`, `sse2`, `neon`, `portable`) and the single dispatch point
//! `xor_keystream(state, counter, double_rounds, InOutBuf)` (the cipher's state as it is, the
//! block counter apart); its short-message rule: whole kernel steps go to the kernel, a
//! remainder of half a step or more takes one more (truncated) step, a shorter one goes block
//! by block through the AVX-512 row kernel where its vector latency wins
//! (`scalar_short::rows_win`: not on AMD family 1Ah, measured) or through `scalar_short.rs` (a
//! 64-byte message never pays for wide setup)

use super::driver::with_counter;
use super::{portable, scalar_short};
use cipher::InOutBuf;

#[cfg(target_arch = "aarch64")]
use super::neon_x4;
#[cfg(target_arch = "x86_64")]
use super::{avx2_x16, avx512_rows, avx512_x16, sse2_x4};

crate::backend::kernel_kinds! {
    algorithm: "salsa20",
    /// A Salsa20 kernel set, chosen once per cipher; `Platform::xor_keystream`
    /// (crate-internal) is the only place that enters a SIMD kernel.
    pub type Platform = Checked<Kind>;

    pub enum Kind {
        /// x86-64 AVX-512F, 16 blocks per step.
        // The kernel uses only AVX-512F instructions (vprold, vshufi32x4, unpacks).
        Avx512 = "avx512" on "x86_64" needs [Avx512F],
        /// x86-64 AVX2, 16 blocks per step (two interleaved groups of 8; a remainder 8 at a time).
        Avx2 = "avx2" on "x86_64" needs [Avx, Avx2],
        /// x86-64 SSE2, 4 blocks per step (every x86-64 CPU).
        Sse2 = "sse2" on "x86_64" needs [Sse2],
        /// aarch64 NEON, 4 blocks per step.
        Neon = "neon" on "aarch64" needs [Neon],
        /// Plain Rust, one block at a time, any CPU.
        Portable = "portable",
    }
}

impl Platform {
    /// Blocks per kernel step: the smallest step the kernel takes (AVX2 takes 16 blocks at
    /// a time where it can, 8 for the rest), which the short-message rule is built on.
    pub fn lanes(self) -> usize {
        match self.kind() {
            Kind::Portable => 1,
            #[cfg(target_arch = "x86_64")]
            Kind::Sse2 => 4,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => 8,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => 16,
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => 4,
        }
    }

    /// XORs the keystream into `io`, from block `counter` (words 8 and 9 of `state`, the
    /// counter's place, are ignored: the caller passes the cipher's state as it is).
    ///
    /// Short-message policy: whole kernel steps go to the kernel; a remainder of at
    /// least half a step is computed by one more (truncated) kernel step, a shorter one
    /// block by block (the AVX-512 row kernel, or the portable code). So a 64-byte message
    /// never pays for a wide step, and a 1000-byte one is not run one block at a time.
    pub(crate) fn xor_keystream(self, state: &[u32; 16], counter: u64, double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
        let step = self.lanes() * super::BLOCK_LEN;
        let len = io.len();
        let wide = if len % step >= step / 2 { len } else { len / step * step };
        let (head, tail) = io.split_at(wide);
        if !head.is_empty() {
            self.kernel(&with_counter(state, counter), double_rounds, head);
        }
        if !tail.is_empty() {
            self.short_kernel(state, counter.wrapping_add((wide / 64) as u64), double_rounds, tail);
        }
    }

    /// Fewer blocks than half a wide step, one block at a time, from block `counter`:
    /// AVX-512 has a row-wise kernel for that (avx512_rows.rs), used where it beats the
    /// scalar one (`scalar_short::rows_win`); everything else runs scalar_short.rs.
    pub(super) fn short_kernel(self, state: &[u32; 16], counter: u64, double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
        match self.kind() {
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 if scalar_short::rows_win() => unsafe {
                avx512_rows::xor_keystream(state, counter, double_rounds, io)
            },
            _ => scalar_short::xor_keystream(state, counter, double_rounds, io),
        }
    }

    fn kernel(self, state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
        match self.kind() {
            Kind::Portable => portable::xor_keystream(state, double_rounds, io),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Sse2 => unsafe { sse2_x4::xor_keystream(state, double_rounds, io) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2_x16::xor_keystream(state, double_rounds, io) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512_x16::xor_keystream(state, double_rounds, io) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => unsafe { neon_x4::xor_keystream(state, double_rounds, io) },
        }
    }
}
