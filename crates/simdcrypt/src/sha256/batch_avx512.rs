//! AVX-512 batch kernel: 16 blocks at once, block `i` in 32-bit lane `i` of every register.
//!
//! The 16 blocks are loaded as rows, byte-swapped and transposed (BLAKE3's 16x16
//! transpose), so that `w[t]` holds message word t of every block. Rotations are
//! `vprord`; Σ/σ (three-way XOR), Ch and Maj are one `vpternlogd` each. The second
//! compression adds the broadcast `PADDING_WK` constants and needs no schedule. A final
//! group of fewer than 16 blocks is copied into a zero-padded 16-block buffer.
//!
//! It is twice as fast as SHA-NI from 15 blocks up, but a padded group costs as much as
//! a full one: `BatchKind::Avx512ShaNi` leaves short remainders to SHA-NI (the
//! measurements are at `SHANI_REMAINDER_MAX`).

use core::arch::x86_64::*;

use super::batch_rounds::{self, Lanes};
use super::batch_shared::{for_each_group, PADDING_WK};
use super::{BLOCK_LEN, OUT_LEN};
use crate::simd::transpose16;

const LANES: usize = 16;
/// How far ahead of the group being hashed its rows are prefetched: 8 groups. With inputs
/// far larger than the caches the hardware prefetcher alone leaves the kernel waiting; of
/// the distances from 1 to 32 KiB, 8 KiB came closest to the speed of blocks that stay in
/// cache (docs/tuning-history.md, "sha256/batch_avx512.rs").
const PREFETCH_AHEAD: usize = 8 * LANES * BLOCK_LEN;

// SAFETY: only used by `padding_rounds16` and `hash16`, which have the `avx512f` feature.
unsafe impl Lanes for __m512i {
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the caller has the `avx512f` feature (the trait's contract).
        unsafe { _mm512_set1_epi32(x as i32) }
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm512_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm512_ternarylogic_epi32::<0x96>(a, b, c) }
    }

    #[inline(always)]
    unsafe fn ror<const R: i32, const L: i32>(x: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm512_ror_epi32::<R>(x) }
    }

    /// The shifts SHA-256 uses, one arm each: `_mm512_srli_epi32` takes its count as a
    /// `u32` constant, which `N` cannot be turned into. A constant match, gone once inlined.
    #[inline(always)]
    unsafe fn shr<const N: i32>(x: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe {
            match N {
                3 => _mm512_srli_epi32::<3>(x),
                10 => _mm512_srli_epi32::<10>(x),
                _ => unreachable!("SHA-256 shifts right by 3 and 10 only"),
            }
        }
    }

    /// `e ? f : g` in one `vpternlogd`.
    #[inline(always)]
    unsafe fn ch(e: Self, f: Self, g: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm512_ternarylogic_epi32::<0xCA>(e, f, g) }
    }

    /// The majority in one `vpternlogd`.
    #[inline(always)]
    unsafe fn maj(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm512_ternarylogic_epi32::<0xE8>(a, b, c) }
    }
}

/// Sixteen rounds of the padding block (`batch_rounds::padding_rounds16`). Kept out of
/// line: inlined into `hash16` as well, the kernel measured slower, a code-size effect
/// (docs/tuning-history.md, "sha256/batch_avx512.rs").
#[inline(never)]
#[target_feature(enable = "avx512f")]
fn padding_rounds16(s: &mut [__m512i; 8], wk: &[u32]) {
    // SAFETY: this function has the `avx512f` feature that `Lanes for __m512i` needs.
    unsafe { batch_rounds::padding_rounds16(s, wk) }
}

/// Hashes 16 blocks into 16 digests.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn hash16(blocks: &[[u8; BLOCK_LEN]; LANES], out: &mut [[u8; OUT_LEN]; LANES]) {
    // Byte swap within each 32-bit word (the message and digest are big-endian).
    let bswap = _mm512_broadcast_i32x4(_mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203));
    let mut w = [_mm512_setzero_si512(); 16];
    for (row, block) in w.iter_mut().zip(blocks) {
        // SAFETY: `block` is 64 readable bytes; loadu has no alignment requirement.
        *row = _mm512_shuffle_epi8(unsafe { _mm512_loadu_si512(block.as_ptr().cast()) }, bswap);
        crate::simd::prefetch::<PREFETCH_AHEAD>(block.as_ptr());
    }
    transpose16(&mut w);

    // SAFETY: this function has the `avx512f` feature that `Lanes for __m512i` needs.
    let words = unsafe {
        batch_rounds::digest_words::<_, true>(&mut w, |s| {
            for wk in PADDING_WK.chunks_exact(16) {
                padding_rounds16(s, wk);
            }
        })
    };
    // Rows 0..8 hold word j of every digest; transposed, row i holds digest i in its low
    // eight words (rows 8..16 are don't-care).
    let mut rows = [_mm512_setzero_si512(); 16];
    rows[..8].copy_from_slice(&words);
    transpose16(&mut rows);
    for (digest, row) in out.iter_mut().zip(rows) {
        // SAFETY: `digest` is 32 writable bytes and the mask writes the low eight 32-bit
        // words only; unaligned masked stores are allowed.
        unsafe { _mm512_mask_storeu_epi32(digest.as_mut_ptr().cast(), 0x00FF, _mm512_shuffle_epi8(row, bswap)) };
    }
}

/// Hashes each 64-byte block of `blocks` into 32 bytes of `out`. The caller checks that
/// `out.len() == blocks.len() / 2` and that `blocks` is whole blocks (a mismatch would only
/// leave digests unwritten: every access is bounds-checked by the chunking).
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) fn hash_blocks(blocks: &[u8], out: &mut [u8]) {
    for_each_group::<LANES>(blocks, out, |group, digests| hash16(group, digests));
}
