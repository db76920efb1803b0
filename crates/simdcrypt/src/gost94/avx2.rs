//! GOST R 34.11-94 with AVX2, for CPUs without AVX-512 (VBMI).
//!
//! `vpshufb` looks a byte up in a 16-entry table, the same table for every byte of a
//! 128-bit lane, so unlike `vpermb` it cannot fold the byte position into the index. Each
//! round's S-box layer is therefore eight lookups (the low and the high nibble of each of
//! the four byte positions, each in its own table) and three blends that keep, in every
//! byte, the lookup of that byte's position. The rotation is two shifts and an OR.
//!
//! Only the many-message step is here. One message's four encryptions in the lanes of
//! an xmm register were measured slower than the portable code: one round's shuffles,
//! blends and the shift-and-OR rotation are a dependency chain about as long as a table
//! lookup's, and the portable code runs four such chains side by side as well, so the
//! `avx2` backend hashes single messages with the portable step.
//!
//! Eight messages per ymm register, one per 32-bit lane, as in `avx512.rs`;
//! the sixteen lanes of [`Lanes`] are two such halves, one after the other.

use core::arch::x86_64::*;

use super::{portable, Tables, PSI61, PSI74};
use crate::simd::{load128, load256, store256};

pub(crate) use super::batch::Lanes;

/// The S-boxes as `vpshufb` tables: `lo[j]` is S-box 2j (byte position j, low nibble),
/// `hi[j]` S-box 2j + 1 shifted into the high nibble, each in both 128-bit lanes.
#[derive(Clone, Copy)]
struct SBoxes {
    lo: [__m256i; 4],
    hi: [__m256i; 4],
}

impl SBoxes {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(t: &Tables) -> Self {
        let table = |bytes: &[u8; 64], j: usize| {
            let row: &[u8; 16] = bytes[16 * j..16 * j + 16].try_into().expect("16 bytes");
            _mm256_broadcastsi128_si256(load128(row))
        };
        SBoxes { lo: core::array::from_fn(|j| table(&t.lo, j)), hi: core::array::from_fn(|j| table(&t.hi, j)) }
    }
}

/// f(x) = rotl11(S(x)) on every 32-bit lane of a ymm register.
#[inline]
#[target_feature(enable = "avx2")]
fn f(s: &SBoxes, x: __m256i) -> __m256i {
    let nibble = _mm256_set1_epi8(0x0f);
    let lo = _mm256_and_si256(x, nibble);
    let hi = _mm256_and_si256(_mm256_srli_epi32::<4>(x), nibble);
    let u: [__m256i; 4] =
        core::array::from_fn(|j| _mm256_or_si256(_mm256_shuffle_epi8(s.lo[j], lo), _mm256_shuffle_epi8(s.hi[j], hi)));
    // Byte positions 1 and 3 from u[1] and u[3], then 16-bit halves: positions 2-3 from
    // the second blend.
    let odd = _mm256_set1_epi32(0xff00_ff00u32 as i32);
    let b01 = _mm256_blendv_epi8(u[0], u[1], odd);
    let b23 = _mm256_blendv_epi8(u[2], u[3], odd);
    let v = _mm256_blend_epi16::<0xAA>(b01, b23);
    _mm256_or_si256(_mm256_slli_epi32::<11>(v), _mm256_srli_epi32::<21>(v))
}

/// A(Y) = (y1 ⊕ y2) ‖ y4 ‖ y3 ‖ y2 on 64-bit words y1 (least significant) .. y4, held as
/// 32-bit halves.
#[inline]
#[target_feature(enable = "avx2")]
fn a_map(y: [__m256i; 8]) -> [__m256i; 8] {
    [y[2], y[3], y[4], y[5], y[6], y[7], _mm256_xor_si256(y[0], y[2]), _mm256_xor_si256(y[1], y[3])]
}

/// The key P(W) of one encryption: key word k is byte k % 4 of the 32-bit words k / 4,
/// k / 4 + 2, k / 4 + 4, k / 4 + 6, placed in bytes 0..3 by four in-lane shuffles (the
/// other bytes zeroed) and ORed.
#[inline]
#[target_feature(enable = "avx2")]
fn p_map(w: &[__m256i; 8]) -> [__m256i; 8] {
    core::array::from_fn(|k| {
        let b = (k % 4) as i32;
        let c = k / 4;
        let pick = |src: __m256i, pos: i32| {
            // Byte b of each 32-bit word into byte `pos`, zeros (index 0x80) elsewhere.
            let idx = _mm256_set1_epi32(!(0xff << (8 * pos)) & (0x8080_8080u32 as i32) | (b << (8 * pos)));
            let lane =
                _mm256_setr_epi32(0, 0x0404_0404, 0x0808_0808, 0x0c0c_0c0c, 0, 0x0404_0404, 0x0808_0808, 0x0c0c_0c0c);
            let base = _mm256_and_si256(lane, _mm256_set1_epi32(0xff << (8 * pos)));
            _mm256_shuffle_epi8(src, _mm256_or_si256(idx, base))
        };
        _mm256_or_si256(
            _mm256_or_si256(pick(w[c], 0), pick(w[c + 2], 1)),
            _mm256_or_si256(pick(w[c + 4], 2), pick(w[c + 6], 3)),
        )
    })
}

