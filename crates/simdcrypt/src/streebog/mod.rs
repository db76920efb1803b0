//! Streebog (GOST R 34.11-2012, RFC 6986), 256- and 512-bit, and HMAC-Streebog (RFC 7836).
//!
//! ```
//! use simdcrypt::streebog;
//!
//! let digest = streebog::hash256(b"The quick brown fox jumps over the lazy dog");
//! assert_eq!(
//!     simdcrypt::to_hex(&digest),
//!     "3e7dea7f2384b6c5a3d0e24aaa29c05e89ddd762145030ec22c71a6db8b2c1f4"
//! );
//!
//! // Streaming: any split of the input gives the same digest.
//! let mut hasher = streebog::Streebog256::new();
//! hasher.update(b"The quick brown fox ").update(b"jumps over the lazy dog");
//! assert_eq!(hasher.finalize(), digest);
//! ```
//!
//! # Byte order
//!
//! Digests are the byte strings that OpenSSL, RHash, Nettle, libgcrypt and RustCrypto
//! output. The standard treats messages and digests as numbers and prints them most
//! significant byte first, so its printed examples show the same bytes in reverse order:
//! reverse a digest (the CLI's `--gost-reverse`) to compare it with the standard's text.
//!
//! # Backends
//!
//! The portable backend ([`Platform::portable`]) computes the LPS transformation with 8×256 lookup tables that the
//! compiler generates from the standard's S-box and matrix (see `tables.rs`).
//! The `avx512-gfni` backend (x86-64 with AVX-512 VBMI and GFNI) keeps the 512-bit state in
//! one register: the S-box is two `vpermi2b` lookups, and the linear layer L is eight
//! `gf2p8affineqb` with 8×8 bit-matrix blocks of A, followed by one byte transposition.
//!
//! On every backend a message's first compression (h = IV, N = 0) takes its key schedule,
//! which depends on the IV alone, from a table computed at compile time: 12 LPS instead
//! of 25, which shows in short messages and batches.
//!
//! ## What this file holds
//!
//! Streebog's public API: `Streebog<N>` (`Streebog256`, `Streebog512`: `update`, `finalize`,
//! `reset`, `set_platform`, which panics for a backend the CPU lacks), `hash256`/`hash512`,
//! HMAC (`Hmac<N>`, `hmac256`/`hmac512`, RFC 7836); the state (h, N, Σ as little-endian
//! words), buffering, the final stage (padded last block, g_0(N), g_0(Σ)) and the byte-order
//! notes

mod algorithm;
#[cfg(target_arch = "x86_64")]
mod avx512_gfni;
mod batch;
mod platform;
pub(crate) mod portable;
mod state;
pub(crate) mod tables;

pub use algorithm::{ALGORITHM_256, ALGORITHM_512};
pub use batch::{hash_many, Bits};
pub use platform::{Kind, Platform};
pub use state::HmacNew;

/// Internals for benches/examples/streebog_lps.rs, which weighs other LPS designs against
/// the portable tables: not part of the API, and may change or go at any time.
#[doc(hidden)]
pub mod bench_hooks {
    /// The S-box π.
    pub const PI: [u8; 256] = super::tables::PI;
    /// The rows of l's matrix (see `tables.rs`).
    pub const A: [u64; 64] = super::tables::A;

    /// x ← L∘P∘S(x ⊕ y) by the portable backend's tables.
    #[inline]
    pub fn portable_lpsx(x: &mut [u64; 8], y: &[u64; 8]) {
        super::portable::lpsx(x, y);
    }
}

use crate::block_buffer::BlockBuffer;

/// Block size of the compression function in bytes (also HMAC's block size).
pub const BLOCK_LEN: usize = 64;

/// How many messages run side by side in a batch. Eight lanes measured no faster than four
/// (docs/tuning-history.md, "Notes moved from the code", "streebog"): with four the kernel
/// is already bound by instruction throughput, not latency.
pub(crate) const LANES: usize = 4;

/// The chaining state: h, the bit counter N and the checksum Σ (each 512 bits, as
/// little-endian words).
#[derive(Clone, Debug)]
pub(crate) struct State {
    pub(crate) h: [u64; 8],
    pub(crate) n: [u64; 8],
    pub(crate) sigma: [u64; 8],
}

