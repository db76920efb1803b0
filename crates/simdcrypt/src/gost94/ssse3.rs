//! GOST R 34.11-94 single messages with SSSE3, for x86-64 CPUs without AVX2: the `avx2`
//! module's single-message step on pairs of xmm registers. The encryptions are the
//! portable step's (assembly); the key generation's P is two `pshufb`s a key half, and the
//! mixing ψ^61(H ⊕ ψ(M)) ⊕ ψ^74(S) is, for each ψ^n, sixteen `pshufb`s and an XOR tree per
//! output half (the shuffle tables `avx2.rs` uses, one 128-bit lane at a time) instead of
//! 74 ψ steps on the path from one block's H to the next. H stays in registers between
//! blocks.

use core::arch::x86_64::*;

use super::{portable, PsiShuffles, State, Tables, BLOCK_LEN, PSI61_SHUFFLES, PSI74_SHUFFLES};
use crate::simd::load128;

/// A 256-bit value as two registers: 64-bit words 0 and 1, then 2 and 3.
type Pair = [__m128i; 2];

/// The four 64-bit words as a pair.
#[inline(always)]
unsafe fn pair(w: [u64; 4]) -> Pair {
    // SAFETY: SSE2 is part of x86-64.
    unsafe { [_mm_set_epi64x(w[1] as i64, w[0] as i64), _mm_set_epi64x(w[3] as i64, w[2] as i64)] }
}

/// The linear map whose shuffles are `l`, on the 256-bit value `y`.
#[inline(always)]
unsafe fn linear(l: &PsiShuffles, y: Pair) -> Pair {
    // SAFETY: the caller has SSSE3.
    unsafe {
        let mut halves = [[_mm_setzero_si128(); 16]; 2];
        for (i, idx) in l.0.iter().enumerate() {
            // Input word i lies in y[i / 8]; its shuffle's low half fills output words
            // 0..7, its high half words 8..15.
            let (low, high): (&[u8; 16], &[u8; 16]) =
                (idx[..16].try_into().expect("16 bytes"), idx[16..].try_into().expect("16 bytes"));
            halves[0][i] = _mm_shuffle_epi8(y[i / 8], load128(low));
            halves[1][i] = _mm_shuffle_epi8(y[i / 8], load128(high));
        }
        halves.map(|mut parts| {
            // An XOR tree, four levels deep.
            let mut width = 16;
            while width > 1 {
                width /= 2;
                for i in 0..width {
                    parts[i] = _mm_xor_si128(parts[i], parts[i + width]);
                }
            }
            parts[0]
        })
    }
}

/// A(Y) = (y1 ⊕ y2) ‖ y4 ‖ y3 ‖ y2, on 64-bit words y[0] = (y1, y2), y[1] = (y3, y4).
#[inline(always)]
unsafe fn a(y: Pair) -> Pair {
    // SAFETY: the caller has SSSE3.
    unsafe {
        let low = _mm_alignr_epi8::<8>(y[1], y[0]); // y2, y3 (numbering from 1)
        let y12 = _mm_xor_si128(y[0], _mm_srli_si128::<8>(y[0])); // y1 ⊕ y2 in the low word
        [low, _mm_unpackhi_epi64(y[1], _mm_slli_si128::<8>(y12))]
    }
}

/// `pshufb` indices for P: key word k (of four in a register) takes byte k (+ 4 for the
/// second register) of 64-bit words 0 and 1 (from the first source) or 2 and 3 (from the
/// second); 0x80 zeroes the bytes the other source fills.
const fn p_index(second_half: bool, from_high_words: bool) -> [u8; 16] {
    let mut idx = [0x80u8; 16];
    let mut k = 0;
    while k < 4 {
        let byte = k + if second_half { 4 } else { 0 };
        let base = if from_high_words { 2 } else { 0 };
        idx[4 * k + base] = byte as u8;
        idx[4 * k + base + 1] = (8 + byte) as u8;
        k += 1;
    }
    idx
}

