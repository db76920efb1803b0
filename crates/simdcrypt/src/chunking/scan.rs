//! Candidate cut points: the positions whose rolling Gear hash matches a mask, found in
//! parallel over segments of a buffer.
//!
//! The Gear hash `h = (h << 1) + table[byte]` forgets a byte after 64 steps (its term is
//! shifted out of the 64-bit word), so the hash at position `p` is a function of the bytes
//! `p - 63 ..= p` alone ([`WINDOW`]): a segment that starts hashing 64 bytes before its first
//! position computes exactly the values a single pass from the start of the file would.
//! That is what makes the candidates independent of threads, read blocks and parts; which
//! candidates become cut points is decided afterwards, sequentially (`select.rs`).
//!
//! A candidate is encoded as one `u64`: the position (of the byte whose hash matched) shifted
//! left by two, and two flags: [`FLAG_A`] if `hash & mask_a == 0`, [`FLAG_B`] if
//! `hash & mask_b == 0` (FastCDC's normalised chunking has a harder mask before the average
//! size and an easier one after it; Xet has one mask, given twice).
//!
//! ## What this file holds
//!
//! `Gear` (table and masks), the candidate encoding, `WINDOW`, `scan_parallel` (the split of a
//! buffer between threads, each segment through the dispatch point of `platform.rs`)

use super::platform::Platform;
use crate::threads::{join, with_pool};

/// The bytes the Gear hash at a position depends on: itself and the 63 before it.
pub(crate) const WINDOW: usize = 64;

/// Candidate flag: the hash matched `mask_a`.
pub(crate) const FLAG_A: u64 = 1;
/// Candidate flag: the hash matched `mask_b`.
pub(crate) const FLAG_B: u64 = 2;

/// A Gear table and the two masks a scan reports matches of.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gear {
    pub(crate) table: &'static [u64; 256],
    pub(crate) mask_a: u64,
    pub(crate) mask_b: u64,
}

impl Gear {
    /// A hash's candidate flags: [`FLAG_A`] if it matches `mask_a`, [`FLAG_B`] if `mask_b`
    /// (0: no candidate).
    #[inline(always)]
    pub(crate) fn flags(&self, h: u64) -> u64 {
        (u64::from(h & self.mask_a == 0) * FLAG_A) | (u64::from(h & self.mask_b == 0) * FLAG_B)
    }
}

/// The position of an encoded candidate.
#[inline]
pub(crate) fn position(candidate: u64) -> u64 {
    candidate >> 2
}

/// Segments smaller than this are not worth a task of their own.
const MIN_SEGMENT: usize = 1 << 20;

/// Pieces a scan is split into per thread (each at least [`MIN_SEGMENT`]).
const PIECES_PER_THREAD: usize = 4;

/// The candidates of positions `from..data.len()` of `data` (position `i` reported as
/// `base + i`), in increasing order, the buffer split between up to `pool` threads. The hash
/// at position `i` covers `data[i.saturating_sub(63)..=i]`: callers keep 64 bytes before
/// `from` in `data` unless `data` starts the file.
pub(crate) fn scan_parallel(
    platform: Platform,
    gear: &Gear,
    data: &[u8],
    from: usize,
    base: u64,
    pool: usize,
) -> Vec<u64> {
    let len = data.len().saturating_sub(from);
    // Several pieces per thread, so that a thread slowed by other work (the file's next
    // batch being read, another job) leaves its share to be stolen by the others; one
    // thread scans the whole buffer itself (pieces would be joined on rayon's pool).
    let pieces = if pool > 1 { (PIECES_PER_THREAD * pool).min(len / MIN_SEGMENT).max(1) } else { 1 };
    if pieces == 1 {
        let mut out = Vec::new();
        platform.scan(gear, data, from, base, &mut out);
        return out;
    }
    with_pool(pool, || split(platform, gear, data, from, base, pieces))
}

fn split(platform: Platform, gear: &Gear, data: &[u8], from: usize, base: u64, pieces: usize) -> Vec<u64> {
    if pieces <= 1 {
        let mut out = Vec::new();
        platform.scan(gear, data, from, base, &mut out);
        return out;
    }
    let left = pieces / 2;
    let mid = from + (data.len() - from) / pieces * left;
    let (mut a, b) = join(
        true,
        || split(platform, gear, &data[..mid], from, base, left),
        || split(platform, gear, data, mid, base, pieces - left),
    );
    a.extend_from_slice(&b);
    a
}

