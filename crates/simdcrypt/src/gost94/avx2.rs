//! GOST R 34.11-94 with AVX2, for CPUs without AVX-512 (VBMI).
//!
//! `vpshufb` looks a byte up in a 16-entry table, the same table for every byte of a
//! 128-bit lane, so unlike `vpermb` it cannot fold the byte position into the index. With
//! the words of a message in 32-bit lanes, a round's S-box layer would be eight lookups
//! (the low and the high nibble of each of the four byte positions, each in its own table)
//! and three blends that keep, in every byte, the lookup of that byte's position. The
//! many-message step instead turns the words into byte planes for the S-boxes (see
//! [`Words::f`] for [`Sixteen`]).
//!
//! One message: its four encryptions in the lanes of an xmm register were measured
//! slower than the table-driven code (one round's shuffles, blends and the shift-and-OR
//! rotation are a dependency chain about as long as a table lookup's, and the table code
//! runs four such chains side by side as well), so the encryptions stay the portable
//! step's (assembly on x86-64). What AVX2 shortens is the rest of the step, which sits on
//! the same serial path from one block's H to the next: the key generation's P as byte
//! shuffles, and the mixing ψ^61(H ⊕ ψ(M ⊕ ψ^12(S))) = ψ^61(H ⊕ ψ(M)) ⊕ ψ^74(S), where ψ^n
//! is linear on the sixteen 16-bit words: each output word is the XOR of a fixed subset
//! of input words, sixteen `vpshufb`s and an XOR tree instead of 74 ψ steps, and only the
//! ψ^74(S) half waits for the encryptions. H stays in a ymm register between blocks.
//!
//! Many messages: all sixteen lanes of [`Lanes`] at once, one message per 32-bit lane of a
//! pair of ymm registers ([`Sixteen`]). The step itself is `lanes.rs`'s, over the
//! [`Words`] operations below; a round's S-box layer is four lookups for sixteen messages
//! (the byte planes), where eight messages in word form took eight lookups and three
//! blends.
//!
//! ## What this file holds
//!
//! AVX2 single messages (`step`, `compress_blocks`: H kept in a ymm register, the key
//! generation's P as `vpermd` + `vpshufb`, the mixing as ψ^61(H ⊕ ψ(M)) ⊕ ψ^74(S) with each
//! ψ^n sixteen `vpshufb`s and an XOR tree; the encryptions are `portable::encrypt4`) and
//! `step_lanes`: `lanes.rs`'s step on `Sixteen`, the 16 lanes of a batch as a pair of ymm
//! registers, one message per 32-bit lane; its `Words` impl: S-boxes on byte planes (an
//! in-lane transpose, `vpermd` and `vpunpck[lh]qdq` turn the words into planes with one byte
//! position per 128-bit lane, so one `vpshufb` per nibble serves that position; back the same
//! way with the rotation's 8 bits folded into the last shuffle), key P transform by in-lane
//! shuffles

use core::arch::x86_64::*;

use super::batch::LANES;
use super::lanes::{self, ShuffleBytes, Words, PICK};
use super::{portable, PsiShuffles, State, Tables, BLOCK_LEN, PSI61_SHUFFLES, PSI74_SHUFFLES};
use crate::simd::{load128, load256, store256};

pub(crate) use super::batch::Lanes;

/// Sixteen messages, one per 32-bit lane of two ymm registers (messages 0-7 and 8-15).
#[derive(Clone, Copy)]
pub(crate) struct Sixteen([__m256i; 2]);

/// The S-boxes as `vpshufb` tables for the byte planes of [`Words::f`]: `lo[0]` holds
/// S-box 0 (byte position 0, low nibble) in the low 128-bit lane and S-box 4 (position 2)
/// in the high lane, `lo[1]` S-boxes 2 and 6 (positions 1 and 3); `hi` the odd S-boxes of
/// the same positions, shifted into the high nibble.
pub(crate) struct SBoxes {
    lo: [__m256i; 2],
    hi: [__m256i; 2],
}

