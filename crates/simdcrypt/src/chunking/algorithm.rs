//! The Xet file hash as a registry algorithm (`sum -a xet`, `check`, `hash_file("xet")`):
//! [`XetHasher`], a [`StreamingHash`](crate::streaming::StreamingHash) that chunks and hashes as bytes arrive.
//!
//! The digest bytes are the Xet hash as xet-core prints it (each group of 8 bytes
//! reversed, see `xet.rs`), so the ordinary hex of the digest is the Hub's `xetHash`. The
//! hasher holds at most one maximum chunk plus one batch of input (two batches while its
//! reader path runs on several threads, reading one while hashing the other; one mapped
//! window instead for a regular file, `window.rs`), and the Merkle tree's unfinished
//! groups; its state (`export`) is those bytes and groups.
//!
//! ## What this file holds
//!
//! `ALGORITHM` (the `xet` registry entry), `XetHasher` with its `StreamingHash` and
//! `export`/`restore`

use super::scan::WINDOW;
use super::select::{Rule, XET_MAX};
use super::window::Progress;
use super::xet::{XetHash, XetTree};
use super::{ChunkDigest, Kind, Platform};
use crate::any::HashOptions;
use crate::backend::{BackendReport, Kernels};
use crate::registry::{Algorithm, KeyUse, ReferenceTool};
use crate::state::{self, Writer};
use crate::threads::Threads;
use crate::Error;

/// The Xet file hash (Hugging Face Hub `xetHash`, `hf_xet.hash_files`).
pub static ALGORITHM: Algorithm = Algorithm {
    name: "xet",
    aliases: &["xethash"],
    bsd_label: "XET",
    reference_tool: ReferenceTool::Coreutils,
    digest_len: 32,
    block_len: 64,
    xof: false,
    key: KeyUse::None,
    key_name: "key",
    keyed_alternative: "",
    derive_key: false,
    threads: true,
    printed_reversed: false,
    backend_family: Kind::ALGORITHM,
    backends: BackendReport::of::<Kind>,
    new: |opts| Ok(Box::new(XetHasher::from_options(opts)?)),
    hash_many: |opts, messages, out| crate::registry::hash_many_sequential(&ALGORITHM, opts, messages, out),
    restore: |blob, key| Ok(Box::new(XetHasher::restore(blob, key)?)),
};

/// Input gathered per thread before a scan: large enough that scans and batch hashes are
/// long, small next to memory.
const BATCH_PER_THREAD: usize = 8 << 20;
/// The most pending bytes a state carries: `export` first cuts every chunk it can, so
/// fewer than one maximum chunk are left.
const MAX_PENDING: u64 = XET_MAX;
/// The largest file offset a state may carry (its offset plus its pending bytes): a file
/// offset fits an `off_t`, and from there the hasher's offset arithmetic (a chunk's end
/// is its start plus at most `XET_MAX`) cannot pass `u64::MAX` however much input follows.
const MAX_OFFSET: u64 = i64::MAX as u64;
const NAME: &str = "xet";

/// The Xet file hash, computed as bytes arrive.
#[derive(Clone, Debug)]
pub struct XetHasher {
    /// Input from file offset `progress.base`.
    buf: Vec<u8>,
    /// The chunker's state; its `pool` is the threads a batch is scanned and hashed on
    /// (`threads` resolved).
    progress: Progress,
    tree: XetTree,
    threads: Threads,
}

impl Default for XetHasher {
    fn default() -> Self {
        XetHasher::new()
    }
}

impl XetHasher {
    /// A hasher with the detected Gear-scan kernels and one thread.
    pub fn new() -> Self {
        XetHasher {
            buf: Vec::new(),
            progress: Progress::new(Rule::Xet, Platform::detect(), ChunkDigest::Xet, 1),
            tree: XetTree::default(),
            threads: Threads::One,
        }
    }

    /// A hasher with the options' backend and threads; a key or context is an error.
    pub fn from_options(opts: &HashOptions) -> Result<Self, Error> {
        let named = ALGORITHM.named_backend::<Kind>(opts)?;
        let mut h = XetHasher::new();
        if let Some(platform) = named {
            h.progress.platform = platform;
        }
        h.threads = opts.threads;
        // Auto: every CPU, as for any input of unknown length.
        h.progress.pool = opts.threads.pool_size(usize::MAX);
        Ok(h)
    }