impl State {
    fn new(out_len: usize) -> Self {
        // The IV is 0^512 for Streebog-512 and (00000001)^64 for Streebog-256.
        let iv = if out_len == 32 { 0x0101_0101_0101_0101 } else { 0 };
        State { h: [iv; 8], n: [0; 8], sigma: [0; 8] }
    }

    /// After compressing a whole block `m`: N += 512, Σ += m (both modulo 2^512).
    #[inline(always)]
    pub(crate) fn absorb(&mut self, m: &[u64; 8]) {
        add512(&mut self.n, &[512, 0, 0, 0, 0, 0, 0, 0]);
        add512(&mut self.sigma, m);
    }
}

// a += b modulo 2^512 (N and Σ), and a 64-byte block as little-endian words.
pub(crate) use crate::block_buffer::{add_words as add512, le_words as load_block};

/// The precomputed key schedule for a state that has compressed nothing yet (N = 0, so h
/// is still the IV), or `None`.
#[inline]
pub(crate) fn fresh_keys(state: &State) -> Option<&'static [[u64; 8]; 13]> {
    if state.n != [0; 8] {
        return None;
    }
    if state.h == [0; 8] {
        Some(&tables::IV_KEYS_512)
    } else if state.h == [0x0101_0101_0101_0101; 8] {
        Some(&tables::IV_KEYS_256)
    } else {
        None
    }
}

/// The final stage (the standard's stage 3) on a copy of the state: the padded last
/// partial block `rest` (fewer than 64 bytes, possibly none), then N and Σ. Returns h.
pub(crate) fn finish(platform: Platform, state: &State, rest: &[u8]) -> [u64; 8] {
    debug_assert!(rest.len() < BLOCK_LEN);
    let mut st = state.clone();
    let mut last = [0u8; BLOCK_LEN];
    last[..rest.len()].copy_from_slice(rest);
    last[rest.len()] = 1;
    let m = load_block(&last);
    match fresh_keys(&st) {
        Some(keys) => platform.g_keys(&mut st.h, keys, &m),
        None => platform.g(&mut st.h, &st.n, &m),
    }
    add512(&mut st.n, &[8 * rest.len() as u64, 0, 0, 0, 0, 0, 0, 0]);
    add512(&mut st.sigma, &m);
    platform.g(&mut st.h, &[0; 8], &st.n);
    platform.g(&mut st.h, &[0; 8], &st.sigma);
    st.h
}

