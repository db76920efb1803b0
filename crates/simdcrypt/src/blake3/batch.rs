//! Many independent messages hashed at once, SIMD across messages.
//!
//! Messages of one chunk (1024 bytes) or less are grouped by length and hashed
//! `simd_degree` at a time by the same kernels that hash a large input's chunks: each message
//! is a one-chunk tree whose last block carries the ROOT flag, so its 32-byte chaining
//! value is its digest.
//!
//! Longer messages under 256 KiB (`LONG_MAX`) are hashed together as a forest: every whole
//! chunk of every message in one kernel job with a counter per chunk, so that the chunks
//! left over from each message's groups of 16 fill lanes beside other messages' instead of
//! running through narrower kernels one message at a time (those leftovers were the slow
//! part of hashing many Xet chunks of ~64 KiB); then each message's partial last chunk
//! (its blocks before the last beside other partial chunks' with as many); then the parents
//! a level at a time across all messages, the roots last. Longer ones still, and outputs
//! longer than 32 bytes, go message by message through the tree hasher.
//!
//! ## What this file holds
//!
//! `Batch`: many independent messages; short ones (≤ 1 chunk) go through the same kernels as a
//! large input's chunks, one message per lane, with ROOT on each last block (on every backend:
//! portable's kernel loop too, which skips a `Hasher` per message); long ones as a forest
//! (`hash_forest`)

use super::job::{Counters, HashManyJob};
use super::{
    cv_bytes, CvWords, Hasher, Mode, Platform, Threads, BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, OUT_LEN, PARENT,
    ROOT,
};
use crate::threads::{check_out_len, split_messages};
use crate::Error;

/// Hashes batches of independent messages; every message gets the digest that
/// [`Hasher`] in the same mode would give it.
///
/// ```
/// use simdcrypt::blake3::{self, Batch, Mode};
///
/// let messages: Vec<&[u8]> = vec![b"first", b"second", b""];
/// let mut out = vec![0u8; messages.len() * 32];
/// Batch::new(Mode::Hash).hash_into(&messages, 32, &mut out).unwrap();
/// assert_eq!(out[32..64], blake3::hash(b"second"));
/// ```
#[derive(Clone, Debug)]
pub struct Batch {
    key: CvWords,
    flags: u8,
    platform: Platform,
    threads: Threads,
}

/// How many short messages are gathered into one padded scratch buffer at a time.
const GROUP: usize = 256;

/// The longest message hashed in a forest with others. From 256 KiB on, the tree hasher's
/// parents (merged in lane form) outweigh what the leftover chunks lose, and whole powers
/// of two were measured faster through it (docs/tuning-history.md, "BLAKE3 forests").
const LONG_MAX: usize = (256 << 10) - 1;

/// A forest gathers messages of up to this many chunks in all (at least one message): its
/// bookkeeping (56 bytes per chunk) stays within the L2 cache whatever the batch's size.
const FOREST_CHUNKS: usize = 2048;

/// The buffers of a thread's forests, kept from forest to forest and from call to call
/// (at most about 250 KiB, the bookkeeping of `FOREST_CHUNKS`): made anew for each, their
/// pages went back to the system and were faulted in again every time, a few percent of
/// a one-thread Xet file hash. (The chunks' slices borrow the messages, so they stay a
/// local of each forest.)
#[derive(Default)]
struct Forest {
    /// Each whole chunk's counter.
    counters: Vec<u64>,
    /// Their chaining values.
    whole_cvs: Vec<u8>,
    /// Each tree's chaining values at the current level, tree after tree, and how many.
    level: Vec<u8>,
    counts: Vec<usize>,
    /// The next level being built, and the parents that go into it.
    next: Vec<u8>,
    parents: Vec<u8>,
    /// The trees' digests.
    digests: Vec<u8>,
}

thread_local! {
    static FOREST: std::cell::RefCell<Forest> = std::cell::RefCell::new(Forest::default());
}

impl Batch {
    /// A batch hasher for `mode`, with the detected platform and one thread.
    pub fn new(mode: Mode<'_>) -> Self {
        let (key, flags) = mode.key_and_flags();
        Batch { key, flags, platform: Platform::detect(), threads: Threads::One }
    }

    /// Chooses the kernels.
    pub fn set_platform(&mut self, platform: Platform) -> &mut Self {
        self.platform = platform;
        self
    }

    /// How many threads one call may use; the messages are shared out by size.
    pub fn set_max_threads(&mut self, threads: Threads) -> &mut Self {
        self.threads = threads;
        self
    }

