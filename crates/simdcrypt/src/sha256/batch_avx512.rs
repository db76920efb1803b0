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
//!
//! It keeps its own rounds rather than the shared body in batch_rounds.rs (which the AVX2
//! and NEON kernels use): written over that body it compiled to as many instructions but
//! in another order, and ran measurably slower (docs/tuning-history.md, "sha256/batch_avx512.rs").
//!
//! ## What this file holds
//!
//! AVX-512 batch kernel: 16 blocks, one per 32-bit lane (rows byte-swapped with `vpshufb`,
//! BLAKE3's `transpose16`), `vprord` and `vpternlogd` for Σ/σ, Ch, Maj; a remainder padded to
//! 16 lanes; digests stored with masked stores; rounds written out a group of 16 at a time
//! (`unroll16!` in `sha256/mod.rs`: constant schedule-ring indices, no register moves), the
//! padding block's groups out of line

use core::arch::x86_64::*;

use super::batch_shared::{for_each_group, PADDING_WK};
use super::{BLOCK_LEN, IV, K, OUT_LEN};
use crate::simd::transpose16;

const LANES: usize = 16;
/// How far ahead of the group being hashed its rows are prefetched: 8 groups. With inputs
/// far larger than the caches the hardware prefetcher alone leaves the kernel waiting; of
/// the distances from 1 to 32 KiB, 8 KiB came closest to the speed of blocks that stay in
/// cache (docs/tuning-history.md, "sha256/batch_avx512.rs").
const PREFETCH_AHEAD: usize = 8 * LANES * BLOCK_LEN;

#[inline]
#[target_feature(enable = "avx512f")]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi32::<0x96>(a, b, c)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn add(a: __m512i, b: __m512i) -> __m512i {
    _mm512_add_epi32(a, b)
}

/// One round; `wk` is W(t) + K(t) for every lane. `s` is A..H.
#[inline]
#[target_feature(enable = "avx512f")]
fn round(s: &mut [__m512i; 8], wk: __m512i) {
    let [a, b, c, d, e, f, g, h] = *s;
    let big_s1 = xor3(_mm512_ror_epi32::<6>(e), _mm512_ror_epi32::<11>(e), _mm512_ror_epi32::<25>(e));
    // Ch: e ? f : g.
    let ch = _mm512_ternarylogic_epi32::<0xCA>(e, f, g);
    let t1 = add(add(h, big_s1), add(ch, wk));
    let big_s0 = xor3(_mm512_ror_epi32::<2>(a), _mm512_ror_epi32::<13>(a), _mm512_ror_epi32::<22>(a));
    // Maj: the majority of a, b, c.
    let maj = _mm512_ternarylogic_epi32::<0xE8>(a, b, c);
    *s = [add(t1, add(big_s0, maj)), a, b, c, add(d, t1), e, f, g];
}

/// Round `i` of a group of 16 (`i` a constant once inlined, so every index into the
/// 16-word ring is too): with `SCHEDULE`, first W(t) = σ1(W(t-2)) + W(t-7) + σ0(W(t-15)) +
/// W(t-16) in place of W(t-16); then the round with W(t) + `k`.
#[inline]
#[target_feature(enable = "avx512f")]
fn step<const SCHEDULE: bool>(s: &mut [__m512i; 8], w: &mut [__m512i; 16], i: usize, k: u32) {
    if SCHEDULE {
        let w15 = w[(i + 1) % 16];
        let w2 = w[(i + 14) % 16];
        let s0 = xor3(_mm512_ror_epi32::<7>(w15), _mm512_ror_epi32::<18>(w15), _mm512_srli_epi32::<3>(w15));
        let s1 = xor3(_mm512_ror_epi32::<17>(w2), _mm512_ror_epi32::<19>(w2), _mm512_srli_epi32::<10>(w2));
        w[i] = add(add(w[i], s0), add(w[(i + 9) % 16], s1));
    }
    round(s, add(w[i], _mm512_set1_epi32(k as i32)));
}

/// Sixteen rounds, written out: the ring indices are constants, and after 16 rounds the
/// eight working variables are back in the registers they started in, so a loop over
/// these groups needs no moves. (A loop over single rounds left the compiler computing
/// ring indices and shuffling the eight variables between registers every round: ~20
/// scalar instructions and ~8 register moves a round, on the ports the vector work
/// needs.)
#[inline]
#[target_feature(enable = "avx512f")]
fn rounds16<const SCHEDULE: bool>(s: &mut [__m512i; 8], w: &mut [__m512i; 16], k: &[u32]) {
    let k: &[u32; 16] = k.try_into().expect("16 round constants");
    unroll16!(|i| step::<SCHEDULE>(s, w, i, k[i]));
}

/// Sixteen rounds of the padding block: `wk` holds W(t) + K(t), constants. Kept out of
/// line: inlined into `hash16` as well, the kernel measured slower, a code-size effect
/// (docs/tuning-history.md, "sha256/batch_avx512.rs").
#[inline(never)]
#[target_feature(enable = "avx512f")]
fn padding_rounds16(s: &mut [__m512i; 8], wk: &[u32]) {
    let wk: &[u32; 16] = wk.try_into().expect("16 round constants");
    unroll16!(|i| round(s, _mm512_set1_epi32(wk[i] as i32)));
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

    let iv = IV.map(|x| _mm512_set1_epi32(x as i32));
    let mut s = iv;
    rounds16::<false>(&mut s, &mut w, &K[..16]);
    for k in K[16..].chunks_exact(16) {
        rounds16::<true>(&mut s, &mut w, k);
    }
    for (x, v) in s.iter_mut().zip(iv) {
        *x = add(*x, v);
    }
    let mid = s;
    for wk in PADDING_WK.chunks_exact(16) {
        padding_rounds16(&mut s, wk);
    }
    // Rows 0..8 hold word j of every digest; transposed, row i holds digest i in its low
    // eight words (rows 8..16 are don't-care).
    let mut rows = [_mm512_setzero_si512(); 16];
    for (row, (x, m)) in rows.iter_mut().zip(s.iter().zip(mid)) {
        *row = add(*x, m);
    }
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
