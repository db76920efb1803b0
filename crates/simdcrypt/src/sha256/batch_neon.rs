//! NEON batch kernel (aarch64): 4 blocks at once, block `i` in 32-bit lane `i` of every
//! register, the layout of the AVX-512 kernel (batch_avx512.rs) on 128-bit registers.
//! Rotations are a shift plus a shift-and-insert (`vsri`); Ch and Maj use `vbsl`.
//! A final group of fewer than 4 blocks is copied into a zero-padded 4-block buffer.
//!
//! ## What this file holds
//!
//! aarch64 NEON batch kernel: 4 blocks, one per lane (`simd::transpose4` per quarter), `vsri`
//! rotations, `vbsl` for Ch/Maj; for CPUs without the SHA-256 instructions (the `armv8-sha2`
//! batch backend loops the single-message kernel)

use core::arch::aarch64::*;

use super::batch_rounds::{self, Lanes};
use super::batch_shared::for_each_group;
use super::{BLOCK_LEN, OUT_LEN};
use crate::simd::transpose4;

const LANES: usize = 4;

// SAFETY: only used by `hash4`, which has the `neon` feature.
unsafe impl Lanes for uint32x4_t {
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the caller has the `neon` feature (the trait's contract).
        unsafe { vdupq_n_u32(x) }
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { vaddq_u32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { veorq_u32(veorq_u32(a, b), c) }
    }

    /// Shift left by L, then insert the right-shifted value (`vsri`).
    #[inline(always)]
    unsafe fn ror<const R: i32, const L: i32>(x: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { vsriq_n_u32::<R>(vshlq_n_u32::<L>(x), x) }
    }

    #[inline(always)]
    unsafe fn shr<const N: i32>(x: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { vshrq_n_u32::<N>(x) }
    }

    /// `e ? f : g`, bit by bit: one `vbsl`.
    #[inline(always)]
    unsafe fn ch(e: Self, f: Self, g: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { vbslq_u32(e, f, g) }
    }

    /// Where `a` and `b` differ, `c` decides; where they agree, `b`.
    #[inline(always)]
    unsafe fn maj(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { vbslq_u32(veorq_u32(a, b), c, b) }
    }
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

    // SAFETY: this function has the `neon` feature that `Lanes for uint32x4_t` needs.
    let words = unsafe { batch_rounds::digest_words::<_, false>(&mut w, |s| batch_rounds::padding_rounds_loop(s)) };
    // Row j holds word j of every digest; transposing each half gives digest i's words
    // 0..4 in row i and 4..8 in row 4 + i.
    let mut rows = [vdupq_n_u32(0); 8];
    for (row, x) in rows.iter_mut().zip(words) {
        *row = vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(x)));
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
