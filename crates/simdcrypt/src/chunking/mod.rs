//! Content-defined chunking: the Xet protocol's Gear chunker and FastCDC 2020, chunk
//! digests, and the Xet file hash of the Hugging Face Hub.
//!
//! A content-defined chunker cuts a file where a rolling hash of the last bytes matches a
//! mask, so an edit moves only the cut points near it and an edited or appended file shares
//! most chunks with its old version. Both chunkers here use the Gear hash
//! `h = (h << 1) + table[byte]`, which depends only on the last 64 bytes; the work is split
//! in two so that the cut points never depend on threads, read sizes or partitions:
//!
//! 1. **Scan** (`scan.rs`, kernels behind `platform.rs`): every position whose window hash
//!    matches a mask is a candidate. Segments are scanned in parallel, each starting its
//!    hash 64 bytes early.
//! 2. **Select** (`select.rs`): one sequential pass applies the minimum and maximum chunk
//!    sizes to the candidates (and for FastCDC re-hashes the 64 bytes after each chunk's
//!    minimum size, where its hash has not yet seen a full window).
//!
//! Then the chunks are hashed many at a time ([`ChunkDigest`]); for Xet the chunk hashes
//! and sizes form the Merkle tree whose root gives the file hash (`xet.rs`). Inputs are
//! chunked a window at a time (`window.rs`): memory holds one maximum chunk plus the window
//! of each thread, whatever the file size; on Linux a regular file's windows are mapped
//! rather than read.
//!
//! Across processes (one large file split between Dask workers), [`part_candidates`] runs
//! the scan on one byte range and [`select_cuts`] the selection over all ranges.
//!
//! ```
//! use simdcrypt::chunking::{chunk_slice, xet_file_hash, xet_hash_slice, ChunkDigest, ChunkOptions, Chunker};
//!
//! let data = vec![7u8; 300_000];
//! let opts = ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet);
//! let chunks = chunk_slice(&data, &opts);
//! assert_eq!(chunks.iter().map(|c| u64::from(c.len)).sum::<u64>(), 300_000);
//! assert_eq!(xet_file_hash(&chunks), xet_hash_slice(&data));
//! ```
//!
//! ## What this file holds
//!
//! the public API: `Chunker`, `FastCdcParams`, `ChunkDigest`, `Chunk`, `ChunkOptions`,
//! `chunk_slice`, `chunk_file`, `ChunkReader`, the Xet hash functions, the part functions;
//! and `Stream`, the windowed reader behind the file and reader APIs

mod algorithm;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod interleaved;
mod manifest;
#[cfg(target_arch = "aarch64")]
mod neon;
mod parts;
mod platform;
mod portable;
mod scan;
mod select;
mod tables;
mod window;
mod xet;

use std::collections::VecDeque;
use std::io::Read;
use std::path::Path;

pub use algorithm::{XetHasher, ALGORITHM};
pub use manifest::{
    chunk_manifest_json, chunker_manifest_value, parse_chunk_manifest, ChunkManifest, ChunkManifestError,
};
pub use parts::{digest_spans, part_candidates, select_cuts, PartCandidates, PART_LOOKBACK};
pub use platform::{Kind, Platform};
use select::Rule;
use window::Progress;
pub use xet::{xet_file_hash, xet_merkle_root, XetHash, DATA_KEY, INTERNAL_NODE_KEY};

use crate::threads::Threads;
use crate::Error;

/// The `fastcdc` crate's limits on FastCDC 2020's sizes (`v2020::MINIMUM_MIN` … `MAXIMUM_MAX`).
pub const FASTCDC_MIN_RANGE: (u32, u32) = (64, 1_048_576);
/// The allowed average sizes of FastCDC 2020 (`v2020::AVERAGE_MIN`, `AVERAGE_MAX`).
pub const FASTCDC_AVG_RANGE: (u32, u32) = (256, 4_194_304);
/// The allowed maximum sizes of FastCDC 2020 (`v2020::MAXIMUM_MIN`, `MAXIMUM_MAX`).
pub const FASTCDC_MAX_RANGE: (u32, u32) = (1024, 16_777_216);

