//! The cut rules: which candidates become cut points, applied in one sequential pass.
//!
//! **Xet** (xet-core `xet_data/src/deduplication/chunking.rs`, `Chunker::next_boundary`):
//! a chunk that starts at `s` ends after the first byte `p` with `s + MIN <= p + 1 <=
//! s + MAX` whose Gear hash matches the mask, else at `s + MAX`, else at the end of the
//! file. xet-core skips the first `MIN - 65` bytes of each chunk and restarts its hash from
//! zero there, and rejects matches before `MIN`; so at every position it accepts, its hash
//! has seen at least 65 bytes and equals the 64-byte window hash of the scan.
//!
//! **FastCDC 2020** (`fastcdc` crate 5.0.0, `v2020::cut_gear`): with `r = min(left, max)`
//! bytes left, a chunk of `r <= min` bytes is the last one; otherwise the hash starts from
//! zero at `s + min` and the chunk ends *before* the first byte `s + a` (`min <= a <
//! r & !1`) whose hash matches `mask_s` if `a < min(avg, r) & !1`, else `mask_l`; if none
//! does, after `r` bytes. (The crate steps two bytes at a time with shifted tables and
//! masks; that computes the same hash at every byte, and tests each byte with the same mask,
//! as this byte-at-a-time description.) Because that hash restarts at `s + min`, it equals
//! the window hash only from `s + min + 63` on: the first 64 positions of each chunk are
//! hashed here from the data, the rest taken from the candidates.
//!
//! ## What this file holds
//!
//! `Rule` (Xet or FastCDC 2020 with its sizes and masks) and `Cutter::cut`, which turns
//! scanned candidates into chunk spans as far as the data at hand decides them

use super::scan::{position, Gear, FLAG_A, FLAG_B, WINDOW};
use super::tables::{FASTCDC_GEAR, XET_GEAR};

/// Xet's chunk sizes: xet-core `xet_core_structures/src/xorb_object/constants.rs`,
/// `TARGET_CHUNK_SIZE = 64 * 1024`, `MINIMUM_CHUNK_DIVISOR = 8`, `MAXIMUM_CHUNK_MULTIPLIER = 2`.
pub(crate) const XET_TARGET: u64 = 64 * 1024;
/// The smallest Xet chunk but the last: target / 8.
pub(crate) const XET_MIN: u64 = XET_TARGET / 8;
/// The largest Xet chunk: target * 2.
pub(crate) const XET_MAX: u64 = XET_TARGET * 2;
/// Xet's cut mask: `(target - 1)` shifted to the top of the word (xet-core `Chunker::new`:
/// `mask << mask.leading_zeros()`), so the top 16 bits of the hash must be zero.
pub(crate) const XET_MASK: u64 = (XET_TARGET - 1) << (XET_TARGET - 1).leading_zeros();

/// A chunker's cut rule with its constants.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rule {
    /// The Xet protocol's chunker.
    Xet,
    /// FastCDC 2020.
    FastCdc {
        /// Smallest chunk but the last.
        min: u64,
        /// Where the mask changes.
        avg: u64,
        /// Largest chunk.
        max: u64,
        /// The mask before `avg` (`FLAG_A` in the candidates).
        mask_s: u64,
        /// The mask from `avg` on (`FLAG_B`).
        mask_l: u64,
    },
}

impl Rule {
    /// The Gear table and the masks the scan reports.
    pub(crate) fn gear(&self) -> Gear {
        match *self {
            Rule::Xet => Gear { table: &XET_GEAR, mask_a: XET_MASK, mask_b: XET_MASK },
            Rule::FastCdc { mask_s, mask_l, .. } => Gear { table: &FASTCDC_GEAR, mask_a: mask_s, mask_b: mask_l },
        }
    }

    /// The largest chunk.
    pub(crate) fn max(&self) -> u64 {
        match *self {
            Rule::Xet => XET_MAX,
            Rule::FastCdc { max, .. } => max,
        }
    }

    /// Whether the cut points follow from the candidates alone (no bytes needed).
    pub(crate) fn needs_data(&self) -> bool {
        matches!(self, Rule::FastCdc { .. })
    }
}

/// Bytes of a file: `data` starts at file offset `base`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bytes<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) base: u64,
}

/// The sequential pass: where the next chunk starts, and how far the candidates were used.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cutter {
    /// File offset where the next chunk starts.
    pub(crate) start: u64,
    /// Index into the candidates of the first one not yet passed.
    pub(crate) cursor: usize,
}

