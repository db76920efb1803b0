//! x86-64 SHA-NI SHA-256 kernel: `sha256rnds2` does two rounds, `sha256msg1`/`sha256msg2`
//! extend the message schedule four words at a time. Processes any number of blocks per
//! call, keeping the state in registers between blocks.
//!
//! The instructions want the state as two registers, ABEF and CDGH (A in the highest
//! lane), rather than the natural ABCD/EFGH; it is rearranged once per call.
//!
//! ## What this file holds
//!
//! x86-64 SHA-NI (`sha256rnds2`, `sha256msg1/2`; SSSE3 byte swap, SSE4.1 blend for the
//! ABEF/CDGH state layout), many blocks per call with the state in registers

use core::arch::x86_64::*;

use super::{BLOCK_LEN, K};

/// Four rounds: `msg` holds W(t..t+4), `k` the matching constants.
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub(super) fn rounds4(abef: &mut __m128i, cdgh: &mut __m128i, msg: __m128i, k: &[u32; 4]) {
    // SAFETY: `k` is 16 readable bytes; the load is unaligned.
    let k = unsafe { _mm_loadu_si128(k.as_ptr().cast()) };
    let wk = _mm_add_epi32(msg, k);
    *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);
    // The upper two words of wk, moved down, feed the next two rounds.
    *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, _mm_shuffle_epi32::<0x0E>(wk));
}

/// The next four schedule words from the previous sixteen (`m0` oldest).
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub(super) fn schedule(m0: __m128i, m1: __m128i, m2: __m128i, m3: __m128i) -> __m128i {
    // msg1: W(t-16) + σ0(W(t-15)); then + W(t-7) (words 1..4 of m2:m3); msg2 adds σ1(W(t-2)).
    let t = _mm_add_epi32(_mm_sha256msg1_epu32(m0, m1), _mm_alignr_epi8::<4>(m3, m2));
    _mm_sha256msg2_epu32(t, m3)
}

/// Compresses each 64-byte block of `blocks` into `state`. `blocks.len()` must be a
/// multiple of 64 (checked by the caller; a remainder would be ignored).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub(crate) fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    crate::simd::clean_upper_state();
    // Byte swap within each 32-bit word: the message is big-endian.
    let bswap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
    let k: &[[u32; 4]; 16] = K.as_chunks::<4>().0.try_into().expect("64 constants");

    // SAFETY: `state` is 32 readable bytes; unaligned loads.
    let (dcba, hgfe) = unsafe { (_mm_loadu_si128(state.as_ptr().cast()), _mm_loadu_si128(state[4..].as_ptr().cast())) };
    let cdab = _mm_shuffle_epi32::<0xB1>(dcba);
    let efgh = _mm_shuffle_epi32::<0x1B>(hgfe);
    let mut abef = _mm_alignr_epi8::<8>(cdab, efgh);
    let mut cdgh = _mm_blend_epi16::<0xF0>(efgh, cdab);

    for block in blocks.chunks_exact(BLOCK_LEN) {
        let (abef_in, cdgh_in) = (abef, cdgh);
        let p: *const __m128i = block.as_ptr().cast();
        // SAFETY: `block` is 64 readable bytes: four unaligned 16-byte loads.
        let [mut m0, mut m1, mut m2, mut m3] = unsafe {
            [_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)), _mm_loadu_si128(p.add(2)), _mm_loadu_si128(p.add(3))]
        };
        m0 = _mm_shuffle_epi8(m0, bswap);
        m1 = _mm_shuffle_epi8(m1, bswap);
        m2 = _mm_shuffle_epi8(m2, bswap);
        m3 = _mm_shuffle_epi8(m3, bswap);
        rounds4(&mut abef, &mut cdgh, m0, &k[0]);
        rounds4(&mut abef, &mut cdgh, m1, &k[1]);
        rounds4(&mut abef, &mut cdgh, m2, &k[2]);
        rounds4(&mut abef, &mut cdgh, m3, &k[3]);
        for i in 1..4 {
            m0 = schedule(m0, m1, m2, m3);
            rounds4(&mut abef, &mut cdgh, m0, &k[4 * i]);
            m1 = schedule(m1, m2, m3, m0);
            rounds4(&mut abef, &mut cdgh, m1, &k[4 * i + 1]);
            m2 = schedule(m2, m3, m0, m1);
            rounds4(&mut abef, &mut cdgh, m2, &k[4 * i + 2]);
            m3 = schedule(m3, m0, m1, m2);
            rounds4(&mut abef, &mut cdgh, m3, &k[4 * i + 3]);
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }

    let feba = _mm_shuffle_epi32::<0x1B>(abef);
    let dchg = _mm_shuffle_epi32::<0xB1>(cdgh);
    let dcba = _mm_blend_epi16::<0xF0>(feba, dchg);
    let hgfe = _mm_alignr_epi8::<8>(dchg, feba);
    // SAFETY: `state` is 32 writable bytes; unaligned stores.
    unsafe {
        _mm_storeu_si128(state.as_mut_ptr().cast(), dcba);
        _mm_storeu_si128(state[4..].as_mut_ptr().cast(), hgfe);
    }
}