/// The parameters of FastCDC 2020, as the `fastcdc` crate's `v2020::FastCDC::with_level`
/// takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastCdcParams {
    /// The smallest chunk but the last, in bytes (even, 64 ..= 1 MiB).
    pub min: u32,
    /// The average ("normal") chunk size, in bytes (even, 256 ..= 4 MiB), where the cut
    /// mask changes.
    pub avg: u32,
    /// The largest chunk, in bytes (even, 1 KiB ..= 16 MiB).
    pub max: u32,
    /// The normalisation level, 0 ..= 3: how many mask bits are added before the average
    /// size and removed after it.
    pub level: u8,
}

impl Default for FastCdcParams {
    /// 16 KiB / 64 KiB / 256 KiB, level 1.
    fn default() -> Self {
        FastCdcParams { min: 16 << 10, avg: 64 << 10, max: 256 << 10, level: 1 }
    }
}

impl FastCdcParams {
    /// Checks the parameters: each within the `fastcdc` crate's limits, even, and
    /// `min <= avg <= max`; the error names the parameter and the allowed range.
    pub fn check(&self) -> Result<(), Error> {
        check_size("minimum", self.min, FASTCDC_MIN_RANGE)?;
        check_size("average", self.avg, FASTCDC_AVG_RANGE)?;
        check_size("maximum", self.max, FASTCDC_MAX_RANGE)?;
        if self.min > self.avg || self.avg > self.max {
            return Err(Error::InvalidArgument(format!(
                "fastcdc2020 sizes must satisfy minimum <= average <= maximum, got {} / {} / {}",
                self.min, self.avg, self.max
            )));
        }
        if self.level > 3 {
            return Err(Error::InvalidArgument(format!(
                "fastcdc2020 normalisation level must be 0, 1, 2 or 3, got {}",
                self.level
            )));
        }
        Ok(())
    }

    /// The parameters for the sizes and level a user gave, checked ([`FastCdcParams::check`]):
    /// without `avg` each missing one is the default's; with `avg`, a missing `min` or
    /// `max` keeps the defaults' ratio to the average (a quarter, four times), rounded down
    /// to even, so that an average alone is a valid choice. The CLI's `chunks` and Python's
    /// `simdcrypt.chunks` take their FastCDC sizes through this one rule.
    pub fn from_sizes(min: Option<u32>, avg: Option<u32>, max: Option<u32>, level: Option<u8>) -> Result<Self, Error> {
        let d = FastCdcParams::default();
        let level = level.unwrap_or(d.level);
        // An average out of range is named as such, not as the minimum scaled from it.
        if let Some(avg) = avg {
            check_size("average", avg, FASTCDC_AVG_RANGE)?;
        }
        let params = match avg {
            None => FastCdcParams { min: min.unwrap_or(d.min), avg: d.avg, max: max.unwrap_or(d.max), level },
            Some(avg) => {
                let scaled = |of: u32| {
                    ((u64::from(of) * u64::from(avg) / u64::from(d.avg)).min(u64::from(u32::MAX)) as u32) & !1
                };
                FastCdcParams {
                    min: min.unwrap_or_else(|| scaled(d.min)),
                    avg,
                    max: max.unwrap_or_else(|| scaled(d.max)),
                    level,
                }
            }
        };
        params.check()?;
        Ok(params)
    }

    /// FastCDC 2020's two masks for these parameters (the `fastcdc` crate's `select_masks`:
    /// the table entry of `round(log2(avg))` plus and minus the level).
    fn masks(&self) -> (u64, u64) {
        let bits = f64::from(self.avg).log2().round() as usize;
        let level = usize::from(self.level);
        (tables::FASTCDC_MASKS[bits + level], tables::FASTCDC_MASKS[bits - level])
    }
}

