//! AVX-512 Salsa20: 16 blocks per step, one block per 32-bit lane ("vertical" layout:
//! register `i` holds state word `i` of all 16 blocks). `vprold` rotates in one
//! instruction. The 16 outputs are transposed back to block order before the XOR.
//!
//! ## What this file holds
//!
//! 4/8/16/4 blocks per step, one block per 32-bit lane; each lane's 64-bit counter computed in
//! scalar (`counter + lane`, so the carry into word 9 is per block), words transposed back to
//! blocks (unpacks, then 128-bit lane shuffles) before the XOR

use core::arch::x86_64::*;

use super::driver::{self, WideKernel};
use super::rounds::{self, Words};
use crate::simd;
use cipher::InOutBuf;

const LANES: usize = 16;

/// The keystream of blocks `counter .. counter + 16`, block `j` in `out[j]`.
#[inline]
#[target_feature(enable = "avx512f")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m512i; 16] {
    // SAFETY: this function has the `avx512f` feature that `Words for __m512i` needs.
    let mut x = unsafe { rounds::keystream_words::<__m512i, DR>(state, counter) };
    // From word-per-register to block-per-register.
    simd::transpose16(&mut x);
    x
}

// SAFETY: only used by `blocks`, which has the `avx512f` feature.
unsafe impl Words for __m512i {
    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: the caller has the `avx512f` feature (the trait's contract).
        unsafe { _mm512_set1_epi32(w as i32) }
    }

    #[inline(always)]
    unsafe fn counter_words(counter: u64) -> (Self, Self) {
        let (lo, hi) = rounds::lane_counters::<LANES>(counter);
        // SAFETY: as in `splat`; `lo` and `hi` are 64 readable bytes each (unaligned loads).
        let v = |w: [u32; LANES]| unsafe { _mm512_loadu_si512(w.as_ptr().cast()) };
        (v(lo), v(hi))
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm512_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm512_xor_si512(a, b) }
    }

    #[inline(always)]
    unsafe fn rotl<const L: i32, const R: i32>(v: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm512_rol_epi32::<L>(v) }
    }

    #[inline(always)]
    unsafe fn zip32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe { (_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b)) }
    }

    #[inline(always)]
    unsafe fn zip64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe { (_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b)) }
    }
}

/// XORs the keystream into `io` from the block counter in words 8 and 9 of `state`. Any
/// length: a last partial step is computed whole and its keystream truncated.
#[target_feature(enable = "avx512f")]
pub(crate) fn xor_keystream(state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, io))
}

#[target_feature(enable = "avx512f")]
fn xor_n<const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    // SAFETY: this function is compiled with the kernel's target feature, which the
    // Platform that reached it was checked for.
    unsafe { driver::xor_keystream::<Avx512, DR>(state, io) }
}

/// This kernel's step and vector accesses, for the shared driver.
struct Avx512;

// SAFETY: the methods are only called by `driver::xor_keystream` inlined into `xor_n`,
// which has the `avx512f` feature.
unsafe impl WideKernel for Avx512 {
    type Vector = __m512i;
    const LANES: usize = LANES;

    #[inline(always)]
    unsafe fn keystream<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m512i; 16] {
        // SAFETY: the caller has the `avx512f` feature (the trait's contract).
        unsafe { blocks::<DR>(state, counter) }
    }

    #[inline(always)]
    unsafe fn xor(v: __m512i, inp: *const u8, out: *mut u8) {
        // SAFETY: `inp` and `out` are valid for one vector (the trait's contract); unaligned
        // accesses; the caller has the `avx512f` feature.
        unsafe { _mm512_storeu_si512(out.cast(), _mm512_xor_si512(_mm512_loadu_si512(inp.cast()), v)) }
    }

    #[inline(always)]
    unsafe fn store(v: __m512i, out: *mut u8) {
        // SAFETY: as in `xor`.
        unsafe { _mm512_storeu_si512(out.cast(), v) }
    }
}