    /// The bytes a batch gathers before it is scanned.
    fn batch(&self) -> usize {
        BATCH_PER_THREAD * self.progress.pool
    }

    /// The buffered bytes not yet scanned.
    fn unscanned(&self) -> usize {
        self.buf.len() - (self.progress.scanned - self.progress.base) as usize
    }

    /// Adds input.
    pub fn update(&mut self, mut data: &[u8]) -> &mut Self {
        let batch = self.batch();
        while !data.is_empty() {
            let room = batch.saturating_sub(self.unscanned()).max(1);
            let (now, rest) = data.split_at(room.min(data.len()));
            self.buf.extend_from_slice(now);
            data = rest;
            if self.unscanned() >= batch {
                self.process(false);
            }
        }
        self
    }

    /// Adds everything `reader` yields, read straight into the batch buffer (no copy through
    /// a read buffer of the caller's, and only a batch resident however large the file).
    /// With more than one thread, the next batch is read while the last one is scanned and
    /// hashed (two buffers in turn).
    pub fn update_reader(&mut self, reader: &mut dyn std::io::Read) -> std::io::Result<u64> {
        if self.progress.pool > 1 {
            return self.update_reader_overlapped(reader);
        }
        let batch = self.batch();
        let mut total = 0u64;
        loop {
            let room = batch.saturating_sub(self.unscanned()).max(1);
            self.buf.reserve_exact(room);
            // `read_to_end` fills the spare capacity without zeroing it first.
            let n = std::io::Read::read_to_end(&mut std::io::Read::take(&mut *reader, room as u64), &mut self.buf)?;
            total += n as u64;
            if n == 0 {
                return Ok(total);
            }
            if self.unscanned() >= batch {
                self.process(false);
            }
        }
    }

