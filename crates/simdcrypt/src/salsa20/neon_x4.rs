//! NEON Salsa20 for aarch64: 4 blocks per step, one block per 32-bit lane (register `i`
//! holds state word `i` of all 4 blocks); rotations are a shift plus shift-right-insert.

use core::arch::aarch64::*;

use super::driver::{self, WideKernel};
use cipher::InOutBuf;

const LANES: usize = 4;

#[inline]
#[target_feature(enable = "neon")]
fn rotl<const L: i32, const R: i32>(v: uint32x4_t) -> uint32x4_t {
    vsriq_n_u32::<R>(vshlq_n_u32::<L>(v), v)
}

#[inline]
#[target_feature(enable = "neon")]
fn quarter(x: &mut [uint32x4_t; 16], a: usize, b: usize, c: usize, d: usize) {
    x[b] = veorq_u32(x[b], rotl::<7, 25>(vaddq_u32(x[a], x[d])));
    x[c] = veorq_u32(x[c], rotl::<9, 23>(vaddq_u32(x[b], x[a])));
    x[d] = veorq_u32(x[d], rotl::<13, 19>(vaddq_u32(x[c], x[b])));
    x[a] = veorq_u32(x[a], rotl::<18, 14>(vaddq_u32(x[d], x[c])));
}

/// The keystream of blocks `counter .. counter + 4`: bytes 16g .. 16g + 16 of block `r`
/// in `out[4r + g]`.
#[inline]
#[target_feature(enable = "neon")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [uint32x4_t; 16] {
    let mut x: [uint32x4_t; 16] = core::array::from_fn(|i| vdupq_n_u32(state[i]));
    // The full 64-bit counter per lane: the carry into word 9 is per block.
    let c: [u64; LANES] = core::array::from_fn(|j| counter.wrapping_add(j as u64));
    let lo: [u32; LANES] = core::array::from_fn(|j| c[j] as u32);
    let hi: [u32; LANES] = core::array::from_fn(|j| (c[j] >> 32) as u32);
    // SAFETY: lo and hi are 4 u32s each, exactly what vld1q_u32 reads.
    unsafe {
        x[8] = vld1q_u32(lo.as_ptr());
        x[9] = vld1q_u32(hi.as_ptr());
    }
    let (c8, c9) = (x[8], x[9]);
    for _ in 0..DR {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 5, 9, 13, 1);
        quarter(&mut x, 10, 14, 2, 6);
        quarter(&mut x, 15, 3, 7, 11);
        quarter(&mut x, 0, 1, 2, 3);
        quarter(&mut x, 5, 6, 7, 4);
        quarter(&mut x, 10, 11, 8, 9);
        quarter(&mut x, 15, 12, 13, 14);
    }
    // Feed-forward: the broadcast words are rebuilt rather than kept live (registers).
    for i in 0..16 {
        let input = match i {
            8 => c8,
            9 => c9,
            _ => vdupq_n_u32(state[i]),
        };
        x[i] = vaddq_u32(x[i], input);
    }
    let mut out = [vdupq_n_u32(0); 16];
    for g in 0..4 {
        let t0 = vzip1q_u32(x[4 * g], x[4 * g + 1]);
        let t1 = vzip2q_u32(x[4 * g], x[4 * g + 1]);
        let t2 = vzip1q_u32(x[4 * g + 2], x[4 * g + 3]);
        let t3 = vzip2q_u32(x[4 * g + 2], x[4 * g + 3]);
        let (t0, t1, t2, t3) = (
            vreinterpretq_u64_u32(t0),
            vreinterpretq_u64_u32(t1),
            vreinterpretq_u64_u32(t2),
            vreinterpretq_u64_u32(t3),
        );
        out[g] = vreinterpretq_u32_u64(vzip1q_u64(t0, t2));
        out[4 + g] = vreinterpretq_u32_u64(vzip2q_u64(t0, t2));
        out[8 + g] = vreinterpretq_u32_u64(vzip1q_u64(t1, t3));
        out[12 + g] = vreinterpretq_u32_u64(vzip2q_u64(t1, t3));
    }
    out
}

/// XORs the keystream into `io` from the block counter in words 8 and 9 of `state`. Any
/// length: a last partial step is computed whole and its keystream truncated.
#[target_feature(enable = "neon")]
pub(crate) fn xor_keystream(state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, io))
}

#[target_feature(enable = "neon")]
fn xor_n<const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    // SAFETY: this function is compiled with the kernel's target feature, which the
    // Platform that reached it was checked for.
    unsafe { driver::xor_keystream::<Neon, DR>(state, io) }
}

/// This kernel's step and vector accesses, for the shared driver.
struct Neon;

// SAFETY: the methods are only called by `driver::xor_keystream` inlined into `xor_n`,
// which has the `neon` feature.
unsafe impl WideKernel for Neon {
    type Vector = uint32x4_t;
    const LANES: usize = LANES;

    #[inline(always)]
    unsafe fn keystream<const DR: u32>(state: &[u32; 16], counter: u64) -> [uint32x4_t; 16] {
        // SAFETY: the caller has the `neon` feature (the trait's contract).
        unsafe { blocks::<DR>(state, counter) }
    }

    #[inline(always)]
    unsafe fn xor(v: uint32x4_t, inp: *const u8, out: *mut u8) {
        // SAFETY: `inp` and `out` are valid for one vector (the trait's contract); unaligned
        // accesses; the caller has the `neon` feature.
        unsafe { vst1q_u8(out, veorq_u8(vld1q_u8(inp), vreinterpretq_u8_u32(v))) }
    }

    #[inline(always)]
    unsafe fn store(v: uint32x4_t, out: *mut u8) {
        // SAFETY: as in `xor`.
        unsafe { vst1q_u8(out, vreinterpretq_u8_u32(v)) }
    }
}