/// Rows `low` and `high` (16 bytes each) of a 64-byte table in the low and high 128-bit
/// lanes.
#[inline(always)]
unsafe fn table_rows(bytes: &[u8; 64], low: usize, high: usize) -> __m256i {
    let row = |j: usize| -> &[u8; 16] { bytes[16 * j..16 * j + 16].try_into().expect("16 bytes") };
    // SAFETY: the caller has AVX2 (the `Words` contract).
    unsafe { _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(load128(row(low))), load128(row(high))) }
}

/// `op` on both registers of each [`Sixteen`] operand (a macro, not a closure: a closure
/// has no target features, so the intrinsics in it would not be inlined).
macro_rules! both {
    (|$($v:ident),+| $op:expr) => {{
        Sixteen([
            { $(let $v = $v.0[0];)+ $op },
            { $(let $v = $v.0[1];)+ $op },
        ])
    }};
}

// SAFETY: every method is `#[inline(always)]` and only uses AVX2 and earlier instructions,
// which `step_lanes` enables and its callers have checked.
unsafe impl Words for Sixteen {
    const WIDTH: usize = 16;
    type SBoxes = SBoxes;

    #[inline(always)]
    unsafe fn sboxes(t: &Tables) -> SBoxes {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe {
            let (lo, hi) = (&t.lo, &t.hi);
            SBoxes {
                lo: [table_rows(lo, 0, 2), table_rows(lo, 1, 3)],
                hi: [table_rows(hi, 0, 2), table_rows(hi, 1, 3)],
            }
        }
    }

    #[inline(always)]
    unsafe fn load(row: &[u32; LANES], group: usize) -> Self {
        let half = |i: usize| -> &[u32; 8] { row[16 * group + 8 * i..][..8].try_into().expect("8 words") };
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { Sixteen([load256(half(0)), load256(half(1))]) }
    }

    #[inline(always)]
    unsafe fn store(row: &mut [u32; LANES], group: usize, v: Self) {
        let (first, second) = row[16 * group..16 * group + 16].split_at_mut(8);
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe {
            store256(<&mut [u32; 8]>::try_from(first).expect("8 words"), v.0[0]);
            store256(<&mut [u32; 8]>::try_from(second).expect("8 words"), v.0[1]);
        }
    }

    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        let v = unsafe { _mm256_set1_epi32(w as i32) };
        Sixteen([v, v])
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { both!(|a, b| _mm256_add_epi32(a, b)) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { both!(|a, b| _mm256_xor_si256(a, b)) }
    }

    #[inline(always)]
    unsafe fn shr16(v: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { both!(|v| _mm256_srli_epi32::<16>(v)) }
    }

    #[inline(always)]
    unsafe fn pack16(lo: Self, hi: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { both!(|lo, hi| _mm256_blend_epi16::<0xAA>(lo, _mm256_slli_epi32::<16>(hi))) }
    }

