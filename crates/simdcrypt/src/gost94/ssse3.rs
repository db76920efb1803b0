//! GOST R 34.11-94 single messages with SSSE3, for x86-64 CPUs without AVX2: the `avx2`
//! module's single-message step on pairs of xmm registers. The encryptions are the
//! portable step's (assembly); the key generation's P is two `pshufb`s a key half, and the
//! mixing ψ^61(H ⊕ ψ(M)) ⊕ ψ^74(S) is, for each ψ^n, sixteen `pshufb`s and an XOR tree per
//! output half (the shuffle tables `avx2.rs` uses, one 128-bit lane at a time) instead of
//! 74 ψ steps on the path from one block's H to the next. H stays in registers between
//! blocks.
//!
//! Many messages: all sixteen lanes of [`Lanes`] at once, one message per 32-bit lane of
//! four xmm registers ([`Sixteen`]), the step being `lanes.rs`'s over the [`Words`]
//! operations below. As in `avx2.rs`, a round's S-box layer works on byte planes: a 4 × 4
//! byte transpose in each register and a 4 × 4 transpose of 32-bit words across the four
//! turn the words into four registers each holding one byte position of all sixteen
//! messages, whose S-boxes are then one `pshufb` per nibble.
//!
//! ## What this file holds
//!
//! SSSE3 single messages for CPUs without AVX2: `avx2.rs`'s single-message step on pairs of
//! xmm registers (the shared ψ^n shuffle tables, one 128-bit half at a time; P as two
//! `pshufb`s per key half), and `step_lanes`: `lanes.rs`'s step on `Sixteen`, the 16 lanes of
//! a batch in four xmm registers, S-boxes on byte planes as in `avx2.rs` (a 4 × 4 byte
//! transpose per register, a 4 × 4 word transpose across the four)

use core::arch::x86_64::*;

