//! HighwayHash (Alakuijala, Cox, Wassenberg, 2016): Google's fast keyed hash with 64-, 128-
//! and 256-bit results and a 32-byte key, byte-exact with google/highwayhash.
//!
//! ```
//! use simdcrypt::highwayhash::{self, HighwayHasher};
//!
//! let key = [7u8; 32];
//! let h = highwayhash::hash64(&key, b"hello");
//!
//! // Streaming: any split of the input gives the same result.
//! let mut hasher = HighwayHasher::new(&key);
//! hasher.update(b"he").update(b"llo");
//! assert_eq!(hasher.finalize64(), h);
//!
//! // The byte form writes each u64 word little-endian, in order (as minio/highwayhash).
//! assert_eq!(highwayhash::digest64(&key, b"hello"), h.to_le_bytes());
//! ```
//!
//! HighwayHash is not a cryptographic hash: it is a keyed pseudo-random function meant
//! against hash flooding and for checksums against bit rot (its authors' claims). Keep the
//! key secret where that matters; a [checkpoint](HighwayHasher::export) reveals as much as
//! the key.
//!
//! Kernels: portable, SSE4.1 and AVX2 (one message per 256-bit state: the hash of one
//! message is a chain of dependent rounds, so wider registers cannot speed it up), AVX-512
//! for [batches](hash_many) (two messages per 512-bit register, four registers interleaved;
//! with AVX-512VL for the one-shot functions' last partial packet), and NEON on aarch64.
//!
//! ## What this file holds
//!
//! HighwayHash's public API: `HighwayHasher` (`update`, `finalize64/128/256`, `finalize_into`,
//! `set_platform`), one-shot `hash64/128/256` and `digest64/128/256` (no buffering; the
//! detected backend cached in an atomic), `Size`, `key_words`; the state (`State`: v0, v1,
//! mul0, mul1, deliberately not 32-aligned since Python objects are 16-aligned), the
//! reference's remainder packet layout and output reduction

mod algorithm;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod batch;
mod checkpoint;
#[cfg(target_arch = "aarch64")]
mod neon;
mod platform;
mod portable;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod regs;
#[cfg(target_arch = "x86_64")]
mod sse41;

pub use algorithm::{SizedHighwayHasher, ALGORITHM_128, ALGORITHM_256, ALGORITHM_64};
pub use batch::{hash_many, hash_many_with};
pub use checkpoint::CHECKPOINT_LEN;
pub use platform::{Kind, Platform};

use crate::block_buffer::BlockBuffer;

/// Key length in bytes.
pub const KEY_LEN: usize = 32;
/// The unit of input the rounds consume, in bytes.
pub const PACKET_LEN: usize = 32;

/// The three result sizes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Size {
    /// 64 bits (one u64).
    Bits64,
    /// 128 bits (two u64 words).
    Bits128,
    /// 256 bits (four u64 words).
    Bits256,
}

impl Size {
    /// All sizes, smallest first.
    pub const ALL: [Size; 3] = [Size::Bits64, Size::Bits128, Size::Bits256];

    /// The result size in bits.
    pub const fn bits(self) -> usize {
        match self {
            Size::Bits64 => 64,
            Size::Bits128 => 128,
            Size::Bits256 => 256,
        }
    }

    /// The result size in bytes. (A size, not a container: there is no `is_empty`.)
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(self) -> usize {
        self.bits() / 8
    }

    /// The algorithm's name at this size, as in [`crate::ALGORITHMS`]: `"highwayhash64"`...
    pub const fn name(self) -> &'static str {
        match self {
            Size::Bits64 => "highwayhash64",
            Size::Bits128 => "highwayhash128",
            Size::Bits256 => "highwayhash256",
        }
    }

    /// The size for a bit count (64, 128 or 256).
    pub fn from_bits(bits: usize) -> Result<Size, crate::Error> {
        Size::ALL.into_iter().find(|s| s.bits() == bits).ok_or_else(|| {
            crate::Error::InvalidArgument(format!("highwayhash results are 64, 128 or 256 bits, not {bits}"))
        })
    }

    /// How many permute-and-update rounds finalization takes (fixed by the reference).
    pub(crate) const fn rounds(self) -> usize {
        match self {
            Size::Bits64 => 4,
            Size::Bits128 => 6,
            Size::Bits256 => 10,
        }
    }
}

