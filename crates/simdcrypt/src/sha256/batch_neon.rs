//! NEON batch kernel (aarch64): 4 blocks at once, block `i` in 32-bit lane `i` of every
//! register, the layout of the AVX-512 kernel (batch_avx512.rs) on 128-bit registers.
//! Rotations are a shift plus a shift-and-insert (`vsri`); Ch and Maj use `vbsl`.
//! A final group of fewer than 4 blocks is copied into a zero-padded 4-block buffer.

use core::arch::aarch64::*;

use super::batch_shared::{for_each_group, PADDING_WK};
use super::{BLOCK_LEN, IV, K, OUT_LEN};
use crate::simd::transpose4;

const LANES: usize = 4;

/// Rotate right by `R` (`L` = 32 − R): shift left by L, then insert the right-shifted value.
#[inline]
#[target_feature(enable = "neon")]
fn ror<const R: i32, const L: i32>(x: uint32x4_t) -> uint32x4_t {
    vsriq_n_u32::<R>(vshlq_n_u32::<L>(x), x)
}

#[inline]
#[target_feature(enable = "neon")]
fn xor3(a: uint32x4_t, b: uint32x4_t, c: uint32x4_t) -> uint32x4_t {
    veorq_u32(veorq_u32(a, b), c)
}

/// One round; `wk` is W(t) + K(t) for every lane. `s` is A..H.
#[inline]
#[target_feature(enable = "neon")]
fn round(s: &mut [uint32x4_t; 8], wk: uint32x4_t) {
    let [a, b, c, d, e, f, g, h] = *s;
    let big_s1 = xor3(ror::<6, 26>(e), ror::<11, 21>(e), ror::<25, 7>(e));
    // Ch: e ? f : g, bit by bit.
    let ch = vbslq_u32(e, f, g);
    let t1 = vaddq_u32(vaddq_u32(h, big_s1), vaddq_u32(ch, wk));
    let big_s0 = xor3(ror::<2, 30>(a), ror::<13, 19>(a), ror::<22, 10>(a));
    // Maj: where a and b differ, c decides; where they agree, b.
    let maj = vbslq_u32(veorq_u32(a, b), c, b);
    *s = [vaddq_u32(t1, vaddq_u32(big_s0, maj)), a, b, c, vaddq_u32(d, t1), e, f, g];
}

/// Hashes 4 blocks into 4 digests.
#[inline]
#[target_feature(enable = "neon")]
fn hash4(blocks: &[[u8; BLOCK_LEN]; LANES], out: &mut [[u8; OUT_LEN]; LANES]) {
    // Row 4q + i holds bytes 16q..16q+16 of block i, byte-swapped to big-endian words;
    // transposing each 4x4 quarter puts message word t of every block in w[t].
    let mut w = [vdupq_n_u32(0); 16];
    for (lane, block) in blocks.iter().enumerate() {
        for quarter in 0..4 {
            // SAFETY: 16 bytes at 16 * quarter lie inside the 64-byte `block`; byte loads
            // have no alignment requirement.
            let bytes = unsafe { vld1q_u8(block.as_ptr().add(16 * quarter)) };
            w[4 * quarter + lane] = vreinterpretq_u32_u8(vrev32q_u8(bytes));
        }
    }
    for quarter in w.chunks_exact_mut(4) {
        transpose4(quarter);
    }

    let iv = IV.map(|x| vdupq_n_u32(x));
    let mut s = iv;
    for t in 0..64 {
        if t >= 16 {
            // W(t) = σ1(W(t-2)) + W(t-7) + σ0(W(t-15)) + W(t-16), in a 16-word ring.
            let w15 = w[(t + 1) % 16];
            let w2 = w[(t + 14) % 16];
            let s0 = xor3(ror::<7, 25>(w15), ror::<18, 14>(w15), vshrq_n_u32::<3>(w15));
            let s1 = xor3(ror::<17, 15>(w2), ror::<19, 13>(w2), vshrq_n_u32::<10>(w2));
            w[t % 16] = vaddq_u32(vaddq_u32(w[t % 16], s0), vaddq_u32(w[(t + 9) % 16], s1));
        }
        round(&mut s, vaddq_u32(w[t % 16], vdupq_n_u32(K[t])));
    }
    for (x, v) in s.iter_mut().zip(iv) {
        *x = vaddq_u32(*x, v);
    }
    let mid = s;
    for &wk in &PADDING_WK {
        round(&mut s, vdupq_n_u32(wk));
    }
    // Row j holds word j of every digest; transposing each half gives digest i's words
    // 0..4 in row i and 4..8 in row 4 + i.
    let mut rows = [vdupq_n_u32(0); 8];
    for (row, (x, m)) in rows.iter_mut().zip(s.iter().zip(mid)) {
        *row = vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(vaddq_u32(*x, m))));
    }
    transpose4(&mut rows[..4]);
    transpose4(&mut rows[4..]);
    for (lane, digest) in out.iter_mut().enumerate() {
        // SAFETY: `digest` is 32 writable bytes, so 16 bytes at 0 and at 16 are in bounds;
        // byte stores have no alignment requirement.
        unsafe {
            vst1q_u8(digest.as_mut_ptr(), vreinterpretq_u8_u32(rows[lane]));
            vst1q_u8(digest.as_mut_ptr().add(16), vreinterpretq_u8_u32(rows[4 + lane]));
        }
    }
}

/// Hashes each 64-byte block of `blocks` into 32 bytes of `out`. The caller checks that
/// `out.len() == blocks.len() / 2` and that `blocks` is whole blocks (a mismatch would only
/// leave digests unwritten: every access is bounds-checked by the chunking).
#[target_feature(enable = "neon")]
pub(crate) fn hash_blocks(blocks: &[u8], out: &mut [u8]) {
    for_each_group::<LANES>(blocks, out, |group, digests| hash4(group, digests));
}
