//! AVX2 batch kernel: 8 blocks at once, block `i` in 32-bit lane `i` of every register.
//!
//! The layout of the AVX-512 kernel (batch_avx512.rs) on 256-bit registers, for CPUs with
//! AVX2 but neither AVX-512 nor SHA-NI (Haswell to Comet Lake). AVX2 has no rotate and no
//! three-input logic, so rotations are two shifts and an OR, and Ch/Maj are spelled out.
//! A final group of fewer than 8 blocks is copied into a zero-padded 8-block buffer.

use core::arch::x86_64::*;

use super::batch_shared::{for_each_group, PADDING_WK};
use super::{BLOCK_LEN, IV, K, OUT_LEN};
use crate::simd::transpose8;

const LANES: usize = 8;

#[inline]
#[target_feature(enable = "avx2")]
fn add(a: __m256i, b: __m256i) -> __m256i {
    _mm256_add_epi32(a, b)
}

/// Rotate right by `R` (`L` = 32 − R).
#[inline]
#[target_feature(enable = "avx2")]
fn ror<const R: i32, const L: i32>(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_srli_epi32::<R>(x), _mm256_slli_epi32::<L>(x))
}

#[inline]
#[target_feature(enable = "avx2")]
fn xor3(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
    _mm256_xor_si256(_mm256_xor_si256(a, b), c)
}

/// One round; `wk` is W(t) + K(t) for every lane. `s` is A..H.
#[inline]
#[target_feature(enable = "avx2")]
fn round(s: &mut [__m256i; 8], wk: __m256i) {
    let [a, b, c, d, e, f, g, h] = *s;
    let big_s1 = xor3(ror::<6, 26>(e), ror::<11, 21>(e), ror::<25, 7>(e));
    // Ch: (e & f) ^ (!e & g).
    let ch = _mm256_xor_si256(_mm256_and_si256(e, f), _mm256_andnot_si256(e, g));
    let t1 = add(add(h, big_s1), add(ch, wk));
    let big_s0 = xor3(ror::<2, 30>(a), ror::<13, 19>(a), ror::<22, 10>(a));
    // Maj: ((a ^ b) & c) ^ (a & b), the majority of a, b, c.
    let maj = _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256(a, b), c), _mm256_and_si256(a, b));
    *s = [add(t1, add(big_s0, maj)), a, b, c, add(d, t1), e, f, g];
}

/// Round `i` of a group of 16 (`i` a constant once inlined, so every index into the
/// 16-word ring is too): with `SCHEDULE`, first W(t) = σ1(W(t-2)) + W(t-7) + σ0(W(t-15)) +
/// W(t-16) in place of W(t-16); then the round with W(t) + `k`.
#[inline]
#[target_feature(enable = "avx2")]
fn step<const SCHEDULE: bool>(s: &mut [__m256i; 8], w: &mut [__m256i; 16], i: usize, k: u32) {
    if SCHEDULE {
        let w15 = w[(i + 1) % 16];
        let w2 = w[(i + 14) % 16];
        let s0 = xor3(ror::<7, 25>(w15), ror::<18, 14>(w15), _mm256_srli_epi32::<3>(w15));
        let s1 = xor3(ror::<17, 15>(w2), ror::<19, 13>(w2), _mm256_srli_epi32::<10>(w2));
        w[i] = add(add(w[i], s0), add(w[(i + 9) % 16], s1));
    }
    round(s, add(w[i], _mm256_set1_epi32(k as i32)));
}

/// Sixteen rounds, written out, as in the AVX-512 kernel: constant ring indices, and the
/// working variables back in their registers after each group.
#[inline]
#[target_feature(enable = "avx2")]
fn rounds16<const SCHEDULE: bool>(s: &mut [__m256i; 8], w: &mut [__m256i; 16], k: &[u32]) {
    let k: &[u32; 16] = k.try_into().expect("16 round constants");
    unroll16!(|i: usize| step::<SCHEDULE>(s, w, i, k[i]));
}

/// Sixteen rounds of the padding block: `wk` holds W(t) + K(t), constants; out of line
/// as in the AVX-512 kernel.
#[inline(never)]
#[target_feature(enable = "avx2")]
fn padding_rounds16(s: &mut [__m256i; 8], wk: &[u32]) {
    let wk: &[u32; 16] = wk.try_into().expect("16 round constants");
    unroll16!(|i: usize| round(s, _mm256_set1_epi32(wk[i] as i32)));
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

    let iv = IV.map(|x| _mm256_set1_epi32(x as i32));
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
    // Row j holds word j of every digest; transposed, row i is digest i.
    let mut rows = [_mm256_setzero_si256(); LANES];
    for (row, (x, m)) in rows.iter_mut().zip(s.iter().zip(mid)) {
        *row = _mm256_shuffle_epi8(add(*x, m), bswap);
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