const INIT0: [u64; 4] = [0xdbe6d5d5fe4cce2f, 0xa4093822299f31d0, 0x13198a2e03707344, 0x243f6a8885a308d3];
const INIT1: [u64; 4] = [0x3bd39e10cb0ef593, 0xc0acf169b5f18a8c, 0xbe5466cf34e90c6c, 0x452821e638d01377];

/// The hash state: four vectors of four u64 lanes, which kernels load and store with
/// unaligned vector moves. Deliberately not `align(32)`: a hasher may live in memory that
/// does not honour alignments above 16 (Python objects do not), and the compiler turns
/// loads of a 32-aligned type into aligned moves that fault there.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C)]
pub(crate) struct State {
    pub(crate) v0: [u64; 4],
    pub(crate) v1: [u64; 4],
    pub(crate) mul0: [u64; 4],
    pub(crate) mul1: [u64; 4],
}

impl State {
    #[inline(always)]
    pub(crate) fn new(key: &[u64; 4]) -> State {
        State {
            v0: core::array::from_fn(|i| INIT0[i] ^ key[i]),
            v1: core::array::from_fn(|i| INIT1[i] ^ key[i].rotate_left(32)),
            mul0: INIT0,
            mul1: INIT1,
        }
    }

    /// The result words of a finished state (see [`Platform::finish`]).
    #[inline(always)]
    pub(crate) fn output(&self, size: Size, out: &mut [u64]) {
        let (v0, v1, m0, m1) = (&self.v0, &self.v1, &self.mul0, &self.mul1);
        match size {
            Size::Bits64 => out[0] = v0[0].wrapping_add(v1[0]).wrapping_add(m0[0]).wrapping_add(m1[0]),
            Size::Bits128 => {
                out[0] = v0[0].wrapping_add(m0[0]).wrapping_add(v1[2]).wrapping_add(m1[2]);
                out[1] = v0[1].wrapping_add(m0[1]).wrapping_add(v1[3]).wrapping_add(m1[3]);
            }
            Size::Bits256 => {
                let a = |x: &[u64; 4], y: &[u64; 4], i: usize| x[i].wrapping_add(y[i]);
                (out[0], out[1]) = modular_reduction(a(v1, m1, 1), a(v1, m1, 0), a(v0, m0, 1), a(v0, m0, 0));
                (out[2], out[3]) = modular_reduction(a(v1, m1, 3), a(v1, m1, 2), a(v0, m0, 3), a(v0, m0, 2));
            }
        }
    }
}

/// Reduces the 256-bit (a3:a2:a1:a0, a3's top two bits dropped) modulo x^128 + x^2 + x
/// over GF(2), as the reference does for the 256-bit result; returns (low, high).
#[inline(always)]
fn modular_reduction(a3: u64, a2: u64, a1: u64, a0: u64) -> (u64, u64) {
    let a3 = a3 & 0x3fff_ffff_ffff_ffff;
    let m1 = a1 ^ ((a3 << 1) | (a2 >> 63)) ^ ((a3 << 2) | (a2 >> 62));
    let m0 = a0 ^ (a2 << 1) ^ (a2 << 2);
    (m0, m1)
}

/// The last packet for a message whose length is not a multiple of 32: the 1 to 31 final
/// bytes laid out as the reference does (whole 4-byte groups first; then, for lengths
/// with bit 4 set, the last four bytes at the packet's end, otherwise the 1 to 3 left-over
/// bytes at offset 16 as first, middle and last byte). Built as eight 32-bit words with
/// fixed-size reads, so that no variable-length copy (a `memcpy` call) is needed.
#[inline(always)]
pub(crate) fn remainder_packet(rem: &[u8]) -> [u8; PACKET_LEN] {
    let n = rem.len();
    debug_assert!(n > 0 && n < PACKET_LEN);
    let mut words = [0u32; 8];
    for (i, group) in rem.chunks_exact(4).enumerate() {
        words[i] = u32::from_le_bytes(group.try_into().unwrap());
    }
    let (word, value) = remainder_tail(rem);
    if word != 0 {
        words[word] = value;
    }
    let mut packet = [0u8; PACKET_LEN];
    for (bytes, w) in packet.chunks_exact_mut(4).zip(words) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    packet
}

