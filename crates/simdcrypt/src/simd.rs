//! SIMD building blocks shared by several algorithms' kernels: transpositions of word
//! matrices (one message per lane needs its words turned into columns), prefetch hints,
//! and loads and stores of whole integer arrays ([`Plain`]).
//! Each function carries the `#[target_feature]` its instructions need, so a kernel with
//! those features inlines it.
//!
//! ## What this file holds
//!
//! building blocks several algorithms' kernels share: word-matrix transposes (`transpose16`,
//! `transpose_in_chunks`, `transpose8` on x86-64, `transpose4` on aarch64), the prefetch hints
//! (`prefetch`, `prefetch_l2`), and unaligned vector loads and stores of whole integer arrays
//! (`load128`…`store512` on x86-64, `load_u8x16`, `load_u32x4`, `store_u32x4` on aarch64,
//! bounded by `Plain`: no padding, any bytes valid; also the bound of Salsa20's key wipe), and
//! `clean_upper_state` (`vzeroupper` where the CPU has AVX), which the legacy-SSE SHA-NI
//! kernels run first: other code may leave the upper YMM halves dirty, which slows every
//! legacy-SSE instruction after it

#[cfg(target_arch = "aarch64")]
use core::arch::aarch64::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// Types whose every byte is initialized and for which any bytes are a valid value
/// (integer arrays, and arrays of them): what a vector load may read from and a vector
/// store, or a wipe, may overwrite.
///
/// # Safety
///
/// Implement only for types without padding, references, pointers or invariants.
pub(crate) unsafe trait Plain: Copy {}
// SAFETY: integers and arrays of them have no padding and accept any bit pattern.
unsafe impl<const N: usize> Plain for [u8; N] {}
// SAFETY: as above.
unsafe impl<const N: usize> Plain for [u16; N] {}
// SAFETY: as above.
unsafe impl<const N: usize> Plain for [u32; N] {}
// SAFETY: as above.
unsafe impl<const N: usize> Plain for [u64; N] {}
// SAFETY: an array of plain values is laid out without padding between its elements.
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// Defines `$name(v: &T) -> $vec`, the unaligned load of a `$bytes`-byte plain value.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! plain_load {
    ($name:ident, $vec:ty, $bytes:literal, $feature:literal, $load:ident) => {
        #[doc = concat!("A ", $bytes, "-byte plain value into a register.")]
        #[inline]
        #[target_feature(enable = $feature)]
        pub(crate) fn $name<T: Plain>(v: &T) -> $vec {
            const { assert!(core::mem::size_of::<T>() == $bytes) };
            // SAFETY: `v` is that many initialized bytes (`Plain`, size checked above); the
            // load allows any alignment.
            unsafe { $load((v as *const T).cast()) }
        }
    };
}

/// Defines `$name(v: &mut T, x: $vec)`, the unaligned store into a `$bytes`-byte plain value.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! plain_store {
    ($name:ident, $vec:ty, $bytes:literal, $feature:literal, $store:ident) => {
        #[doc = concat!("A register into a ", $bytes, "-byte plain value.")]
        #[inline]
        #[target_feature(enable = $feature)]
        pub(crate) fn $name<T: Plain>(v: &mut T, x: $vec) {
            const { assert!(core::mem::size_of::<T>() == $bytes) };
            // SAFETY: `v` is that many writable bytes (size checked above) of a `Plain`
            // type, for which any bytes are a valid value; the store allows any alignment.
            unsafe { $store((v as *mut T).cast(), x) }
        }
    };
}

