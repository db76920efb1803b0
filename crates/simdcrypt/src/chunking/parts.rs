//! Exact chunking across processes: each worker scans only its own byte range, one cheap
//! pass over all ranges' results chooses the cut points, and each worker then hashes the
//! chunks that start in its range.
//!
//! A range `[start, end)` needs its bytes plus the [`PART_LOOKBACK`] bytes before `start`
//! (the Gear hash's window); its result is the list of candidate cut points, about one per
//! 64 KiB for Xet. [`select_cuts`] applies the size rules to the concatenated lists and gets
//! exactly the cut points of [`chunk_file`](super::chunk_file). Only Xet works this way: FastCDC
//! 2020 restarts its hash at each chunk's minimum size, so its cut points need the bytes
//! there, which the selecting pass does not have.
//!
//! ## What this file holds
//!
//! `PartCandidates`, `part_candidates`, `select_cuts`, `digest_spans`

use super::scan::{position, scan_parallel, FLAG_A, FLAG_B};
use super::select::{Bytes, Cutter, Rule};
use super::{digest_in, Chunk, ChunkDigest, Chunker, Platform};
use crate::threads::Threads;
use crate::Error;

/// How many bytes before its range a part's worker must read (fewer at the file's start).
pub const PART_LOOKBACK: u64 = super::scan::WINDOW as u64;

/// What a worker found in its byte range: small, plain data to send to the selecting pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartCandidates {
    /// The range's first byte (file offset).
    pub start: u64,
    /// One past the range's last byte.
    pub end: u64,
    /// Candidate cut points in `start + 1 ..= end`, increasing: offsets where a chunk
    /// may end.
    pub candidates: Vec<u64>,
}

fn xet_only(chunker: &Chunker) -> Result<Rule, Error> {
    match chunker {
        Chunker::Xet => Ok(Rule::Xet),
        other => Err(Error::InvalidArgument(format!(
            "{} cannot be chunked in separate parts (its hash restarts at each chunk's minimum size, \
             so cut points need the bytes there); use chunk_file, or the xet chunker",
            other.name()
        ))),
    }
}

/// Scans one range `[start, end)` of a file. `data` holds the file's bytes from offset
/// `data_offset`, covering `[start - min(start, PART_LOOKBACK), end)`.
pub fn part_candidates(
    data: &[u8],
    data_offset: u64,
    start: u64,
    end: u64,
    chunker: &Chunker,
    threads: Threads,
) -> Result<PartCandidates, Error> {
    let rule = xet_only(chunker)?;
    let need_from = start - start.min(PART_LOOKBACK);
    let data_end = data_offset + data.len() as u64;
    if start > end || data_offset > need_from || data_end < end {
        return Err(Error::InvalidArgument(format!(
            "part [{start}, {end}) needs the file's bytes [{need_from}, {end}), got [{data_offset}, {data_end})"
        )));
    }
    let view = &data[..(end - data_offset) as usize];
    let pool = threads.pool_size(view.len());
    let found =
        scan_parallel(Platform::detect(), &rule.gear(), view, (start - data_offset) as usize, data_offset, pool);
    Ok(PartCandidates { start, end, candidates: found.into_iter().map(|c| position(c) + 1).collect() })
}

/// The chunks `(offset, len)` of the whole file, from the parts of every range in file
/// order (the first starting at 0, each starting where the one before ends; the last ends
/// the file): exactly the chunks [`chunk_file`](super::chunk_file) finds.
pub fn select_cuts(chunker: &Chunker, parts: &[PartCandidates]) -> Result<Vec<(u64, u32)>, Error> {
    let rule = xet_only(chunker)?;
    let mut expected_start = 0;
    let mut candidates = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if part.start != expected_start || part.end < part.start {
            return Err(Error::InvalidArgument(format!(
                "part {i} covers [{}, {}), expected a range starting at {expected_start}",
                part.start, part.end
            )));
        }
        let mut last = part.start;
        for &c in &part.candidates {
            if c <= last || c > part.end {
                return Err(Error::InvalidArgument(format!(
                    "part {i} [{}, {}): candidate {c} is out of order or outside the range",
                    part.start, part.end
                )));
            }
            last = c;
            candidates.push(((c - 1) << 2) | FLAG_A | FLAG_B);
        }
        expected_start = part.end;
    }
    debug_assert!(!rule.needs_data());
    let mut spans = Vec::new();
    Cutter::default().cut(&rule, &candidates, expected_start, true, Bytes { data: &[], base: 0 }, &mut spans);
    Ok(spans)
}

/// Hashes the chunks `spans` (from [`select_cuts`]) that lie in `data`, the file's bytes
/// from offset `data_offset`.
pub fn digest_spans(
    data: &[u8],
    data_offset: u64,
    spans: &[(u64, u32)],
    digest: ChunkDigest,
    threads: Threads,
) -> Result<Vec<Chunk>, Error> {
    let data_end = data_offset + data.len() as u64;
    if let Some(&(offset, len)) = spans.iter().find(|&&(o, l)| o < data_offset || o + u64::from(l) > data_end) {
        return Err(Error::InvalidArgument(format!(
            "chunk [{offset}, {}) lies outside the bytes given, [{data_offset}, {data_end})",
            offset + u64::from(len)
        )));
    }
    let pool = threads.pool_size(data.len());
    Ok(digest_in(data, data_offset, spans, digest, pool))
}
