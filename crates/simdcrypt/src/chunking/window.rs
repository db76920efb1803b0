//! One input chunked a window at a time: [`Progress`], the state carried from one window
//! to the next, shared by the chunk stream (`Stream` in mod.rs), in-memory chunking and the
//! Xet hasher; and, on Linux, the driver that hands it a file's mapped windows.
//!
//! A window holds the input from `base`: the unfinished chunk and the 64 bytes the next scan
//! warms up on (kept from the last window), then new bytes. Each step scans the new bytes,
//! cuts the chunks they decide and hashes them, and moves `base` to what the next window
//! must hold again.
//!
//! ## What this file holds
//!
//! `Progress` and its `step`; `Progress::chunk_mapped` (mapped windows of a file)

use super::scan::{scan_parallel, WINDOW};
use super::select::{Bytes, Cutter, Rule};
use super::{digest_in, Chunk, ChunkDigest, Platform};

/// Where the chunking of one input stands between windows.
#[derive(Clone, Debug)]
pub(crate) struct Progress {
    pub(crate) rule: Rule,
    pub(crate) platform: Platform,
    pub(crate) digest: ChunkDigest,
    /// Threads a window is scanned and hashed on.
    pub(crate) pool: usize,
    /// Input offset of the first byte the next window must start with.
    pub(crate) base: u64,
    /// Input offset up to which every position was scanned.
    pub(crate) scanned: u64,
    /// Candidates of the positions from the next chunk's start to `scanned`.
    candidates: Vec<u64>,
    pub(crate) cutter: Cutter,
}

impl Progress {
    /// At the start of an input.
    pub(crate) fn new(rule: Rule, platform: Platform, digest: ChunkDigest, pool: usize) -> Self {
        Progress::at(0, rule, platform, digest, pool)
    }

    /// With every byte before `offset` chunked (a restored state).
    pub(crate) fn at(offset: u64, rule: Rule, platform: Platform, digest: ChunkDigest, pool: usize) -> Self {
        Progress {
            rule,
            platform,
            digest,
            pool,
            base: offset,
            scanned: offset,
            candidates: Vec::new(),
            cutter: Cutter { start: offset, cursor: 0 },
        }
    }

    /// Chunks one window: `data` is the input from `base` (the bytes before `scanned`
    /// were scanned already), `eof` says it ends the input. Returns the chunks it decides,
    /// hashed, in order, and the index in `data` from which the next window must repeat
    /// its bytes; `base` moves there.
    pub(crate) fn step(&mut self, data: &[u8], eof: bool) -> (Vec<Chunk>, usize) {
        let from = (self.scanned - self.base) as usize;
        let found = scan_parallel(self.platform, &self.rule.gear(), data, from, self.base, self.pool);
        self.candidates.extend_from_slice(&found);
        let end = self.base + data.len() as u64;
        self.scanned = end;
        let mut spans = Vec::new();
        self.cutter.cut(&self.rule, &self.candidates, end, eof, Bytes { data, base: self.base }, &mut spans);
        let chunks =
            if spans.is_empty() { Vec::new() } else { digest_in(data, self.base, &spans, self.digest, self.pool) };
        let keep = self.cutter.start.min(end.saturating_sub(WINDOW as u64)).max(self.base);
        let kept_from = (keep - self.base) as usize;
        self.base = keep;
        self.candidates.drain(..self.cutter.cursor);
        self.cutter.cursor = 0;
        (chunks, kept_from)
    }

    /// Whether every byte of an input of `len` bytes is in a chunk.
    pub(crate) fn finished(&self, len: u64) -> bool {
        self.cutter.start == len
    }

    /// Chunks the file `file` of `len` bytes from `base` on, from read-only windows mapped
    /// one after another, each starting at the first byte not yet chunked (rounded down to
    /// 64 KiB) and reaching `batch` bytes past it (at least a maximum chunk): the chunker reads the page cache's own
    /// pages, with nothing copied and one window resident. `emit` gets each window's chunks.
    /// With `eof`, the file's end ends the input and `Ok(Some)` holds nothing; without, it
    /// holds the bytes from `base` to the end, unchunked (more input may follow). `Ok(None)`:
    /// a window could not be mapped, or no truncation guard could be had, so the caller
    /// reads the rest from `base`. A file truncated meanwhile is an error (`map_guard`),
    /// never a crash.
    #[cfg(all(feature = "mmap", target_os = "linux"))]
    pub(crate) fn chunk_mapped(
        &mut self,
        file: &std::fs::File,
        len: u64,
        eof: bool,
        batch: u64,
        emit: &mut dyn FnMut(Vec<Chunk>),
    ) -> std::io::Result<Option<Vec<u8>>> {
        // Windows start at a multiple of this (a page on every Linux page size).
        const ALIGN: u64 = 1 << 16;
        // Each window reaches a batch, and at least a maximum chunk and the scan's warm-up,
        // past where the last one's unchunked bytes start, so every window cuts a chunk or
        // ends the file.
        let window = batch.max(self.rule.max() + WINDOW as u64) + ALIGN;
        loop {
            let start = self.base / ALIGN * ALIGN;
            let end = (start + window).min(len);
            // SAFETY: the map lives only for this iteration and is read only under the guard
            // below (a truncation meanwhile becomes zero pages and an error).
            let Ok(map) = (unsafe { crate::any::map_populated(file, start, (end - start) as usize, self.pool) }) else {
                // Not mappable (`any::map_read_only`): the caller reads from `base`.
                return Ok(None);
            };
            let Some(guard) = crate::map_guard::Guard::new(&map) else {
                return Ok(None);
            };
            let data = &map[(self.base - start) as usize..];
            let last = end == len;
            let (chunks, kept_from) = self.step(data, last && eof);
            if guard.faulted() {
                return Err(crate::any::truncated());
            }
            emit(chunks);
            if last {
                return Ok(Some(if eof { Vec::new() } else { data[kept_from..].to_vec() }));
            }
        }
    }
}
