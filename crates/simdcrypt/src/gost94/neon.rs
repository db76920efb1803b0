//! GOST R 34.11-94 with NEON (aarch64): the many-message step.
//!
//! Four messages per q register, one per 32-bit lane, the layout of `avx2.rs` on 128-bit
//! registers; the sixteen lanes of [`Lanes`] are four such quarters, one after the other.
//! A quarter's four encryptions run round by round side by side (four independent chains).
//! The step itself is `lanes.rs`'s, over the [`Words`] operations below.
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
//!
//! ## What this file holds
//!
//! aarch64 NEON `step_lanes`: `lanes.rs`'s step on `uint32x4_t`, four messages per q register,
//! one per 32-bit lane (the 16 lanes of a batch as four quarters); its `Words` impl: S-boxes
//! as two four-register `tbl` lookups (nibble plus 16 × byte position indexes `Tables`'
//! 64-byte `lo`/`hi`), rotation by `shl` + `sri`, key P transform as one `tbl` per key word

use core::arch::aarch64::*;

use super::batch::{Lanes, LANES};
use super::lanes::{self, Words};
use super::Tables;
use crate::simd::{load_u32x4, load_u8x16, store_u32x4};

/// The S-boxes as `tbl` tables: `lo` holds S-box 2j at bytes 16j..16j + 16 (byte position
/// j, low nibble), `hi` S-box 2j + 1 shifted into the high nibble.
pub(crate) struct SBoxes {
    lo: uint8x16x4_t,
    hi: uint8x16x4_t,
}

/// A 64-byte table as four registers.
#[inline(always)]
unsafe fn table(bytes: &[u8; 64]) -> uint8x16x4_t {
    let rows: &[[u8; 16]; 4] = bytes.as_chunks().0.try_into().expect("four rows");
    // SAFETY: the caller has NEON (the `Words` contract).
    unsafe { uint8x16x4_t(load_u8x16(&rows[0]), load_u8x16(&rows[1]), load_u8x16(&rows[2]), load_u8x16(&rows[3])) }
}

/// `tbl` indices of [`Words::p`]: `P_INDEX[b]` takes byte b of each 32-bit lane of the
/// four table registers into byte positions 0..3 (byte p of lane i is at 16p + 4i + b).
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

// SAFETY: every method is `#[inline(always)]` and only uses NEON instructions, which
// `step_lanes` enables and its callers have checked.
unsafe impl Words for uint32x4_t {
    const WIDTH: usize = 4;
    type SBoxes = SBoxes;

    #[inline(always)]
    unsafe fn sboxes(t: &Tables) -> SBoxes {
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe { SBoxes { lo: table(&t.lo), hi: table(&t.hi) } }
    }

    #[inline(always)]
    unsafe fn load(row: &[u32; LANES], group: usize) -> Self {
        let words: &[u32; 4] = row[4 * group..4 * group + 4].try_into().expect("4 words");
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe { load_u32x4(words) }
    }

    #[inline(always)]
    unsafe fn store(row: &mut [u32; LANES], group: usize, v: Self) {
        let words: &mut [u32; 4] = (&mut row[4 * group..4 * group + 4]).try_into().expect("4 words");
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe { store_u32x4(words, v) }
    }

    #[inline(always)]
    unsafe fn splat(w: u32) -> Self {
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe { vdupq_n_u32(w) }
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe { vaddq_u32(a, b) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe { veorq_u32(a, b) }
    }

    #[inline(always)]
    unsafe fn shr16(v: Self) -> Self {
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe { vshrq_n_u32::<16>(v) }
    }

    #[inline(always)]
    unsafe fn pack16(lo: Self, hi: Self) -> Self {
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe { vsliq_n_u32::<16>(lo, hi) }
    }

    #[inline(always)]
    unsafe fn f(s: &SBoxes, x: Self) -> Self {
        // SAFETY: the caller has NEON (the trait's contract).
        unsafe {
            let x = vreinterpretq_u8_u32(x);
            // 16 × the byte's position in its 32-bit word (lanes are little-endian), in the
            // high nibble: the table offset of that position's S-boxes.
            let position = vreinterpretq_u8_u32(vdupq_n_u32(0x3020_1000));
            // Low nibble of x under the position; high nibble of x shifted in under the
            // position.
            let lo = vbslq_u8(vdupq_n_u8(0x0f), x, position);
            let hi = vsriq_n_u8::<4>(position, x);
            let v = vreinterpretq_u32_u8(vorrq_u8(vqtbl4q_u8(s.lo, lo), vqtbl4q_u8(s.hi, hi)));
            vsriq_n_u32::<21>(vshlq_n_u32::<11>(v), v)
        }
    }

    /// Key word k is one `tbl` over the words k / 4, k / 4 + 2, k / 4 + 4, k / 4 + 6 of
    /// W, lane i's byte p at index 16p + 4i + k % 4 ([`P_INDEX`]).
    #[inline(always)]
    unsafe fn p(w: &[Self; 8]) -> [Self; 8] {
        let mut key = *w;
        for (k, key) in key.iter_mut().enumerate() {
            let c = k / 4;
            // SAFETY: the caller has NEON (the trait's contract).
            unsafe {
                let src = uint8x16x4_t(
                    vreinterpretq_u8_u32(w[c]),
                    vreinterpretq_u8_u32(w[c + 2]),
                    vreinterpretq_u8_u32(w[c + 4]),
                    vreinterpretq_u8_u32(w[c + 6]),
                );
                *key = vreinterpretq_u32_u8(vqtbl4q_u8(src, load_u8x16(&P_INDEX[k % 4])));
            }
        }
        key
    }
}

/// The step function f(H, M) for sixteen independent messages, one per 32-bit lane, as
/// four quarters of four.
#[target_feature(enable = "neon")]
pub(crate) fn step_lanes(t: &Tables, hs: &mut Lanes, ms: &Lanes) {
    // SAFETY: this function is compiled with NEON, the feature the `Words` impl for
    // `uint32x4_t` uses.
    unsafe { lanes::step_lanes::<uint32x4_t>(t, hs, ms) }
}
