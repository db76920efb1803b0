//! GOST R 34.11-94 backend selection and the one dispatch point into the kernels.

use super::{portable, State, Tables, BLOCK_LEN};
use crate::backend::Backend;
use crate::cpu::Features;

/// A GOST R 34.11-94 kernel set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Platform {
    /// Table-driven GOST 28147-89, the four encryptions of a step interleaved; any CPU.
    Portable,
}

impl Backend for Platform {
    const ALGORITHM: &'static str = "gost94";
    const ALL: &'static [Platform] = &[Platform::Portable];

    fn name(self) -> &'static str {
        match self {
            Platform::Portable => "portable",
        }
    }

    fn runs_on(self, _f: Features) -> bool {
        match self {
            Platform::Portable => true,
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
        }
    }

    /// One step f(H, M).
    pub(crate) fn step(self, t: &Tables, h: [u64; 4], m: [u64; 4]) -> [u64; 4] {
        match self {
            Platform::Portable => portable::step(t, h, m),
        }
    }
}