/// The word of the last packet that is not a plain 4-byte group of the remainder: for
/// lengths with bit 4 set, (7, the last four bytes); otherwise, when the length is not a
/// multiple of 4, (4, first, middle and last left-over byte); else (0, 0): none.
#[inline(always)]
pub(crate) fn remainder_tail(rem: &[u8]) -> (usize, u32) {
    let n = rem.len();
    if n & 16 != 0 {
        (7, u32::from_le_bytes(rem[n - 4..].try_into().unwrap()))
    } else if n & 3 != 0 {
        let tail = &rem[n & !3..];
        let k = tail.len();
        (4, u32::from(tail[0]) | u32::from(tail[k >> 1]) << 8 | u32::from(tail[k - 1]) << 16)
    } else {
        (0, 0)
    }
}

/// The key as the four little-endian u64 words the algorithm uses.
#[inline(always)]
pub fn key_words(key: &[u8; KEY_LEN]) -> [u64; 4] {
    core::array::from_fn(|i| u64::from_le_bytes(key[8 * i..8 * i + 8].try_into().unwrap()))
}

/// An incremental HighwayHash hasher. The result size is chosen at finalization.
///
/// Its `Debug` output shows the backend and the input length only: the key and the state
/// (which reveals the key) are left out.
#[derive(Clone)]
pub struct HighwayHasher {
    state: State,
    /// Bytes of a packet not yet complete, and the input length (modulo 2^64;
    /// informational, the algorithm needs only its value modulo 32).
    buf: BlockBuffer<PACKET_LEN>,
    /// The key, for checkpoints' checksum.
    key: [u8; KEY_LEN],
    platform: Platform,
}

impl std::fmt::Debug for HighwayHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HighwayHasher")
            .field("platform", &self.platform)
            .field("count", &self.buf.total())
            .finish_non_exhaustive()
    }
}

impl HighwayHasher {
    /// A hasher with this key, using the best backend this CPU supports.
    pub fn new(key: &[u8; KEY_LEN]) -> Self {
        let platform = Platform::detect();
        HighwayHasher { state: platform.new_state(key), buf: BlockBuffer::new(), key: *key, platform }
    }

    /// A hasher with the key given as four u64 words (the reference's `HHKey`).
    pub fn new_with_words(key: &[u64; 4]) -> Self {
        let mut bytes = [0u8; KEY_LEN];
        words_to_bytes(key, &mut bytes);
        Self::new(&bytes)
    }

    /// Chooses the kernels (the default is the best supported:
    /// [`Platform::detect`]). The result never depends on
    /// the choice.
    pub fn set_platform(&mut self, platform: Platform) -> &mut Self {
        self.platform = platform;
        self
    }

    /// The backend in use.
    pub fn platform(&self) -> Platform {
        self.platform
    }

    /// The number of input bytes so far (modulo 2^64).
    pub fn count(&self) -> u64 {
        self.buf.total()
    }

    /// Adds input.
    pub fn update(&mut self, input: &[u8]) -> &mut Self {
        let (state, platform) = (&mut self.state, self.platform);
        self.buf.update(input, |packets| platform.update_packets(state, packets));
        self
    }

    fn finished(&self, size: Size) -> State {
        let mut state = self.state;
        self.platform.finish(&mut state, self.buf.pending(), size.rounds());
        state
    }

    /// The 64-bit result of the input so far. The hasher can keep being updated.
    pub fn finalize64(&self) -> u64 {
        let mut out = [0u64; 1];
        self.finished(Size::Bits64).output(Size::Bits64, &mut out);
        out[0]
    }

    /// The 128-bit result, as the reference's two u64 words.
    pub fn finalize128(&self) -> [u64; 2] {
        let mut out = [0u64; 2];
        self.finished(Size::Bits128).output(Size::Bits128, &mut out);
        out
    }

    /// The 256-bit result, as the reference's four u64 words.
    pub fn finalize256(&self) -> [u64; 4] {
        let mut out = [0u64; 4];
        self.finished(Size::Bits256).output(Size::Bits256, &mut out);
        out
    }

