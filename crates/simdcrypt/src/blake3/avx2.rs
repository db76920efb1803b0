//! AVX2 BLAKE3 kernel: 8 inputs at once, one per 32-bit lane of a 256-bit register.
//! Fewer than 8 remaining inputs go to the SSE4.1 kernel.

use core::arch::x86_64::*;

use super::platform::{padded_call, HashManyJob, Lanes};
use super::{sse41, IV, MSG_SCHEDULE, OUT_LEN};

pub(super) const DEGREE: usize = 8;

#[inline]
#[target_feature(enable = "avx2")]
fn rot16(x: __m256i) -> __m256i {
    _mm256_shuffle_epi8(
        x,
        _mm256_setr_epi8(
            2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
        ),
    )
}

#[inline]
#[target_feature(enable = "avx2")]
fn rot8(x: __m256i) -> __m256i {
    _mm256_shuffle_epi8(
        x,
        _mm256_setr_epi8(
            1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12,
        ),
    )
}

#[inline]
#[target_feature(enable = "avx2")]
fn g(v: &mut [__m256i; 16], a: usize, b: usize, c: usize, d: usize, x: __m256i, y: __m256i) {
    v[a] = _mm256_add_epi32(_mm256_add_epi32(v[a], x), v[b]);
    v[d] = rot16(_mm256_xor_si256(v[d], v[a]));
    v[c] = _mm256_add_epi32(v[c], v[d]);
    let t = _mm256_xor_si256(v[b], v[c]);
    v[b] = _mm256_or_si256(_mm256_srli_epi32::<12>(t), _mm256_slli_epi32::<20>(t));
    v[a] = _mm256_add_epi32(_mm256_add_epi32(v[a], y), v[b]);
    v[d] = rot8(_mm256_xor_si256(v[d], v[a]));
    v[c] = _mm256_add_epi32(v[c], v[d]);
    let t = _mm256_xor_si256(v[b], v[c]);
    v[b] = _mm256_or_si256(_mm256_srli_epi32::<7>(t), _mm256_slli_epi32::<25>(t));
}

#[inline]
#[target_feature(enable = "avx2")]
fn round<const R: usize>(v: &mut [__m256i; 16], m: &[__m256i; 16]) {
    let s = &MSG_SCHEDULE[R];
    g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
}

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

/// Loads block `block_index` of each of the 8 inputs, transposed so that `m[w]` holds
/// message word `w` of every input.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load_message(lanes: &Lanes<'_, DEGREE>, block_index: usize) -> [__m256i; 16] {
    let mut lo = [_mm256_setzero_si256(); 8];
    let mut hi = [_mm256_setzero_si256(); 8];
    for lane in 0..DEGREE {
        let block = lanes.block(lane, block_index);
        sse41::prefetch_ahead(block);
        let p = block.cast::<__m256i>();
        // SAFETY: `block_index < lanes.blocks()` (the caller's loop bound), so `block` is 64
        // readable bytes (`Lanes`); loadu has no alignment requirement.
        unsafe {
            lo[lane] = _mm256_loadu_si256(p);
            hi[lane] = _mm256_loadu_si256(p.add(1));
        }
    }
    transpose8(&mut lo);
    transpose8(&mut hi);
    let mut m = [_mm256_setzero_si256(); 16];
    m[..8].copy_from_slice(&lo);
    m[8..].copy_from_slice(&hi);
    m
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn lane_counters(job: &HashManyJob<'_>, first: usize) -> (__m256i, __m256i) {
    let mut lo = [0i32; DEGREE];
    let mut hi = [0i32; DEGREE];
    for lane in 0..DEGREE {
        let c = job.counter_for(first + lane);
        lo[lane] = c as u32 as i32;
        hi[lane] = (c >> 32) as u32 as i32;
    }
    let load = |a: &[i32; DEGREE]| _mm256_setr_epi32(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    (load(&lo), load(&hi))
}

/// Hashes inputs `first..first + 8` of the job into 8 chaining values at `out[..256]`.
#[target_feature(enable = "avx2")]
fn hash8(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    let lanes = Lanes::<DEGREE>::new(&job.inputs[first..]);
    let blocks = lanes.blocks();
    let mut h = [_mm256_setzero_si256(); 8];
    for (hw, &kw) in h.iter_mut().zip(job.key) {
        *hw = _mm256_set1_epi32(kw as i32);
    }
    let (ctr_lo, ctr_hi) = lane_counters(job, first);
    for b in 0..blocks {
        let m = load_message(&lanes, b);
        let flags = _mm256_set1_epi32(job.block_flags(b, blocks - 1) as i32);
        let block_len = _mm256_set1_epi32(job.block_len(b, blocks - 1) as i32);
        let mut v = [
            h[0],
            h[1],
            h[2],
            h[3],
            h[4],
            h[5],
            h[6],
            h[7],
            _mm256_set1_epi32(IV[0] as i32),
            _mm256_set1_epi32(IV[1] as i32),
            _mm256_set1_epi32(IV[2] as i32),
            _mm256_set1_epi32(IV[3] as i32),
            ctr_lo,
            ctr_hi,
            block_len,
            flags,
        ];
        round::<0>(&mut v, &m);
        round::<1>(&mut v, &m);
        round::<2>(&mut v, &m);
        round::<3>(&mut v, &m);
        round::<4>(&mut v, &m);
        round::<5>(&mut v, &m);
        round::<6>(&mut v, &m);
        for i in 0..8 {
            h[i] = _mm256_xor_si256(v[i], v[i + 8]);
        }
    }
    transpose8(&mut h);
    let out = &mut out[..DEGREE * OUT_LEN];
    for (lane, cv) in out.chunks_exact_mut(OUT_LEN).enumerate() {
        // SAFETY: `cv` is 32 writable bytes; storeu has no alignment requirement.
        unsafe { _mm256_storeu_si256(cv.as_mut_ptr().cast::<__m256i>(), h[lane]) };
    }
}

/// Hashes every input of the job (lengths already checked by the dispatcher).
#[target_feature(enable = "avx2")]
pub(super) fn hash_many(job: &HashManyJob<'_>, out: &mut [u8]) {
    let mut first = 0;
    while job.inputs.len() - first >= DEGREE {
        hash8(job, first, &mut out[first * OUT_LEN..]);
        first += DEGREE;
    }
    // Two to seven left over: one padded 8-lane call (a 256-bit step costs about what a
    // 128-bit one does); one: the SSE4.1 path, which hashes it in portable code.
    match job.inputs.len() - first {
        0 => {}
        1 => {
            let rest = HashManyJob { inputs: &job.inputs[first..], counter: job.counter_for(first), ..*job };
            sse41::hash_many(&rest, &mut out[first * OUT_LEN..]);
        }
        _ => padded_call::<DEGREE>(job, first, &mut out[first * OUT_LEN..], |j, o| hash8(j, 0, o)),
    }
}
