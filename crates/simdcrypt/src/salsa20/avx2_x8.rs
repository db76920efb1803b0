//! AVX2 Salsa20: 8 blocks per step, one block per 32-bit lane (register `i` holds state
//! word `i` of all 8 blocks); rotations are a shift pair. The outputs are transposed back
//! to block order before the XOR.
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

const LANES: usize = 8;

/// The keystream of blocks `counter .. counter + 8`: block `j` in `out[2j]` (bytes 0..32)
/// and `out[2j + 1]` (bytes 32..64).
#[inline]
#[target_feature(enable = "avx2")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m256i; 16] {
    // y[g][r], 128-bit lane k: words 4g..4g+4 of block 4k + r.
    // SAFETY: this function has the `avx2` feature that `Words for __m256i` needs.
    let y = unsafe { rounds::quads(&rounds::keystream_words::<__m256i, DR>(state, counter)) };
    let mut out = [_mm256_setzero_si256(); 16];
    for r in 0..4 {
        out[2 * r] = _mm256_permute2x128_si256::<0x20>(y[0][r], y[1][r]);
        out[2 * r + 1] = _mm256_permute2x128_si256::<0x20>(y[2][r], y[3][r]);
        out[2 * (4 + r)] = _mm256_permute2x128_si256::<0x31>(y[0][r], y[1][r]);
        out[2 * (4 + r) + 1] = _mm256_permute2x128_si256::<0x31>(y[2][r], y[3][r]);
    }
    out
}

// SAFETY: only used by `blocks`, which has the `avx2` feature.
unsafe impl Words for __m256i {
    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: the caller has the `avx2` feature (the trait's contract).
        unsafe { _mm256_set1_epi32(w as i32) }
    }

    #[inline(always)]
    unsafe fn counter_words(counter: u64) -> (Self, Self) {
        let (lo, hi) = rounds::lane_counters::<LANES>(counter);
        // SAFETY: as in `splat`.
        let v = |w: [u32; LANES]| unsafe { _mm256_loadu_si256(w.as_ptr().cast()) };
        (v(lo), v(hi))
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_xor_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn rotl<const L: i32, const R: i32>(v: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { _mm256_or_si256(_mm256_slli_epi32::<L>(v), _mm256_srli_epi32::<R>(v)) }
    }

    #[inline(always)]
    unsafe fn zip32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe { (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)) }
    }

    #[inline(always)]
    unsafe fn zip64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe { (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)) }
    }
}

/// XORs the keystream into `io` from the block counter in words 8 and 9 of `state`. Any
/// length: a last partial step is computed whole and its keystream truncated.
#[target_feature(enable = "avx2")]
pub(crate) fn xor_keystream(state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, io))
}

#[target_feature(enable = "avx2")]
fn xor_n<const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    // SAFETY: this function is compiled with the kernel's target feature, which the
    // Platform that reached it was checked for.
    unsafe { driver::xor_keystream::<Avx2, DR>(state, io) }
}

/// This kernel's step and vector accesses, for the shared driver.
struct Avx2;

// SAFETY: the methods are only called by `driver::xor_keystream` inlined into `xor_n`,
// which has the `avx2` feature.
unsafe impl WideKernel for Avx2 {
    type Vector = __m256i;
    const LANES: usize = LANES;

    #[inline(always)]
    unsafe fn keystream<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m256i; 16] {
        // SAFETY: the caller has the `avx2` feature (the trait's contract).
        unsafe { blocks::<DR>(state, counter) }
    }

    #[inline(always)]
    unsafe fn xor(v: __m256i, inp: *const u8, out: *mut u8) {
        // SAFETY: `inp` and `out` are valid for one vector (the trait's contract); unaligned
        // accesses; the caller has the `avx2` feature.
        unsafe { _mm256_storeu_si256(out.cast(), _mm256_xor_si256(_mm256_loadu_si256(inp.cast()), v)) }
    }

    #[inline(always)]
    unsafe fn store(v: __m256i, out: *mut u8) {
        // SAFETY: as in `xor`.
        unsafe { _mm256_storeu_si256(out.cast(), v) }
    }
}
