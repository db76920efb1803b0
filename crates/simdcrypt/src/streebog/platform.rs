//! Streebog backend selection and the one dispatch point into the kernels.
//!
//! ## What this file holds
//!
//! `Platform` (`avx512-gfni`, `portable`; backend algorithm `streebog`), the single dispatch
//! points `compress_blocks`, `g`, `g_lanes` (each asserts support first)

use super::{portable, State, BLOCK_LEN};

#[cfg(target_arch = "x86_64")]
use super::avx512_gfni;

crate::backend::kernel_kinds! {
    algorithm: "streebog",
    /// A Streebog kernel set. Chosen once per hasher; the methods here are the only places
    /// that enter a SIMD kernel.
    pub type Platform = Checked<Kind>;

    pub enum Kind {
        /// AVX-512 with VBMI byte permutes (S-box and transposition) and GFNI affine
        /// transforms (the linear layer L).
        Avx512Gfni = "avx512-gfni" on "x86_64" needs [Avx512F, Avx512Bw, Avx512Vbmi, Gfni],
        /// The 8×256 lookup tables, any CPU.
        Portable = "portable",
    }
}

impl Platform {
    /// Compresses each 64-byte block of `blocks` into `state`, in order.
    ///
    /// Panics if `blocks` is not a whole number of blocks (an internal bug, never user
    /// input).
    pub(crate) fn compress_blocks(self, state: &mut State, mut blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(BLOCK_LEN), "streebog compress_blocks takes whole blocks");
        if let (Some(keys), false) = (super::fresh_keys(state), blocks.is_empty()) {
            let m = super::load_block(blocks);
            self.g_keys(&mut state.h, keys, &m);
            state.absorb(&m);
            blocks = &blocks[BLOCK_LEN..];
        }
        match self.kind() {
            Kind::Portable => portable::compress_blocks(state, blocks),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Gfni => unsafe { avx512_gfni::compress_blocks(state, blocks) },
        }
    }

    /// A message's first compression, g_0(IV, m), from the precomputed keys of its IV.
    pub(crate) fn g_keys(self, h: &mut [u64; 8], keys: &[[u64; 8]; 13], m: &[u64; 8]) {
        match self.kind() {
            Kind::Portable => portable::g_keys(h, keys, m),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Gfni => unsafe { avx512_gfni::g_keys(h, keys, m) },
        }
    }

    /// [`Platform::g_keys`] on [`super::LANES`] first compressions at once.
    pub(crate) fn g_keys_lanes(
        self,
        h: &mut [[u64; 8]; super::LANES],
        keys: &[[u64; 8]; 13],
        m: &[[u64; 8]; super::LANES],
    ) {
        match self.kind() {
            Kind::Portable => {
                for i in 0..h.len() {
                    portable::g_keys(&mut h[i], keys, &m[i]);
                }
            }
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Gfni => unsafe { avx512_gfni::g_keys_lanes(h, keys, m) },
        }
    }

    /// One compression g_N(h, m) with an explicit N (the final stage's calls).
    pub(crate) fn g(self, h: &mut [u64; 8], n: &[u64; 8], m: &[u64; 8]) {
        match self.kind() {
            Kind::Portable => portable::g(h, n, m),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Gfni => unsafe { avx512_gfni::g(h, n, m) },
        }
    }
}

impl Platform {
    /// g_N(h, m) on [`super::LANES`] independent inputs at once.
    pub(crate) fn g_lanes(
        self,
        h: &mut [[u64; 8]; super::LANES],
        n: &[[u64; 8]; super::LANES],
        m: &[[u64; 8]; super::LANES],
    ) {
        match self.kind() {
            Kind::Portable => {
                for i in 0..h.len() {
                    portable::g(&mut h[i], &n[i], &m[i]);
                }
            }
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Gfni => unsafe { avx512_gfni::g_lanes(h, n, m) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each backend's compression against the portable one on pseudo-random values.
    #[test]
    fn g_matches_portable() {
        let mut rng = crate::test_rng::XorShift64::new(0x9E37_79B9_7F4A_7C15);
        let mut next = move || rng.next_u64();
        crate::backend::for_each_supported("g_matches_portable", |platform: Platform| {
            for trial in 0..200 {
                let h: [u64; 8] = core::array::from_fn(|_| next());
                let n: [u64; 8] = core::array::from_fn(|_| next());
                let m: [u64; 8] = core::array::from_fn(|_| next());
                let mut expected = h;
                portable::g(&mut expected, &n, &m);
                let mut got = h;
                platform.g(&mut got, &n, &m);
                assert_eq!(got, expected, "{platform:?} trial {trial}");
            }
        });
    }

    /// The first-compression shortcut (precomputed keys, one and four lanes) against the
    /// full compression g_0(IV, m) on every backend.
    #[test]
    fn first_compression_shortcut_matches_g() {
        use super::super::tables::{IV_KEYS_256, IV_KEYS_512};
        use super::super::LANES;
        let mut rng = crate::test_rng::XorShift64::new(0x2545_F491_4F6C_DD1D);
        let mut next = move || rng.next_u64();
        crate::backend::for_each_supported("first_compression_shortcut_matches_g", |platform: Platform| {
            for (iv, keys) in [(0u64, &IV_KEYS_512), (0x0101_0101_0101_0101, &IV_KEYS_256)] {
                let m: [[u64; 8]; LANES] = core::array::from_fn(|_| core::array::from_fn(|_| next()));
                let mut one = [[iv; 8]; LANES];
                let mut lanes = [[iv; 8]; LANES];
                platform.g_keys_lanes(&mut lanes, keys, &m);
                for i in 0..LANES {
                    let mut expected = [iv; 8];
                    portable::g(&mut expected, &[0; 8], &m[i]);
                    platform.g_keys(&mut one[i], keys, &m[i]);
                    assert_eq!(one[i], expected, "{platform:?} one lane {i}");
                    assert_eq!(lanes[i], expected, "{platform:?} lanes {i}");
                }
            }
        });
    }
}