    /// The result of `size` in byte form (each word little-endian, in order) into `out`.
    ///
    /// # Panics
    ///
    /// If `out.len()` is not `size.len()`.
    pub fn finalize_into(&self, size: Size, out: &mut [u8]) {
        assert_eq!(out.len(), size.len(), "{} results are {} bytes", size.name(), size.len());
        let mut words = [0u64; 4];
        let words = &mut words[..size.len() / 8];
        self.finished(size).output(size, words);
        words_to_bytes(words, out);
    }
}

/// Writes `words` little-endian, in order, into `out` (`8 * words.len()` bytes).
#[inline(always)]
pub(crate) fn words_to_bytes(words: &[u64], out: &mut [u8]) {
    for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
}

#[inline(always)]
fn oneshot<const N: usize>(key: &[u8; KEY_LEN], data: &[u8], size: Size) -> [u64; N] {
    let state = Platform::detect().hash(key, data, size.rounds());
    let mut out = [0u64; N];
    state.output(size, &mut out);
    out
}

/// The 64-bit HighwayHash of `data`. For short inputs this is much cheaper than a
/// [`HighwayHasher`]: no buffering, and the backend is looked up once per process.
pub fn hash64(key: &[u8; KEY_LEN], data: &[u8]) -> u64 {
    Platform::detect().hash64(key, data)
}

/// The 128-bit HighwayHash of `data`, as two u64 words.
pub fn hash128(key: &[u8; KEY_LEN], data: &[u8]) -> [u64; 2] {
    oneshot::<2>(key, data, Size::Bits128)
}

/// The 256-bit HighwayHash of `data`, as four u64 words.
pub fn hash256(key: &[u8; KEY_LEN], data: &[u8]) -> [u64; 4] {
    oneshot::<4>(key, data, Size::Bits256)
}

/// [`hash64`] in byte form (little-endian).
pub fn digest64(key: &[u8; KEY_LEN], data: &[u8]) -> [u8; 8] {
    hash64(key, data).to_le_bytes()
}

/// [`hash128`] in byte form (each word little-endian, in order).
pub fn digest128(key: &[u8; KEY_LEN], data: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    words_to_bytes(&hash128(key, data), &mut out);
    out
}

/// [`hash256`] in byte form (each word little-endian, in order).
pub fn digest256(key: &[u8; KEY_LEN], data: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    words_to_bytes(&hash256(key, data), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_leaves_the_key_out() {
        let mut h = HighwayHasher::new(&[0xab; 32]);
        h.update(b"abc");
        let shown = format!("{h:?}");
        assert!(shown.contains("count: 3") && !shown.contains("171"), "{shown}");
    }

    /// The one-shot kernels of every backend (the public functions reach only the detected
    /// one) against portable: every remainder length, with and without whole packets.
    #[test]
    fn one_shot_kernels_match_portable() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 13 + 5) as u8).collect();
        for seed in 0..4u8 {
            let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ seed.wrapping_mul(101));
            for len in 0..=data.len() {
                let msg = &data[..len];
                let mut expected = [0u64; 1];
                Platform::portable().hash(&key, msg, 4).output(Size::Bits64, &mut expected);
                for platform in Platform::all_supported() {
                    assert_eq!(platform.hash64(&key, msg), expected[0], "{platform:?} hash64 len {len}");
                    for size in Size::ALL {
                        let (ours, reference) = (
                            platform.hash(&key, msg, size.rounds()),
                            Platform::portable().hash(&key, msg, size.rounds()),
                        );
                        assert_eq!(ours, reference, "{platform:?} hash {} len {len}", size.name());
                    }
                }
            }
        }
    }

    #[test]
    fn streaming_matches_one_shot_at_every_split() {
        let key: [u8; 32] = core::array::from_fn(|i| (i * 29 + 1) as u8);
        let data: Vec<u8> = (0..130u32).map(|i| (i * 7 + 3) as u8).collect();
        for platform in Platform::all_supported() {
            for len in [0usize, 1, 3, 4, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 130] {
                for cut in 0..=len {
                    let mut h = HighwayHasher::new(&key);
                    h.set_platform(platform).update(&data[..cut]).update(&data[cut..len]);
                    assert_eq!(h.finalize64(), hash64(&key, &data[..len]), "{platform:?} len {len} cut {cut}");
                    assert_eq!(h.finalize128(), hash128(&key, &data[..len]));
                    assert_eq!(h.finalize256(), hash256(&key, &data[..len]));
                }
            }
        }
    }
}
