//! Many independent messages hashed at once, SIMD across messages.
//!
//! Messages of one chunk (1024 bytes) or less are grouped by length and hashed
//! `simd_degree` at a time by the same kernels that hash a large input's chunks: each message
//! is a one-chunk tree whose last block carries the ROOT flag, so its 32-byte chaining
//! value is its digest. Longer messages, and outputs longer than 32 bytes, go message by
//! message through the tree hasher (which is already wide for them).
//!
//! ## What this file holds
//!
//! `Batch`: many independent messages; short ones (≤ 1 chunk) go through the same kernels as a
//! large input's chunks, one message per lane, with ROOT on each last block (on every backend:
//! portable's kernel loop too, which skips a `Hasher` per message)

use super::job::HashManyJob;
use super::{CvWords, Hasher, Mode, Platform, Threads, BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, OUT_LEN, ROOT};
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
        // One pass over the lengths when they are all equal.
        let len = messages[0].len();
        let equal = messages.iter().all(|m| m.len() == len);
        let any_short = if equal { len <= CHUNK_LEN } else { messages.iter().any(|m| m.len() <= CHUNK_LEN) };
        // The kernels give 32-byte chaining values: longer outputs need the hasher's XOF.
        if out_len > OUT_LEN || !any_short {
            for (m, o) in messages.iter().zip(out.chunks_exact_mut(out_len)) {
                self.hash_one(m, o);
            }
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
            if len > CHUNK_LEN || run.len() == 1 {
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
            counter: 0,
            increment_counter: false,
            flags: self.flags,
            flags_start: CHUNK_START,
            flags_end: CHUNK_END | ROOT,
            last_block_len: last_block_len as u8,
        }
    }
}
