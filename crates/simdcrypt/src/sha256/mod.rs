//! SHA-256 (FIPS 180-4) for single messages.
//!
//! ```
//! use simdcrypt::sha256;
//!
//! let digest = sha256::hash(b"abc");
//! assert_eq!(
//!     simdcrypt::to_hex(&digest),
//!     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
//! );
//!
//! // Streaming: any split of the input gives the same digest.
//! let mut hasher = sha256::Sha256::new();
//! hasher.update(b"a").update(b"bc");
//! assert_eq!(hasher.finalize(), digest);
//! ```
//!
//! Whole 64-byte blocks go to the kernels straight from the caller's slice, as many per
//! call as the input holds; only a partial block is copied into the hasher's buffer.
//!
//! [`hash_blocks`] and [`BlockBatch`] hash many 64-byte blocks, each as a whole message
//! (hashtree's batches), with kernels wide across blocks ([`BatchPlatform`]);
//! [`merkle_root`] and [`merkle_layers`] build SSZ-style Merkle trees with them, a layer
//! per batch (`merkle_root` a cache-sized subtree at a time), padding with [`zero_hash`].
//!
//! ## What this file holds
//!
//! SHA-256's public API (`Sha256`: `update`, `finalize`, `reset`, `set_platform`; `hash`;
//! `OUT_LEN`, `BLOCK_LEN`), the constants, buffering of partial blocks and the padding with
//! the 64-bit bit length; whole blocks go to the kernel straight from the caller's slice

/// Runs `$body` with `$i` bound to 0, 1, ..., 15, written out in place (a loop the
/// compiler might keep as a loop; and not a closure, which code without the kernel's
/// target features could not inline): the batch kernels' rounds, a group of 16 at a time.
#[allow(unused_macros)]
macro_rules! unroll16 {
    (|$i:ident| $body:expr) => {
        unroll16!(@each $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@each $i:ident, $body:expr, $($n:literal)*) => {
        $({
            let $i: usize = $n;
            $body;
        })*
    };
}

mod algorithm;
#[cfg(target_arch = "aarch64")]
mod armv8;
mod batch;
#[cfg(target_arch = "x86_64")]
mod batch_avx2;
#[cfg(target_arch = "x86_64")]
mod batch_avx512;
#[cfg(target_arch = "aarch64")]
mod batch_neon;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod batch_rounds;
#[cfg(target_arch = "x86_64")]
mod batch_shani;
mod batch_shared;
mod merkle;
mod platform;
mod portable;
#[cfg(target_arch = "x86_64")]
mod shani;
mod state;

use crate::block_buffer::BlockBuffer;
pub use algorithm::ALGORITHM;
pub use batch::{hash_blocks, BatchKind, BatchPlatform, BlockBatch, SHANI_REMAINDER_MAX};
pub use merkle::{merkle_layers, merkle_root, zero_hash, MERKLE_MAX_DEPTH};
pub use platform::{Kind, Platform};
#[cfg(any(feature = "cuda", feature = "cuda-emulation"))]
pub(crate) use {batch::check_blocks, merkle::tree_depth, merkle::tree_shape};

/// Digest length in bytes.
pub const OUT_LEN: usize = 32;
/// Block size of the compression function in bytes.
pub const BLOCK_LEN: usize = 64;

/// The initial hash value H(0) (FIPS 180-4, 5.3.3).
const IV: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// The round constants K (FIPS 180-4, 4.2.2).
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
];

/// An incremental SHA-256 hasher.
#[derive(Clone, Debug)]
pub struct Sha256 {
    state: [u32; 8],
    /// The bytes of a block not yet complete, and the input length.
    buf: BlockBuffer<BLOCK_LEN>,
    platform: Platform,
}

impl Default for Sha256 {
    fn default() -> Self {
        Self::new()
    }
}

impl Sha256 {
    /// A hasher using the best backend this CPU supports.
    pub fn new() -> Self {
        Sha256 { state: IV, buf: BlockBuffer::new(), platform: Platform::detect() }
    }

    /// Chooses the kernels (the default is [`Platform::detect`]). The result never depends
    /// on the choice. Obtain a `Platform` from [`Platform::from_name`] or
    /// [`Platform::all_supported`], which check that this CPU can run it.
    pub fn set_platform(&mut self, platform: Platform) -> &mut Self {
        self.platform = platform;
        self
    }

    /// The backend in use.
    pub fn platform(&self) -> Platform {
        self.platform
    }

    /// Forgets all input, keeping the backend.
    pub fn reset(&mut self) -> &mut Self {
        self.state = IV;
        self.buf.reset();
        self
    }

    /// Adds input.
    pub fn update(&mut self, input: &[u8]) -> &mut Self {
        let (state, platform) = (&mut self.state, self.platform);
        self.buf.update(input, |blocks| platform.compress_blocks(state, blocks));
        self
    }

    /// The digest of the input so far. The hasher can keep being updated.
    pub fn finalize(&self) -> [u8; OUT_LEN] {
        // Padding: 0x80, zeros, then the length in bits as a big-endian u64, filling one
        // block, or two when fewer than 9 bytes are left after the message.
        let mut tail = [0u8; 2 * BLOCK_LEN];
        let pending = self.buf.pending();
        tail[..pending.len()].copy_from_slice(pending);
        tail[pending.len()] = 0x80;
        let tail_len = if pending.len() + 9 <= BLOCK_LEN { BLOCK_LEN } else { 2 * BLOCK_LEN };
        tail[tail_len - 8..tail_len].copy_from_slice(&self.buf.total().wrapping_mul(8).to_be_bytes());
        let mut state = self.state;
        self.platform.compress_blocks(&mut state, &tail[..tail_len]);
        let mut out = [0u8; OUT_LEN];
        for (bytes, word) in out.chunks_exact_mut(4).zip(state) {
            bytes.copy_from_slice(&word.to_be_bytes());
        }
        out
    }

    /// The number of input bytes so far (modulo 2^64).
    pub fn count(&self) -> u64 {
        self.buf.total()
    }
}

/// The SHA-256 digest of `input`.
pub fn hash(input: &[u8]) -> [u8; OUT_LEN] {
    Sha256::new().update(input).finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_boundaries_match_one_shot() {
        // Lengths around the one-or-two padding blocks boundary (55/56) and block edges,
        // streamed in every two-piece split, against the one-shot digest; then reset.
        let data: Vec<u8> = (0..200u32).map(|i| (i * 7 + 3) as u8).collect();
        let lens = [0usize, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 128, 129, 200];
        crate::streaming::assert_streaming_matches(Sha256::new, |m| hash(m).to_vec(), &data, &lens);
    }

    #[test]
    fn reset_forgets_the_count() {
        let mut h = Sha256::new();
        h.update(b"something");
        assert_eq!(h.reset().update(b"abc").count(), 3);
    }
}
