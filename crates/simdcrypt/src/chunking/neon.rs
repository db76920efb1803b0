//! The Gear scan with NEON: 4 segments of the buffer hashed side by side in two 128-bit
//! registers.
//!
//! NEON has no gather, so the four table entries of a step are loaded by scalar code and
//! combined into two registers; what the vector unit adds is four independent chains of
//! `h = (h << 1) + t` (where one chain waits on its own previous step) and one test of
//! `h & (mask_a & mask_b)` against zero for all four. Lanes are segments warmed up on the
//! 64 bytes before them (`scan::in_lanes`), as in the x86-64 kernels.
//!
//! ## What this file holds
//!
//! `scan`, the 4-lane NEON kernel

use core::arch::aarch64::*;

use super::scan::{in_lanes, report, Gear, LaneSpan, WINDOW};

const LANES: usize = 4;

/// Appends the candidates of positions `from..data.len()` (see `scan.rs`).
#[target_feature(enable = "neon")]
pub(crate) fn scan(gear: &Gear, data: &[u8], from: usize, base: u64, out: &mut Vec<u64>) {
    in_lanes::<LANES>(gear, data, from, base, out, 8, |span, lanes| lanes_kernel(gear, data, span, lanes));
}

#[target_feature(enable = "neon")]
fn lanes_kernel(gear: &Gear, data: &[u8], span: LaneSpan, out: &mut [Vec<u64>; LANES]) {
    let LaneSpan { first, seg, .. } = span;
    assert!(first >= WINDOW && first + LANES * seg <= data.len());
    let start = first - WINDOW;
    // The four segments with their 64 bytes of warm-up, each `seg + 64` bytes long.
    let lane = |i: usize| &data[start + i * seg..start + (i + 1) * seg + WINDOW];
    let (l0, l1, l2, l3) = (lane(0), lane(1), lane(2), lane(3));
    let table = gear.table;
    let both = vdupq_n_u64(gear.mask_a & gear.mask_b);
    let (mut h01, mut h23) = (vdupq_n_u64(0), vdupq_n_u64(0));
    for j in 0..seg + WINDOW {
        let t01 = [table[usize::from(l0[j])], table[usize::from(l1[j])]];
        let t23 = [table[usize::from(l2[j])], table[usize::from(l3[j])]];
        // SAFETY: each array holds two u64, what vld1q_u64 reads.
        let (t01, t23) = unsafe { (vld1q_u64(t01.as_ptr()), vld1q_u64(t23.as_ptr())) };
        h01 = vaddq_u64(vshlq_n_u64::<1>(h01), t01);
        h23 = vaddq_u64(vshlq_n_u64::<1>(h23), t23);
        let zero01 = vceqzq_u64(vandq_u64(h01, both));
        let zero23 = vceqzq_u64(vandq_u64(h23, both));
        let any = vmaxvq_u32(vreinterpretq_u32_u64(vorrq_u64(zero01, zero23)));
        if any != 0 && j >= WINDOW {
            let h = [
                vgetq_lane_u64::<0>(h01),
                vgetq_lane_u64::<1>(h01),
                vgetq_lane_u64::<0>(h23),
                vgetq_lane_u64::<1>(h23),
            ];
            let hits = (0..LANES).filter(|&i| h[i] & gear.mask_a & gear.mask_b == 0).fold(0u32, |m, i| m | 1 << i);
            report(gear, &h, hits, span, j - WINDOW, out);
        }
    }
}