use super::batch::{Lanes, LANES};
use super::lanes::{self, ShuffleBytes, Words, PICK};
use super::{portable, PsiShuffles, State, Tables, BLOCK_LEN, PSI61_SHUFFLES, PSI74_SHUFFLES};
use crate::simd::{load128, store128};

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
    let (low, high) = out.split_at_mut(2);
    // SAFETY: SSE2 is part of x86-64.
    unsafe {
        store128(<&mut [u64; 2]>::try_from(low).expect("2 words"), x[0]);
        store128(<&mut [u64; 2]>::try_from(high).expect("2 words"), x[1]);
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

/// Sixteen messages, one per 32-bit lane of four xmm registers (messages 0-3, 4-7, 8-11,
/// 12-15).
#[derive(Clone, Copy)]
pub(crate) struct Sixteen([__m128i; 4]);

/// The S-boxes as `pshufb` tables: `lo[j]` is S-box 2j (byte position j, low nibble),
/// `hi[j]` S-box 2j + 1 shifted into the high nibble.
pub(crate) struct SBoxes {
    lo: [__m128i; 4],
    hi: [__m128i; 4],
}

/// Row `j` (16 bytes) of a 64-byte table.
#[inline(always)]
unsafe fn table_row(bytes: &[u8; 64], j: usize) -> __m128i {
    let row: &[u8; 16] = bytes[16 * j..16 * j + 16].try_into().expect("16 bytes");
    // SAFETY: SSE2 is part of x86-64.
    unsafe { load128(row) }
}

/// `op` on each register of each [`Sixteen`] operand (a macro, not a closure: a closure
/// has no target features, so the intrinsics in it would not be inlined).
macro_rules! each {
    (|$($v:ident),+| $op:expr) => {{
        Sixteen([
            { $(let $v = $v.0[0];)+ $op },
            { $(let $v = $v.0[1];)+ $op },
            { $(let $v = $v.0[2];)+ $op },
            { $(let $v = $v.0[3];)+ $op },
        ])
    }};
}

/// The 4 × 4 transpose of 32-bit words across four registers (its own inverse).
#[inline(always)]
unsafe fn transpose4(x: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: SSE2 is part of x86-64.
    unsafe {
        let t0 = _mm_unpacklo_epi32(x[0], x[1]);
        let t1 = _mm_unpackhi_epi32(x[0], x[1]);
        let t2 = _mm_unpacklo_epi32(x[2], x[3]);
        let t3 = _mm_unpackhi_epi32(x[2], x[3]);
        [_mm_unpacklo_epi64(t0, t2), _mm_unpackhi_epi64(t0, t2), _mm_unpacklo_epi64(t1, t3), _mm_unpackhi_epi64(t1, t3)]
    }
}

// SAFETY: every method is `#[inline(always)]` and only uses SSSE3 and earlier instructions,
// which `step_lanes` enables and its callers have checked.
unsafe impl Words for Sixteen {
    const WIDTH: usize = 16;
    type SBoxes = SBoxes;

    #[inline(always)]
    unsafe fn sboxes(t: &Tables) -> SBoxes {
        // SAFETY: the caller has SSSE3 (the trait's contract).
        unsafe {
            let (lo, hi) = (&t.lo, &t.hi);
            SBoxes {
                lo: [table_row(lo, 0), table_row(lo, 1), table_row(lo, 2), table_row(lo, 3)],
                hi: [table_row(hi, 0), table_row(hi, 1), table_row(hi, 2), table_row(hi, 3)],
            }
        }
    }

    #[inline(always)]
    unsafe fn load(row: &[u32; LANES], group: usize) -> Self {
        let quarter = |i: usize| -> &[u32; 4] { row[16 * group + 4 * i..][..4].try_into().expect("4 words") };
        // SAFETY: SSE2 is part of x86-64.
        unsafe { Sixteen([load128(quarter(0)), load128(quarter(1)), load128(quarter(2)), load128(quarter(3))]) }
    }

    #[inline(always)]
    unsafe fn store(row: &mut [u32; LANES], group: usize, v: Self) {
        for (i, words) in row[16 * group..16 * group + 16].chunks_exact_mut(4).enumerate() {
            // SAFETY: SSE2 is part of x86-64.
            unsafe { store128(<&mut [u32; 4]>::try_from(words).expect("4 words"), v.0[i]) };
        }
    }

    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        let v = unsafe { _mm_set1_epi32(w as i32) };
        Sixteen([v; 4])
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { each!(|a, b| _mm_add_epi32(a, b)) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { each!(|a, b| _mm_xor_si128(a, b)) }
    }

    #[inline(always)]
    unsafe fn shr16(v: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { each!(|v| _mm_srli_epi32::<16>(v)) }
    }

    #[inline(always)]
    unsafe fn pack16(lo: Self, hi: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64 (no SSE4.1 word blend at this level).
        unsafe {
            let low = _mm_set1_epi32(0xffff);
            each!(|lo, hi| _mm_or_si128(_mm_and_si128(lo, low), _mm_slli_epi32::<16>(hi)))
        }
    }

    /// Byte planes as in `avx2.rs`: in each register a 4 × 4 byte transpose (positions
    /// into 32-bit words), then the 4 × 4 word transpose across the four registers, so
    /// register j holds byte position j of all sixteen messages and takes S-boxes 2j and
    /// 2j + 1 as one `pshufb` each; back the same way, the last shuffle also rotating each
    /// word left by 8 bits, so the rotation by 11 ends as a rotation by 3.
    #[inline(always)]
    unsafe fn f(s: &SBoxes, x: Self) -> Self {
        // SAFETY: the caller has SSSE3 (the trait's contract).
        unsafe {
            // Byte 4j + i = byte j of word i.
            let transpose = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
            // Word i, byte k = byte 4((k + 3) mod 4) + i: the transpose undone and each
            // word rotated left by 8 bits.
            let untranspose_rotl8 = _mm_setr_epi8(12, 0, 4, 8, 13, 1, 5, 9, 14, 2, 6, 10, 15, 3, 7, 11);
            let nibble = _mm_set1_epi8(0x0f);
            let v = x.0;
            let planes = transpose4([
                _mm_shuffle_epi8(v[0], transpose),
                _mm_shuffle_epi8(v[1], transpose),
                _mm_shuffle_epi8(v[2], transpose),
                _mm_shuffle_epi8(v[3], transpose),
            ]);
            let mut sub = planes;
            for (j, sub) in sub.iter_mut().enumerate() {
                let lo = _mm_and_si128(planes[j], nibble);
                let hi = _mm_and_si128(_mm_srli_epi16::<4>(planes[j]), nibble);
                *sub = _mm_or_si128(_mm_shuffle_epi8(s.lo[j], lo), _mm_shuffle_epi8(s.hi[j], hi));
            }
            let words = Sixteen(transpose4(sub));
            each!(|words| {
                let w = _mm_shuffle_epi8(words, untranspose_rotl8);
                _mm_or_si128(_mm_slli_epi32::<3>(w), _mm_srli_epi32::<29>(w))
            })
        }
    }

    #[inline(always)]
    unsafe fn p(w: &[Self; 8]) -> [Self; 8] {
        // SAFETY: the caller has SSSE3 (the trait's contract).
        unsafe { lanes::p_by_shuffles(w) }
    }
}

// SAFETY: as for `Words` above (SSSE3 and earlier, inlined into `step_lanes`).
unsafe impl ShuffleBytes for Sixteen {
    #[inline(always)]
    unsafe fn pick(v: Self, b: usize, pos: usize) -> Self {
        // SAFETY: the caller has SSSE3 (the trait's contract).
        unsafe {
            let idx = load128(&PICK[b][pos]);
            each!(|v| _mm_shuffle_epi8(v, idx))
        }
    }

    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { each!(|a, b| _mm_or_si128(a, b)) }
    }
}

/// The step function f(H, M) for sixteen independent messages, one per 32-bit lane of
/// four xmm registers.
#[target_feature(enable = "ssse3")]
pub(crate) fn step_lanes(t: &Tables, hs: &mut Lanes, ms: &Lanes) {
    // SAFETY: this function is compiled with SSSE3 (and what it implies), the features the
    // `Words` impl for `Sixteen` uses.
    unsafe { lanes::step_lanes::<Sixteen>(t, hs, ms) }
}
