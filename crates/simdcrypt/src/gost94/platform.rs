//! GOST R 34.11-94 backend selection and the one dispatch point into the kernels.
//!
//! ## What this file holds
//!
//! `Platform` (`avx512`, `avx2`, `ssse3`, `portable` on x86-64; `neon`, `portable` on aarch64;
//! backend algorithm `gost94`) and the dispatch of one step, a block run and a 16-lane step
//! (`has_lanes`: whether the backend has a 16-lane kernel; `portable` runs its one-message
//! step lane by lane, which the scheduler does not use; `avx2` hashes single messages with the
//! portable step, measured faster than its vector one; `neon` likewise, not measured)

use super::batch::{lane_words, set_lane_words, Lanes};
#[cfg(target_arch = "aarch64")]
use super::neon;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512, ssse3};
use super::{portable, State, Tables, BLOCK_LEN};

crate::backend::kernel_kinds! {
    algorithm: "gost94",
    /// A GOST R 34.11-94 kernel set.
    pub type Platform = Checked<Kind>;

    pub enum Kind {
        /// AVX-512 (F, BW, VL, VBMI): `vpermb` nibble S-boxes, the four encryptions of a step
        /// in four lanes; batches sixteen messages to a register.
        Avx512 = "avx512" on "x86_64" needs [Avx512F, Avx512Bw, Avx512Vl, Avx512Vbmi],
        /// AVX2: batches of eight messages to a register, `vpshufb` nibble S-boxes (a table
        /// per byte position, blended); single messages run the table-driven encryptions
        /// with the key generation and the mixing (ψ^n as shuffles) in ymm registers.
        // Below AVX-512 (eight shuffles and three blends a round instead of two `vpermb`).
        // Ahead of portable for batches: eight messages a register do in one pass what the
        // table-driven code does in eight; for single messages the vector mixing takes
        // about 70 ψ steps off each block's serial path.
        Avx2 = "avx2" on "x86_64" needs [Ssse3, Sse41, Avx, Avx2],
        /// aarch64 NEON: batches of four messages to a q register, `tbl` nibble S-boxes (one
        /// four-register lookup per nibble serves all four byte positions); single messages
        /// use the portable step.
        // Ahead of portable for batches by the same reasoning as AVX2: four messages a
        // register, the S-box layer two lookups, far fewer instructions per message than the
        // table-driven step (counted in the compiled code; a four-register `tbl` is several
        // micro-ops on some cores). Not timed: there is no aarch64 hardware here.
        Neon = "neon" on "aarch64" needs [Neon],
        /// SSSE3, for x86-64 CPUs without AVX2: single messages as with AVX2 (the
        /// table-driven encryptions; key generation and mixing by `pshufb`s on pairs of xmm
        /// registers); batches sixteen messages a step on byte planes in four xmm
        /// registers (1.5× the one-at-a-time rate it replaced, `gost_count gost94 many`).
        Ssse3 = "ssse3" on "x86_64" needs [Ssse3],
        /// Table-driven GOST 28147-89, the four encryptions of a step interleaved; any CPU.
        Portable = "portable",
    }
}

impl Platform {
    /// Hashes each 32-byte block of `blocks` into `state` (H and Σ).
    pub(crate) fn compress_blocks(self, t: &Tables, state: &mut State, blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(BLOCK_LEN), "gost94 compress_blocks takes whole blocks");
        match self.kind() {
            Kind::Portable => portable::compress_blocks(t, state, blocks),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::compress_blocks(t, state, blocks) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2::compress_blocks(t, state, blocks) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Ssse3 => unsafe { ssse3::compress_blocks(t, state, blocks) },
            // A single message's four encryptions in one q register are one serial chain;
            // the table-driven step interleaves four scalar chains. Not claimed faster either
            // way (no aarch64 hardware measured): this backend differs from portable in
            // batches only.
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => portable::compress_blocks(t, state, blocks),
        }
    }

    /// One step f(H, M).
    pub(crate) fn step(self, t: &Tables, h: [u64; 4], m: [u64; 4]) -> [u64; 4] {
        match self.kind() {
            Kind::Portable => portable::step(t, h, m),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::step(t, h, m) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2::step(t, h, m) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Ssse3 => unsafe { ssse3::step(t, h, m) },
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => portable::step(t, h, m),
        }
    }

    /// Whether this backend has a multi-message kernel: where it has not,
    /// [`Self::step_lanes`] runs the one-message step lane by lane, no faster than one
    /// message at a time.
    pub(crate) fn has_lanes(self) -> bool {
        !matches!(self.kind(), Kind::Portable)
    }

    /// One step on [`super::batch::LANES`] independent states at once.
    pub(crate) fn step_lanes(self, t: &Tables, hs: &mut Lanes, ms: &Lanes) {
        match self.kind() {
            Kind::Portable => {
                for l in 0..super::batch::LANES {
                    let h = portable::step(t, lane_words(hs, l), lane_words(ms, l));
                    set_lane_words(hs, l, h);
                }
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which
            // cover the kernel (ssse3).
            Kind::Ssse3 => unsafe { ssse3::step_lanes(t, hs, ms) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which
            // cover the kernel.
            Kind::Avx512 => unsafe { avx512::step_lanes(t, hs, ms) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which
            // cover the kernel (ssse3, sse4.1, avx and avx2).
            Kind::Avx2 => unsafe { avx2::step_lanes(t, hs, ms) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which
            // cover the kernel (neon).
            Kind::Neon => unsafe { neon::step_lanes(t, hs, ms) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::batch::LANES;
    use super::super::SBox;
    use super::*;

    /// Each backend's one-message step, and its multi-message step where it has one,
    /// against the portable step on pseudo-random states and blocks.
    #[test]
    fn steps_match_portable() {
        let mut rng = crate::test_rng::XorShift64::new(0x0123_4567_89AB_CDEF);
        let mut exercised = Vec::new();
        for platform in Platform::all_supported() {
            for sbox in SBox::ALL {
                let t = sbox.tables();
                for trial in 0..50 {
                    let h: [[u64; 4]; LANES] = core::array::from_fn(|_| core::array::from_fn(|_| rng.next_u64()));
                    let m: [[u64; 4]; LANES] = core::array::from_fn(|_| core::array::from_fn(|_| rng.next_u64()));
                    let expected: Vec<[u64; 4]> = (0..LANES).map(|l| portable::step(t, h[l], m[l])).collect();
                    for l in 0..LANES {
                        assert_eq!(platform.step(t, h[l], m[l]), expected[l], "{platform:?} {sbox:?} trial {trial}");
                    }
                    let split = |v: &[[u64; 4]; LANES]| -> Lanes {
                        let mut lanes = [[0; LANES]; 8];
                        for (l, words) in v.iter().enumerate() {
                            set_lane_words(&mut lanes, l, *words);
                        }
                        lanes
                    };
                    let mut hs = split(&h);
                    platform.step_lanes(t, &mut hs, &split(&m));
                    for (l, expected) in expected.iter().enumerate() {
                        assert_eq!(lane_words(&hs, l), *expected, "{platform:?} {sbox:?} lanes trial {trial} lane {l}");
                    }
                    if trial == 0 && sbox == SBox::CryptoPro {
                        exercised.push(if platform.has_lanes() {
                            format!("{} (and its {LANES} lanes)", platform.name())
                        } else {
                            format!("{} (lanes one by one)", platform.name())
                        });
                    }
                }
            }
        }
        println!("steps_match_portable: gost94 backends exercised: {}", exercised.join(", "));
    }
}