    /// `vpshufb` takes one 16-entry table per 128-bit lane, so the words are first turned
    /// into byte planes, a lane holding one byte position of all sixteen messages: two
    /// lookups (low and high nibble) per lane then do that position's S-boxes, where in
    /// word form every position needs its own lookups over all bytes and blends to keep
    /// the right ones (eight lookups and three blends per eight messages, against four
    /// lookups and twelve shuffles in and out per sixteen here). In: in each lane a 4 × 4
    /// byte transpose (positions into 32-bit words), `vpermd` interleaving the lanes'
    /// words and `vpunpck[lh]qdq` across the two registers; out the same backwards, the
    /// last shuffle also rotating each word left by 8 bits, so the rotation by 11 ends as
    /// a rotation by 3.
    #[inline(always)]
    unsafe fn f(s: &SBoxes, x: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe {
            // Lane byte 4j + i = byte j of the lane's word i.
            let transpose = _mm256_setr_epi8(
                0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11,
                15,
            );
            // Word i, byte k = lane byte 4((k + 3) mod 4) + i: the transpose undone and
            // each word rotated left by 8 bits.
            let untranspose_rotl8 = _mm256_setr_epi8(
                12, 0, 4, 8, 13, 1, 5, 9, 14, 2, 6, 10, 15, 3, 7, 11, 12, 0, 4, 8, 13, 1, 5, 9, 14, 2, 6, 10, 15, 3, 7,
                11,
            );
            let spread = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
            let gather = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
            let nibble = _mm256_set1_epi8(0x0f);

            // Messages 0-3 (a), 4-7 (b), 8-11 (c), 12-15 (d); aj is byte j of four words.
            // r0 = [a0 b0 a1 b1 | a2 b2 a3 b3], r1 = [c0 d0 c1 d1 | c2 d2 c3 d3].
            let r0 = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(x.0[0], transpose), spread);
            let r1 = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(x.0[1], transpose), spread);
            // Byte positions [0 | 2] and [1 | 3] of all sixteen messages.
            let planes = [_mm256_unpacklo_epi64(r0, r1), _mm256_unpackhi_epi64(r0, r1)];
            let mut sub = planes;
            for (i, sub) in sub.iter_mut().enumerate() {
                let lo = _mm256_and_si256(planes[i], nibble);
                let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(planes[i]), nibble);
                *sub = _mm256_or_si256(_mm256_shuffle_epi8(s.lo[i], lo), _mm256_shuffle_epi8(s.hi[i], hi));
            }
            let q0 = _mm256_unpacklo_epi64(sub[0], sub[1]);
            let q1 = _mm256_unpackhi_epi64(sub[0], sub[1]);
            let w0 = Sixteen([
                _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(q0, gather), untranspose_rotl8),
                _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(q1, gather), untranspose_rotl8),
            ]);
            both!(|w0| _mm256_or_si256(_mm256_slli_epi32::<3>(w0), _mm256_srli_epi32::<29>(w0)))
        }
    }

    #[inline(always)]
    unsafe fn p(w: &[Self; 8]) -> [Self; 8] {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { lanes::p_by_shuffles(w) }
    }
}

// SAFETY: as for `Words` above (AVX2 and earlier, inlined into `step_lanes`).
unsafe impl ShuffleBytes for Sixteen {
    #[inline(always)]
    unsafe fn pick(v: Self, b: usize, pos: usize) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe {
            let idx = _mm256_broadcastsi128_si256(load128(&PICK[b][pos]));
            both!(|v| _mm256_shuffle_epi8(v, idx))
        }
    }

    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { both!(|a, b| _mm256_or_si256(a, b)) }
    }
}

/// The step function f(H, M) for sixteen independent messages, one per 32-bit lane of a
/// pair of ymm registers.
#[target_feature(enable = "avx2")]
pub(crate) fn step_lanes(t: &Tables, hs: &mut Lanes, ms: &Lanes) {
    // SAFETY: this function is compiled with AVX2 (and what it implies), the features the
    // `Words` impl for `Sixteen` uses.
    unsafe { lanes::step_lanes::<Sixteen>(t, hs, ms) }
}

/// The linear map whose shuffles are `l`, on the 256-bit value `y`.
#[inline(always)]
unsafe fn linear(l: &PsiShuffles, y: __m256i) -> __m256i {
    // SAFETY: the caller has AVX2.
    unsafe {
        // Words 0..7 in both lanes, and words 8..15 in both lanes.
        let low = _mm256_permute4x64_epi64::<0b01_00_01_00>(y);
        let high = _mm256_permute4x64_epi64::<0b11_10_11_10>(y);
        let mut parts = [low; 16];
        for (i, part) in parts.iter_mut().enumerate() {
            *part = _mm256_shuffle_epi8(if i < 8 { low } else { high }, load256(&l.0[i]));
        }
        // An XOR tree, four levels deep.
        let mut width = 16;
        while width > 1 {
            width /= 2;
            for i in 0..width {
                parts[i] = _mm256_xor_si256(parts[i], parts[i + width]);
            }
        }
        parts[0]
    }
}

