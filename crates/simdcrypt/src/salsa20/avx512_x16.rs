//! AVX-512 Salsa20: 16 blocks per step, one block per 32-bit lane ("vertical" layout:
//! register `i` holds state word `i` of all 16 blocks). `vprold` rotates in one
//! instruction. The 16 outputs are transposed back to block order before the XOR.

use core::arch::x86_64::*;

use super::driver::{self, WideKernel};
use cipher::InOutBuf;

const LANES: usize = 16;

#[inline]
#[target_feature(enable = "avx512f")]
fn quarter(x: &mut [__m512i; 16], a: usize, b: usize, c: usize, d: usize) {
    x[b] = _mm512_xor_si512(x[b], _mm512_rol_epi32::<7>(_mm512_add_epi32(x[a], x[d])));
    x[c] = _mm512_xor_si512(x[c], _mm512_rol_epi32::<9>(_mm512_add_epi32(x[b], x[a])));
    x[d] = _mm512_xor_si512(x[d], _mm512_rol_epi32::<13>(_mm512_add_epi32(x[c], x[b])));
    x[a] = _mm512_xor_si512(x[a], _mm512_rol_epi32::<18>(_mm512_add_epi32(x[d], x[c])));
}

/// The keystream of blocks `counter .. counter + 16`, block `j` in `out[j]`.
#[inline]
#[target_feature(enable = "avx512f")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m512i; 16] {
    let mut x: [__m512i; 16] = core::array::from_fn(|i| _mm512_set1_epi32(state[i] as i32));
    // The full 64-bit counter per lane: the carry into word 9 is per block.
    let c: [u64; LANES] = core::array::from_fn(|j| counter.wrapping_add(j as u64));
    let lo = |j: usize| c[j] as u32 as i32;
    let hi = |j: usize| (c[j] >> 32) as u32 as i32;
    x[8] = _mm512_setr_epi32(
        lo(0),
        lo(1),
        lo(2),
        lo(3),
        lo(4),
        lo(5),
        lo(6),
        lo(7),
        lo(8),
        lo(9),
        lo(10),
        lo(11),
        lo(12),
        lo(13),
        lo(14),
        lo(15),
    );
    x[9] = _mm512_setr_epi32(
        hi(0),
        hi(1),
        hi(2),
        hi(3),
        hi(4),
        hi(5),
        hi(6),
        hi(7),
        hi(8),
        hi(9),
        hi(10),
        hi(11),
        hi(12),
        hi(13),
        hi(14),
        hi(15),
    );
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
            _ => _mm512_set1_epi32(state[i] as i32),
        };
        x[i] = _mm512_add_epi32(x[i], input);
    }
    transpose(x)
}

/// From word-per-register to block-per-register. First a 4x4 transpose of 32-bit words
/// inside each 128-bit lane of every group of four words; then, for each of the four
/// results, a 4x4 transpose of 128-bit lanes across the groups.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose(x: [__m512i; 16]) -> [__m512i; 16] {
    // y[g][r], 128-bit lane k: words 4g..4g+4 of block 4k + r.
    let y: [[__m512i; 4]; 4] = core::array::from_fn(|g| {
        let t0 = _mm512_unpacklo_epi32(x[4 * g], x[4 * g + 1]);
        let t1 = _mm512_unpackhi_epi32(x[4 * g], x[4 * g + 1]);
        let t2 = _mm512_unpacklo_epi32(x[4 * g + 2], x[4 * g + 3]);
        let t3 = _mm512_unpackhi_epi32(x[4 * g + 2], x[4 * g + 3]);
        [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
        ]
    });
    let mut out = [_mm512_setzero_si512(); 16];
    for r in 0..4 {
        let (a0, a1, a2, a3) = (y[0][r], y[1][r], y[2][r], y[3][r]);
        let t0 = _mm512_shuffle_i32x4::<0x44>(a0, a1); // a0.l0 a0.l1 a1.l0 a1.l1
        let t1 = _mm512_shuffle_i32x4::<0xEE>(a0, a1); // a0.l2 a0.l3 a1.l2 a1.l3
        let t2 = _mm512_shuffle_i32x4::<0x44>(a2, a3);
        let t3 = _mm512_shuffle_i32x4::<0xEE>(a2, a3);
        out[r] = _mm512_shuffle_i32x4::<0x88>(t0, t2); // lane 0 of a0..a3: block r
        out[4 + r] = _mm512_shuffle_i32x4::<0xDD>(t0, t2); // lane 1: block 4 + r
        out[8 + r] = _mm512_shuffle_i32x4::<0x88>(t1, t3); // lane 2: block 8 + r
        out[12 + r] = _mm512_shuffle_i32x4::<0xDD>(t1, t3); // lane 3: block 12 + r
    }
    out
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