/// One FastCDC 2020 size checked: within `lo..=hi` and even.
fn check_size(name: &str, value: u32, (lo, hi): (u32, u32)) -> Result<(), Error> {
    if value < lo || value > hi {
        return Err(Error::InvalidArgument(format!(
            "fastcdc2020 {name} size must be between {lo} and {hi} bytes, got {value}"
        )));
    }
    if !value.is_multiple_of(2) {
        return Err(Error::InvalidArgument(format!(
            "fastcdc2020 {name} size must be even (FastCDC 2020 steps two bytes at a time), got {value}"
        )));
    }
    Ok(())
}

/// Which content-defined chunker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chunker {
    /// The Xet protocol's Gear chunker (Hugging Face Hub): chunks of 8 KiB to 128 KiB,
    /// 64 KiB on average.
    Xet,
    /// FastCDC 2020 with these (checked) parameters, cut points equal to the `fastcdc`
    /// crate's `v2020` module.
    FastCdc2020(FastCdcParams),
}

impl Chunker {
    /// `"xet"`, or `"fastcdc2020"` with [`FastCdcParams::default`] (case-insensitive).
    pub fn from_name(name: &str) -> Result<Chunker, Error> {
        match name.trim().to_ascii_lowercase().as_str() {
            "xet" => Ok(Chunker::Xet),
            "fastcdc2020" | "fastcdc" => Ok(Chunker::FastCdc2020(FastCdcParams::default())),
            _ => Err(Error::InvalidArgument(format!("unknown chunker {name:?}; chunkers: xet, fastcdc2020"))),
        }
    }

    /// FastCDC 2020 with these sizes and normalisation level, checked
    /// ([`FastCdcParams::check`]).
    pub fn fastcdc2020(min: u32, avg: u32, max: u32, level: u8) -> Result<Chunker, Error> {
        let params = FastCdcParams { min, avg, max, level };
        params.check()?;
        Ok(Chunker::FastCdc2020(params))
    }

    /// `"xet"` or `"fastcdc2020"`.
    pub fn name(&self) -> &'static str {
        match self {
            Chunker::Xet => "xet",
            Chunker::FastCdc2020(_) => "fastcdc2020",
        }
    }

    /// The smallest chunk but a file's last.
    pub fn min_len(&self) -> u32 {
        match self {
            Chunker::Xet => select::XET_MIN as u32,
            Chunker::FastCdc2020(p) => p.min,
        }
    }

    /// The largest chunk.
    pub fn max_len(&self) -> u32 {
        match self {
            Chunker::Xet => select::XET_MAX as u32,
            Chunker::FastCdc2020(p) => p.max,
        }
    }

    /// The cut rule; parameters built by hand (not through [`Chunker::fastcdc2020`]) are
    /// checked here.
    fn rule(&self) -> Result<Rule, Error> {
        match *self {
            Chunker::Xet => Ok(Rule::Xet),
            Chunker::FastCdc2020(p) => {
                p.check()?;
                let (mask_s, mask_l) = p.masks();
                Ok(Rule::FastCdc { min: p.min.into(), avg: p.avg.into(), max: p.max.into(), mask_s, mask_l })
            }
        }
    }
}

/// What each chunk is hashed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkDigest {
    /// No digest: `Chunk::digest` is all zeros.
    None,
    /// The Xet chunk hash: BLAKE3 keyed with the protocol's [`DATA_KEY`].
    Xet,
    /// Plain BLAKE3.
    Blake3,
    /// SHA-256.
    Sha256,
}