/// A(Y) = (y1 ⊕ y2) ‖ y4 ‖ y3 ‖ y2 on the four 64-bit words of a register.
#[inline(always)]
unsafe fn a(y: __m256i) -> __m256i {
    // SAFETY: the caller has AVX2.
    unsafe {
        let rotated = _mm256_permute4x64_epi64::<0b00_11_10_01>(y); // y1, y2, y3, y0
        let y1_on_top = _mm256_permute4x64_epi64::<0b01_00_00_00>(y); // y1 in word 3
        _mm256_xor_si256(rotated, _mm256_blend_epi32::<0b1100_0000>(_mm256_setzero_si256(), y1_on_top))
    }
}

/// P(W) into eight 32-bit key words: key word k is byte k of each 64-bit word of `w`.
#[inline(always)]
unsafe fn p(w: __m256i, key: &mut [u32; 8]) {
    // SAFETY: the caller has AVX2.
    unsafe {
        // The low 32-bit halves of the four words in the low 128-bit lane, the high halves
        // in the high lane; then in each lane a 4 × 4 byte transpose.
        let halves = _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
        let transposed = _mm256_shuffle_epi8(
            halves,
            _mm256_setr_epi8(
                0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11,
                15,
            ),
        );
        store256(key, transposed);
    }
}

/// The step function f(H, M) with H in a register.
#[inline(always)]
unsafe fn step_in_register(t: &Tables, h: __m256i, m: [u64; 4]) -> __m256i {
    // SAFETY: the caller has AVX2.
    unsafe {
        let mv = load256(&m);
        // The part of the mixing that does not wait for the encryptions.
        let mixed_hm = linear(&PSI61_SHUFFLES, _mm256_xor_si256(h, load256(&portable::psi(m))));
        // Keys: P(U_j ⊕ V_j) with U_1 = H, V_1 = M, U_j = A(U_(j-1)) (⊕ C_3 for j = 3),
        // V_j = A²(V_(j-1)).
        let mut keys = [[0u32; 8]; 4];
        let (mut u, mut v) = (h, mv);
        p(_mm256_xor_si256(u, v), &mut keys[0]);
        for (j, key) in keys.iter_mut().enumerate().skip(1) {
            u = a(u);
            if j == 2 {
                u = _mm256_xor_si256(u, load256(&portable::C3));
            }
            v = a(a(v));
            p(_mm256_xor_si256(u, v), key);
        }
        let words = [
            _mm256_extract_epi64::<0>(h) as u64,
            _mm256_extract_epi64::<1>(h) as u64,
            _mm256_extract_epi64::<2>(h) as u64,
            _mm256_extract_epi64::<3>(h) as u64,
        ];
        let s = portable::encrypt4(t, &keys, words);
        let sv = _mm256_setr_epi64x(s[0] as i64, s[1] as i64, s[2] as i64, s[3] as i64);
        _mm256_xor_si256(mixed_hm, linear(&PSI74_SHUFFLES, sv))
    }
}

/// One step f(H, M).
#[target_feature(enable = "avx2")]
pub(crate) fn step(t: &Tables, h: [u64; 4], m: [u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    // SAFETY: this function is compiled with AVX2.
    unsafe { store256(&mut out, step_in_register(t, load256(&h), m)) };
    out
}

/// Hashes each 32-byte block of `blocks` in turn (H and Σ), H kept in a register.
#[target_feature(enable = "avx2")]
pub(crate) fn compress_blocks(t: &Tables, state: &mut State, blocks: &[u8]) {
    let mut h = load256(&state.h);
    for block in blocks.chunks_exact(BLOCK_LEN) {
        let m = super::load_block(block);
        // SAFETY: this function is compiled with AVX2.
        h = unsafe { step_in_register(t, h, m) };
        super::add256(&mut state.sigma, &m);
    }
    store256(&mut state.h, h);
}