impl Cutter {
    /// Appends to `out` the spans `(offset, len)` of the chunks that the data up to `end`
    /// decides, starting at `self.start`. `candidates` hold every candidate of positions
    /// from `self.start` (at least) to `end`, in order; `end` is the end of the file when
    /// `eof`. For rules that need the bytes, `bytes` holds the file up to `end` (from
    /// `self.start` at least).
    pub(crate) fn cut(
        &mut self,
        rule: &Rule,
        candidates: &[u64],
        end: u64,
        eof: bool,
        bytes: Bytes<'_>,
        out: &mut Vec<(u64, u32)>,
    ) {
        let Bytes { data, base } = bytes;
        let max = rule.max();
        if let Rule::FastCdc { min, avg, max, .. } = *rule {
            self.clone().prefetch_fastcdc(candidates, end, eof, data, base, (min, avg, max));
        }
        loop {
            let s = self.start;
            let avail = end - s;
            if avail == 0 || (avail < max && !eof) {
                return;
            }
            let cut = match *rule {
                Rule::Xet => self.xet_cut(candidates, s, avail),
                Rule::FastCdc { min, avg, max, mask_s, mask_l } => {
                    let rem = avail.min(max);
                    if rem <= min {
                        s + rem
                    } else {
                        let lim1 = avg.min(rem) & !1;
                        let lim2 = rem & !1;
                        let mask = |a: u64| if a < lim1 { mask_s } else { mask_l };
                        // The first positions: the hash restarted at s + min, from the bytes.
                        let exact_end = (min + WINDOW as u64).min(lim2);
                        let mut h = 0u64;
                        let mut found = None;
                        for a in min..exact_end {
                            let byte = data[(s + a - base) as usize];
                            h = (h << 1).wrapping_add(FASTCDC_GEAR[usize::from(byte)]);
                            if h & mask(a) == 0 {
                                found = Some(s + a);
                                break;
                            }
                        }
                        found
                            .or_else(|| self.fastcdc_candidate(candidates, s, s + min + WINDOW as u64, s + lim2, lim1))
                            .unwrap_or(s + rem)
                    }
                }
            };
            out.push((s, (cut - s) as u32));
            self.start = cut;
        }
    }

    /// FastCDC's exact positions (the 64 bytes after each chunk's minimum, re-hashed from
    /// the data) lie a whole window behind the scan, out of the caches: each chunk waited
    /// on a miss before the next could start. This pass guesses the cuts from the
    /// candidates alone (right unless one of those 64 positions matches, which is rare) and
    /// asks for each guessed chunk's bytes ahead, so that the misses overlap; a wrong guess
    /// only wastes a prefetch. Runs on a copy of the cutter.
    fn prefetch_fastcdc(
        mut self,
        candidates: &[u64],
        end: u64,
        eof: bool,
        data: &[u8],
        base: u64,
        (min, avg, max): (u64, u64, u64),
    ) {
        loop {
            let s = self.start;
            let avail = end - s;
            if avail == 0 || (avail < max && !eof) {
                return;
            }
            let rem = avail.min(max);
            if rem <= min {
                self.start = s + rem;
                continue;
            }
            let at = (s + min - base) as usize;
            prefetch(data, at);
            prefetch(data, at + WINDOW - 1);
            let (lim1, lim2) = (avg.min(rem) & !1, rem & !1);
            let guess = self.fastcdc_candidate(candidates, s, s + min + WINDOW as u64, s + lim2, lim1);
            self.start = guess.unwrap_or(s + rem);
        }
    }

    fn xet_cut(&mut self, candidates: &[u64], s: u64, avail: u64) -> u64 {
        // A match at byte p ends the chunk at p + 1, at least MIN bytes from s.
        let first = s + XET_MIN - 1;
        while self.cursor < candidates.len() && position(candidates[self.cursor]) < first {
            self.cursor += 1;
        }
        match candidates.get(self.cursor) {
            Some(&c) if position(c) < s + XET_MAX => position(c) + 1,
            _ if avail >= XET_MAX => s + XET_MAX,
            _ => s + avail,
        }
    }

    /// The first candidate in `from..to` that matches the mask of its place in the chunk.
    fn fastcdc_candidate(&mut self, candidates: &[u64], s: u64, from: u64, to: u64, lim1: u64) -> Option<u64> {
        while self.cursor < candidates.len() && position(candidates[self.cursor]) < from {
            self.cursor += 1;
        }
        candidates[self.cursor..].iter().take_while(|&&c| position(c) < to).find_map(|&c| {
            let p = position(c);
            let flag = if p - s < lim1 { FLAG_A } else { FLAG_B };
            (c & flag != 0).then_some(p)
        })
    }
}

/// Asks for the cache line holding `data[at]`, without waiting for it (a hint only; an
/// index past `data` prefetches nothing useful and harms nothing).
#[inline(always)]
fn prefetch(data: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    crate::simd::prefetch::<0>(data.as_ptr().wrapping_add(at));
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, at);
}
