//! BLAKE3: hash, keyed hash, key derivation and extendable output.
//!
//! ```
//! use simdcrypt::blake3;
//!
//! let digest = blake3::hash(b"abc");
//! assert_eq!(
//!     simdcrypt::to_hex(&digest),
//!     "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
//! );
//!
//! // Streaming, with any split of the input, and output of any length from any position.
//! let mut hasher = blake3::Hasher::new();
//! hasher.update(b"a").update(b"bc");
//! let mut long = [0u8; 100];
//! hasher.finalize_xof().fill(&mut long);
//! assert_eq!(long[..32], digest);
//! ```
//!
//! The input is split into 1024-byte chunks that form a binary tree; whole subtrees are
//! hashed [`Platform::simd_degree`] chunks at a time by the SIMD kernels, and across threads
//! when [`Hasher::set_max_threads`] allows it.
//!
//! ## What this file holds
//!
//! BLAKE3's public API (`Hasher`, `OutputReader`, `Mode`, `hash`, `keyed_hash`, `derive_key`;
//! `Threads` re-exported) and the tree: chunk state, the lazily merged stack of chaining
//! values, wide subtree hashing, rayon joins. The one-shot functions never build a `Hasher`:
//! one block is one compression (`one_block_hash`), anything longer one chunk state or one
//! descent of the tree below the root (`hash_all_at_once`)

#[cfg(target_arch = "x86_64")]
#[macro_use]
mod asm;

// First: its macros are used by the AVX2 and AVX-512 backends.
#[cfg(target_arch = "x86_64")]
#[macro_use]
mod rows;
mod algorithm;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
pub mod bao;
mod batch;
mod job;
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;
mod platform;
mod portable;
#[cfg(target_arch = "x86_64")]
mod sse41;
mod state;
pub mod subtree;
mod tree;

pub use algorithm::ALGORITHM;
#[cfg(target_arch = "x86_64")]
use asm::asm_message_words_match;
pub use batch::Batch;
use platform::{Counters, HashManyJob, LaneLevels};
pub use platform::{Kind, Platform};
use tree::*;

use core::mem::MaybeUninit;

pub(crate) use crate::threads::{join, with_pool};
pub use crate::threads::{Threads, AUTO_MIN_BYTES_PER_THREAD, MIN_BYTES_PER_THREAD};
use crate::Error;

/// Default digest length in bytes.
pub const OUT_LEN: usize = 32;
/// Key length in bytes for [`keyed_hash`] and [`Hasher::new_keyed`].
pub const KEY_LEN: usize = 32;
/// Compression function block size in bytes.
pub const BLOCK_LEN: usize = 64;
/// Tree leaf size in bytes.
pub const CHUNK_LEN: usize = 1024;

pub(crate) type CvWords = [u32; 8];
type CvBytes = [u8; OUT_LEN];

const IV: CvWords = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];

/// The 16 state words of one compression, for the kernels that hold word `w` of every
/// input in vector `w`: the chaining value `h`, IV words 0..4 (`splat`, each broadcast in
/// the kernel's own instruction), then `d` (counter low and high, block length, flags).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn lane_state<V: Copy>(h: &[V; 8], splat: impl Fn(u32) -> V, d: [V; 4]) -> [V; 16] {
    [
        h[0],
        h[1],
        h[2],
        h[3],
        h[4],
        h[5],
        h[6],
        h[7],
        splat(IV[0]),
        splat(IV[1]),
        splat(IV[2]),
        splat(IV[3]),
        d[0],
        d[1],
        d[2],
        d[3],
    ]
}

const MSG_PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];

/// For each of the 7 rounds, which original message word feeds each G input slot:
/// round r uses the message permuted r times.
pub(crate) const MSG_SCHEDULE: [[usize; 16]; 7] = {
    let mut s = [[0usize; 16]; 7];
    let mut i = 0;
    while i < 16 {
        s[0][i] = i;
        i += 1;
    }
    let mut r = 1;
    while r < 7 {
        let mut i = 0;
        while i < 16 {
            s[r][i] = s[r - 1][MSG_PERMUTATION[i]];
            i += 1;
        }
        r += 1;
    }
    s
};