impl ChunkDigest {
    /// `"none"`, `"xet"`, `"blake3"` or `"sha256"` (case-insensitive).
    pub fn from_name(name: &str) -> Result<Self, Error> {
        match name.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(ChunkDigest::None),
            "xet" => Ok(ChunkDigest::Xet),
            "blake3" => Ok(ChunkDigest::Blake3),
            "sha256" | "sha-256" => Ok(ChunkDigest::Sha256),
            _ => Err(Error::InvalidArgument(format!(
                "unknown chunk digest {name:?}; chunk digests: none, xet, blake3, sha256"
            ))),
        }
    }

    /// `"none"`, `"xet"`, `"blake3"` or `"sha256"`.
    pub fn name(&self) -> &'static str {
        match self {
            ChunkDigest::None => "none",
            ChunkDigest::Xet => "xet",
            ChunkDigest::Blake3 => "blake3",
            ChunkDigest::Sha256 => "sha256",
        }
    }

    /// Writes the digests of `messages` into `out`, 32 bytes each, on up to `pool` threads.
    fn hash_into(self, messages: &[&[u8]], pool: usize, out: &mut [u8]) {
        let threads = if pool > 1 { Threads::Max(pool) } else { Threads::One };
        match self {
            ChunkDigest::None => out.fill(0),
            ChunkDigest::Xet => xet::chunk_hashes(messages, threads, out),
            ChunkDigest::Blake3 => crate::blake3::Batch::new(crate::blake3::Mode::Hash)
                .set_max_threads(threads)
                .hash_into(messages, 32, out)
                .expect("the output holds 32 bytes per message"),
            ChunkDigest::Sha256 => crate::threads::split_messages(messages, out, 32, threads, 64, &|part, part_out| {
                for (m, o) in part.iter().zip(part_out.chunks_exact_mut(32)) {
                    o.copy_from_slice(&crate::sha256::hash(m));
                }
            }),
        }
    }
}

/// One chunk: where it starts in the file, its length, and its digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Offset of its first byte in the file.
    pub offset: u64,
    /// Its length in bytes (at most [`Chunker::max_len`]).
    pub len: u32,
    /// Its digest ([`ChunkOptions::digest`]); all zeros for [`ChunkDigest::None`].
    pub digest: [u8; 32],
}

/// How to chunk: the chunker, the chunk digest, and how many threads may work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkOptions {
    /// Where to cut.
    pub chunker: Chunker,
    /// What each chunk is hashed with.
    pub digest: ChunkDigest,
    /// How many threads may scan and hash; the result never depends on it.
    pub threads: Threads,
    /// The Gear-scan kernels; `None` for the best this CPU has.
    pub platform: Option<Platform>,
}

impl ChunkOptions {
    /// These chunker and digest, one thread, the detected kernels.
    pub fn new(chunker: Chunker, digest: ChunkDigest) -> Self {
        ChunkOptions { chunker, digest, threads: Threads::One, platform: None }
    }

    fn platform(&self) -> Platform {
        self.platform.unwrap_or_else(Platform::detect)
    }
}

/// Each thread reads and scans this much of a file per window.
const WINDOW_PER_THREAD: usize = 8 << 20;

