//! GOST R 34.11-94 with NEON (aarch64): the many-message step.
//!
//! Four messages per q register, one per 32-bit lane, the layout of `avx2.rs` on 128-bit
//! registers; the sixteen lanes of [`Lanes`] are four such quarters, one after the other.
//! A quarter's four encryptions run round by round side by side (four independent chains).
//!
//! The S-box layer is two `tbl` lookups over four registers each: `tbl` takes an index
//! up to 63, so adding the byte position times 16 to a nibble picks the S-box of that
//! position from a 64-byte table holding the four S-boxes of one nibble parity
//! ([`Tables`]' `lo` and `hi`), and one lookup serves all four byte positions. The
//! rotation is a shift and a shift-right-insert. The key's P transform is one four-register
//! `tbl` per key word (its four bytes come from four words of W).
//!
//! Only the many-message step is here: one message's four encryptions in the lanes of a
//! q register would be one serial chain of lookups, shifts and inserts per round, while the
//! table-driven portable step runs four scalar chains side by side; the `neon` backend
//! hashes single messages with the portable step.

use core::arch::aarch64::*;

use super::batch::{Lanes, LANES};
use super::{portable, Tables, PSI61, PSI74};
use crate::simd::{load_u32x4, load_u8x16, store_u32x4};

/// Messages per q register.
const QUARTER: usize = 4;

/// The S-boxes as `tbl` tables: `lo` holds S-box 2j at bytes 16j..16j + 16 (byte position
/// j, low nibble), `hi` S-box 2j + 1 shifted into the high nibble.
#[derive(Clone, Copy)]
struct SBoxes {
    lo: uint8x16x4_t,
    hi: uint8x16x4_t,
}

impl SBoxes {
    #[inline]
    #[target_feature(enable = "neon")]
    fn new(t: &Tables) -> Self {
        let table = |bytes: &[u8; 64]| {
            let row = |j: usize| load_u8x16::<[u8; 16]>(bytes[16 * j..16 * j + 16].try_into().expect("16 bytes"));
            uint8x16x4_t(row(0), row(1), row(2), row(3))
        };
        SBoxes { lo: table(&t.lo), hi: table(&t.hi) }
    }
}

/// f(x) = rotl11(S(x)) on every 32-bit lane of a q register.
#[inline]
#[target_feature(enable = "neon")]
fn f(s: &SBoxes, x: uint32x4_t) -> uint32x4_t {
    let x = vreinterpretq_u8_u32(x);
    // 16 × the byte's position in its 32-bit word (lanes are little-endian), in the high
    // nibble: the table offset of that position's S-boxes.
    let position = vreinterpretq_u8_u32(vdupq_n_u32(0x3020_1000));
    // Low nibble of x under the position; high nibble of x shifted in under the position.
    let lo = vbslq_u8(vdupq_n_u8(0x0f), x, position);
    let hi = vsriq_n_u8::<4>(position, x);
    let v = vreinterpretq_u32_u8(vorrq_u8(vqtbl4q_u8(s.lo, lo), vqtbl4q_u8(s.hi, hi)));
    vsriq_n_u32::<21>(vshlq_n_u32::<11>(v), v)
}

/// A(Y) = (y1 ⊕ y2) ‖ y4 ‖ y3 ‖ y2 on 64-bit words y1 (least significant) .. y4, held as
/// 32-bit halves.
#[inline]
#[target_feature(enable = "neon")]
fn a_map(y: [uint32x4_t; 8]) -> [uint32x4_t; 8] {
    [y[2], y[3], y[4], y[5], y[6], y[7], veorq_u32(y[0], y[2]), veorq_u32(y[1], y[3])]
}

/// `tbl` indices of [`p_map`]: `P_INDEX[b]` takes byte b of each 32-bit lane of the four
/// table registers into byte positions 0..3 (byte p of lane i is at 16p + 4i + b).
const P_INDEX: [[u8; 16]; 4] = {
    let mut idx = [[0u8; 16]; 4];
    let mut b = 0;
    while b < 4 {
        let mut n = 0;
        while n < 16 {
            let (i, p) = (n / 4, n % 4);
            idx[b][n] = (16 * p + 4 * i + b) as u8;
            n += 1;
        }
        b += 1;
    }
    idx
};

/// The key P(W) of one encryption: byte p of key word k is byte k % 4 of the 32-bit word
/// k / 4 + 2p of W, so key word k is one `tbl` over those four words, lane i's byte p
/// at index 16p + 4i + k % 4 ([`P_INDEX`]).
#[inline]
#[target_feature(enable = "neon")]
fn p_map(w: &[uint32x4_t; 8]) -> [uint32x4_t; 8] {
    core::array::from_fn(|k| {
        let (c, b) = (k / 4, k % 4);
        let src = uint8x16x4_t(
            vreinterpretq_u8_u32(w[c]),
            vreinterpretq_u8_u32(w[c + 2]),
            vreinterpretq_u8_u32(w[c + 4]),
            vreinterpretq_u8_u32(w[c + 6]),
        );
        vreinterpretq_u32_u8(vqtbl4q_u8(src, load_u8x16(&P_INDEX[b])))
    })
}