    /// [`XetHasher::update_reader`] on two buffers: while a scoped thread scans and hashes
    /// one batch (on the pool), this thread reads the next into the other, after a gap
    /// left for the bytes the batch leaves unchunked (under one maximum chunk), which are
    /// copied in front of it once the batch is done. Reading from the page cache is a copy
    /// that would otherwise leave the pool idle. Two batches are resident instead of one.
    fn update_reader_overlapped(&mut self, reader: &mut dyn std::io::Read) -> std::io::Result<u64> {
        // What the batch buffer holds is chunked first, so that under a maximum chunk (and
        // the 64 bytes before the unscanned ones) is carried into the first buffer.
        self.process(false);
        let gap = XET_MAX as usize + WINDOW;
        let batch = self.batch();
        let mut carried = std::mem::take(&mut self.buf);
        let mut current = vec![0u8; gap + batch];
        let mut next = vec![0u8; gap + batch];
        let mut total = 0u64;
        let mut read = crate::read_full(reader, &mut current[gap..]);
        loop {
            let n = match read {
                Ok(n) => n,
                Err(e) => {
                    self.buf = carried;
                    return Err(e);
                }
            };
            total += n as u64;
            if n == 0 {
                self.buf = carried;
                return Ok(total);
            }
            // The carried bytes go right before the new ones; should they ever exceed the
            // gap, the two are joined by a copy instead.
            let data: std::borrow::Cow<'_, [u8]> = if carried.len() <= gap {
                current[gap - carried.len()..gap].copy_from_slice(&carried);
                std::borrow::Cow::Borrowed(&current[gap - carried.len()..gap + n])
            } else {
                std::borrow::Cow::Owned([&carried[..], &current[gap..gap + n]].concat())
            };
            let (kept_from, next_read) = std::thread::scope(|scope| {
                let worker = scope.spawn(|| self.process_slice(&data, false));
                let next_read = crate::read_full(reader, &mut next[gap..]);
                (worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), next_read)
            });
            carried.clear();
            carried.extend_from_slice(&data[kept_from..]);
            drop(data);
            std::mem::swap(&mut current, &mut next);
            read = next_read;
        }
    }

    /// Adds the whole file `file` (`len` bytes) from mapped windows
    /// ([`Progress::chunk_mapped`]): the chunker works on the page cache's own pages (the
    /// copy out of the page cache was a third of a one-thread hash), one window resident.
    /// Returns `None` (the caller reads instead) unless the hasher is fresh; a file
    /// truncated meanwhile is an error, never a crash.
    #[cfg(all(feature = "mmap", target_os = "linux"))]
    pub(crate) fn update_file_mapped(&mut self, file: &std::fs::File, len: u64) -> Option<std::io::Result<u64>> {
        if self.progress.base != 0 || self.progress.scanned != 0 || !self.buf.is_empty() {
            return None;
        }
        let batch = self.batch() as u64;
        let tree = &mut self.tree;
        let mut emit =
            |chunks: Vec<super::Chunk>| chunks.iter().for_each(|c| tree.push_leaf(c.digest, u64::from(c.len)));
        Some(match self.progress.chunk_mapped(file, len, false, batch, &mut emit) {
            Ok(Some(rest)) => {
                self.buf = rest;
                Ok(len)
            }
            // Not mappable, or no guard to be had (every slot busy): read the rest instead.
            Ok(None) => self.read_rest(file, len),
            Err(e) => Err(e),
        })
    }

    /// Reads `file` from the first byte not yet chunked (the hasher's buffer is empty).
    #[cfg(all(feature = "mmap", target_os = "linux"))]
    fn read_rest(&mut self, file: &std::fs::File, len: u64) -> std::io::Result<u64> {
        use std::io::{Seek, SeekFrom};
        let mut file = file;
        let from = self.progress.base;
        file.seek(SeekFrom::Start(from))?;
        let read = self.update_reader(&mut file)?;
        if from + read < len {
            return Err(crate::any::truncated());
        }
        Ok(from + read)
    }

    /// Scans the new bytes, hashes the chunks they decide into the tree, drops what is done.
    fn process(&mut self, eof: bool) {
        let mut buf = std::mem::take(&mut self.buf);
        let kept_from = self.process_slice(&buf, eof);
        buf.drain(..kept_from);
        self.buf = buf;
    }

    /// [`XetHasher::process`] on `data`, the input from `progress.base`: returns the index
    /// in `data` from which its bytes must be kept ([`Progress::step`]).
    fn process_slice(&mut self, data: &[u8], eof: bool) -> usize {
        let (chunks, kept_from) = self.progress.step(data, eof);
        for c in chunks {
            self.tree.push_leaf(c.digest, u64::from(c.len));
        }
        kept_from
    }

    /// The Xet hash of the input so far.
    pub fn finalize_xet(&self) -> XetHash {
        let mut done = self.clone();
        done.process(true);
        done.tree.file_hash()
    }

    /// The digest bytes: [`XetHash::to_hex`]'s order, so that their hex is the `xetHash`.
    pub fn finalize(&self) -> [u8; 32] {
        let mut bytes = self.finalize_xet().0;
        for group in bytes.chunks_exact_mut(8) {
            group.reverse();
        }
        bytes
    }

    /// Starts over, keeping the backend and threads.
    pub fn reset(&mut self) -> &mut Self {
        let (platform, pool) = (self.progress.platform, self.progress.pool);
        *self = XetHasher {
            progress: Progress::new(Rule::Xet, platform, ChunkDigest::Xet, pool),
            threads: self.threads,
            ..XetHasher::new()
        };
        self
    }

    /// The unfinished hash as a state (docs/state-format.md): the bytes not yet in a chunk
    /// and the tree's unfinished groups.
    pub fn export(&self) -> Vec<u8> {
        let mut cut = self.clone();
        cut.process(false);
        let start = cut.progress.cutter.start;
        let pending = &cut.buf[(start - cut.progress.base) as usize..];
        let mut f = Writer::default();
        f.u64s(&[start, pending.len() as u64]).bytes(pending);
        f.u8(cut.tree.levels.len() as u8);
        for (count, group) in &cut.tree.levels {
            f.u64s(&[*count]).u8(group.len() as u8);
            for (hash, len) in group {
                f.bytes(hash).u64s(&[*len]);
            }
        }
        state::seal(NAME, &[], &f.bytes, None)
    }

    /// Resumes a hash from [`XetHasher::export`]'s state, on the detected backend and one
    /// thread. The Xet hash has no key: `key` must be `None`.
    pub fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<XetHasher, Error> {
        let bad = |msg: String| Error::InvalidArgument(format!("damaged xet state: {msg}"));
        let opened = state::open_unkeyed(blob, NAME, key)?;
        opened.params.finish()?;
        let mut f = opened.fields;
        let [start, pending_len] = f.u64s::<2>()?;
        if pending_len > MAX_PENDING {
            return Err(bad(format!("{pending_len} pending bytes, at most {MAX_PENDING}")));
        }
        if start > MAX_OFFSET - pending_len {
            return Err(bad(format!(
                "offset {start} and {pending_len} pending bytes end past {MAX_OFFSET}, the largest file offset"
            )));
        }
        let pending = f.take(pending_len as usize)?.to_vec();
        let levels = usize::from(f.u8()?);
        let mut tree = XetTree::default();
        for level in 0..levels {
            let [count] = f.u64s::<1>()?;
            let n = usize::from(f.u8()?);
            if n > 8 || n as u64 > count || (level + 1 < levels && count < 3) {
                return Err(bad(format!("level {level}: a group of {n} of {count} entries")));
            }
            let mut group = Vec::with_capacity(n);
            for _ in 0..n {
                let hash = f.array::<32>()?;
                let [len] = f.u64s::<1>()?;
                group.push((hash, len));
            }
            tree.levels.push((count, group));
        }
        f.finish()?;
        if tree.levels.first().is_some_and(|(_, g)| g.iter().any(|&(_, len)| len > XET_MAX)) {
            return Err(bad("a chunk longer than the Xet maximum".to_string()));
        }
        // Every byte before the pending ones was chunked and is summarized by exactly one
        // entry of the unfinished groups, so their lengths add up to the offset (and the
        // tree's own sums, a group's length when it is merged, stay below 2^63); no level
        // has received more entries than there are bytes.
        let covered = tree.levels.iter().flat_map(|(_, g)| g.iter()).try_fold(0u64, |t, &(_, len)| t.checked_add(len));
        if covered != Some(start) {
            return Err(bad(match covered {
                Some(covered) => format!("the tree covers {covered} bytes, but the pending bytes start at {start}"),
                None => "the tree covers more than 2^64 bytes".to_string(),
            }));
        }
        if let Some((level, (count, _))) = tree.levels.iter().enumerate().find(|(_, (count, _))| *count > start.max(1))
        {
            return Err(bad(format!("level {level} counts {count} entries, more than the {start} bytes before")));
        }
        let progress = Progress::at(start, Rule::Xet, Platform::detect(), ChunkDigest::Xet, 1);
        Ok(XetHasher { buf: pending, progress, tree, ..XetHasher::new() })
    }
}

impl crate::streaming::StreamingHash for XetHasher {
    fn update(&mut self, data: &[u8]) {
        XetHasher::update(self, data);
    }
    fn finalize_into(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.finalize());
    }
    fn reset(&mut self) {
        XetHasher::reset(self);
    }
    fn backend_name(&self) -> &'static str {
        self.progress.platform.name()
    }
    fn digest_len(&self) -> usize {
        32
    }
    fn export(&self) -> Vec<u8> {
        XetHasher::export(self)
    }
    fn max_threads(&self) -> Threads {
        self.threads
    }
    fn update_from_reader(&mut self, reader: &mut dyn std::io::Read) -> Option<std::io::Result<u64>> {
        Some(XetHasher::update_reader(self, reader))
    }
    fn reads_into_own_buffer(&self) -> bool {
        true
    }
    fn update_from_mapped_file(&mut self, file: &std::fs::File, len: u64) -> Option<std::io::Result<u64>> {
        #[cfg(all(feature = "mmap", target_os = "linux"))]
        return self.update_file_mapped(file, len);
        #[cfg(not(all(feature = "mmap", target_os = "linux")))]
        {
            let _ = (file, len);
            None
        }
    }
}