/// Chunks `data` (a whole file). Panics only if `opts.chunker` holds FastCDC parameters
/// that [`FastCdcParams::check`] rejects; use [`try_chunk_slice`] to get that as an error.
pub fn chunk_slice(data: &[u8], opts: &ChunkOptions) -> Vec<Chunk> {
    try_chunk_slice(data, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Chunks `data` (a whole file); an error for FastCDC parameters out of range. Scans a
/// window at a time (one read window per thread), so the candidates held stay few whatever
/// the size of `data`.
pub fn try_chunk_slice(data: &[u8], opts: &ChunkOptions) -> Result<Vec<Chunk>, Error> {
    let pool = opts.threads.pool_size(data.len());
    chunk_slice_windowed(data, opts, pool, WINDOW_PER_THREAD * pool)
}

/// [`try_chunk_slice`] scanning `window` bytes at a time (tests use small ones).
fn chunk_slice_windowed(data: &[u8], opts: &ChunkOptions, pool: usize, window: usize) -> Result<Vec<Chunk>, Error> {
    let mut progress = Progress::new(opts.chunker.rule()?, opts.platform(), opts.digest, pool);
    let mut out = Vec::new();
    loop {
        let end = (progress.scanned as usize + window).min(data.len());
        let eof = end == data.len();
        out.extend(progress.step(&data[progress.base as usize..end], eof).0);
        if eof {
            return Ok(out);
        }
    }
}

/// The chunks of `spans`, which lie in `data` (file bytes from offset `base`), hashed.
fn digest_in(data: &[u8], base: u64, spans: &[(u64, u32)], digest: ChunkDigest, pool: usize) -> Vec<Chunk> {
    let messages: Vec<&[u8]> =
        spans.iter().map(|&(offset, len)| &data[(offset - base) as usize..][..len as usize]).collect();
    let mut out = vec![0u8; 32 * spans.len()];
    digest.hash_into(&messages, pool, &mut out);
    spans
        .iter()
        .zip(out.chunks_exact(32))
        .map(|(&(offset, len), d)| Chunk { offset, len, digest: d.try_into().expect("32 bytes") })
        .collect()
}

/// Chunks the file at `path`, reading it a window at a time. An error if it cannot be
/// read, or shrinks while it is read.
pub fn chunk_file(path: &Path, opts: &ChunkOptions) -> Result<Vec<Chunk>, Error> {
    let mut out = Vec::new();
    for_each_file_batch(path, opts, |batch| out.extend_from_slice(batch))?;
    Ok(out)
}

/// Runs `f` on each window's chunks of the file at `path`, in order. On Linux a regular
/// file of 1 MiB or more is chunked in place from mapped windows
/// ([`Progress::chunk_mapped`]), anything else read a window at a time.
fn for_each_file_batch(
    path: &Path,
    opts: &ChunkOptions,
    #[cfg_attr(not(all(feature = "mmap", target_os = "linux")), allow(unused_mut))] mut f: impl FnMut(&[Chunk]),
) -> Result<(), Error> {
    let file = std::fs::File::open(path).map_err(|e| io_error(path, &e))?;
    let meta = file.metadata().map_err(|e| io_error(path, &e))?;
    let size = meta.len();
    let pool = opts.threads.pool_size(usize::try_from(size).unwrap_or(usize::MAX));
    #[cfg_attr(not(all(feature = "mmap", target_os = "linux")), allow(unused_mut))]
    let mut progress = Progress::new(opts.chunker.rule()?, opts.platform(), opts.digest, pool);
    #[cfg(all(feature = "mmap", target_os = "linux"))]
    if meta.is_file() && size >= crate::any::MMAP_MIN_LEN {
        let batch = (WINDOW_PER_THREAD * pool) as u64;
        match progress.chunk_mapped(&file, size, true, batch, &mut |chunks| f(&chunks)) {
            Ok(Some(_)) => return Ok(()),
            // Not mappable, or no guard to be had (every slot busy): read the rest from
            // where it stopped.
            Ok(None) => {}
            Err(e) => return Err(io_error(path, &e)),
        }
    }
    let mut file = file;
    // Only a mapped file stops part way; anything else (a pipe too) is read from the start.
    if progress.base != 0 {
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(progress.base)).map_err(|e| io_error(path, &e))?;
    }
    Stream::resume(file, progress, Some(size), WINDOW_PER_THREAD * pool).each_batch(f).map_err(|e| io_error(path, &e))
}

fn io_error(path: &Path, e: &std::io::Error) -> Error {
    Error::Io { kind: e.kind(), message: format!("{}: {e}", path.display()) }
}

/// The Xet file hash of `data`: what `hf_xet.hash_files` gives a file with these bytes.
pub fn xet_hash_slice(data: &[u8]) -> XetHash {
    xet_file_hash(&chunk_slice(data, &ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet)))
}

/// The Xet file hash of the file at `path` (its `xetHash` on the Hub) on up to `threads`
/// threads: on Linux a regular file of 1 MiB or more is chunked in place from mapped
/// windows, anything else read a window at a time. An error if the file cannot be read or
/// shrinks while it is read.
pub fn xet_hash_file(path: &Path, threads: Threads) -> Result<XetHash, Error> {
    let mut opts = ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet);
    opts.threads = threads;
    let mut tree = xet::XetTree::default();
    for_each_file_batch(path, &opts, |batch| batch.iter().for_each(|c| tree.push_leaf(c.digest, u64::from(c.len))))?;
    Ok(tree.file_hash())
}