/// XOR of the words of `x` selected by the bits of `row` (a constant after inlining).
#[inline]
#[target_feature(enable = "avx2")]
fn select_xor(row: u16, x: &[__m256i; 16]) -> __m256i {
    let mut acc = [_mm256_setzero_si256(); 2];
    let mut n = 0;
    for (j, &xj) in x.iter().enumerate() {
        if row >> j & 1 == 1 {
            acc[n & 1] = _mm256_xor_si256(acc[n & 1], xj);
            n += 1;
        }
    }
    _mm256_xor_si256(acc[0], acc[1])
}

/// Sixteen 16-bit words from eight 32-bit words (each word in the low half of its lane;
/// the high halves hold junk that XORs never move into the low halves).
#[inline]
#[target_feature(enable = "avx2")]
fn to_words(v: &[__m256i; 8]) -> [__m256i; 16] {
    core::array::from_fn(|i| if i % 2 == 0 { v[i / 2] } else { _mm256_srli_epi32::<16>(v[i / 2]) })
}

/// The step function on eight messages, one per 32-bit lane: `h[k]` and `m[k]` hold
/// 32-bit word k of every message.
#[inline]
#[target_feature(enable = "avx2")]
fn step8(s: &SBoxes, h: [__m256i; 8], m: [__m256i; 8]) -> [__m256i; 8] {
    // Key generation.
    let c3: [__m256i; 8] =
        core::array::from_fn(|k| _mm256_set1_epi32((portable::C3[k / 2] >> (32 * (k % 2))) as u32 as i32));
    let (mut u, mut v) = (h, m);
    let mut keys = [[_mm256_setzero_si256(); 8]; 4];
    for (j, key) in keys.iter_mut().enumerate() {
        if j > 0 {
            u = a_map(u);
            if j == 2 {
                u = core::array::from_fn(|k| _mm256_xor_si256(u[k], c3[k]));
            }
            v = a_map(a_map(v));
        }
        let w: [__m256i; 8] = core::array::from_fn(|k| _mm256_xor_si256(u[k], v[k]));
        *key = p_map(&w);
    }

    // The part of the mixing that does not wait for the encryption: H ⊕ ψ(M) (ψ^61 of it
    // is applied with ψ^74(S) at the end).
    let hw = to_words(&h);
    let mw = to_words(&m);
    let mut y: [__m256i; 16] =
        core::array::from_fn(|i| if i < 15 { _mm256_xor_si256(hw[i], mw[i + 1]) } else { hw[15] });
    let top = [0, 1, 2, 3, 12, 15].iter().fold(_mm256_setzero_si256(), |acc, &i| _mm256_xor_si256(acc, mw[i]));
    y[15] = _mm256_xor_si256(y[15], top);

    // The four encryptions, round by round: N1 of encryption j is H's word 2j, N2 word 2j + 1.
    let mut n1: [__m256i; 4] = core::array::from_fn(|j| h[2 * j]);
    let mut n2: [__m256i; 4] = core::array::from_fn(|j| h[2 * j + 1]);
    for round in 0..32 {
        let idx = if round < 24 { round % 8 } else { 7 - round % 8 };
        for j in 0..4 {
            let x = _mm256_xor_si256(n2[j], f(s, _mm256_add_epi32(n1[j], keys[j][idx])));
            n2[j] = n1[j];
            n1[j] = x;
        }
    }
    // The last round does not swap: S_j = N2 | N1 << 32.
    let sv: [__m256i; 8] = core::array::from_fn(|k| if k % 2 == 0 { n2[k / 2] } else { n1[k / 2] });
    let sw = to_words(&sv);

    let out: [__m256i; 16] =
        core::array::from_fn(|i| _mm256_xor_si256(select_xor(PSI61[i], &y), select_xor(PSI74[i], &sw)));
    core::array::from_fn(|k| _mm256_blend_epi16::<0xAA>(out[2 * k], _mm256_slli_epi32::<16>(out[2 * k + 1])))
}

/// The step function f(H, M) for sixteen independent messages, one per 32-bit lane, as
/// two halves of eight.
#[target_feature(enable = "avx2")]
pub(crate) fn step_lanes(t: &Tables, hs: &mut Lanes, ms: &Lanes) {
    let s = SBoxes::new(t);
    for half in 0..2 {
        let range = 8 * half..8 * half + 8;
        let eight = |row: &[u32; 16]| -> [u32; 8] { row[range.clone()].try_into().expect("8 words") };
        let h: [__m256i; 8] = core::array::from_fn(|k| load256(&eight(&hs[k])));
        let m: [__m256i; 8] = core::array::from_fn(|k| load256(&eight(&ms[k])));
        let out = step8(&s, h, m);
        for (row, word) in hs.iter_mut().zip(out) {
            let mut words = [0u32; 8];
            store256(&mut words, word);
            row[range.clone()].copy_from_slice(&words);
        }
    }
}
