//! AVX2 Salsa20: 8 blocks per step, one block per 32-bit lane (register `i` holds state
//! word `i` of all 8 blocks); rotations are a shift pair. The outputs are transposed back
//! to block order before the XOR.

use core::arch::x86_64::*;

use super::driver::{self, WideKernel};
use cipher::InOutBuf;

const LANES: usize = 8;

#[inline]
#[target_feature(enable = "avx2")]
fn rotl<const L: i32, const R: i32>(v: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi32::<L>(v), _mm256_srli_epi32::<R>(v))
}

#[inline]
#[target_feature(enable = "avx2")]
fn quarter(x: &mut [__m256i; 16], a: usize, b: usize, c: usize, d: usize) {
    x[b] = _mm256_xor_si256(x[b], rotl::<7, 25>(_mm256_add_epi32(x[a], x[d])));
    x[c] = _mm256_xor_si256(x[c], rotl::<9, 23>(_mm256_add_epi32(x[b], x[a])));
    x[d] = _mm256_xor_si256(x[d], rotl::<13, 19>(_mm256_add_epi32(x[c], x[b])));
    x[a] = _mm256_xor_si256(x[a], rotl::<18, 14>(_mm256_add_epi32(x[d], x[c])));
}

/// The keystream of blocks `counter .. counter + 8`: block `j` in `out[2j]` (bytes 0..32)
/// and `out[2j + 1]` (bytes 32..64).
#[inline]
#[target_feature(enable = "avx2")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m256i; 16] {
    let mut x: [__m256i; 16] = core::array::from_fn(|i| _mm256_set1_epi32(state[i] as i32));
    // The full 64-bit counter per lane: the carry into word 9 is per block.
    let c: [u64; LANES] = core::array::from_fn(|j| counter.wrapping_add(j as u64));
    let lo = |j: usize| c[j] as u32 as i32;
    let hi = |j: usize| (c[j] >> 32) as u32 as i32;
    x[8] = _mm256_setr_epi32(lo(0), lo(1), lo(2), lo(3), lo(4), lo(5), lo(6), lo(7));
    x[9] = _mm256_setr_epi32(hi(0), hi(1), hi(2), hi(3), hi(4), hi(5), hi(6), hi(7));
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
            _ => _mm256_set1_epi32(state[i] as i32),
        };
        x[i] = _mm256_add_epi32(x[i], input);
    }
    // y[g][r], 128-bit lane k: words 4g..4g+4 of block 4k + r.
    let y: [[__m256i; 4]; 4] = core::array::from_fn(|g| {
        let t0 = _mm256_unpacklo_epi32(x[4 * g], x[4 * g + 1]);
        let t1 = _mm256_unpackhi_epi32(x[4 * g], x[4 * g + 1]);
        let t2 = _mm256_unpacklo_epi32(x[4 * g + 2], x[4 * g + 3]);
        let t3 = _mm256_unpackhi_epi32(x[4 * g + 2], x[4 * g + 3]);
        [
            _mm256_unpacklo_epi64(t0, t2),
            _mm256_unpackhi_epi64(t0, t2),
            _mm256_unpacklo_epi64(t1, t3),
            _mm256_unpackhi_epi64(t1, t3),
        ]
    });
    let mut out = [_mm256_setzero_si256(); 16];
    for r in 0..4 {
        out[2 * r] = _mm256_permute2x128_si256::<0x20>(y[0][r], y[1][r]);
        out[2 * r + 1] = _mm256_permute2x128_si256::<0x20>(y[2][r], y[3][r]);
        out[2 * (4 + r)] = _mm256_permute2x128_si256::<0x31>(y[0][r], y[1][r]);
        out[2 * (4 + r) + 1] = _mm256_permute2x128_si256::<0x31>(y[2][r], y[3][r]);
    }
    out
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
