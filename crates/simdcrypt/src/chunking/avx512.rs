//! The Gear scan with AVX-512: 24 segments of the buffer hashed side by side, the table
//! looked up by gathers.
//!
//! Lanes are independent segments (`scan::in_lanes`), each warmed up on the 64 bytes before
//! it, so each lane's hash is the one-pass hash of its positions. Every 8 positions a gather
//! fetches 8 bytes of each lane; each byte then indexes the table through a second gather,
//! and `h = (h << 1) + t` runs in three registers of 8 lanes (three chains, so the gathers
//! overlap; `V`, the registers in flight, is a parameter: two and four measured slower than
//! three, see docs/tuning-history.md). Each position's `h & (mask_a & mask_b) == 0` (one
//! `vptestnmq`) is only or-ed into a mask for the block of 8; when a block has a match in
//! some lane (rare for any real mask), those lanes' 8 positions are stepped again in scalar
//! code (`scan::recheck_block`) and checked against both masks. Nothing in the block's loop
//! leaves the registers: a block that called out at each position kept the hashes on the
//! stack and ran a quarter slower.
//!
//! ## What this file holds
//!
//! `scan`, the 24-lane AVX-512 F kernel and its gathers

use core::arch::x86_64::*;

use super::scan::{in_lanes, recheck_block, Gear, LaneSpan, WINDOW};

/// Appends the candidates of positions `from..data.len()` (see `scan.rs`), `V` registers of
/// 8 lanes at a time.
#[target_feature(enable = "avx512f")]
pub(crate) fn scan<const V: usize, const L: usize>(
    gear: &Gear,
    data: &[u8],
    from: usize,
    base: u64,
    out: &mut Vec<u64>,
) {
    debug_assert_eq!(L, 8 * V);
    in_lanes::<L>(gear, data, from, base, out, 8, |span, lanes| lanes_kernel::<V, L>(gear, data, span, lanes));
}

#[target_feature(enable = "avx512f")]
fn lanes_kernel<const V: usize, const L: usize>(gear: &Gear, data: &[u8], span: LaneSpan, out: &mut [Vec<u64>; L]) {
    let LaneSpan { first, seg, .. } = span;
    // Every load below reads 8 bytes at `first - 64 + lane * seg + j` with `j + 8 <= seg + 64`:
    // inside data by these checks.
    assert!(first >= WINDOW && seg % 8 == 0 && first + L * seg <= data.len());
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
    let offsets: [__m512i; V] = std::array::from_fn(|v| lane_offsets(8 * v as i64));
    let both = _mm512_set1_epi64((gear.mask_a & gear.mask_b) as i64);
    let byte = _mm512_set1_epi64(0xff);
    let table = gear.table.as_ptr().cast::<i64>();
    let bytes = data.as_ptr().cast::<i64>();
    let mut h = [_mm512_setzero_si512(); V];
    let mut j = 0;
    while j < seg + WINDOW {
        let at = _mm512_set1_epi64(j as i64);
        // SAFETY: each lane reads data[start + lane * seg + j ..][..8], inside `data` (the
        // assertion above: j + 8 <= seg + 64, and the last lane's segment ends at first + L * seg).
        let w: [__m512i; V] =
            std::array::from_fn(|v| unsafe { _mm512_i64gather_epi64::<1>(_mm512_add_epi64(offsets[v], at), bytes) });
        let before = h;
        let mut hits = [0u8; V];
        // One position: byte `$k` of each lane's 8 looked up, the hash stepped, its test
        // gathered into `hits` (written out 8 times so that the shifts are immediates).
        macro_rules! position {
            ($k:literal) => {
                for v in 0..V {
                    let i = _mm512_and_si512(_mm512_srli_epi64::<{ 8 * $k }>(w[v]), byte);
                    // SAFETY: the indices are bytes (masked to 0..=255), the table has 256 entries.
                    let t = unsafe { _mm512_i64gather_epi64::<8>(i, table) };
                    h[v] = _mm512_add_epi64(_mm512_slli_epi64::<1>(h[v]), t);
                    hits[v] |= _mm512_testn_epi64_mask(h[v], both);
                }
            };
        }
        position!(0);
        position!(1);
        position!(2);
        position!(3);
        position!(4);
        position!(5);
        position!(6);
        position!(7);
        let any = hits.iter().enumerate().fold(0u32, |a, (v, &m)| a | u32::from(m) << (8 * v));
        if any != 0 && j >= WINDOW {
            let mut hv = [0u64; L];
            for (lanes, &hv_v) in hv.chunks_exact_mut(8).zip(&before) {
                // SAFETY: each chunk holds 8 u64, the 64 bytes one unaligned store writes.
                unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), hv_v) };
            }
            recheck_block(gear, data, &hv, any, span, j - WINDOW, out);
        }
        j += 8;
    }
}
