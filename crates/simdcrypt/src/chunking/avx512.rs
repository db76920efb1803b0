//! The Gear scan with AVX-512: 16 segments of the buffer hashed side by side, the table
//! looked up by gathers.
//!
//! Lanes are independent segments (`scan::in_lanes`), each warmed up on the 64 bytes before
//! it, so each lane's hash is the one-pass hash of its positions. Every 8 positions a gather
//! fetches 8 bytes of each lane; each byte then indexes the table through a second gather,
//! and `h = (h << 1) + t` runs in two registers of 8 lanes (two chains, so the gathers
//! overlap). A position is reported only when `h & (mask_a & mask_b) == 0` in some lane (one
//! `vptestnmq`), rare for any real mask; that lane's value is then checked against both masks
//! in scalar code.
//!
//! ## What this file holds
//!
//! `scan`, the 16-lane AVX-512 F kernel and its gathers

use core::arch::x86_64::*;

use super::scan::{in_lanes, report, Gear, LaneSpan, WINDOW};

const LANES: usize = 16;

/// Appends the candidates of positions `from..data.len()` (see `scan.rs`).
#[target_feature(enable = "avx512f")]
pub(crate) fn scan(gear: &Gear, data: &[u8], from: usize, base: u64, out: &mut Vec<u64>) {
    in_lanes::<LANES>(gear, data, from, base, out, 8, |span, lanes| lanes_kernel(gear, data, span, lanes));
}

#[target_feature(enable = "avx512f")]
fn lanes_kernel(gear: &Gear, data: &[u8], span: LaneSpan, out: &mut [Vec<u64>; LANES]) {
    let LaneSpan { first, seg, .. } = span;
    // Every load below reads 8 bytes at `first - 64 + lane * seg + j` with `j + 8 <= seg + 64`:
    // inside data by these checks.
    assert!(first >= WINDOW && seg % 8 == 0 && first + LANES * seg <= data.len());
    let start = (first - WINDOW) as i64;
    let seg_i = seg as i64;
    let lane_offsets = |lane0: i64| {
        _mm512_set_epi64(
            start + (lane0 + 7) * seg_i,
            start + (lane0 + 6) * seg_i,
            start + (lane0 + 5) * seg_i,
            start + (lane0 + 4) * seg_i,
            start + (lane0 + 3) * seg_i,
            start + (lane0 + 2) * seg_i,
            start + (lane0 + 1) * seg_i,
            start + lane0 * seg_i,
        )
    };
    let (offsets_lo, offsets_hi) = (lane_offsets(0), lane_offsets(8));
    let both = _mm512_set1_epi64((gear.mask_a & gear.mask_b) as i64);
    let byte = _mm512_set1_epi64(0xff);
    let table = gear.table.as_ptr().cast::<i64>();
    let bytes = data.as_ptr().cast::<i64>();
    let (mut h_lo, mut h_hi) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let mut j = 0;
    while j < seg + WINDOW {
        let at = _mm512_set1_epi64(j as i64);
        // SAFETY: each lane reads data[start + lane * seg + j ..][..8], inside `data` (the
        // assertion above: j + 8 <= seg + 64, and lane 15's segment ends at first + 16 * seg).
        let (w_lo, w_hi) = unsafe {
            (
                _mm512_i64gather_epi64::<1>(_mm512_add_epi64(offsets_lo, at), bytes),
                _mm512_i64gather_epi64::<1>(_mm512_add_epi64(offsets_hi, at), bytes),
            )
        };
        for k in 0..8 {
            let shift = _mm_cvtsi32_si128(8 * k);
            let i_lo = _mm512_and_si512(_mm512_srl_epi64(w_lo, shift), byte);
            let i_hi = _mm512_and_si512(_mm512_srl_epi64(w_hi, shift), byte);
            // SAFETY: the indices are bytes (masked to 0..=255), the table has 256 entries.
            let (t_lo, t_hi) =
                unsafe { (_mm512_i64gather_epi64::<8>(i_lo, table), _mm512_i64gather_epi64::<8>(i_hi, table)) };
            h_lo = _mm512_add_epi64(_mm512_slli_epi64::<1>(h_lo), t_lo);
            h_hi = _mm512_add_epi64(_mm512_slli_epi64::<1>(h_hi), t_hi);
            let hits =
                (u32::from(_mm512_testn_epi64_mask(h_hi, both)) << 8) | u32::from(_mm512_testn_epi64_mask(h_lo, both));
            if hits != 0 && j >= WINDOW {
                let mut h = [0u64; LANES];
                // SAFETY: `h` holds 16 u64, two 64-byte unaligned stores.
                unsafe {
                    _mm512_storeu_si512(h.as_mut_ptr().cast(), h_lo);
                    _mm512_storeu_si512(h.as_mut_ptr().add(8).cast(), h_hi);
                }
                report(gear, &h, hits, span, j - WINDOW + k as usize, out);
            }
        }
        j += 8;
    }
}
