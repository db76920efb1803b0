//! SSE2 Salsa20: 4 blocks per step, one block per 32-bit lane (register `i` holds state
//! word `i` of all 4 blocks). SSE2 is part of x86-64, so this runs on every x86-64 CPU.
//!
//! ## What this file holds
//!
//! 4/8/16/4 blocks per step, one block per 32-bit lane; each lane's 64-bit counter computed in
//! scalar (`counter + lane`, so the carry into word 9 is per block), words transposed back to
//! blocks (unpacks, then 128-bit lane shuffles) before the XOR

use core::arch::x86_64::*;

use super::driver::{self, WideKernel};
use super::rounds::{self, Words};
use cipher::InOutBuf;

const LANES: usize = 4;

/// The keystream of blocks `counter .. counter + 4`: bytes 16g .. 16g + 16 of block `r`
/// in `out[4r + g]`.
#[inline]
#[target_feature(enable = "sse2")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m128i; 16] {
    // SAFETY: this function has the `sse2` feature that `Words for __m128i` needs.
    let y = unsafe { rounds::quads(&rounds::keystream_words::<__m128i, DR>(state, counter)) };
    core::array::from_fn(|i| y[i % 4][i / 4])
}

// SAFETY: only used by `blocks`, which has the `sse2` feature.
unsafe impl Words for __m128i {
    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: the caller has the `sse2` feature (the trait's contract).
        unsafe { _mm_set1_epi32(w as i32) }
    }

    #[inline(always)]
    unsafe fn counter_words(counter: u64) -> (Self, Self) {
        let (lo, hi) = rounds::lane_counters::<LANES>(counter);
        // SAFETY: as in `splat`.
        let v = |w: [u32; LANES]| unsafe { _mm_setr_epi32(w[0] as i32, w[1] as i32, w[2] as i32, w[3] as i32) };
        (v(lo), v(hi))
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm_xor_si128(a, b) }
    }

    #[inline(always)]
    unsafe fn rotl<const L: i32, const R: i32>(v: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm_or_si128(_mm_slli_epi32::<L>(v), _mm_srli_epi32::<R>(v)) }
    }

    #[inline(always)]
    unsafe fn zip32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe { (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)) }
    }

    #[inline(always)]
    unsafe fn zip64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe { (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)) }
    }
}

/// XORs the keystream into `io` from the block counter in words 8 and 9 of `state`. Any
/// length: a last partial step is computed whole and its keystream truncated.
#[target_feature(enable = "sse2")]
pub(crate) fn xor_keystream(state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, io))
}

#[target_feature(enable = "sse2")]
fn xor_n<const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    // SAFETY: this function is compiled with the kernel's target feature, which the
    // Platform that reached it was checked for.
    unsafe { driver::xor_keystream::<Sse2, DR>(state, io) }
}

/// This kernel's step and vector accesses, for the shared driver.
struct Sse2;

// SAFETY: the methods are only called by `driver::xor_keystream` inlined into `xor_n`,
// which has the `sse2` feature.
unsafe impl WideKernel for Sse2 {
    type Vector = __m128i;
    const LANES: usize = LANES;

    #[inline(always)]
    unsafe fn keystream<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m128i; 16] {
        // SAFETY: the caller has the `sse2` feature (the trait's contract).
        unsafe { blocks::<DR>(state, counter) }
    }

    #[inline(always)]
    unsafe fn xor(v: __m128i, inp: *const u8, out: *mut u8) {
        // SAFETY: `inp` and `out` are valid for one vector (the trait's contract); unaligned
        // accesses; the caller has the `sse2` feature.
        unsafe { _mm_storeu_si128(out.cast(), _mm_xor_si128(_mm_loadu_si128(inp.cast()), v)) }
    }

    #[inline(always)]
    unsafe fn store(v: __m128i, out: *mut u8) {
        // SAFETY: as in `xor`.
        unsafe { _mm_storeu_si128(out.cast(), v) }
    }
}
