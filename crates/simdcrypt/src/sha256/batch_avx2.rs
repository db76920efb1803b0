//! AVX2 batch kernel: 8 blocks at once, block `i` in 32-bit lane `i` of every register.
//!
//! The layout of the AVX-512 kernel (batch_avx512.rs) on 256-bit registers, for CPUs with
//! AVX2 but neither AVX-512 nor SHA-NI (Haswell to Comet Lake). AVX2 has no rotate and no
//! three-input logic, so rotations are two shifts and an OR, and Ch/Maj are spelled out.
//! A final group of fewer than 8 blocks is copied into a zero-padded 8-block buffer.
//!
//! ## What this file holds
//!
//! AVX2 batch kernel: 8 blocks, one per lane (`simd::transpose8` on each 32-byte half),
//! rotations as shift+OR; for CPUs without SHA-NI and AVX-512

use core::arch::x86_64::*;

use super::batch_rounds::{self, Lanes};
use super::batch_shared::{for_each_group, PADDING_WK};
use super::{BLOCK_LEN, OUT_LEN};
use crate::simd::transpose8;

const LANES: usize = 8;

// SAFETY: only used by `padding_rounds16` and `hash8`, which have the `avx2` feature.
unsafe impl Lanes for __m256i {
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the caller has the `avx2` feature (the trait's contract).
        unsafe { _mm256_set1_epi32(x as i32) }
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_xor_si256(_mm256_xor_si256(a, b), c) }
    }

    /// Two shifts and an OR: AVX2 has no rotate.
    #[inline(always)]
    unsafe fn ror<const R: i32, const L: i32>(x: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_or_si256(_mm256_srli_epi32::<R>(x), _mm256_slli_epi32::<L>(x)) }
    }

    #[inline(always)]
    unsafe fn shr<const N: i32>(x: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_srli_epi32::<N>(x) }
    }

    /// `(e & f) ^ (!e & g)`.
    #[inline(always)]
    unsafe fn ch(e: Self, f: Self, g: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_xor_si256(_mm256_and_si256(e, f), _mm256_andnot_si256(e, g)) }
    }

    /// `((a ^ b) & c) ^ (a & b)`.
    #[inline(always)]
    unsafe fn maj(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256(a, b), c), _mm256_and_si256(a, b)) }
    }
}

/// Sixteen rounds of the padding block (`batch_rounds::padding_rounds16`); out of line as
/// in the AVX-512 kernel.
#[inline(never)]
#[target_feature(enable = "avx2")]
fn padding_rounds16(s: &mut [__m256i; 8], wk: &[u32]) {
    // SAFETY: this function has the `avx2` feature that `Lanes for __m256i` needs.
    unsafe { batch_rounds::padding_rounds16(s, wk) }
}

/// Hashes 8 blocks into 8 digests.
#[inline]
#[target_feature(enable = "avx2")]
fn hash8(blocks: &[[u8; BLOCK_LEN]; LANES], out: &mut [[u8; OUT_LEN]; LANES]) {
    // Byte swap within each 32-bit word (the message and digest are big-endian).
    let bswap = _mm256_broadcastsi128_si256(_mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203));
    // Rows 0..8 hold bytes 0..32 of each block, rows 8..16 bytes 32..64; each half is
    // transposed so that w[t] holds message word t of every block.
    let mut lo = [_mm256_setzero_si256(); LANES];
    let mut hi = [_mm256_setzero_si256(); LANES];
    for (block, (l, h)) in blocks.iter().zip(lo.iter_mut().zip(hi.iter_mut())) {
        // SAFETY: `block` is 64 readable bytes, so both 32-byte halves are in bounds;
        // loadu has no alignment requirement.
        unsafe {
            *l = _mm256_shuffle_epi8(_mm256_loadu_si256(block.as_ptr().cast()), bswap);
            *h = _mm256_shuffle_epi8(_mm256_loadu_si256(block.as_ptr().add(32).cast()), bswap);
        }
    }
    transpose8(&mut lo);
    transpose8(&mut hi);
    let mut w = [_mm256_setzero_si256(); 16];
    w[..8].copy_from_slice(&lo);
    w[8..].copy_from_slice(&hi);

    // SAFETY: this function has the `avx2` feature that `Lanes for __m256i` needs.
    let words = unsafe {
        batch_rounds::digest_words::<_, true>(&mut w, |s| {
            for wk in PADDING_WK.chunks_exact(16) {
                padding_rounds16(s, wk);
            }
        })
    };
    // Row j holds word j of every digest; transposed, row i is digest i.
    let mut rows = [_mm256_setzero_si256(); LANES];
    for (row, x) in rows.iter_mut().zip(words) {
        *row = _mm256_shuffle_epi8(x, bswap);
    }
    transpose8(&mut rows);
    for (digest, row) in out.iter_mut().zip(rows) {
        // SAFETY: `digest` is 32 writable bytes; storeu has no alignment requirement.
        unsafe { _mm256_storeu_si256(digest.as_mut_ptr().cast(), row) };
    }
}

/// Hashes each 64-byte block of `blocks` into 32 bytes of `out`. The caller checks that
/// `out.len() == blocks.len() / 2` and that `blocks` is whole blocks (a mismatch would only
/// leave digests unwritten: every access is bounds-checked by the chunking).
#[target_feature(enable = "avx2")]
pub(crate) fn hash_blocks(blocks: &[u8], out: &mut [u8]) {
    for_each_group::<LANES>(blocks, out, |group, digests| hash8(group, digests));
}
