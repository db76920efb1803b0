//! NEON Salsa20 for aarch64: 4 blocks per step, one block per 32-bit lane (register `i`
//! holds state word `i` of all 4 blocks); rotations are a shift plus shift-right-insert.
//!
//! ## What this file holds
//!
//! 4/8/16/4 blocks per step, one block per 32-bit lane; each lane's 64-bit counter computed in
//! scalar (`counter + lane`, so the carry into word 9 is per block), words transposed back to
//! blocks (unpacks, then 128-bit lane shuffles) before the XOR

use core::arch::aarch64::*;

use super::driver::{self, WideKernel};
use super::rounds::{self, Words};
use cipher::InOutBuf;

const LANES: usize = 4;

/// The keystream of blocks `counter .. counter + 4`: bytes 16g .. 16g + 16 of block `r`
/// in `out[4r + g]`.
#[inline]
#[target_feature(enable = "neon")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [uint32x4_t; 16] {
    // SAFETY: this function has the `neon` feature that `Words for uint32x4_t` needs.
    let y = unsafe { rounds::quads(&rounds::keystream_words::<uint32x4_t, DR>(state, counter)) };
    core::array::from_fn(|i| y[i % 4][i / 4])
}

// SAFETY: only used by `blocks`, which has the `neon` feature.
unsafe impl Words for uint32x4_t {
    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: the caller has the `neon` feature (the trait's contract).
        unsafe { vdupq_n_u32(w) }
    }

    #[inline(always)]
    unsafe fn counter_words(counter: u64) -> (Self, Self) {
        let (lo, hi) = rounds::lane_counters::<LANES>(counter);
        // SAFETY: as in `splat`; `lo` and `hi` are 4 u32s each, exactly what vld1q_u32 reads.
        let v = |w: [u32; LANES]| unsafe { vld1q_u32(w.as_ptr()) };
        (v(lo), v(hi))
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { vaddq_u32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { veorq_u32(a, b) }
    }

    #[inline(always)]
    unsafe fn rotl<const L: i32, const R: i32>(v: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { vsriq_n_u32::<R>(vshlq_n_u32::<L>(v), v) }
    }

    #[inline(always)]
    unsafe fn zip32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe { (vzip1q_u32(a, b), vzip2q_u32(a, b)) }
    }

    #[inline(always)]
    unsafe fn zip64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe {
            let (a, b) = (vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b));
            (vreinterpretq_u32_u64(vzip1q_u64(a, b)), vreinterpretq_u32_u64(vzip2q_u64(a, b)))
        }
    }
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
