//! SHA-256 backend selection and the one dispatch point into the kernels.
//!
//! ## What this file holds
//!
//! `Platform` (`portable`, `shani`, `armv8-sha2`) and the single dispatch point
//! `compress_blocks(state, blocks)` (whole 64-byte blocks, checked)

use super::{portable, BLOCK_LEN};

#[cfg(target_arch = "aarch64")]
use super::armv8;
#[cfg(target_arch = "x86_64")]
use super::shani;

crate::backend::kernel_kinds! {
    algorithm: "sha256",
    /// A SHA-256 kernel set. Chosen once per hasher; `Platform::compress_blocks` is the only
    /// place that enters a SIMD kernel.
    pub type Platform = Checked<Kind>;

    pub enum Kind {
        /// x86-64 SHA extensions (with the SSSE3 byte shuffle and SSE4.1 blend they need).
        // pshufb (byte swap) and palignr are SSSE3, pblendw is SSE4.1.
        ShaNi = "shani" on "x86_64" needs [Sha, Ssse3, Sse41],
        /// aarch64 ARMv8 Cryptography Extension SHA-256 instructions.
        ArmSha2 = "armv8-sha2" on "aarch64" needs [Neon, Sha2],
        /// Plain Rust, any CPU.
        Portable = "portable",
    }
}

impl Platform {
    /// Compresses each 64-byte block of `blocks` into `state`, in order.
    ///
    /// Panics if `blocks` is not a whole number of blocks (an internal bug, never user
    /// input): the kernels rely on it.
    pub(crate) fn compress_blocks(self, state: &mut [u32; 8], blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(BLOCK_LEN), "sha256 compress_blocks takes whole blocks");
        match self.kind() {
            Kind::Portable => portable::compress_blocks(state, blocks),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::ShaNi => unsafe { shani::compress_blocks(state, blocks) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "aarch64")]
            Kind::ArmSha2 => unsafe { armv8::compress_blocks(state, blocks) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each backend's `compress_blocks` against the portable one, on pseudo-random states
    /// and messages of 1 to 9 blocks.
    #[test]
    fn compress_blocks_matches_portable() {
        let mut rng = crate::test_rng::XorShift64::new(0x9E37_79B9_7F4A_7C15);
        let mut next = move || rng.next_u64();
        crate::backend::for_each_supported("compress_blocks_matches_portable", |platform: Platform| {
            for trial in 0..20 {
                for blocks in 1..=9usize {
                    let state: [u32; 8] = core::array::from_fn(|_| next() as u32);
                    let data: Vec<u8> = (0..blocks * BLOCK_LEN).map(|_| next() as u8).collect();
                    let mut expected = state;
                    Platform::portable().compress_blocks(&mut expected, &data);
                    let mut got = state;
                    platform.compress_blocks(&mut got, &data);
                    assert_eq!(got, expected, "{platform:?} trial {trial} blocks {blocks}");
                }
            }
        });
    }
}
