//! NEON BLAKE3 kernel (aarch64): 4 inputs at once, one per 32-bit lane of a 128-bit
//! register. Fewer than 4 remaining inputs go to the portable kernel.
//!
//! ## What this file holds
//!
//! aarch64: 4 inputs at once

use core::arch::aarch64::*;

use super::job::HashManyJob;
use super::{portable, BLOCK_LEN, MSG_SCHEDULE, OUT_LEN};
use crate::simd::transpose4;

const DEGREE: usize = 4;

#[inline]
#[target_feature(enable = "neon")]
fn rot16(x: uint32x4_t) -> uint32x4_t {
    vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x)))
}

/// Rotate right by N (= 32 - L): shift left by L, then insert the right-shifted value.
#[inline]
#[target_feature(enable = "neon")]
fn rot<const N: i32, const L: i32>(x: uint32x4_t) -> uint32x4_t {
    vsriq_n_u32::<N>(vshlq_n_u32::<L>(x), x)
}

#[inline]
#[target_feature(enable = "neon")]
fn g(v: &mut [uint32x4_t; 16], a: usize, b: usize, c: usize, d: usize, x: uint32x4_t, y: uint32x4_t) {
    v[a] = vaddq_u32(vaddq_u32(v[a], x), v[b]);
    v[d] = rot16(veorq_u32(v[d], v[a]));
    v[c] = vaddq_u32(v[c], v[d]);
    v[b] = rot::<12, 20>(veorq_u32(v[b], v[c]));
    v[a] = vaddq_u32(vaddq_u32(v[a], y), v[b]);
    v[d] = rot::<8, 24>(veorq_u32(v[d], v[a]));
    v[c] = vaddq_u32(v[c], v[d]);
    v[b] = rot::<7, 25>(veorq_u32(v[b], v[c]));
}

#[inline]
#[target_feature(enable = "neon")]
fn round<const R: usize>(v: &mut [uint32x4_t; 16], m: &[uint32x4_t; 16]) {
    let s = &MSG_SCHEDULE[R];
    g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
}

/// Loads block `block_index` of each of the 4 inputs, transposed so that `m[w]` holds
/// message word `w` of every input.
#[inline]
#[target_feature(enable = "neon")]
fn load_message(inputs: &[&[u8]], block_index: usize) -> [uint32x4_t; 16] {
    let mut m = [vdupq_n_u32(0); 16];
    for (lane, input) in inputs[..DEGREE].iter().enumerate() {
        let block: &[u8; BLOCK_LEN] = input[block_index * BLOCK_LEN..][..BLOCK_LEN].try_into().expect("a whole block");
        for quarter in 0..4 {
            // SAFETY: 16 bytes at 16 * quarter lie inside the 64-byte `block`; byte loads
            // have no alignment requirement, and aarch64 is little-endian.
            m[4 * quarter + lane] = vreinterpretq_u32_u8(unsafe { vld1q_u8(block.as_ptr().add(16 * quarter)) });
        }
    }
    for quarter in m.chunks_exact_mut(4) {
        transpose4(quarter);
    }
    m
}

/// Hashes inputs `first..first + 4` of the job into 4 chaining values at `out[..128]`.
#[target_feature(enable = "neon")]
fn hash4(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    let inputs = &job.inputs[first..first + DEGREE];
    let blocks = inputs[0].len() / BLOCK_LEN;
    let mut h = [vdupq_n_u32(0); 8];
    for (hw, &kw) in h.iter_mut().zip(job.key) {
        *hw = vdupq_n_u32(kw);
    }
    let lo: [u32; DEGREE] = core::array::from_fn(|lane| job.counter_for(first + lane) as u32);
    let hi: [u32; DEGREE] = core::array::from_fn(|lane| (job.counter_for(first + lane) >> 32) as u32);
    // SAFETY: each array is four readable u32 values.
    let (ctr_lo, ctr_hi) = unsafe { (vld1q_u32(lo.as_ptr()), vld1q_u32(hi.as_ptr())) };
    for b in 0..blocks {
        let m = load_message(inputs, b);
        let flags = vdupq_n_u32(u32::from(job.block_flags(b, blocks - 1)));
        let block_len = vdupq_n_u32(u32::from(job.block_len(b, blocks - 1)));
        let mut v = super::lane_state(&h, |w| vdupq_n_u32(w), [ctr_lo, ctr_hi, block_len, flags]);
        round::<0>(&mut v, &m);
        round::<1>(&mut v, &m);
        round::<2>(&mut v, &m);
        round::<3>(&mut v, &m);
        round::<4>(&mut v, &m);
        round::<5>(&mut v, &m);
        round::<6>(&mut v, &m);
        for i in 0..8 {
            h[i] = veorq_u32(v[i], v[i + 8]);
        }
    }
    // h[0..4] holds words 0-3 of every lane, h[4..8] words 4-7; transpose each to per-lane rows.
    transpose4(&mut h[..4]);
    transpose4(&mut h[4..]);
    let out = &mut out[..DEGREE * OUT_LEN];
    for (lane, cv) in out.chunks_exact_mut(OUT_LEN).enumerate() {
        // SAFETY: `cv` is 32 writable bytes: 16 at offset 0 and 16 at offset 16.
        unsafe {
            vst1q_u8(cv.as_mut_ptr(), vreinterpretq_u8_u32(h[lane]));
            vst1q_u8(cv.as_mut_ptr().add(16), vreinterpretq_u8_u32(h[4 + lane]));
        }
    }
}

/// Hashes every input of the job (lengths already checked by the dispatcher).
#[target_feature(enable = "neon")]
pub(super) fn hash_many(job: &HashManyJob<'_>, out: &mut [u8]) {
    let mut first = 0;
    while job.inputs.len() - first >= DEGREE {
        hash4(job, first, &mut out[first * OUT_LEN..]);
        first += DEGREE;
    }
    if first < job.inputs.len() {
        let rest = HashManyJob { inputs: &job.inputs[first..], counters: job.counters.from(first), ..*job };
        portable::hash_many(&rest, &mut out[first * OUT_LEN..]);
    }
}
