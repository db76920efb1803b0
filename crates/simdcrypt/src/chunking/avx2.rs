//! The Gear scan with AVX2: 8 segments of the buffer hashed side by side, the table looked
//! up by gathers.
//!
//! The AVX-512 kernel's scheme (see `avx512.rs`) in 256-bit registers: two registers of 4
//! lanes, every 8 positions one gather of 8 bytes per lane, then per byte a table gather,
//! `h = (h << 1) + t`, and one compare of `h & (mask_a & mask_b)` with zero per register
//! (`V` registers in flight; four measured slower than two, see docs/tuning-history.md).
//!
//! ## What this file holds
//!
//! `scan`, the 8-lane AVX2 kernel and its gathers

use core::arch::x86_64::*;

use super::scan::{in_lanes, report, Gear, LaneSpan, WINDOW};

/// Appends the candidates of positions `from..data.len()` (see `scan.rs`), `V` registers of
/// 4 lanes at a time.
#[target_feature(enable = "avx2")]
pub(crate) fn scan<const V: usize, const L: usize>(
    gear: &Gear,
    data: &[u8],
    from: usize,
    base: u64,
    out: &mut Vec<u64>,
) {
    debug_assert_eq!(L, 4 * V);
    in_lanes::<L>(gear, data, from, base, out, 8, |span, lanes| lanes_kernel::<V, L>(gear, data, span, lanes));
}

#[target_feature(enable = "avx2")]
fn lanes_kernel<const V: usize, const L: usize>(gear: &Gear, data: &[u8], span: LaneSpan, out: &mut [Vec<u64>; L]) {
    let LaneSpan { first, seg, .. } = span;
    // Every load below reads 8 bytes at `first - 64 + lane * seg + j` with `j + 8 <= seg + 64`:
    // inside data by these checks.
    assert!(first >= WINDOW && seg % 8 == 0 && first + L * seg <= data.len());
    let start = (first - WINDOW) as i64;
    let seg_i = seg as i64;
    let lane_offsets = |lane0: i64| {
        _mm256_set_epi64x(
            start + (lane0 + 3) * seg_i,
            start + (lane0 + 2) * seg_i,
            start + (lane0 + 1) * seg_i,
            start + lane0 * seg_i,
        )
    };
    let offsets: [__m256i; V] = std::array::from_fn(|v| lane_offsets(4 * v as i64));
    let both = _mm256_set1_epi64x((gear.mask_a & gear.mask_b) as i64);
    let byte = _mm256_set1_epi64x(0xff);
    let zero = _mm256_setzero_si256();
    let table = gear.table.as_ptr().cast::<i64>();
    let bytes = data.as_ptr().cast::<i64>();
    let mut h = [zero; V];
    let mut j = 0;
    while j < seg + WINDOW {
        let at = _mm256_set1_epi64x(j as i64);
        // SAFETY: each lane reads data[start + lane * seg + j ..][..8], inside `data` (the
        // assertion above: j + 8 <= seg + 64, and the last lane's segment ends at first + L * seg).
        let w: [__m256i; V] =
            std::array::from_fn(|v| unsafe { _mm256_i64gather_epi64::<1>(bytes, _mm256_add_epi64(offsets[v], at)) });
        for k in 0..8 {
            let shift = _mm_cvtsi32_si128(8 * k);
            let mut hits = 0u32;
            for v in 0..V {
                let i = _mm256_and_si256(_mm256_srl_epi64(w[v], shift), byte);
                // SAFETY: the indices are bytes (masked to 0..=255), the table has 256 entries.
                let t = unsafe { _mm256_i64gather_epi64::<8>(table, i) };
                h[v] = _mm256_add_epi64(_mm256_slli_epi64::<1>(h[v]), t);
                let z = _mm256_cmpeq_epi64(_mm256_and_si256(h[v], both), zero);
                hits |= (_mm256_movemask_pd(_mm256_castsi256_pd(z)) as u32) << (4 * v);
            }
            if hits != 0 && j >= WINDOW {
                let mut hv = [0u64; L];
                for (lanes, &hv_v) in hv.chunks_exact_mut(4).zip(&h) {
                    // SAFETY: each chunk holds 4 u64, the 32 bytes one unaligned store writes.
                    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), hv_v) };
                }
                report(gear, &hv, hits, span, j - WINDOW + k as usize, out);
            }
        }
        j += 8;
    }
}