/// A reader chunked a window at a time: the input from `progress.base` is in
/// `buf[..filled]`.
struct Stream<R> {
    reader: R,
    progress: Progress,
    buf: Vec<u8>,
    filled: usize,
    eof: bool,
    expected_len: Option<u64>,
}

impl<R: Read> Stream<R> {
    fn new(reader: R, opts: &ChunkOptions, pool: usize, expected_len: Option<u64>) -> Result<Self, Error> {
        Self::with_window(reader, opts, pool, expected_len, WINDOW_PER_THREAD * pool)
    }

    /// [`Stream::new`] reading `window` bytes at a time (tests use small ones).
    fn with_window(
        reader: R,
        opts: &ChunkOptions,
        pool: usize,
        expected_len: Option<u64>,
        window: usize,
    ) -> Result<Self, Error> {
        let progress = Progress::new(opts.chunker.rule()?, opts.platform(), opts.digest, pool);
        Ok(Self::resume(reader, progress, expected_len, window))
    }

    /// Goes on with `progress`, `reader` being at its `base`; `expected_len` is the whole
    /// input's.
    fn resume(reader: R, progress: Progress, expected_len: Option<u64>, window: usize) -> Self {
        // A file smaller than the window gets a buffer of its size.
        // (At least a page: files under /proc report a size of 0 and are not empty.)
        let cap = expected_len.map_or(window, |len| window.min(usize::try_from(len).unwrap_or(usize::MAX).max(4096)));
        let len = cap + progress.rule.max() as usize + scan::WINDOW;
        Stream { reader, progress, buf: vec![0; len], filled: 0, eof: false, expected_len }
    }

    /// The next chunks (several, in order), or none at the end.
    fn next_batch(&mut self) -> std::io::Result<Vec<Chunk>> {
        loop {
            if self.eof && self.progress.finished(self.progress.base + self.filled as u64) {
                return Ok(Vec::new());
            }
            self.fill()?;
            let (chunks, kept_from) = self.progress.step(&self.buf[..self.filled], self.eof);
            // Only the unfinished chunk and the next scan's 64 bytes of warm-up stay.
            self.buf.copy_within(kept_from..self.filled, 0);
            self.filled -= kept_from;
            if !chunks.is_empty() {
                return Ok(chunks);
            }
        }
    }

    /// Runs `f` on each batch of chunks to the end of the input, in order.
    fn each_batch(&mut self, mut f: impl FnMut(&[Chunk])) -> std::io::Result<()> {
        loop {
            let batch = self.next_batch()?;
            if batch.is_empty() {
                return Ok(());
            }
            f(&batch);
        }
    }

