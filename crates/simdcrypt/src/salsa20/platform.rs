//! Salsa20 backend selection and the one dispatch point into the kernels.

use super::{portable, scalar_short};
use crate::backend::{Checked, DetectCache, Kernels};
use crate::cpu::Feature;
use cipher::InOutBuf;

#[cfg(target_arch = "aarch64")]
use super::neon_x4;
#[cfg(target_arch = "x86_64")]
use super::{avx2_x8, avx512_rows, avx512_x16, sse2_x4};

/// A Salsa20 kernel set, chosen once per cipher; `Platform::xor_keystream` (crate-internal) is the only
/// place that enters a SIMD kernel.
///
/// Obtained only from `detect`, `from_name`, `all_supported` or `portable`, each of which
/// checks this CPU (see [`crate::backend`]).
pub type Platform = Checked<Kind>;

/// The names of the kernel sets; only a checked [`Platform`] reaches a kernel.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Kind {
    /// Plain Rust, one block at a time, any CPU.
    Portable,
    /// x86-64 SSE2, 4 blocks per step (every x86-64 CPU).
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// x86-64 AVX2, 8 blocks per step.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// x86-64 AVX-512F, 16 blocks per step.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// aarch64 NEON, 4 blocks per step.
    #[cfg(target_arch = "aarch64")]
    Neon,
}

impl Kernels for Kind {
    const ALGORITHM: &'static str = "salsa20";
    const ALL: &'static [Kind] = &[
        #[cfg(target_arch = "x86_64")]
        Kind::Avx512,
        #[cfg(target_arch = "x86_64")]
        Kind::Avx2,
        #[cfg(target_arch = "x86_64")]
        Kind::Sse2,
        #[cfg(target_arch = "aarch64")]
        Kind::Neon,
        Kind::Portable,
    ];
    const OTHER_ARCHITECTURES: &'static [(&'static str, &'static str)] = &[
        #[cfg(not(target_arch = "x86_64"))]
        ("avx512", "x86_64"),
        #[cfg(not(target_arch = "x86_64"))]
        ("avx2", "x86_64"),
        #[cfg(not(target_arch = "x86_64"))]
        ("sse2", "x86_64"),
        #[cfg(not(target_arch = "aarch64"))]
        ("neon", "aarch64"),
    ];

    fn detected() -> &'static DetectCache {
        static DETECTED: DetectCache = DetectCache::new();
        &DETECTED
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kind::Sse2 => "sse2",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => "avx512",
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => "neon",
        }
    }

    fn requires(self) -> &'static [Feature] {
        match self {
            Kind::Portable => &[],
            #[cfg(target_arch = "x86_64")]
            Kind::Sse2 => &[Feature::Sse2],
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => &[Feature::Avx, Feature::Avx2],
            // The kernel uses only AVX-512F instructions (vprold, vshufi32x4, unpacks).
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => &[Feature::Avx512F],
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => &[Feature::Neon],
        }
    }
}

impl Platform {
    /// Blocks per kernel step.
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
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 if scalar_short::rows_win() => {
                // SAFETY: every public entry point that takes a Platform asserts
                // `is_supported()` (avx512f) before a kernel can run.
                unsafe { avx512_rows::xor_keystream(state, counter, double_rounds, io) }
            }
            _ => scalar_short::xor_keystream(state, counter, double_rounds, io),
        }
    }

    fn kernel(self, state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
        match self.kind() {
            Kind::Portable => portable::xor_keystream(state, double_rounds, io),
            #[cfg(target_arch = "x86_64")]
            Kind::Sse2 => {
                // SAFETY: every public entry point that takes a Platform asserts
                // `is_supported()` (sse2) before a kernel can run.
                unsafe { sse2_x4::xor_keystream(state, double_rounds, io) }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => {
                // SAFETY: as above (avx, avx2).
                unsafe { avx2_x8::xor_keystream(state, double_rounds, io) }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => {
                // SAFETY: as above (avx512f).
                unsafe { avx512_x16::xor_keystream(state, double_rounds, io) }
            }
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => {
                // SAFETY: as above (neon).
                unsafe { neon_x4::xor_keystream(state, double_rounds, io) }
            }
        }
    }
}

/// `state` with `counter` in words 8 and 9, where the wide kernels read it.
fn with_counter(state: &[u32; 16], counter: u64) -> [u32; 16] {
    let mut state = *state;
    state[8] = counter as u32;
    state[9] = (counter >> 32) as u32;
    state
}