    /// Writes `out_len` bytes of digest for message `i` at `out[i * out_len..]`.
    ///
    /// `out` must be exactly `messages.len() * out_len` bytes long.
    pub fn hash_into(&self, messages: &[&[u8]], out_len: usize, out: &mut [u8]) -> Result<(), Error> {
        check_out_len(messages.len(), out_len, out.len())?;
        if out_len == 0 || messages.is_empty() {
            return Ok(());
        }
        // Split between threads by total size (the split Streebog and GOST R 34.11-94 use
        // too), then each part hashed serially.
        split_messages(messages, out, out_len, self.threads, BLOCK_LEN, &|part, part_out| {
            self.hash_serial(part, out_len, part_out)
        });
        Ok(())
    }

    fn hash_one(&self, message: &[u8], out: &mut [u8]) {
        let mut hasher = Hasher::new_internal(&self.key, self.flags);
        hasher.set_platform(self.platform).update(message);
        hasher.finalize_xof().fill(out);
    }

    fn hash_serial(&self, messages: &[&[u8]], out_len: usize, out: &mut [u8]) {
        let len = messages[0].len();
        // Equal whole blocks and 32-byte digests: the kernels read the messages in place and
        // write the digests straight to `out`, for as long as the lengths stay equal. On
        // every backend, portable too: its kernel loop skips a `Hasher` per message, which brings
        // it close to the crate's portable kernel (docs/tuning-history.md, "blake3/batch.rs").
        let mut done = 0;
        if out_len == OUT_LEN && len.is_multiple_of(BLOCK_LEN) && len > 0 && len <= CHUNK_LEN {
            done = self.platform.hash_many_prefix(&self.one_chunk_job(messages, BLOCK_LEN), out);
        }
        if done < messages.len() {
            self.hash_mixed(&messages[done..], out_len, &mut out[done * out_len..]);
        }
    }

