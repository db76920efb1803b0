//! The Gear scan in plain 64-bit code, several segments interleaved: no gathers, no SIMD.
//!
//! One rolling hash is a chain of dependent steps (`h = 2h + table[byte]`, one `lea` each),
//! so a single pass runs at the latency of that chain. Here `LANES` segments of the buffer
//! (`scan::in_lanes`, each warmed up on the 64 bytes before it) are hashed side by side:
//! their chains are independent, and a superscalar core runs them in parallel. Each lane
//! reads 8 bytes with one load and takes them out by shifts; the candidate test is one
//! rarely taken branch per lane and byte. The table lookups are plain loads, which out-of-
//! order cores overlap better than the gathers of the vector kernels.
//!
//! ## What this file holds
//!
//! `scan`, the interleaved kernel, generic over its number of lanes

use super::scan::{in_lanes, report, Gear, LaneSpan, WINDOW};

/// Appends the candidates of positions `from..data.len()` (see `scan.rs`), `LANES`
/// segments at a time.
pub(crate) fn scan<const LANES: usize>(gear: &Gear, data: &[u8], from: usize, base: u64, out: &mut Vec<u64>) {
    in_lanes::<LANES>(gear, data, from, base, out, 8, |span, lanes| lanes_kernel(gear, data, span, lanes));
}

/// The lane bytes of step `j`: 8 bytes of each lane as one little-endian word.
#[inline(always)]
fn words<const LANES: usize>(lanes: &[&[[u8; 8]]; LANES], j: usize) -> [u64; LANES] {
    std::array::from_fn(|i| u64::from_le_bytes(lanes[i][j]))
}

/// One byte of every lane: `h = 2h + table[byte k of the lane's word]`.
#[inline(always)]
fn step<const LANES: usize>(table: &[u64; 256], h: &mut [u64; LANES], w: &[u64; LANES], k: usize) {
    for i in 0..LANES {
        h[i] = (h[i] << 1).wrapping_add(table[usize::from((w[i] >> (8 * k)) as u8)]);
    }
}

fn lanes_kernel<const LANES: usize>(gear: &Gear, data: &[u8], span: LaneSpan, out: &mut [Vec<u64>; LANES]) {
    let LaneSpan { first, seg, .. } = span;
    assert!(first >= WINDOW && seg % 8 == 0 && first + LANES * seg <= data.len());
    let start = first - WINDOW;
    let steps = (seg + WINDOW) / 8;
    // Lane i: its segment with the 64 bytes before it, as `steps` words of 8 bytes.
    let lanes: [&[[u8; 8]]; LANES] = std::array::from_fn(|i| {
        let (words, rest) = data[start + i * seg..][..seg + WINDOW].as_chunks::<8>();
        debug_assert!(rest.is_empty());
        words
    });
    let table = gear.table;
    let both = gear.mask_a & gear.mask_b;
    let mut h = [0u64; LANES];
    // The 64 bytes of warm-up: no position of the segment yet.
    for j in 0..WINDOW / 8 {
        let w = words(&lanes, j);
        for k in 0..8 {
            step(table, &mut h, &w, k);
        }
    }
    for j in WINDOW / 8..steps {
        let w = words(&lanes, j);
        for k in 0..8 {
            step(table, &mut h, &w, k);
            for i in 0..LANES {
                if h[i] & both == 0 {
                    // By value: a reference would keep `h` in memory rather than registers.
                    report_lane(gear, h, i, span, 8 * j - WINDOW + k, out);
                }
            }
        }
    }
}

/// The rare path: lane `lane` matched the bits both masks share.
#[cold]
#[inline(never)]
fn report_lane<const LANES: usize>(
    gear: &Gear,
    h: [u64; LANES],
    lane: usize,
    span: LaneSpan,
    at: usize,
    out: &mut [Vec<u64>; LANES],
) {
    report(gear, &h, 1 << lane, span, at, out);
}