static P_INDEX: [[u8; 16]; 4] =
    [p_index(false, false), p_index(false, true), p_index(true, false), p_index(true, true)];

/// P(W) into eight 32-bit key words: key word k is byte k of each 64-bit word of `w`.
#[inline(always)]
unsafe fn p(w: Pair, key: &mut [u32; 8]) {
    // SAFETY: the caller has SSSE3; each half of `key` is 16 writable bytes.
    unsafe {
        let pick = |half: usize| {
            _mm_or_si128(
                _mm_shuffle_epi8(w[0], load128(&P_INDEX[2 * half])),
                _mm_shuffle_epi8(w[1], load128(&P_INDEX[2 * half + 1])),
            )
        };
        _mm_storeu_si128(key.as_mut_ptr().cast(), pick(0));
        _mm_storeu_si128(key.as_mut_ptr().add(4).cast(), pick(1));
    }
}

/// The step function f(H, M) with H in registers.
#[inline]
#[target_feature(enable = "ssse3")]
fn step_in_registers(t: &Tables, h: Pair, m: [u64; 4]) -> Pair {
    // SAFETY: this function is compiled with SSSE3, which the helpers need.
    unsafe {
        let mv = pair(m);
        let psi_m = pair(portable::psi(m));
        // The part of the mixing that does not wait for the encryptions.
        let hm = [_mm_xor_si128(h[0], psi_m[0]), _mm_xor_si128(h[1], psi_m[1])];
        let mixed_hm = linear(&PSI61_SHUFFLES, hm);
        // Keys: P(U_j ⊕ V_j) with U_1 = H, V_1 = M, U_j = A(U_(j-1)) (⊕ C_3 for j = 3),
        // V_j = A²(V_(j-1)).
        let xor = |x: Pair, y: Pair| [_mm_xor_si128(x[0], y[0]), _mm_xor_si128(x[1], y[1])];
        let mut keys = [[0u32; 8]; 4];
        let (mut u, mut v) = (h, mv);
        p(xor(u, v), &mut keys[0]);
        for (j, key) in keys.iter_mut().enumerate().skip(1) {
            u = a(u);
            if j == 2 {
                u = xor(u, pair(portable::C3));
            }
            v = a(a(v));
            p(xor(u, v), key);
        }
        let high = |x: __m128i| _mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)) as u64;
        let words = [_mm_cvtsi128_si64(h[0]) as u64, high(h[0]), _mm_cvtsi128_si64(h[1]) as u64, high(h[1])];
        let s = portable::encrypt4(t, &keys, words);
        xor(mixed_hm, linear(&PSI74_SHUFFLES, pair(s)))
    }
}

/// One step f(H, M).
#[target_feature(enable = "ssse3")]
pub(crate) fn step(t: &Tables, h: [u64; 4], m: [u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    // SAFETY: SSE2 is part of x86-64; `out` is 32 writable bytes.
    unsafe { store(step_in_registers(t, pair(h), m), &mut out) };
    out
}

/// A pair into four 64-bit words.
#[inline(always)]
unsafe fn store(x: Pair, out: &mut [u64; 4]) {
    // SAFETY: the caller has SSE2 (x86-64); `out` is 32 writable bytes.
    unsafe {
        _mm_storeu_si128(out.as_mut_ptr().cast(), x[0]);
        _mm_storeu_si128(out.as_mut_ptr().add(2).cast(), x[1]);
    }
}

/// Hashes each 32-byte block of `blocks` in turn (H and Σ), H kept in registers.
#[target_feature(enable = "ssse3")]
pub(crate) fn compress_blocks(t: &Tables, state: &mut State, blocks: &[u8]) {
    // SAFETY: SSE2 is part of x86-64.
    let mut h = unsafe { pair(state.h) };
    for block in blocks.chunks_exact(BLOCK_LEN) {
        let m = super::load_block(block);
        h = step_in_registers(t, h, m);
        super::add256(&mut state.sigma, &m);
    }
    // SAFETY: as above.
    unsafe { store(h, &mut state.h) };
}
