//! SHA-NI batch kernel: each 64-byte block hashed as a whole message, four or two blocks
//! at a time.
//!
//! One block's compression is a chain of 32 dependent `sha256rnds2`; interleaving
//! independent blocks lets the core run some blocks' rounds while the others' wait on
//! latency. Where a `sha256rnds2`'s latency is twice the interval at which they can issue
//! (as on the AMD Zen 5 measured), two blocks are just enough, but only if every round
//! issues the moment it can: the schedule's `sha256msg1`/`sha256msg2` share the SHA unit, and the
//! ends of each group stall the chains. Four blocks leave spare independent rounds to fill
//! those slots (docs/tuning-history.md, "sha256/batch_shani.rs", has the measurements);
//! three filled fewer of them, and four already spill message words to the stack. On the
//! Intel core measured (family 6, model 207) the SHA unit's port is the limit instead, and
//! four blocks' spills and longer set-up made them about 5% slower than two: the group
//! size is chosen by CPU family ([`four_lanes_win`]).
//! The state stays in the ABEF/CDGH form the instructions want from the IV to the digest;
//! the second compression (the padding block) uses the precomputed `PADDING_WK`.
//!
//! ## What this file holds
//!
//! SHA-NI batch kernel: four blocks interleaved on AMD, two on Intel (chosen by measured CPU
//! family) (state kept in ABEF/CDGH from IV to digest), second compression from `PADDING_WK`

use core::arch::x86_64::*;

use super::batch_shared::PADDING_WK;
use super::shani::{rounds4, schedule};
use super::{BLOCK_LEN, IV, K, OUT_LEN};

/// Two rounds with `wk` = W + K already summed, as in `shani::rounds4`.
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn rounds4_wk(abef: &mut __m128i, cdgh: &mut __m128i, wk: __m128i) {
    *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);
    *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, _mm_shuffle_epi32::<0x0E>(wk));
}

/// Whether the main loop takes four blocks at a time (else two), by measured CPU family:
/// four on AMD, measured on Zen 5 (1.09–1.11× hashtree's two-block kernel, against about
/// 0.97× for two blocks); two on Intel, measured on one Xeon of family 6 (0.97–0.99×
/// hashtree against 0.92–0.94× for four). Other CPUs, measured on neither, take four.
#[inline]
fn four_lanes_win() -> bool {
    crate::cpu::identity().vendor != crate::cpu::Vendor::Intel
}

/// Hashes `N` blocks side by side (`N` is 1, 2 or 4), writing their digests to `out`.
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn hash_n<const N: usize>(blocks: &[[u8; BLOCK_LEN]; N], out: &mut [[u8; OUT_LEN]; N]) {
    let bswap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
    let k: &[[u32; 4]; 16] = K.as_chunks::<4>().0.try_into().expect("64 constants");
    let wk: &[[u32; 4]; 16] = PADDING_WK.as_chunks::<4>().0.try_into().expect("64 words");
    // _mm_set_epi32 takes the highest lane first: ABEF has A in lane 3.
    let [a, b, c, d, e, f, g, h] = IV.map(|w| w as i32);
    let abef_iv = _mm_set_epi32(a, b, e, f);
    let cdgh_iv = _mm_set_epi32(c, d, g, h);

    let mut abef = [abef_iv; N];
    let mut cdgh = [cdgh_iv; N];
    let mut m: [[__m128i; 4]; N] = [[_mm_setzero_si128(); 4]; N];
    for s in 0..N {
        let p: *const __m128i = blocks[s].as_ptr().cast();
        for (q, word) in m[s].iter_mut().enumerate() {
            // SAFETY: `blocks[s]` is 64 readable bytes and `q < 4`: an unaligned 16-byte load.
            *word = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(p.add(q)) }, bswap);
        }
    }
    // First compression: the block into the IV.
    for q in 0..4 {
        for s in 0..N {
            rounds4(&mut abef[s], &mut cdgh[s], m[s][q], &k[q]);
        }
    }
    for i in 1..4 {
        for q in 0..4 {
            for s in 0..N {
                let [m0, m1, m2, m3] = m[s];
                // Rotate the four schedule registers: W(t-16..t-12) is m[q], oldest.
                let next = match q {
                    0 => schedule(m0, m1, m2, m3),
                    1 => schedule(m1, m2, m3, m0),
                    2 => schedule(m2, m3, m0, m1),
                    _ => schedule(m3, m0, m1, m2),
                };
                m[s][q] = next;
                rounds4(&mut abef[s], &mut cdgh[s], next, &k[4 * i + q]);
            }
        }
    }
    for s in 0..N {
        abef[s] = _mm_add_epi32(abef[s], abef_iv);
        cdgh[s] = _mm_add_epi32(cdgh[s], cdgh_iv);
    }
    // Second compression: the constant padding block.
    let (abef_mid, cdgh_mid) = (abef, cdgh);
    for wk in wk {
        // SAFETY: `wk` is 16 readable bytes; the load is unaligned.
        let wk = unsafe { _mm_loadu_si128(wk.as_ptr().cast()) };
        for s in 0..N {
            rounds4_wk(&mut abef[s], &mut cdgh[s], wk);
        }
    }
    for s in 0..N {
        let abef = _mm_add_epi32(abef[s], abef_mid[s]);
        let cdgh = _mm_add_epi32(cdgh[s], cdgh_mid[s]);
        // Lanes low to high: ABEF is F E B A, CDGH is H G D C.
        let feba = _mm_shuffle_epi32::<0x1B>(abef); // A B E F
        let dchg = _mm_shuffle_epi32::<0xB1>(cdgh); // G H C D
        let abcd = _mm_blend_epi16::<0xF0>(feba, dchg); // A B C D
        let efgh = _mm_alignr_epi8::<8>(dchg, feba); // E F G H
        let p: *mut __m128i = out[s].as_mut_ptr().cast();
        // SAFETY: `out[s]` is 32 writable bytes: two unaligned 16-byte stores.
        unsafe {
            _mm_storeu_si128(p, _mm_shuffle_epi8(abcd, bswap));
            _mm_storeu_si128(p.add(1), _mm_shuffle_epi8(efgh, bswap));
        }
    }
}

