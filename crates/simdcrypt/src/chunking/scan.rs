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

/// The position of an encoded candidate.
#[inline]
pub(crate) fn position(candidate: u64) -> u64 {
    candidate >> 2
}

/// Segments smaller than this are not worth a thread of their own.
const MIN_SEGMENT: usize = 1 << 20;

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
    let pieces = pool.min(len / MIN_SEGMENT).max(1);
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