    /// `hash_serial` for lengths that differ, are not whole blocks, or need another output
    /// length.
    fn hash_mixed(&self, messages: &[&[u8]], out_len: usize, out: &mut [u8]) {
        // The kernels give 32-byte chaining values: longer outputs need the hasher's XOF.
        if out_len > OUT_LEN {
            for (m, o) in messages.iter().zip(out.chunks_exact_mut(out_len)) {
                self.hash_one(m, o);
            }
            return;
        }
        // Messages longer than a chunk, as forests (those past LONG_MAX on their own).
        let is_long = |m: &&[u8]| m.len() > CHUNK_LEN;
        if messages.iter().any(is_long) {
            FOREST.with_borrow_mut(|buffers| {
                let mut forest: Vec<usize> = Vec::new();
                let mut chunks = 0;
                for (i, m) in messages.iter().enumerate().filter(|(_, m)| is_long(m)) {
                    if m.len() > LONG_MAX {
                        self.hash_one(m, &mut out[i * out_len..][..out_len]);
                        continue;
                    }
                    let n = m.len().div_ceil(CHUNK_LEN);
                    if chunks + n > FOREST_CHUNKS {
                        self.hash_forest_into(messages, &forest, buffers, out_len, out);
                        forest.clear();
                        chunks = 0;
                    }
                    forest.push(i);
                    chunks += n;
                }
                self.hash_forest_into(messages, &forest, buffers, out_len, out);
            });
        }
        // One pass over the lengths when they are all equal.
        let len = messages[0].len();
        let equal = messages.iter().all(|m| m.len() == len);
        let any_short = if equal { len <= CHUNK_LEN } else { messages.iter().any(|m| m.len() <= CHUNK_LEN) };
        if !any_short {
            return;
        }
        // Short messages in runs of equal length (one run when all lengths are equal).
        let mut order: Vec<usize> = (0..messages.len()).collect();
        if !equal {
            order.sort_by_key(|&i| messages[i].len());
        }
        let mut cvs = vec![0u8; GROUP * OUT_LEN];
        let mut scratch = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let len = messages[order[start]].len();
            let mut end = start + 1;
            while end < order.len() && end - start < GROUP && messages[order[end]].len() == len {
                end += 1;
            }
            let run = &order[start..end];
            if len > CHUNK_LEN {
                // Hashed above.
            } else if run.len() == 1 {
                for &i in run {
                    self.hash_one(messages[i], &mut out[i * out_len..][..out_len]);
                }
            } else {
                self.hash_short_run(messages, run, len, &mut scratch, &mut cvs);
                for (k, &i) in run.iter().enumerate() {
                    out[i * out_len..][..out_len].copy_from_slice(&cvs[k * OUT_LEN..][..out_len]);
                }
            }
            start = end;
        }
    }

    /// The first `out_len` bytes of the digests of `messages[i]` for each `i` in `forest`
    /// (each longer than a chunk), written at `out[i * out_len..]`.
    fn hash_forest_into(
        &self,
        messages: &[&[u8]],
        forest: &[usize],
        buffers: &mut Forest,
        out_len: usize,
        out: &mut [u8],
    ) {
        if forest.is_empty() {
            return;
        }
        let trees: Vec<&[u8]> = forest.iter().map(|&i| messages[i]).collect();
        self.hash_forest(&trees, buffers);
        for (&i, d) in forest.iter().zip(buffers.digests.chunks_exact(OUT_LEN)) {
            out[i * out_len..][..out_len].copy_from_slice(&d[..out_len]);
        }
    }

    /// The 32-byte digests of `trees` (each longer than a chunk) into `buffers.digests`, as
    /// one forest: all whole chunks in one job (a counter per chunk: its index in its
    /// message), the partial last chunks (`partial_chunk_cvs`), then the parents a level at
    /// a time across all trees, pairing each tree's chaining values from the left with an
    /// odd last one carried up (which builds BLAKE3's tree: a left subtree of the largest
    /// power of two of chunks), until each tree has two: their parent, with ROOT, is its
    /// digest.
    fn hash_forest(&self, trees: &[&[u8]], buffers: &mut Forest) {
        debug_assert!(trees.iter().all(|t| t.len() > CHUNK_LEN));
        let Forest { counters, whole_cvs, level, next, parents, counts, digests } = buffers;
        let whole: usize = trees.iter().map(|t| t.len() / CHUNK_LEN).sum();
        let mut inputs: Vec<&[u8]> = Vec::with_capacity(whole);
        counters.clear();
        counters.reserve(whole);
        for t in trees {
            for (counter, chunk) in t.chunks_exact(CHUNK_LEN).enumerate() {
                inputs.push(chunk);
                counters.push(counter as u64);
            }
        }
        whole_cvs.clear();
        whole_cvs.resize(inputs.len() * OUT_LEN, 0);
        self.platform.hash_many(&self.chunks_job(&inputs, counters, CHUNK_END), whole_cvs);

        // Level 0: each tree's whole chunks' chaining values, then its partial chunk's.
        let partial_cvs = self.partial_chunk_cvs(trees);
        counts.clear();
        counts.extend(trees.iter().map(|t| t.len().div_ceil(CHUNK_LEN)));
        level.clear();
        level.reserve(counts.iter().sum::<usize>() * OUT_LEN);
        let mut taken = 0;
        for (t, partial) in trees.iter().zip(&partial_cvs) {
            let n = t.len() / CHUNK_LEN;
            level.extend_from_slice(&whole_cvs[taken * OUT_LEN..][..n * OUT_LEN]);
            taken += n;
            if t.len() % CHUNK_LEN != 0 {
                level.extend_from_slice(&cv_bytes(partial));
            }
        }

        // Parents, a level at a time, while some tree has more than two.
        while counts.iter().any(|&n| n > 2) {
            let mut pairs: Vec<&[u8]> = Vec::new();
            let mut at = 0;
            for &n in counts.iter() {
                if n > 2 {
                    pairs.extend(level[at..][..n / 2 * 2 * OUT_LEN].chunks_exact(2 * OUT_LEN));
                }
                at += n * OUT_LEN;
            }
            parents.clear();
            parents.resize(pairs.len() * OUT_LEN, 0);
            self.platform.hash_many(&self.parents_job(&pairs, 0), parents);
            next.clear();
            let (mut at, mut made) = (0, 0);
            for n in counts.iter_mut() {
                let cvs = &level[at..][..*n * OUT_LEN];
                at += *n * OUT_LEN;
                if *n > 2 {
                    next.extend_from_slice(&parents[made * OUT_LEN..][..*n / 2 * OUT_LEN]);
                    made += *n / 2;
                    if *n % 2 == 1 {
                        next.extend_from_slice(&cvs[(*n - 1) * OUT_LEN..]);
                    }
                    *n = n.div_ceil(2);
                } else {
                    next.extend_from_slice(cvs);
                }
            }
            std::mem::swap(level, next);
        }
        // Every tree has two chaining values left: its root.
        let roots: Vec<&[u8]> = level.chunks_exact(2 * OUT_LEN).collect();
        digests.clear();
        digests.resize(roots.len() * OUT_LEN, 0);
        self.platform.hash_many(&self.parents_job(&roots, ROOT), digests);
    }

    /// The chaining value of each tree's partial last chunk (anything for a tree that ends
    /// on a whole chunk). The blocks before a partial chunk's last are hashed beside those of
    /// the other partial chunks with as many (a job per count, a counter per chunk); only
    /// each last block, of its own length, is compressed alone.
    fn partial_chunk_cvs(&self, trees: &[&[u8]]) -> Vec<CvWords> {
        let partial = |i: usize| &trees[i][trees[i].len() / CHUNK_LEN * CHUNK_LEN..];
        let counter = |i: usize| (trees[i].len() / CHUNK_LEN) as u64;
        // Whole blocks before the last block.
        let leading = |i: usize| (partial(i).len() - 1) / BLOCK_LEN;
        let mut order: Vec<usize> = (0..trees.len()).filter(|&i| !partial(i).is_empty()).collect();
        order.sort_unstable_by_key(|&i| leading(i));
        let mut cvs = vec![self.key; trees.len()];
        let mut out = Vec::new();
        for run in order.chunk_by(|&a, &b| leading(a) == leading(b)) {
            let blocks = leading(run[0]);
            if blocks == 0 {
                continue;
            }
            let inputs: Vec<&[u8]> = run.iter().map(|&i| &partial(i)[..blocks * BLOCK_LEN]).collect();
            let counters: Vec<u64> = run.iter().map(|&i| counter(i)).collect();
            out.clear();
            out.resize(run.len() * OUT_LEN, 0);
            // No CHUNK_END: each chunk's last block is still to come.
            self.platform.hash_many(&self.chunks_job(&inputs, &counters, 0), &mut out);
            for (&i, cv) in run.iter().zip(out.chunks_exact(OUT_LEN)) {
                cvs[i] = core::array::from_fn(|w| u32::from_le_bytes(cv[4 * w..][..4].try_into().expect("4 bytes")));
            }
        }
        for &i in &order {
            let blocks = leading(i);
            let last = &partial(i)[blocks * BLOCK_LEN..];
            let mut block = [0u8; BLOCK_LEN];
            block[..last.len()].copy_from_slice(last);
            let start = if blocks == 0 { CHUNK_START } else { 0 };
            let flags = self.flags | start | CHUNK_END;
            self.platform.compress_in_place(&mut cvs[i], &block, last.len() as u8, counter(i), flags);
        }
        cvs
    }

    /// Whole blocks of chunks (each from its chunk's start) of several trees, input `i` at
    /// chunk counter `counters[i]`, with `flags_end` on each input's last block.
    fn chunks_job<'a>(&'a self, inputs: &'a [&'a [u8]], counters: &'a [u64], flags_end: u8) -> HashManyJob<'a> {
        HashManyJob {
            inputs,
            key: &self.key,
            counters: Counters::PerInput(counters),
            flags: self.flags,
            flags_start: CHUNK_START,
            flags_end,
            last_block_len: BLOCK_LEN as u8,
        }
    }

    /// Parent nodes (each two chaining values) with `extra` flags beside PARENT.
    fn parents_job<'a>(&'a self, pairs: &'a [&'a [u8]], extra: u8) -> HashManyJob<'a> {
        HashManyJob {
            inputs: pairs,
            key: &self.key,
            counters: Counters::Fixed(0),
            flags: self.flags | PARENT | extra,
            flags_start: 0,
            flags_end: 0,
            last_block_len: BLOCK_LEN as u8,
        }
    }

    /// Hashes the messages `run` (all `len` <= CHUNK_LEN bytes long) side by side, writing
    /// their 32-byte digests to `cvs` in run order.
    fn hash_short_run(&self, messages: &[&[u8]], run: &[usize], len: usize, scratch: &mut Vec<u8>, cvs: &mut [u8]) {
        let blocks = len.div_ceil(BLOCK_LEN).max(1);
        let last_block_len = len - (blocks - 1) * BLOCK_LEN;
        let mut inputs: Vec<&[u8]> = Vec::with_capacity(run.len());
        if len.is_multiple_of(BLOCK_LEN) && len > 0 {
            inputs.extend(run.iter().map(|&i| messages[i]));
        } else {
            // The kernels read whole blocks: copy into zero-padded slots.
            let slot = blocks * BLOCK_LEN;
            scratch.clear();
            scratch.resize(run.len() * slot, 0);
            for (dst, &i) in scratch.chunks_exact_mut(slot).zip(run) {
                dst[..len].copy_from_slice(messages[i]);
            }
            inputs.extend(scratch.chunks_exact(slot));
        }
        self.platform.hash_many(&self.one_chunk_job(&inputs, last_block_len), cvs);
    }

    /// Each input a whole one-chunk tree: its chaining value, with ROOT on its last block,
    /// is its digest.
    fn one_chunk_job<'a>(&'a self, inputs: &'a [&'a [u8]], last_block_len: usize) -> HashManyJob<'a> {
        HashManyJob {
            inputs,
            key: &self.key,
            counters: Counters::Fixed(0),
            flags: self.flags,
            flags_start: CHUNK_START,
            flags_end: CHUNK_END | ROOT,
            last_block_len: last_block_len as u8,
        }
    }
}