/// The digest bytes of a final h: all of it for Streebog-512, the upper half (the
/// last 32 bytes) for Streebog-256.
pub(crate) fn digest_bytes<const N: usize>(h: &[u64; 8]) -> [u8; N] {
    let mut all = [0u8; 64];
    for (bytes, word) in all.chunks_exact_mut(8).zip(h) {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
    all[64 - N..].try_into().unwrap()
}

/// An incremental Streebog hasher with an `N`-byte digest: [`Streebog256`] or
/// [`Streebog512`].
#[derive(Clone, Debug)]
pub struct Streebog<const N: usize> {
    state: State,
    /// The bytes of a block not yet complete, and the input length.
    buf: BlockBuffer<BLOCK_LEN>,
    platform: Platform,
}

/// Streebog-256 (32-byte digests).
pub type Streebog256 = Streebog<32>;
/// Streebog-512 (64-byte digests).
pub type Streebog512 = Streebog<64>;

impl Streebog<32> {
    /// A Streebog-256 hasher using the best backend this CPU supports.
    pub fn new() -> Self {
        Self::with_state()
    }
}

impl Streebog<64> {
    /// A Streebog-512 hasher using the best backend this CPU supports.
    pub fn new() -> Self {
        Self::with_state()
    }
}

impl Default for Streebog<32> {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for Streebog<64> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Streebog<N> {
    /// Digest length in bytes.
    pub const OUT_LEN: usize = N;

    fn with_state() -> Self {
        Streebog { state: State::new(N), buf: BlockBuffer::new(), platform: Platform::detect() }
    }

    /// Chooses the kernels (the default is [`Platform::detect`]). The result never depends
    /// on the choice.
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
        self.state = State::new(N);
        self.buf.reset();
        self
    }

    /// Adds input. Whole blocks are compressed straight from `input`.
    pub fn update(&mut self, input: &[u8]) -> &mut Self {
        let (state, platform) = (&mut self.state, self.platform);
        self.buf.update(input, |blocks| platform.compress_blocks(state, blocks));
        self
    }

    /// The digest of the input so far. The hasher can keep being updated.
    pub fn finalize(&self) -> [u8; N] {
        digest_bytes(&finish(self.platform, &self.state, self.buf.pending()))
    }

    /// The number of input bytes so far (modulo 2^64).
    pub fn count(&self) -> u64 {
        self.buf.total()
    }
}

/// The Streebog-256 digest of `input`.
pub fn hash256(input: &[u8]) -> [u8; 32] {
    Streebog256::new().update(input).finalize()
}

/// The Streebog-512 digest of `input`.
pub fn hash512(input: &[u8]) -> [u8; 64] {
    Streebog512::new().update(input).finalize()
}

/// HMAC (RFC 2104) with Streebog, as RFC 7836 (4.1.1) defines HMAC_GOSTR3411_2012_256
/// and _512: 64-byte blocks, keys longer than a block hashed first with the same hash.
#[derive(Clone, Debug)]
pub struct Hmac<const N: usize> {
    inner: Streebog<N>,
    outer: Streebog<N>,
    /// The key as HMAC uses it (hashed if longer than a block, zero-padded): an equivalent
    /// key, kept so that a saved state can be restored ([`Hmac::key_block`]).
    key_block: [u8; BLOCK_LEN],
}

/// HMAC-Streebog-256 (32-byte tags).
pub type HmacStreebog256 = Hmac<32>;
/// HMAC-Streebog-512 (64-byte tags).
pub type HmacStreebog512 = Hmac<64>;

impl Hmac<32> {
    /// An HMAC-Streebog-256 of `key` (any length).
    pub fn new(key: &[u8]) -> Self {
        Self::with(key, Streebog256::new(), |k| hash256(k).to_vec())
    }
}

impl Hmac<64> {
    /// An HMAC-Streebog-512 of `key` (any length).
    pub fn new(key: &[u8]) -> Self {
        Self::with(key, Streebog512::new(), |k| hash512(k).to_vec())
    }
}

impl<const N: usize> Hmac<N> {
    fn with(key: &[u8], fresh: Streebog<N>, hash: impl Fn(&[u8]) -> Vec<u8>) -> Self {
        let mut k = [0u8; BLOCK_LEN];
        if key.len() > BLOCK_LEN {
            let d = hash(key);
            k[..d.len()].copy_from_slice(&d);
        } else {
            k[..key.len()].copy_from_slice(key);
        }
        let mut inner = fresh.clone();
        let mut outer = fresh;
        inner.update(&k.map(|b| b ^ 0x36));
        outer.update(&k.map(|b| b ^ 0x5c));
        Hmac { inner, outer, key_block: k }
    }

    /// Chooses the kernels of both hashes.
    pub fn set_platform(&mut self, platform: Platform) -> &mut Self {
        self.inner.set_platform(platform);
        self.outer.set_platform(platform);
        self
    }

    /// The backend in use.
    pub fn platform(&self) -> Platform {
        self.inner.platform()
    }

    /// Adds message input.
    pub fn update(&mut self, input: &[u8]) -> &mut Self {
        self.inner.update(input);
        self
    }

    /// The tag of the message so far; the object can keep being updated.
    pub fn finalize(&self) -> [u8; N] {
        let mut outer = self.outer.clone();
        outer.update(&self.inner.finalize());
        outer.finalize()
    }
}

/// HMAC-Streebog-256 of `data` under `key`.
pub fn hmac256(key: &[u8], data: &[u8]) -> [u8; 32] {
    HmacStreebog256::new(key).update(data).finalize()
}

/// HMAC-Streebog-512 of `data` under `key`.
pub fn hmac512(key: &[u8], data: &[u8]) -> [u8; 64] {
    HmacStreebog512::new(key).update(data).finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_boundaries_match_one_shot() {
        // Block edges streamed in every two-piece split, both sizes; then reset.
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        let lens = [0usize, 1, 62, 63, 64, 65, 127, 128, 129, 200, 300];
        crate::streaming::assert_streaming_matches(Streebog512::new, |m| hash512(m).to_vec(), &data, &lens);
        crate::streaming::assert_streaming_matches(Streebog256::new, |m| hash256(m).to_vec(), &data, &lens[..8]);
    }

    #[test]
    fn reset_forgets_the_count() {
        let mut h = Streebog256::new();
        h.update(b"something");
        assert_eq!(h.reset().update(b"abc").count(), 3);
    }
}