const CHUNK_START: u8 = 1 << 0;
const CHUNK_END: u8 = 1 << 1;
const PARENT: u8 = 1 << 2;
const ROOT: u8 = 1 << 3;
const KEYED_HASH: u8 = 1 << 4;
const DERIVE_KEY_CONTEXT: u8 = 1 << 5;
const DERIVE_KEY_MATERIAL: u8 = 1 << 6;

/// The widest kernel's lane count over all backends; sizes the stack buffers.
const MAX_SIMD_DEGREE: usize = 16;
/// A subtree call returns at most max(degree, 2) chaining values (see `compress_subtree_wide`).
const MAX_SIMD_DEGREE_OR_2: usize = if MAX_SIMD_DEGREE > 2 { MAX_SIMD_DEGREE } else { 2 };
/// 2^64 bytes is 2^54 chunks; the lazy merge may hold one extra entry.
const MAX_DEPTH: usize = 54;

fn key_words(key: &[u8; KEY_LEN]) -> CvWords {
    portable::words_from_le_bytes(key)
}

fn cv_bytes(cv: &CvWords) -> CvBytes {
    let mut out = [0u8; OUT_LEN];
    for (chunk, w) in out.chunks_exact_mut(4).zip(cv) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// The key words of key derivation for `context`: the context string's own digest.
fn context_key(context: &str) -> CvWords {
    key_words(&one_shot(context.as_bytes(), &IV, DERIVE_KEY_CONTEXT))
}

/// Which of BLAKE3's three functions to compute.
#[derive(Clone, Copy, Debug)]
pub enum Mode<'a> {
    /// The default hash.
    Hash,
    /// The keyed hash (a MAC or PRF).
    KeyedHash(&'a [u8; KEY_LEN]),
    /// Key derivation with this context string.
    DeriveKey(&'a str),
}

impl Mode<'_> {
    /// The starting chaining value and the domain flags of the mode.
    pub(crate) fn key_and_flags(self) -> (CvWords, u8) {
        match self {
            Mode::Hash => (IV, 0),
            Mode::KeyedHash(key) => (key_words(key), KEYED_HASH),
            Mode::DeriveKey(context) => (context_key(context), DERIVE_KEY_MATERIAL),
        }
    }
}

/// The input and state of the final compression, from which any output length is drawn.
#[derive(Clone, Debug)]
struct Output {
    input_cv: CvWords,
    block: [u8; BLOCK_LEN],
    block_len: u8,
    counter: u64,
    flags: u8,
    platform: Platform,
}

impl Output {
    fn chaining_value(&self) -> CvBytes {
        let mut cv = self.input_cv;
        self.platform.compress_in_place(&mut cv, &self.block, self.block_len, self.counter, self.flags);
        cv_bytes(&cv)
    }

    fn root_output_block(&self, block_counter: u64) -> [u8; 64] {
        self.platform.compress_xof(&self.input_cv, &self.block, self.block_len, block_counter, self.flags | ROOT)
    }
}

fn parent_output(left: &CvBytes, right: &CvBytes, key: &CvWords, flags: u8, platform: Platform) -> Output {
    let mut block = [0u8; BLOCK_LEN];
    block[..OUT_LEN].copy_from_slice(left);
    block[OUT_LEN..].copy_from_slice(right);
    Output { input_cv: *key, block, block_len: BLOCK_LEN as u8, counter: 0, flags: flags | PARENT, platform }
}

/// The state of one chunk being filled. The last block is kept buffered, since it may turn
/// out to be the root and need the ROOT flag.
#[derive(Clone, Debug)]
struct ChunkState {
    cv: CvWords,
    chunk_counter: u64,
    buf: [u8; BLOCK_LEN],
    buf_len: u8,
    blocks_compressed: u8,
    flags: u8,
    platform: Platform,
}

impl ChunkState {
    fn new(key: &CvWords, chunk_counter: u64, flags: u8, platform: Platform) -> Self {
        ChunkState { cv: *key, chunk_counter, buf: [0; BLOCK_LEN], buf_len: 0, blocks_compressed: 0, flags, platform }
    }

    fn len(&self) -> usize {
        BLOCK_LEN * self.blocks_compressed as usize + self.buf_len as usize
    }

    fn start_flag(&self) -> u8 {
        if self.blocks_compressed == 0 {
            CHUNK_START
        } else {
            0
        }
    }

    fn fill_buf(&mut self, input: &mut &[u8]) {
        let take = (BLOCK_LEN - self.buf_len as usize).min(input.len());
        if take == BLOCK_LEN {
            // A whole block in one fixed-size copy: the kernels read it with wide loads, which
            // a variable-length copy's narrower stores cannot forward to.
            self.buf = input[..BLOCK_LEN].try_into().expect("BLOCK_LEN bytes");
            self.buf_len = BLOCK_LEN as u8;
            *input = &input[BLOCK_LEN..];
            return;
        }
        self.buf[self.buf_len as usize..][..take].copy_from_slice(&input[..take]);
        self.buf_len += take as u8;
        *input = &input[take..];
    }

    fn compress_block(&mut self, block: &[u8; BLOCK_LEN]) {
        let flags = self.flags | self.start_flag();
        self.platform.compress_in_place(&mut self.cv, block, BLOCK_LEN as u8, self.chunk_counter, flags);
        self.blocks_compressed += 1;
    }

    /// Absorbs input; the caller never gives more than the chunk has room for.
    fn update(&mut self, mut input: &[u8]) -> &mut Self {
        debug_assert!(self.len() + input.len() <= CHUNK_LEN);
        if self.buf_len > 0 {
            self.fill_buf(&mut input);
            if !input.is_empty() {
                let block = self.buf;
                self.compress_block(&block);
                self.buf = [0; BLOCK_LEN];
                self.buf_len = 0;
            }
        }
        while input.len() > BLOCK_LEN {
            let (block, rest) = input.split_at(BLOCK_LEN);
            self.compress_block(block.try_into().expect("split_at gives BLOCK_LEN bytes"));
            input = rest;
        }
        self.fill_buf(&mut input);
        self
    }

    fn output(&self) -> Output {
        Output {
            input_cv: self.cv,
            block: self.buf,
            block_len: self.buf_len,
            counter: self.chunk_counter,
            flags: self.flags | self.start_flag() | CHUNK_END,
            platform: self.platform,
        }
    }
}

/// An incremental BLAKE3 hasher: any split of the input into `update` calls gives the same
/// result.
#[derive(Clone, Debug)]
pub struct Hasher {
    key: CvWords,
    chunk_state: ChunkState,
    /// Chaining values of completed subtrees, largest first. A Vec rather than an inline
    /// array of MAX_DEPTH + 1 entries: inputs of one chunk never allocate, and the hasher
    /// stays small to create and move (what per-call overhead on short inputs is made of).
    cv_stack: Vec<CvBytes>,
    threads: Threads,
    /// The first chunk's index: nonzero only for a subtree (see [`subtree`]).
    initial_chunk_counter: u64,
}

impl Hasher {
    fn new_internal(key: &CvWords, flags: u8) -> Self {
        Hasher {
            key: *key,
            chunk_state: ChunkState::new(key, 0, flags, Platform::detect()),
            cv_stack: Vec::new(),
            threads: Threads::One,
            initial_chunk_counter: 0,
        }
    }

    /// A hasher for `mode`.
    pub fn for_mode(mode: Mode<'_>) -> Self {
        let (key, flags) = mode.key_and_flags();
        Self::new_internal(&key, flags)
    }

    /// Makes this (still empty) hasher hash a subtree of `len` bytes starting `offset` bytes
    /// into the whole input; finish it with [`Hasher::finalize_non_root`]. The rules are in
    /// [`subtree`].
    pub fn set_input_offset(&mut self, offset: u64, len: u64) -> Result<&mut Self, Error> {
        if self.count() != 0 || self.initial_chunk_counter != 0 {
            return Err(Error::InvalidArgument("set_input_offset must come before any input".to_string()));
        }
        subtree::check_subtree(offset, len)?;
        self.initial_chunk_counter = offset / CHUNK_LEN as u64;
        self.chunk_state.chunk_counter = self.initial_chunk_counter;
        Ok(self)
    }

    /// The chaining value of the input so far as a subtree, not as the root.
    pub fn finalize_non_root(&self) -> [u8; OUT_LEN] {
        self.final_output().chaining_value()
    }

    /// A hasher for the default (unkeyed) mode.
    pub fn new() -> Self {
        Self::new_internal(&IV, 0)
    }

    /// A hasher for the keyed mode (a MAC or PRF with a 32-byte key).
    pub fn new_keyed(key: &[u8; KEY_LEN]) -> Self {
        Self::new_internal(&key_words(key), KEYED_HASH)
    }

    /// A hasher for the key derivation mode. `context` should be hardcoded, globally unique
    /// and application-specific, e.g. `"example.com session tokens v1"` (BLAKE3's authors suggest
    /// including the date the context was chosen).
    pub fn new_derive_key(context: &str) -> Self {
        Self::for_mode(Mode::DeriveKey(context))
    }

    /// Chooses the kernels (the default is [`Platform::detect`]). The result never depends
    /// on the platform, so this may be called at any time.
    pub fn set_platform(&mut self, platform: Platform) -> &mut Self {
        self.chunk_state.platform = platform;
        self
    }

    /// The kernels in use.
    pub fn platform(&self) -> Platform {
        self.chunk_state.platform
    }

    /// The thread setting.
    pub fn max_threads(&self) -> Threads {
        self.threads
    }

    /// How many threads `update` may use for large inputs (default [`Threads::One`]).
    pub fn set_max_threads(&mut self, threads: Threads) -> &mut Self {
        self.threads = threads;
        self
    }

    /// Forgets all input, keeping the mode, key, platform and thread setting.
    pub fn reset(&mut self) -> &mut Self {
        self.chunk_state = ChunkState::new(&self.key, 0, self.chunk_state.flags, self.chunk_state.platform);
        self.cv_stack.clear();
        self.initial_chunk_counter = 0;
        self
    }

    /// The number of input bytes hashed so far.
    pub fn count(&self) -> u64 {
        (self.chunk_state.chunk_counter - self.initial_chunk_counter) * CHUNK_LEN as u64 + self.chunk_state.len() as u64
    }

    fn push_cv(&mut self, cv: &CvBytes, chunk_counter: u64) {
        self.merge_cv_stack(chunk_counter);
        if self.cv_stack.capacity() == 0 {
            self.cv_stack.reserve_exact(MAX_DEPTH + 1);
        }
        self.cv_stack.push(*cv);
    }

    /// Merges completed subtrees: after `total_chunks` chunks the stack holds one entry per
    /// 1 bit of the count. Merging is lazy (done before the next push), because the last
    /// entries may still become the root.
    fn merge_cv_stack(&mut self, total_chunks: u64) {
        // Subtrees count from their own first chunk.
        let post_merge_len = (total_chunks - self.initial_chunk_counter).count_ones() as u8;
        while self.cv_stack.len() > post_merge_len as usize {
            let n = self.cv_stack.len();
            let parent = parent_output(
                &self.cv_stack[n - 2],
                &self.cv_stack[n - 1],
                &self.key,
                self.chunk_state.flags,
                self.platform(),
            );
            self.cv_stack[n - 2] = parent.chaining_value();
            self.cv_stack.pop();
        }
    }

    /// Adds input.
    pub fn update(&mut self, mut input: &[u8]) -> &mut Self {
        let (key, flags, platform) = (self.key, self.chunk_state.flags, self.platform());
        if self.chunk_state.len() > 0 {
            let take = (CHUNK_LEN - self.chunk_state.len()).min(input.len());
            self.chunk_state.update(&input[..take]);
            input = &input[take..];
            if input.is_empty() {
                return self;
            }
            // The chunk is full and more input follows, so it is not the root.
            let cv = self.chunk_state.output().chaining_value();
            let counter = self.chunk_state.chunk_counter;
            self.push_cv(&cv, counter);
            self.chunk_state = ChunkState::new(&key, counter + 1, flags, platform);
        }

        // Whole subtrees, as large as the input and the alignment of the position allow,
        // hashed up to SUBTREES_PER_ROUND at a time. The last chunk stays in chunk_state
        // when it is not whole (more input may fill it) or when it is the input's first
        // (it may be the root). A whole chunk after the first is a leaf either way and is
        // hashed with the rest, rather than by a kernel call followed by 16 single
        // compressions (docs/tuning-history.md, "blake3/mod.rs").
        let initial = self.initial_chunk_counter;
        let takes = |rest: usize, counter: u64| rest > CHUNK_LEN || (rest == CHUNK_LEN && counter > initial);
        while takes(input.len(), self.chunk_state.chunk_counter) {
            let mut parts = [Subtree { start: 0, len: 0, counter: 0 }; SUBTREES_PER_ROUND];
            let mut count = 0;
            let mut start = 0;
            let mut counter = self.chunk_state.chunk_counter;
            while count < SUBTREES_PER_ROUND && takes(input.len() - start, counter) {
                let mut len = 1usize << (usize::BITS - 1 - (input.len() - start).leading_zeros());
                while (len as u64 - 1) & (counter * CHUNK_LEN as u64) != 0 {
                    len /= 2;
                }
                parts[count] = Subtree { start, len, counter };
                count += 1;
                start += len;
                counter += (len / CHUNK_LEN) as u64;
            }
            let mut slots = [const { MaybeUninit::<[u8; BLOCK_LEN]>::uninit() }; SUBTREES_PER_ROUND];
            let nodes = zeroed_prefix(&mut slots, count);
            let pool_size = self.threads.pool_size(start);
            let whole = &input[..start];
            with_pool(pool_size, || hash_subtrees(whole, &parts[..count], &key, flags, platform, pool_size > 1, nodes));
            for (part, node) in parts[..count].iter().zip(nodes.iter()) {
                let (left, right) = node.split_at(OUT_LEN);
                self.push_cv(left.try_into().expect("32 bytes"), part.counter);
                if part.len > CHUNK_LEN {
                    self.push_cv(right.try_into().expect("32 bytes"), part.counter + (part.len / CHUNK_LEN / 2) as u64);
                }
            }
            self.chunk_state.chunk_counter = counter;
            input = &input[start..];
        }

        if !input.is_empty() {
            self.chunk_state.update(input);
            self.merge_cv_stack(self.chunk_state.chunk_counter);
        }
        self
    }

    fn final_output(&self) -> Output {
        let n = self.cv_stack.len();
        if n == 0 {
            return self.chunk_state.output();
        }
        let (key, flags, platform) = (&self.key, self.chunk_state.flags, self.platform());
        let (mut output, mut remaining) = if self.chunk_state.len() > 0 {
            (self.chunk_state.output(), n)
        } else {
            // Input ended on a subtree boundary: the top two entries are siblings.
            (parent_output(&self.cv_stack[n - 2], &self.cv_stack[n - 1], key, flags, platform), n - 2)
        };
        while remaining > 0 {
            remaining -= 1;
            output = parent_output(&self.cv_stack[remaining], &output.chaining_value(), key, flags, platform);
        }
        output
    }

    /// The 32-byte digest of the input so far. The hasher may keep being updated.
    pub fn finalize(&self) -> [u8; OUT_LEN] {
        let block = self.final_output().root_output_block(0);
        block[..OUT_LEN].try_into().expect("64-byte block")
    }

    /// A reader of the extendable output (up to 2^64 bytes), starting at position 0.
    pub fn finalize_xof(&self) -> OutputReader {
        OutputReader { output: self.final_output(), position: 0 }
    }
}

impl Default for Hasher {
    fn default() -> Self {
        Self::new()
    }
}

/// Reads BLAKE3's extendable output from any position.
#[derive(Clone, Debug)]
pub struct OutputReader {
    output: Output,
    position: u64,
}

impl OutputReader {
    /// Fills `buf` with the next output bytes and advances the position.
    ///
    /// The output stream is 2^64 bytes long; reading past its end wraps to its start.
    pub fn fill(&mut self, mut buf: &mut [u8]) {
        while !buf.is_empty() {
            let block = self.output.root_output_block(self.position / BLOCK_LEN as u64);
            let offset = (self.position % BLOCK_LEN as u64) as usize;
            let take = (BLOCK_LEN - offset).min(buf.len());
            buf[..take].copy_from_slice(&block[offset..][..take]);
            buf = &mut buf[take..];
            self.position = self.position.wrapping_add(take as u64);
        }
    }

    /// The position of the next byte `fill` returns.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Moves to byte `position` of the output stream.
    pub fn set_position(&mut self, position: u64) {
        self.position = position;
    }
}

/// The digest of an input of at most one block: a single compression, without a hasher,
/// whose set-up would cost more than the compression itself (docs/tuning-history.md, "blake3/mod.rs").
fn one_block_hash(key: &CvWords, flags: u8, input: &[u8]) -> [u8; OUT_LEN] {
    let mut cv = *key;
    let flags = flags | CHUNK_START | CHUNK_END | ROOT;
    let platform = Platform::detect();
    if let Ok(block) = <&[u8; BLOCK_LEN]>::try_from(input) {
        // A whole block is read where it lies: no zeroed copy, no call of the variable-length
        // memcpy, and the kernel's loads wait on no stores (issue 48's 64-byte one-shot).
        platform.compress_in_place(&mut cv, block, BLOCK_LEN as u8, 0, flags);
    } else {
        let mut block = [0u8; BLOCK_LEN];
        block[..input.len()].copy_from_slice(input);
        platform.compress_in_place(&mut cv, &block, input.len() as u8, 0, flags);
    }
    cv_bytes(&cv)
}

/// The root output of a whole input on one thread, without a `Hasher`: one chunk state, or
/// the tree below the root hashed in one descent. A hasher's subtree bookkeeping and
/// chaining-value stack cost more than a chunk's worth of rounds on short inputs.
fn hash_all_at_once(input: &[u8], key: &CvWords, flags: u8, platform: Platform) -> Output {
    if input.len() <= CHUNK_LEN {
        return ChunkState::new(key, 0, flags, platform).update(input).output();
    }
    let block = compress_subtree_to_parent_node(input, key, 0, flags, platform, false);
    Output { input_cv: *key, block, block_len: BLOCK_LEN as u8, counter: 0, flags: flags | PARENT, platform }
}

/// The 32-byte root digest of a whole input (`hash_all_at_once`).
fn one_shot(input: &[u8], key: &CvWords, flags: u8) -> [u8; OUT_LEN] {
    if input.len() <= BLOCK_LEN {
        return one_block_hash(key, flags, input);
    }
    let block = hash_all_at_once(input, key, flags, Platform::detect()).root_output_block(0);
    block[..OUT_LEN].try_into().expect("64-byte block")
}

/// The BLAKE3 digest of `input`, on one thread (for several, [`Hasher::set_max_threads`]).
pub fn hash(input: &[u8]) -> [u8; OUT_LEN] {
    one_shot(input, &IV, 0)
}

/// The keyed BLAKE3 digest (MAC) of `input`, on one thread.
pub fn keyed_hash(key: &[u8; KEY_LEN], input: &[u8]) -> [u8; OUT_LEN] {
    one_shot(input, &key_words(key), KEYED_HASH)
}

/// A 32-byte key derived from `key_material` for the purpose named by `context`.
pub fn derive_key(context: &str, key_material: &[u8]) -> [u8; OUT_LEN] {
    one_shot(key_material, &context_key(context), DERIVE_KEY_MATERIAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-shot tree descent (`hash_all_at_once`, which `hash` uses on the detected
    /// backend only) against a `Hasher` on each backend, at lengths around every kernel
    /// width and tree shape, in the default and keyed modes.
    #[test]
    fn hash_all_at_once_matches_hasher_every_backend() {
        let mut data = vec![0u8; 40 * CHUNK_LEN + 7];
        crate::test_rng::XorShift64::new(0x243F_6A88_85A3_08D3).fill(&mut data);
        let mut lengths = vec![0, 1, 63, 64, 65, 1023, 1024, 1025, 40 * CHUNK_LEN + 7];
        for chunks in [2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33] {
            lengths.extend([chunks * CHUNK_LEN - 1, chunks * CHUNK_LEN, chunks * CHUNK_LEN + 1]);
        }
        let key = key_words(&[7; KEY_LEN]);
        crate::backend::for_each_supported("hash_all_at_once_matches_hasher_every_backend", |platform: Platform| {
            for &len in &lengths {
                for (key, flags) in [(IV, 0), (key, KEYED_HASH)] {
                    let input = &data[..len];
                    let got = hash_all_at_once(input, &key, flags, platform).root_output_block(0);
                    let mut hasher = Hasher::new_internal(&key, flags);
                    let expected = hasher.set_platform(platform).update(input).finalize();
                    assert_eq!(got[..OUT_LEN], expected, "{platform:?} len {len} flags {flags}");
                }
            }
        });
    }
}
