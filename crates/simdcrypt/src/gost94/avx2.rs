//! GOST R 34.11-94 with AVX2, for CPUs without AVX-512 (VBMI).
//!
//! `vpshufb` looks a byte up in a 16-entry table, the same table for every byte of a
//! 128-bit lane, so unlike `vpermb` it cannot fold the byte position into the index. Each
//! round's S-box layer is therefore eight lookups (the low and the high nibble of each of
//! the four byte positions, each in its own table) and three blends that keep, in every
//! byte, the lookup of that byte's position. The rotation is two shifts and an OR.
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
//! Many messages: eight per ymm register, one per 32-bit lane, as in `avx512.rs`; the sixteen
//! lanes of [`Lanes`] are two such halves, one after the other. The step itself is
//! `lanes.rs`'s, over the [`Words`] operations below.

use core::arch::x86_64::*;

use super::batch::LANES;
use super::lanes::{self, Words};
use super::{portable, PsiShuffles, State, Tables, BLOCK_LEN, PSI61_SHUFFLES, PSI74_SHUFFLES};
use crate::simd::{load128, load256, store256};

pub(crate) use super::batch::Lanes;

/// The S-boxes as `vpshufb` tables: `lo[j]` is S-box 2j (byte position j, low nibble),
/// `hi[j]` S-box 2j + 1 shifted into the high nibble, each in both 128-bit lanes.
pub(crate) struct SBoxes {
    lo: [__m256i; 4],
    hi: [__m256i; 4],
}

/// One 16-byte row of a 64-byte table in both 128-bit lanes.
#[inline(always)]
unsafe fn table_row(bytes: &[u8; 64], j: usize) -> __m256i {
    let row: &[u8; 16] = bytes[16 * j..16 * j + 16].try_into().expect("16 bytes");
    // SAFETY: the caller has AVX2 (the `Words` contract).
    unsafe { _mm256_broadcastsi128_si256(load128(row)) }
}

/// A `vpshufb` of [`Words::p`]: byte b of each 32-bit word of `src` into byte `pos`, zeros
/// (index 0x80) elsewhere.
#[inline(always)]
unsafe fn pick(src: __m256i, b: i32, pos: i32) -> __m256i {
    // SAFETY: the caller has AVX2 (the `Words` contract).
    unsafe {
        let idx = _mm256_set1_epi32(!(0xff << (8 * pos)) & (0x8080_8080u32 as i32) | (b << (8 * pos)));
        let lane =
            _mm256_setr_epi32(0, 0x0404_0404, 0x0808_0808, 0x0c0c_0c0c, 0, 0x0404_0404, 0x0808_0808, 0x0c0c_0c0c);
        let base = _mm256_and_si256(lane, _mm256_set1_epi32(0xff << (8 * pos)));
        _mm256_shuffle_epi8(src, _mm256_or_si256(idx, base))
    }
}

// SAFETY: every method is `#[inline(always)]` and only uses AVX2 and earlier instructions,
// which `step_lanes` enables and its callers have checked.
unsafe impl Words for __m256i {
    const WIDTH: usize = 8;
    type SBoxes = SBoxes;

    #[inline(always)]
    unsafe fn sboxes(t: &Tables) -> SBoxes {
        // SAFETY: the caller has AVX2 (the trait's contract).
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
        let words: &[u32; 8] = row[8 * group..8 * group + 8].try_into().expect("8 words");
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { load256(words) }
    }

    #[inline(always)]
    unsafe fn store(row: &mut [u32; LANES], group: usize, v: Self) {
        let words: &mut [u32; 8] = (&mut row[8 * group..8 * group + 8]).try_into().expect("8 words");
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { store256(words, v) }
    }

    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { _mm256_set1_epi32(w as i32) }
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { _mm256_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { _mm256_xor_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn shr16(v: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { _mm256_srli_epi32::<16>(v) }
    }

    #[inline(always)]
    unsafe fn pack16(lo: Self, hi: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe { _mm256_blend_epi16::<0xAA>(lo, _mm256_slli_epi32::<16>(hi)) }
    }

    #[inline(always)]
    unsafe fn f(s: &SBoxes, x: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract).
        unsafe {
            let nibble = _mm256_set1_epi8(0x0f);
            let lo = _mm256_and_si256(x, nibble);
            let hi = _mm256_and_si256(_mm256_srli_epi32::<4>(x), nibble);
            let mut u = [lo; 4];
            for (j, u) in u.iter_mut().enumerate() {
                *u = _mm256_or_si256(_mm256_shuffle_epi8(s.lo[j], lo), _mm256_shuffle_epi8(s.hi[j], hi));
            }
            // Byte positions 1 and 3 from u[1] and u[3], then 16-bit halves: positions 2-3
            // from the second blend.
            let odd = _mm256_set1_epi32(0xff00_ff00u32 as i32);
            let b01 = _mm256_blendv_epi8(u[0], u[1], odd);
            let b23 = _mm256_blendv_epi8(u[2], u[3], odd);
            let v = _mm256_blend_epi16::<0xAA>(b01, b23);
            _mm256_or_si256(_mm256_slli_epi32::<11>(v), _mm256_srli_epi32::<21>(v))
        }
    }

    /// Key word k is byte k % 4 of the 32-bit words k / 4, k / 4 + 2, k / 4 + 4,
    /// k / 4 + 6, placed in bytes 0..3 by four in-lane shuffles (the other bytes zeroed)
    /// and ORed.
    #[inline(always)]
    unsafe fn p(w: &[Self; 8]) -> [Self; 8] {
        let mut key = *w;
        for (k, key) in key.iter_mut().enumerate() {
            let (c, b) = (k / 4, (k % 4) as i32);
            // SAFETY: the caller has AVX2 (the trait's contract).
            unsafe {
                *key = _mm256_or_si256(
                    _mm256_or_si256(pick(w[c], b, 0), pick(w[c + 2], b, 1)),
                    _mm256_or_si256(pick(w[c + 4], b, 2), pick(w[c + 6], b, 3)),
                );
            }
        }
        key
    }
}

/// The step function f(H, M) for sixteen independent messages, one per 32-bit lane, as
/// two halves of eight.
#[target_feature(enable = "avx2")]
pub(crate) fn step_lanes(t: &Tables, hs: &mut Lanes, ms: &Lanes) {
    // SAFETY: this function is compiled with AVX2 (and what it implies), the features the
    // `Words` impl for `__m256i` uses.
    unsafe { lanes::step_lanes::<__m256i>(t, hs, ms) }
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