#[cfg(target_arch = "x86_64")]
plain_load!(load128, __m128i, 16, "sse2", _mm_loadu_si128);
#[cfg(target_arch = "x86_64")]
plain_store!(store128, __m128i, 16, "sse2", _mm_storeu_si128);
#[cfg(target_arch = "x86_64")]
plain_load!(load256, __m256i, 32, "avx", _mm256_loadu_si256);
#[cfg(target_arch = "x86_64")]
plain_store!(store256, __m256i, 32, "avx", _mm256_storeu_si256);
#[cfg(target_arch = "x86_64")]
plain_load!(load512, __m512i, 64, "avx512f", _mm512_loadu_si512);
#[cfg(target_arch = "x86_64")]
plain_store!(store512, __m512i, 64, "avx512f", _mm512_storeu_si512);
#[cfg(target_arch = "aarch64")]
plain_load!(load_u8x16, uint8x16_t, 16, "neon", vld1q_u8);
#[cfg(target_arch = "aarch64")]
plain_load!(load_u32x4, uint32x4_t, 16, "neon", vld1q_u32);
#[cfg(target_arch = "aarch64")]
plain_store!(store_u32x4, uint32x4_t, 16, "neon", vst1q_u32);

/// Marks the upper halves of the YMM registers clean, where the CPU has AVX: the first
/// thing a kernel of legacy-SSE instructions does. Code built for AVX may leave them dirty
/// (hand-written assembly that skips `vzeroupper`, such as other libraries' AVX2 kernels),
/// and the state stays dirty until something cleans it; then every legacy-SSE instruction,
/// `sha256rnds2` included (it has no VEX form), merges the upper halves: on the AMD EPYC
/// (Zen 5) of docs/tuning-history.md the SHA-NI batch kernel ran at less than half speed and a
/// 64-byte SHA-256 took 1.5× as long. It asks the hardware, not `SIMDCRYPT_DISABLE`: hiding
/// AVX from us does not stop other code from using it. (SHA-NI without AVX exists,
/// Goldmont: there is no upper state to clean there.)
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn clean_upper_state() {
    #[target_feature(enable = "avx")]
    fn zero_upper() {
        _mm256_zeroupper();
    }
    if crate::cpu::hardware_features().has(crate::cpu::Feature::Avx) {
        // SAFETY: the CPU has AVX and the OS saves its state (what `hardware_features`
        // reports, checked just above).
        unsafe { zero_upper() };
    }
}

#[cfg(target_arch = "x86_64")]
/// Asks the cache for the line `AHEAD` bytes past `p`, for kernels that stream through
/// inputs larger than the caches. A hint only.
#[inline(always)]
pub(crate) fn prefetch<const AHEAD: usize>(p: *const u8) {
    // SAFETY: a prefetch never faults, even past the end of an allocation, and has no
    // visible effect; the address is formed with wrapping arithmetic. SSE is part of x86-64.
    unsafe { core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.wrapping_add(AHEAD).cast()) };
}

#[cfg(target_arch = "x86_64")]
/// `prefetch` into L2 only (T1 hint): for data needed thousands of cycles later, far enough
/// ahead to hide a DRAM access but too early to hold a place in L1.
#[inline(always)]
pub(crate) fn prefetch_l2<const AHEAD: usize>(p: *const u8) {
    // SAFETY: as in `prefetch`: a prefetch never faults and has no visible effect.
    unsafe { core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T1 }>(p.wrapping_add(AHEAD).cast()) };
}

#[cfg(target_arch = "x86_64")]
/// Transposes a 16x16 matrix of 32-bit words held as 16 rows.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn transpose16(r: &mut [__m512i; 16]) {
    // Within each 128-bit lane, transpose the 4x4 blocks of each group of four rows:
    // afterwards lane k of u[4g + c] holds column 4k + c of rows 4g..4g+4.
    let mut u = [_mm512_setzero_si512(); 16];
    for g in 0..4 {
        let quad = transpose_in_chunks([r[4 * g], r[4 * g + 1], r[4 * g + 2], r[4 * g + 3]]);
        u[4 * g..4 * g + 4].copy_from_slice(&quad);
    }
    // Column 4k + c gathers lane k of u[c], u[4 + c], u[8 + c], u[12 + c].
    for c in 0..4 {
        let [a, b, cc, d] = [u[c], u[4 + c], u[8 + c], u[12 + c]];
        let ab_lo = _mm512_shuffle_i32x4::<0b01_00_01_00>(a, b); // a0 a1 b0 b1
        let ab_hi = _mm512_shuffle_i32x4::<0b11_10_11_10>(a, b); // a2 a3 b2 b3
        let cd_lo = _mm512_shuffle_i32x4::<0b01_00_01_00>(cc, d);
        let cd_hi = _mm512_shuffle_i32x4::<0b11_10_11_10>(cc, d);
        r[c] = _mm512_shuffle_i32x4::<0b10_00_10_00>(ab_lo, cd_lo); // a0 b0 c0 d0
        r[4 + c] = _mm512_shuffle_i32x4::<0b11_01_11_01>(ab_lo, cd_lo); // a1 b1 c1 d1
        r[8 + c] = _mm512_shuffle_i32x4::<0b10_00_10_00>(ab_hi, cd_hi);
        r[12 + c] = _mm512_shuffle_i32x4::<0b11_01_11_01>(ab_hi, cd_hi);
    }
}

