//! SSE2 Salsa20: 4 blocks per step, one block per 32-bit lane (register `i` holds state
//! word `i` of all 4 blocks). SSE2 is part of x86-64, so this runs on every x86-64 CPU.

use core::arch::x86_64::*;

use super::driver::{self, WideKernel};
use cipher::InOutBuf;

const LANES: usize = 4;

#[inline]
#[target_feature(enable = "sse2")]
fn rotl<const L: i32, const R: i32>(v: __m128i) -> __m128i {
    _mm_or_si128(_mm_slli_epi32::<L>(v), _mm_srli_epi32::<R>(v))
}

#[inline]
#[target_feature(enable = "sse2")]
fn quarter(x: &mut [__m128i; 16], a: usize, b: usize, c: usize, d: usize) {
    x[b] = _mm_xor_si128(x[b], rotl::<7, 25>(_mm_add_epi32(x[a], x[d])));
    x[c] = _mm_xor_si128(x[c], rotl::<9, 23>(_mm_add_epi32(x[b], x[a])));
    x[d] = _mm_xor_si128(x[d], rotl::<13, 19>(_mm_add_epi32(x[c], x[b])));
    x[a] = _mm_xor_si128(x[a], rotl::<18, 14>(_mm_add_epi32(x[d], x[c])));
}

/// The keystream of blocks `counter .. counter + 4`: bytes 16g .. 16g + 16 of block `r`
/// in `out[4r + g]`.
#[inline]
#[target_feature(enable = "sse2")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m128i; 16] {
    let mut x: [__m128i; 16] = core::array::from_fn(|i| _mm_set1_epi32(state[i] as i32));
    // The full 64-bit counter per lane: the carry into word 9 is per block.
    let c: [u64; LANES] = core::array::from_fn(|j| counter.wrapping_add(j as u64));
    let lo = |j: usize| c[j] as u32 as i32;
    let hi = |j: usize| (c[j] >> 32) as u32 as i32;
    x[8] = _mm_setr_epi32(lo(0), lo(1), lo(2), lo(3));
    x[9] = _mm_setr_epi32(hi(0), hi(1), hi(2), hi(3));
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
            _ => _mm_set1_epi32(state[i] as i32),
        };
        x[i] = _mm_add_epi32(x[i], input);
    }
    let mut out = [_mm_setzero_si128(); 16];
    for g in 0..4 {
        let t0 = _mm_unpacklo_epi32(x[4 * g], x[4 * g + 1]);
        let t1 = _mm_unpackhi_epi32(x[4 * g], x[4 * g + 1]);
        let t2 = _mm_unpacklo_epi32(x[4 * g + 2], x[4 * g + 3]);
        let t3 = _mm_unpackhi_epi32(x[4 * g + 2], x[4 * g + 3]);
        out[g] = _mm_unpacklo_epi64(t0, t2);
        out[4 + g] = _mm_unpackhi_epi64(t0, t2);
        out[8 + g] = _mm_unpacklo_epi64(t1, t3);
        out[12 + g] = _mm_unpackhi_epi64(t1, t3);
    }
    out
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