/// XOR of the words of `x` selected by the bits of `row` (a constant after inlining).
#[inline]
#[target_feature(enable = "neon")]
fn select_xor(row: u16, x: &[uint32x4_t; 16]) -> uint32x4_t {
    let mut acc = [vdupq_n_u32(0); 2];
    let mut n = 0;
    for (j, &xj) in x.iter().enumerate() {
        if row >> j & 1 == 1 {
            acc[n & 1] = veorq_u32(acc[n & 1], xj);
            n += 1;
        }
    }
    veorq_u32(acc[0], acc[1])
}

/// Sixteen 16-bit words from eight 32-bit words (each word in the low half of its lane;
/// the high halves hold junk that XORs never move into the low halves).
#[inline]
#[target_feature(enable = "neon")]
fn to_words(v: &[uint32x4_t; 8]) -> [uint32x4_t; 16] {
    core::array::from_fn(|i| if i % 2 == 0 { v[i / 2] } else { vshrq_n_u32::<16>(v[i / 2]) })
}

/// The step function on four messages, one per 32-bit lane: `h[k]` and `m[k]` hold
/// 32-bit word k of every message.
#[inline]
#[target_feature(enable = "neon")]
fn step4(s: &SBoxes, h: [uint32x4_t; 8], m: [uint32x4_t; 8]) -> [uint32x4_t; 8] {
    // Key generation.
    let c3: [uint32x4_t; 8] = core::array::from_fn(|k| vdupq_n_u32((portable::C3[k / 2] >> (32 * (k % 2))) as u32));
    let (mut u, mut v) = (h, m);
    let mut keys = [[vdupq_n_u32(0); 8]; 4];
    for (j, key) in keys.iter_mut().enumerate() {
        if j > 0 {
            u = a_map(u);
            if j == 2 {
                u = core::array::from_fn(|k| veorq_u32(u[k], c3[k]));
            }
            v = a_map(a_map(v));
        }
        let w: [uint32x4_t; 8] = core::array::from_fn(|k| veorq_u32(u[k], v[k]));
        *key = p_map(&w);
    }

    // The part of the mixing that does not wait for the encryption: H ⊕ ψ(M) (ψ^61 of it
    // is applied with ψ^74(S) at the end).
    let hw = to_words(&h);
    let mw = to_words(&m);
    let mut y: [uint32x4_t; 16] = core::array::from_fn(|i| if i < 15 { veorq_u32(hw[i], mw[i + 1]) } else { hw[15] });
    let top = [0, 1, 2, 3, 12, 15].iter().fold(vdupq_n_u32(0), |acc, &i| veorq_u32(acc, mw[i]));
    y[15] = veorq_u32(y[15], top);

    // The four encryptions, round by round: N1 of encryption j is H's word 2j, N2 word 2j + 1.
    // Two rounds per iteration, each XORing into the other half, so the halves never move
    // between registers (a round's swap is a renaming); after an even number of rounds the
    // names are right again.
    let mut n1: [uint32x4_t; 4] = core::array::from_fn(|j| h[2 * j]);
    let mut n2: [uint32x4_t; 4] = core::array::from_fn(|j| h[2 * j + 1]);
    for pair in 0..16 {
        let key = |round: usize| if round < 24 { round % 8 } else { 7 - round % 8 };
        let (even, odd) = (key(2 * pair), key(2 * pair + 1));
        for j in 0..4 {
            n2[j] = veorq_u32(n2[j], f(s, vaddq_u32(n1[j], keys[j][even])));
        }
        for j in 0..4 {
            n1[j] = veorq_u32(n1[j], f(s, vaddq_u32(n2[j], keys[j][odd])));
        }
    }
    // The last round does not swap: S_j = N2 | N1 << 32 (the names of a swapping round).
    let sv: [uint32x4_t; 8] = core::array::from_fn(|k| if k % 2 == 0 { n2[k / 2] } else { n1[k / 2] });
    let sw = to_words(&sv);

    let out: [uint32x4_t; 16] =
        core::array::from_fn(|i| veorq_u32(select_xor(PSI61[i], &y), select_xor(PSI74[i], &sw)));
    // Word 2k in the low half, word 2k + 1 shifted into the high half.
    core::array::from_fn(|k| vsliq_n_u32::<16>(out[2 * k], out[2 * k + 1]))
}

/// The step function f(H, M) for sixteen independent messages, one per 32-bit lane, as
/// four quarters of four.
#[target_feature(enable = "neon")]
pub(crate) fn step_lanes(t: &Tables, hs: &mut Lanes, ms: &Lanes) {
    let s = SBoxes::new(t);
    for q in 0..LANES / QUARTER {
        let range = QUARTER * q..QUARTER * (q + 1);
        let quarter = |row: &[u32; LANES]| -> [u32; QUARTER] { row[range.clone()].try_into().expect("4 words") };
        let h: [uint32x4_t; 8] = core::array::from_fn(|k| load_u32x4(&quarter(&hs[k])));
        let m: [uint32x4_t; 8] = core::array::from_fn(|k| load_u32x4(&quarter(&ms[k])));
        let out = step4(&s, h, m);
        for (row, word) in hs.iter_mut().zip(out) {
            let mut words = [0u32; QUARTER];
            store_u32x4(&mut words, word);
            row[range.clone()].copy_from_slice(&words);
        }
    }
}