    /// Reads until the buffer is full or the reader ends; checks the length at the end.
    fn fill(&mut self) -> std::io::Result<()> {
        while !self.eof && self.filled < self.buf.len() {
            match self.reader.read(&mut self.buf[self.filled..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if self.eof {
            let total = self.progress.base + self.filled as u64;
            if let Some(expected) = self.expected_len {
                if total < expected {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!("the file shrank while it was read: {expected} bytes expected, {total} read"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Chunks a reader as it is read: yields chunks in order, holding one maximum chunk and one
/// read window per thread whatever the input's size.
pub struct ChunkReader<R: Read> {
    stream: Result<Stream<R>, Option<Error>>,
    ready: VecDeque<Chunk>,
}

impl<R: Read> ChunkReader<R> {
    /// Chunks `reader` with `opts`. Parameters out of range come out as the first item's error.
    pub fn new(reader: R, opts: ChunkOptions) -> Self {
        let pool = opts.threads.pool_size(usize::MAX);
        ChunkReader { stream: Stream::new(reader, &opts, pool, None).map_err(Some), ready: VecDeque::new() }
    }
}

impl<R: Read> std::fmt::Debug for ChunkReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = self.stream.as_ref().map(|s| s.progress.cutter.start).ok();
        f.debug_struct("ChunkReader").field("next_offset", &at).field("ready", &self.ready.len()).finish()
    }
}

impl<R: Read> Iterator for ChunkReader<R> {
    type Item = Result<Chunk, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(chunk) = self.ready.pop_front() {
            return Some(Ok(chunk));
        }
        let stream = match &mut self.stream {
            Ok(stream) => stream,
            Err(e) => return e.take().map(Err),
        };
        match stream.next_batch() {
            Ok(batch) => {
                self.ready.extend(batch);
                self.ready.pop_front().map(Ok)
            }
            Err(e) => {
                let e = Error::Io { kind: e.kind(), message: e.to_string() };
                self.stream = Err(None);
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift64;

    #[test]
    fn tables_are_the_crates_tables() {
        assert_eq!(tables::XET_GEAR, gearhash::DEFAULT_TABLE);
        assert_eq!(tables::FASTCDC_MASKS, fastcdc::v2020::MASKS);
        assert_eq!(select::XET_MASK, 0xffff_0000_0000_0000);
        for level in 0..=3u8 {
            let p = FastCdcParams { min: 64, avg: 6000, max: 1 << 20, level };
            let l = [
                fastcdc::v2020::Normalization::Level0,
                fastcdc::v2020::Normalization::Level1,
                fastcdc::v2020::Normalization::Level2,
                fastcdc::v2020::Normalization::Level3,
            ][usize::from(level)];
            assert_eq!(p.masks(), fastcdc::v2020::select_masks(6000, l));
        }
    }

    /// Small read windows put window edges everywhere: the chunks must not move.
    #[test]
    fn window_edges_do_not_move_cuts() {
        let mut rng = XorShift64::new(77);
        let mut data = vec![0u8; 1_500_000];
        rng.fill(&mut data);
        // Runs of zeros and a short period, where candidates crowd or vanish.
        data[200_000..400_000].fill(0);
        for (i, b) in data.iter_mut().enumerate().take(800_000).skip(600_000) {
            *b = (i % 61) as u8;
        }
        for chunker in [
            Chunker::Xet,
            Chunker::fastcdc2020(64, 256, 1024, 3).unwrap(),
            Chunker::fastcdc2020(8192, 32768, 131072, 1).unwrap(),
        ] {
            let opts = ChunkOptions::new(chunker, ChunkDigest::Blake3);
            let reference = chunk_slice(&data, &opts);
            for window in [1usize, 63, 64, 65, 4096, 65_537, 300_000] {
                for pool in [1, 3] {
                    let mut stream =
                        Stream::with_window(&data[..], &opts, pool, Some(data.len() as u64), window).unwrap();
                    let mut got = Vec::new();
                    stream.each_batch(|batch| got.extend_from_slice(batch)).unwrap();
                    assert_eq!(got, reference, "{} window {window} pool {pool}", chunker.name());
                    let sliced = chunk_slice_windowed(&data, &opts, pool, window).unwrap();
                    assert_eq!(sliced, reference, "{} slice window {window} pool {pool}", chunker.name());
                }
            }
        }
    }

    /// The window driver of file chunking: mapped windows of any batch size (with the
    /// file's end as the input's end, or not), and a chunk stream resumed from a progress
    /// left anywhere (what a file falls back to when it cannot be mapped further), all equal
    /// the whole-slice chunks.
    #[test]
    fn mapped_windows_and_resumed_streams_equal_the_slice() {
        let mut rng = XorShift64::new(7);
        let mut data = vec![0u8; 1_300_000];
        rng.fill(&mut data);
        data[300_000..420_000].fill(0);
        for (i, b) in data.iter_mut().enumerate().take(900_000).skip(700_000) {
            *b = (i % 61) as u8;
        }
        let path = std::env::temp_dir().join(format!("simdcrypt-windows-{}.bin", std::process::id()));
        std::fs::write(&path, &data).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        for chunker in [Chunker::Xet, Chunker::fastcdc2020(2048, 8192, 65_536, 2).unwrap()] {
            let opts = ChunkOptions::new(chunker, ChunkDigest::Blake3);
            let reference = chunk_slice(&data, &opts);
            let fresh = |pool| Progress::new(chunker.rule().unwrap(), opts.platform(), opts.digest, pool);
            #[cfg(all(feature = "mmap", target_os = "linux"))]
            for batch in [1u64, 65_536, 200_001, 1 << 20, 8 << 20] {
                for (pool, eof) in [(1, true), (3, true), (1, false), (2, false)] {
                    let mut progress = fresh(pool);
                    let mut got = Vec::new();
                    let tail = progress
                        .chunk_mapped(&file, data.len() as u64, eof, batch, &mut |c| got.extend(c))
                        .unwrap()
                        .expect("a guard");
                    assert_eq!(tail.is_empty(), eof);
                    if !eof {
                        got.extend(progress.step(&tail, true).0);
                    }
                    assert_eq!(got, reference, "{} batch {batch} pool {pool} eof {eof}", chunker.name());
                }
            }
            for stop in [0usize, 1, 5_000, 299_999, 700_000, 1_299_999, 1_300_000] {
                let mut progress = fresh(1);
                let mut got = progress.step(&data[..stop], stop == data.len()).0;
                let rest = &data[progress.base as usize..];
                let mut stream = Stream::resume(rest, progress, Some(data.len() as u64), 100_000);
                stream.each_batch(|batch| got.extend_from_slice(batch)).unwrap();
                assert_eq!(got, reference, "{} resumed after {stop}", chunker.name());
            }
        }
        std::fs::remove_file(&path).ok();
    }

    /// Every scan kernel against portable, with masks loose enough for candidates every few
    /// bytes (both flags, one flag), at every start and length around the lane layout.
    #[test]
    fn every_scan_kernel_equals_portable() {
        let mut rng = XorShift64::new(99);
        let mut data = vec![0u8; 40_000];
        rng.fill(&mut data);
        data[20_000..22_000].fill(0);
        let gears = [
            scan::Gear { table: &tables::XET_GEAR, mask_a: 0xe000_0000_0000_0000, mask_b: 0xe000_0000_0000_0000 },
            scan::Gear { table: &tables::FASTCDC_GEAR, mask_a: 0x0000_0000_0000_0f00, mask_b: 0x0000_0000_0300_0000 },
            Rule::Xet.gear(),
        ];
        let platforms = Platform::all_supported();
        let names: Vec<&str> = platforms.iter().map(|p| p.name()).collect();
        println!("every_scan_kernel_equals_portable: gear backends exercised: {}", names.join(", "));
        let mut lens: Vec<usize> = vec![0, 1, 63, 64, 65, 127, 128, 129, 200, 1000, 1024 + 64, 4095, 40_000];
        lens.extend((0..30).map(|_| (rng.next_u64() % 40_000) as usize));
        for gear in &gears {
            for &len in &lens {
                for from in [0usize, 1, 63, 64, 65, 100, len / 2, len.saturating_sub(1), len] {
                    let from = from.min(len);
                    let mut reference = Vec::new();
                    portable::scan(gear, &data[..len], from, 1000, &mut reference);
                    for &p in &platforms {
                        let mut got = Vec::new();
                        p.scan(gear, &data[..len], from, 1000, &mut got);
                        assert_eq!(
                            got,
                            reference,
                            "{} len {len} from {from} masks {:x} {:x}",
                            p.name(),
                            gear.mask_a,
                            gear.mask_b
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_shrinking_input_is_an_error() {
        let opts = ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet);
        let mut stream = Stream::new(&[1u8; 1000][..], &opts, 1, Some(2000)).unwrap();
        let err = stream.next_batch().unwrap_err();
        assert!(err.to_string().contains("shrank"), "{err}");
    }

    #[test]
    fn xet_hex_is_four_little_endian_words() {
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = i as u8;
        }
        let hex = XetHash(bytes).to_hex();
        assert_eq!(&hex[..16], "0706050403020100");
        assert_eq!(&hex[48..], "1f1e1d1c1b1a1918");
        assert_eq!(XetHash::from_hex(&hex.to_uppercase()).unwrap(), XetHash(bytes));
        assert!(XetHash::from_hex(&hex[1..]).is_err());
        assert!(XetHash::from_hex(&format!("{}g", &hex[1..])).is_err());
    }
}