/// The lane layout of the SIMD kernels: `lanes` equal segments of `from..data.len()`, each
/// a multiple of `step` bytes and each with the 64 bytes before it inside `data`.
/// Returns where the first segment starts and the segment length (0: too short for lanes).
/// The positions before the first segment and after the last are the portable scan's.
pub(crate) fn lane_layout(len: usize, from: usize, lanes: usize, step: usize) -> (usize, usize) {
    let first = from.max(WINDOW);
    let seg = len.saturating_sub(first) / lanes / step * step;
    (first, seg)
}

/// Where a lane kernel's segments lie: lane `i` covers positions `first + i * seg ..
/// first + (i + 1) * seg` of the buffer, reported as `base +` those.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneSpan {
    pub(crate) first: usize,
    pub(crate) seg: usize,
    pub(crate) base: u64,
}

/// Runs a lane kernel: the portable scan before the lanes, `kernel(span, outs)` on
/// `L` segments (it pushes each lane's candidates to `outs[lane]`), the portable scan on the
/// tail; the candidates come out in order because lane `i` lies before lane `i + 1`.
pub(crate) fn in_lanes<const L: usize>(
    gear: &Gear,
    data: &[u8],
    from: usize,
    base: u64,
    out: &mut Vec<u64>,
    step: usize,
    kernel: impl FnOnce(LaneSpan, &mut [Vec<u64>; L]),
) {
    let (first, seg) = lane_layout(data.len(), from, L, step);
    if seg == 0 {
        return super::portable::scan(gear, data, from, base, out);
    }
    super::portable::scan(gear, &data[..first], from.min(first), base, out);
    let mut lanes: [Vec<u64>; L] = std::array::from_fn(|_| Vec::new());
    kernel(LaneSpan { first, seg, base }, &mut lanes);
    for lane in lanes {
        out.extend_from_slice(&lane);
    }
    super::portable::scan(gear, data, first + L * seg, base, out);
}

/// The kernels' rare path: for each lane set in `hits` (whose hash `h[lane]` matched the
/// bits both masks share) at offset `at` of its segment, pushes its candidate if it matches
/// either mask.
#[cold]
pub(crate) fn report<const L: usize>(
    gear: &Gear,
    h: &[u64; L],
    mut hits: u32,
    span: LaneSpan,
    at: usize,
    out: &mut [Vec<u64>; L],
) {
    while hits != 0 {
        let lane = hits.trailing_zeros() as usize;
        hits &= hits - 1;
        let flags = gear.flags(h[lane]);
        if flags != 0 {
            let position = span.base + (span.first + lane * span.seg + at) as u64;
            out[lane].push((position << 2) | flags);
        }
    }
}

/// The rare path of kernels that test 8 positions a block and keep no per-position hashes:
/// lanes set in `hits` had a hash matching the bits both masks share somewhere in the block
/// of 8 positions starting `at` in their segments (at `data[span.first + lane * span.seg +
/// at..]`); their hashes are stepped again from `before` (each lane's hash before the
/// block) through those 8 bytes, and every candidate among them is pushed. Keeping this out
/// of the block's loop keeps the hashes in registers there.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
pub(crate) fn recheck_block<const L: usize>(
    gear: &Gear,
    data: &[u8],
    before: &[u64; L],
    mut hits: u32,
    span: LaneSpan,
    at: usize,
    out: &mut [Vec<u64>; L],
) {
    while hits != 0 {
        let lane = hits.trailing_zeros() as usize;
        hits &= hits - 1;
        let seg_start = span.first + lane * span.seg;
        let mut h = before[lane];
        for k in 0..8 {
            h = (h << 1).wrapping_add(gear.table[usize::from(data[seg_start + at + k])]);
            let flags = gear.flags(h);
            if flags != 0 {
                let position = span.base + (seg_start + at + k) as u64;
                out[lane].push((position << 2) | flags);
            }
        }
    }
}
