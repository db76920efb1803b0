//! GOST R 34.11-94 backend selection and the one dispatch point into the kernels.

use super::{portable, State, Tables, BLOCK_LEN};
use crate::backend::{Checked, DetectCache, Kernels};
use crate::cpu::Feature;

/// A GOST R 34.11-94 kernel set this CPU can run.
///
/// Obtained only from `detect`, `from_name`, `all_supported` or `portable`, each of which
/// checks this CPU (see [`crate::backend`]).
pub type Platform = Checked<Kind>;

/// The names of the kernel sets; only a checked [`Platform`] reaches a kernel.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Kind {
    /// Table-driven GOST 28147-89, the four encryptions of a step interleaved; any CPU.
    Portable,
}

impl Kernels for Kind {
    const ALGORITHM: &'static str = "gost94";
    const ALL: &'static [Kind] = &[Kind::Portable];
    const OTHER_ARCHITECTURES: &'static [(&'static str, &'static str)] = &[];

    fn detected() -> &'static DetectCache {
        static DETECTED: DetectCache = DetectCache::new();
        &DETECTED
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Portable => "portable",
        }
    }

    fn requires(self) -> &'static [Feature] {
        match self {
            Kind::Portable => &[],
        }
    }
}

impl Platform {
    /// Hashes each 32-byte block of `blocks` into `state` (H and Σ).
    pub(crate) fn compress_blocks(self, t: &Tables, state: &mut State, blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(BLOCK_LEN), "gost94 compress_blocks takes whole blocks");
        match self.kind() {
            Kind::Portable => portable::compress_blocks(t, state, blocks),
        }
    }

    /// One step f(H, M).
    pub(crate) fn step(self, t: &Tables, h: [u64; 4], m: [u64; 4]) -> [u64; 4] {
        match self.kind() {
            Kind::Portable => portable::step(t, h, m),
        }
    }
}
