//! GOST R 34.11-94 backend selection and the one dispatch point into the kernels.

#[cfg(target_arch = "x86_64")]
use super::avx512;
use super::batch::Lanes;
use super::{portable, State, Tables, BLOCK_LEN};
use crate::backend::Backend;
#[cfg(target_arch = "x86_64")]
use crate::cpu::Feature;
use crate::cpu::Features;

/// A GOST R 34.11-94 kernel set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Platform {
    /// Table-driven GOST 28147-89, the four encryptions of a step interleaved; any CPU.
    Portable,
    /// AVX-512 (F, BW, VL, VBMI): `vpermb` nibble S-boxes, the four encryptions of a step
    /// in four lanes; batches sixteen messages to a register.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Backend for Platform {
    const ALGORITHM: &'static str = "gost94";
    const ALL: &'static [Platform] = &[
        #[cfg(target_arch = "x86_64")]
        Platform::Avx512,
        Platform::Portable,
    ];

    fn name(self) -> &'static str {
        match self {
            Platform::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Platform::Avx512 => "avx512",
        }
    }

    fn runs_on(self, f: Features) -> bool {
        let _ = f; // unused where only the portable backend exists
        match self {
            Platform::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Platform::Avx512 => {
                f.has_all(&[Feature::Avx512F, Feature::Avx512Bw, Feature::Avx512Vl, Feature::Avx512Vbmi])
            }
        }
    }
}

impl Platform {
    /// Panics with a clear message if this CPU cannot run the backend. Every public entry
    /// point that accepts a `Platform` calls this, since any user can name a variant.
    #[track_caller]
    pub(crate) fn assert_supported(self) {
        crate::backend::assert_supported(self);
    }

    /// Hashes each 32-byte block of `blocks` into `state` (H and Σ).
    pub(crate) fn compress_blocks(self, t: &Tables, state: &mut State, blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(BLOCK_LEN), "gost94 compress_blocks takes whole blocks");
        match self {
            Platform::Portable => portable::compress_blocks(t, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Platform::Avx512 => {
                self.assert_supported();
                // SAFETY: support for avx512f, avx512bw, avx512vl and avx512vbmi was
                // checked above.
                unsafe { avx512::compress_blocks(t, state, blocks) }
            }
        }
    }

    /// One step f(H, M).
    pub(crate) fn step(self, t: &Tables, h: [u64; 4], m: [u64; 4]) -> [u64; 4] {
        match self {
            Platform::Portable => portable::step(t, h, m),
            #[cfg(target_arch = "x86_64")]
            Platform::Avx512 => {
                self.assert_supported();
                // SAFETY: support for the kernel's target features was checked above.
                unsafe { avx512::step(t, h, m) }
            }
        }
    }

    /// One step on [`super::batch::LANES`] independent states at once, or `false` (and
    /// nothing done) where this backend has no multi-message kernel.
    pub(crate) fn step_lanes(self, t: &Tables, hs: &mut Lanes, ms: &Lanes) -> bool {
        let _ = (t, &hs, ms); // unused where only the portable backend exists
        match self {
            Platform::Portable => false,
            #[cfg(target_arch = "x86_64")]
            Platform::Avx512 => {
                self.assert_supported();
                // SAFETY: support for the kernel's target features was checked above.
                unsafe { avx512::step_lanes(t, hs, ms) };
                true
            }
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
                        core::array::from_fn(|k| core::array::from_fn(|l| (v[l][k / 2] >> (32 * (k % 2))) as u32))
                    };
                    let mut hs = split(&h);
                    if platform.step_lanes(t, &mut hs, &split(&m)) {
                        for l in 0..LANES {
                            let got: [u64; 4] =
                                core::array::from_fn(|i| hs[2 * i][l] as u64 | (hs[2 * i + 1][l] as u64) << 32);
                            assert_eq!(got, expected[l], "{platform:?} {sbox:?} lanes trial {trial} lane {l}");
                        }
                        if trial == 0 && sbox == SBox::CryptoPro {
                            exercised.push(format!("{} (and its {LANES} lanes)", platform.name()));
                        }
                    } else if trial == 0 && sbox == SBox::CryptoPro {
                        exercised.push(platform.name().to_string());
                    }
                }
            }
        }
        println!("steps_match_portable: gost94 backends exercised: {}", exercised.join(", "));
    }
}