/// Hashes each 64-byte block of `blocks` into 32 bytes of `out`. The caller checks that
/// `out.len() == blocks.len() / 2` and that `blocks` is whole blocks (a mismatch would only
/// leave digests unwritten: every access is bounds-checked by the chunking).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub(crate) fn hash_blocks(blocks: &[u8], out: &mut [u8]) {
    crate::simd::clean_upper_state();
    let (blocks, _) = blocks.as_chunks::<BLOCK_LEN>();
    let (out, _) = out.as_chunks_mut::<OUT_LEN>();
    if four_lanes_win() {
        hash_groups::<4>(blocks, out);
    } else {
        hash_groups::<2>(blocks, out);
    }
}

/// Hashes `blocks` `G` at a time (`G` is 2 or 4), a remainder two and one at a time.
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn hash_groups<const G: usize>(blocks: &[[u8; BLOCK_LEN]], out: &mut [[u8; OUT_LEN]]) {
    let mut groups_in = blocks.chunks_exact(G);
    let mut groups_out = out.chunks_exact_mut(G);
    for (group_in, group_out) in (&mut groups_in).zip(&mut groups_out) {
        hash_n::<G>(group_in.try_into().expect("a whole group"), group_out.try_into().expect("a whole group"));
    }
    let (rest_in, rest_out) = (groups_in.remainder(), groups_out.into_remainder());
    let mut pairs_in = rest_in.chunks_exact(2);
    let mut pairs_out = rest_out.chunks_exact_mut(2);
    for (pair_in, pair_out) in (&mut pairs_in).zip(&mut pairs_out) {
        hash_n::<2>(pair_in.try_into().expect("chunks of 2"), pair_out.try_into().expect("chunks of 2"));
    }
    if let ([last_in], [last_out]) = (pairs_in.remainder(), pairs_out.into_remainder()) {
        hash_n::<1>(core::array::from_ref(last_in), core::array::from_mut(last_out));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both group sizes (only one of which this CPU's family selects) against one SHA-256
    /// per block, for counts around both sizes.
    #[test]
    fn both_group_sizes_match_single_messages() {
        use crate::cpu::Feature;
        let f = crate::cpu::features();
        if !(f.has(Feature::Sha) && f.has(Feature::Ssse3) && f.has(Feature::Sse41)) {
            println!("this CPU (or SIMDCRYPT_DISABLE) has no SHA-NI: group sizes not exercised");
            return;
        }
        let mut rng = crate::test_rng::XorShift64::new(0xA409_3822_299F_31D0);
        for count in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 17] {
            let blocks: Vec<[u8; BLOCK_LEN]> =
                (0..count).map(|_| core::array::from_fn(|_| rng.next_u64() as u8)).collect();
            let expected: Vec<[u8; OUT_LEN]> = blocks.iter().map(|b| crate::sha256::hash(b)).collect();
            let (mut two, mut four) = (vec![[0u8; OUT_LEN]; count], vec![[0u8; OUT_LEN]; count]);
            // SAFETY: the CPU has SHA-NI, SSSE3 and SSE4.1 (checked above), the features
            // `hash_groups` is compiled with (SSE2 is part of x86-64).
            unsafe {
                hash_groups::<2>(&blocks, &mut two);
                hash_groups::<4>(&blocks, &mut four);
            }
            assert_eq!(two, expected, "two at a time, {count} blocks");
            assert_eq!(four, expected, "four at a time, {count} blocks");
        }
        println!("exercised: sha256-batch shani, group sizes 2 and 4");
    }
}