#[cfg(target_arch = "x86_64")]
/// Transposes the 4x4 matrix of 32-bit words in each 128-bit chunk of four vectors: word
/// `c` of chunk `k` of the result's vector `r` is word `r` of chunk `k` of input vector `c`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn transpose_in_chunks([a, b, c, d]: [__m512i; 4]) -> [__m512i; 4] {
    let (t0, t1) = (_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
    let (t2, t3) = (_mm512_unpacklo_epi32(c, d), _mm512_unpackhi_epi32(c, d));
    [
        _mm512_unpacklo_epi64(t0, t2),
        _mm512_unpackhi_epi64(t0, t2),
        _mm512_unpacklo_epi64(t1, t3),
        _mm512_unpackhi_epi64(t1, t3),
    ]
}

#[cfg(target_arch = "x86_64")]
/// Transposes an 8x8 matrix of 32-bit words held as 8 rows.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn transpose8(r: &mut [__m256i; 8]) {
    let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
    let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
    let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
    let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
    let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    // Each u holds one column of rows 0-3 (or 4-7) in its low 128 bits and column+4 in its high.
    let u0 = _mm256_unpacklo_epi64(t0, t2);
    let u1 = _mm256_unpackhi_epi64(t0, t2);
    let u2 = _mm256_unpacklo_epi64(t1, t3);
    let u3 = _mm256_unpackhi_epi64(t1, t3);
    let u4 = _mm256_unpacklo_epi64(t4, t6);
    let u5 = _mm256_unpackhi_epi64(t4, t6);
    let u6 = _mm256_unpacklo_epi64(t5, t7);
    let u7 = _mm256_unpackhi_epi64(t5, t7);
    r[0] = _mm256_permute2x128_si256::<0x20>(u0, u4);
    r[1] = _mm256_permute2x128_si256::<0x20>(u1, u5);
    r[2] = _mm256_permute2x128_si256::<0x20>(u2, u6);
    r[3] = _mm256_permute2x128_si256::<0x20>(u3, u7);
    r[4] = _mm256_permute2x128_si256::<0x31>(u0, u4);
    r[5] = _mm256_permute2x128_si256::<0x31>(u1, u5);
    r[6] = _mm256_permute2x128_si256::<0x31>(u2, u6);
    r[7] = _mm256_permute2x128_si256::<0x31>(u3, u7);
}

#[cfg(target_arch = "aarch64")]
/// Transposes a 4x4 matrix of 32-bit words held as 4 rows.
#[inline]
#[target_feature(enable = "neon")]
pub(crate) fn transpose4(r: &mut [uint32x4_t]) {
    let ab = vtrnq_u32(r[0], r[1]); // [a0 b0 a2 b2], [a1 b1 a3 b3]
    let cd = vtrnq_u32(r[2], r[3]);
    r[0] = vcombine_u32(vget_low_u32(ab.0), vget_low_u32(cd.0));
    r[1] = vcombine_u32(vget_low_u32(ab.1), vget_low_u32(cd.1));
    r[2] = vcombine_u32(vget_high_u32(ab.0), vget_high_u32(cd.0));
    r[3] = vcombine_u32(vget_high_u32(ab.1), vget_high_u32(cd.1));
}
