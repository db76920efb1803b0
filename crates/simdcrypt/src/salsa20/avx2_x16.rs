//! AVX2 Salsa20: 16 blocks per step as two interleaved groups of 8, one block per 32-bit
//! lane (register `i` of a group holds state word `i` of its 8 blocks); rotations are a
//! shift pair. The outputs are transposed back to block order before the XOR. A remainder
//! of fewer than 16 blocks runs one group at a time.
//!
//! ## What this file holds
//!
//! - `Words for __m256i`: one group of 8 blocks, the round code of `rounds.rs` on AVX2.
//! - `Words for Pair`: two groups, each `Words` operation applied to both. The shared round
//!   code then carries two independent dependency chains, which keeps more of the CPU's
//!   vector ports busy than one group's four-step quarter-round chains do; with 16
//!   registers, the second group's words mostly live on the stack, which costs loads
//!   folded into the operations rather than instructions. One group per step was on par
//!   with libsodium's AVX2 code, two are ahead of it (BENCHMARKS.md; three or four groups,
//!   tried, were no faster than one).
//! - each lane's 64-bit counter computed in scalar (`counter + lane`, so the carry into
//!   word 9 is per block), words transposed back to blocks (unpacks, then 128-bit lane
//!   shuffles) before the XOR.

use core::arch::x86_64::*;

use super::driver::{self, WideKernel};
use super::rounds::{self, Words};
use super::BLOCK_LEN;
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

/// Two groups of 8 blocks: blocks `counter .. counter + 8` in `.0`, the next 8 in `.1`.
/// Every operation is applied to both, so the round code interleaves the two groups.
#[derive(Clone, Copy)]
struct Pair(__m256i, __m256i);

// SAFETY: only used by `pair_blocks`, which has the `avx2` feature.
unsafe impl Words for Pair {
    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: the caller has the `avx2` feature (the trait's contract).
        unsafe { Pair(__m256i::splat(w), __m256i::splat(w)) }
    }

    #[inline(always)]
    unsafe fn counter_words(counter: u64) -> (Self, Self) {
        // SAFETY: as in `splat`.
        unsafe {
            let (lo0, hi0) = __m256i::counter_words(counter);
            let (lo1, hi1) = __m256i::counter_words(counter.wrapping_add(LANES as u64));
            (Pair(lo0, lo1), Pair(hi0, hi1))
        }
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { Pair(__m256i::add(a.0, b.0), __m256i::add(a.1, b.1)) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { Pair(__m256i::xor(a.0, b.0), __m256i::xor(a.1, b.1)) }
    }

    #[inline(always)]
    unsafe fn rotl<const L: i32, const R: i32>(v: Self) -> Self {
        // SAFETY: as in `splat`.
        unsafe { Pair(__m256i::rotl::<L, R>(v.0), __m256i::rotl::<L, R>(v.1)) }
    }

    #[inline(always)]
    unsafe fn zip32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        let ((l0, h0), (l1, h1)) = unsafe { (__m256i::zip32(a.0, b.0), __m256i::zip32(a.1, b.1)) };
        (Pair(l0, l1), Pair(h0, h1))
    }

    #[inline(always)]
    unsafe fn zip64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: as in `splat`.
        let ((l0, h0), (l1, h1)) = unsafe { (__m256i::zip64(a.0, b.0), __m256i::zip64(a.1, b.1)) };
        (Pair(l0, l1), Pair(h0, h1))
    }
}

/// The keystream of blocks `counter .. counter + 16`: block `j` in `out[j]` (its first 32
/// bytes in `.0`, the rest in `.1`).
#[inline]
#[target_feature(enable = "avx2")]
fn pair_blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [Pair; 16] {
    // SAFETY: this function has the `avx2` feature that `Words for Pair` needs.
    let y = unsafe { rounds::quads(&rounds::keystream_words::<Pair, DR>(state, counter)) };
    let z = _mm256_setzero_si256();
    let mut out = [Pair(z, z); 16];
    // As in `blocks`, for each group (0x20: the low 128-bit chunks of both, 0x31: the high).
    for r in 0..4 {
        out[r] = Pair(
            _mm256_permute2x128_si256::<0x20>(y[0][r].0, y[1][r].0),
            _mm256_permute2x128_si256::<0x20>(y[2][r].0, y[3][r].0),
        );
        out[4 + r] = Pair(
            _mm256_permute2x128_si256::<0x31>(y[0][r].0, y[1][r].0),
            _mm256_permute2x128_si256::<0x31>(y[2][r].0, y[3][r].0),
        );
        out[8 + r] = Pair(
            _mm256_permute2x128_si256::<0x20>(y[0][r].1, y[1][r].1),
            _mm256_permute2x128_si256::<0x20>(y[2][r].1, y[3][r].1),
        );
        out[12 + r] = Pair(
            _mm256_permute2x128_si256::<0x31>(y[0][r].1, y[1][r].1),
            _mm256_permute2x128_si256::<0x31>(y[2][r].1, y[3][r].1),
        );
    }
    out
}

/// XORs the keystream into `io` from the block counter in words 8 and 9 of `state`. Any
/// length: whole 16-block steps, then 8 blocks at a time, a last partial step computed
/// whole and its keystream truncated.
#[target_feature(enable = "avx2")]
pub(crate) fn xor_keystream(state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, io))
}

#[target_feature(enable = "avx2")]
fn xor_n<const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    // SAFETY: this function is compiled with the kernel's target feature, which the
    // Platform that reached it was checked for.
    unsafe {
        let step = 2 * LANES * BLOCK_LEN;
        let whole = io.len() / step * step;
        let (pairs, rest) = io.split_at(whole);
        driver::xor_keystream::<Avx2Pair, DR>(state, pairs);
        if !rest.is_empty() {
            let counter = driver::counter_of(state).wrapping_add((whole / BLOCK_LEN) as u64);
            driver::xor_keystream::<Avx2, DR>(&driver::with_counter(state, counter), rest);
        }
    }
}

/// One group's step and vector accesses, for the shared driver.
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

/// Two groups' step (16 blocks, one block per `Pair`), for the shared driver.
struct Avx2Pair;

// SAFETY: the methods are only called by `driver::xor_keystream` inlined into `xor_n`,
// which has the `avx2` feature.
unsafe impl WideKernel for Avx2Pair {
    type Vector = Pair;
    const LANES: usize = 2 * LANES;

    #[inline(always)]
    unsafe fn keystream<const DR: u32>(state: &[u32; 16], counter: u64) -> [Pair; 16] {
        // SAFETY: the caller has the `avx2` feature (the trait's contract).
        unsafe { pair_blocks::<DR>(state, counter) }
    }

    #[inline(always)]
    unsafe fn xor(v: Pair, inp: *const u8, out: *mut u8) {
        // SAFETY: `inp` and `out` are valid for 64 bytes (the trait's contract), two vectors
        // of `Avx2`; the caller has the `avx2` feature.
        unsafe {
            Avx2::xor(v.0, inp, out);
            Avx2::xor(v.1, inp.add(32), out.add(32));
        }
    }

    #[inline(always)]
    unsafe fn store(v: Pair, out: *mut u8) {
        // SAFETY: as in `xor`.
        unsafe {
            Avx2::store(v.0, out);
            Avx2::store(v.1, out.add(32));
        }
    }
}
