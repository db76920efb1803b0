//! SSE2 Salsa20: 4 blocks per step, one block per 32-bit lane (register `i` holds state
//! word `i` of all 4 blocks). SSE2 is part of x86-64, so this runs on every x86-64 CPU.

use core::arch::x86_64::*;

use super::BLOCK_LEN;
use cipher::InOutBuf;

const LANES: usize = 4;
const STEP: usize = LANES * BLOCK_LEN;

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
    let mut counter = u64::from(state[8]) | (u64::from(state[9]) << 32);
    let whole = io.len() / STEP * STEP;
    let (body, mut tail) = io.split_at(whole);
    let (inp, out) = body.into_raw();
    let mut done = 0;
    while done < whole {
        let ks = blocks::<DR>(state, counter);
        for (j, k) in ks.iter().enumerate() {
            let at = done + j * 16;
            // SAFETY: at + 16 <= whole, the length of both buffers behind `inp` and `out`
            // (InOutBuf guarantees equal lengths; they may be the same memory, and each
            // 16 bytes are read before they are written).
            unsafe {
                let m = _mm_loadu_si128(inp.add(at).cast());
                _mm_storeu_si128(out.add(at).cast(), _mm_xor_si128(m, *k));
            }
        }
        counter = counter.wrapping_add(LANES as u64);
        done += STEP;
    }
    if !tail.is_empty() {
        let ks = blocks::<DR>(state, counter);
        let mut buf = [0u8; STEP];
        for (j, k) in ks.iter().enumerate() {
            // SAFETY: buf has STEP = 16 * 16 bytes; this writes bytes 16j .. 16j + 16.
            unsafe { _mm_storeu_si128(buf.as_mut_ptr().add(j * 16).cast(), *k) };
        }
        let n = tail.len();
        tail.xor_in2out(&buf[..n]);
    }
}
