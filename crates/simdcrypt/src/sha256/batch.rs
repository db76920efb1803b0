//! Hashtree-style batches: many 64-byte blocks, each hashed as a complete 64-byte message.
//!
//! Digest `i` is SHA-256 of block `i` alone, so it is two compressions: the block into the
//! IV, then the constant padding block P (0x80, zeros, bit length 512). P's message
//! schedule plus the round constants, `PADDING_WK`, is computed at compile time, so the
//! second compression is 64 rounds with no message loads and no schedule.
//!
//! ```
//! use simdcrypt::sha256::{self, BlockBatch};
//!
//! let blocks = [7u8; 3 * 64];
//! let mut out = [0u8; 3 * 32];
//! sha256::hash_blocks(&blocks, &mut out).unwrap();
//! assert_eq!(out[32..64], sha256::hash(&[7u8; 64]));
//!
//! // The same with a chosen backend and up to two threads.
//! use simdcrypt::backend::Backend;
//! let mut again = [0u8; 3 * 32];
//! BlockBatch::new()
//!     .set_platform(sha256::BatchPlatform::from_name("portable").unwrap())
//!     .set_max_threads(simdcrypt::threads::Threads::Max(2))
//!     .hash_into(&blocks, &mut again)
//!     .unwrap();
//! assert_eq!(again, out);
//! ```
//!
//! ## What this file holds
//!
//! hashtree-style batches (each 64-byte block hashed as a whole message): `hash_blocks`,
//! `BlockBatch` (`set_platform`, `set_max_threads`: contiguous ranges split at 16-block
//! boundaries with `threads::with_pool`/`join`), length checks done once; `BatchPlatform`
//! (backend algorithm `sha256-batch`: `avx512+shani`, `avx512`, `shani`, `avx2`, `portable` on
//! x86-64; `armv8-sha2`, `neon`, `portable` on aarch64; its own enum because its kernels are
//! wide across blocks) with the single dispatch point `hash_blocks`; `PADDING_WK`, the padding
//! block's W+K computed by a `const fn`; `for_each_group`, the
//! whole-groups-plus-padded-remainder loop of the wide kernels; the portable kernel; the
//! measurements behind `SHANI_REMAINDER_MAX` and the order of `ALL`

pub(crate) use super::batch_shared::PADDING_WK;
use super::{portable, BLOCK_LEN, IV, OUT_LEN};
use crate::threads::{join, with_pool, Threads};
use crate::Error;

#[cfg(target_arch = "aarch64")]
use super::{armv8, batch_neon};
#[cfg(target_arch = "x86_64")]
use super::{batch_avx2, batch_avx512, batch_shani};

crate::backend::kernel_kinds! {
    algorithm: "sha256-batch",
    /// A kernel set for block batches. Separate from [`super::Platform`]: the batch kernels
    /// are wide across blocks (AVX-512 has no single-message SHA-256 kernel), and which is
    /// best depends on the batch, not on one message.
    pub type BatchPlatform = Checked<BatchKind>;

    // Best first (measurements at `SHANI_REMAINDER_MAX`): the mix, then AVX-512 (twice
    // SHA-NI's throughput from 15 blocks up), then SHA-NI, then AVX2 (slower than SHA-NI at
    // every count measured, so it only serves CPUs without SHA-NI). On aarch64 the SHA-256
    // instructions come first: NEON needs about 25 vector operations per round for 4 blocks
    // where `sha256h`/`sha256h2` do 4 rounds of one block in two instructions (not measured
    // here: the aarch64 code runs under qemu only).
    pub enum BatchKind {
        /// Both: whole groups of 16 blocks to AVX-512, a remainder of up to
        /// [`SHANI_REMAINDER_MAX`] blocks to SHA-NI (a larger one to AVX-512, padded).
        Avx512ShaNi = "avx512+shani" on "x86_64" needs [Avx512F, Avx512Bw, Sha, Ssse3, Sse41],
        /// AVX-512: 16 blocks at once, one per 32-bit lane; a remainder is padded to 16 lanes.
        // vpshufb on zmm (the byte swap) is AVX-512BW.
        Avx512 = "avx512" on "x86_64" needs [Avx512F, Avx512Bw],
        /// SHA-NI, four blocks interleaved (two on Intel) so that the others' `sha256rnds2` hide each
        /// one's latency.
        ShaNi = "shani" on "x86_64" needs [Sha, Ssse3, Sse41],
        /// AVX2: 8 blocks at once, one per 32-bit lane; for CPUs without SHA-NI or AVX-512.
        Avx2 = "avx2" on "x86_64" needs [Avx2],
        /// aarch64 SHA-256 instructions, one block at a time (then the padding block).
        ArmSha2 = "armv8-sha2" on "aarch64" needs [Neon, Sha2],
        /// aarch64 NEON: 4 blocks at once, one per 32-bit lane; for CPUs without the SHA-256
        /// instructions.
        Neon = "neon" on "aarch64" needs [Neon],
        /// One block at a time in plain Rust, any CPU.
        Portable = "portable",
    }
}

/// The most blocks left over after the groups of 16 that [`BatchKind::Avx512ShaNi`]
/// gives to SHA-NI. SHA-NI's cost grows with every block, while one padded AVX-512 group
/// costs the same whatever it holds; a sweep over 1 to 2^20 blocks (criterion,
/// `benches/sha256.rs`) put the crossing between 8 and 9 blocks, so up to 8 leftover blocks
/// are cheaper on SHA-NI, 9 or more on AVX-512 (the sweep's table: docs/tuning-history.md, "sha256/batch.rs").
pub const SHANI_REMAINDER_MAX: usize = 8;

impl BatchPlatform {
    /// Hashes each 64-byte block of `blocks` into 32 bytes of `out`, in order: the only
    /// place that enters a batch kernel.
    ///
    /// Panics if the lengths do not match (an internal bug: [`BlockBatch::hash_into`]
    /// checks user input); the kernels never see mismatched slices.
    fn hash_blocks(self, blocks: &[u8], out: &mut [u8]) {
        assert!(
            blocks.len().is_multiple_of(BLOCK_LEN) && out.len() == blocks.len() / BLOCK_LEN * OUT_LEN,
            "sha256 batch kernels take whole blocks and one digest per block"
        );
        match self.kind() {
            BatchKind::Portable => hash_blocks_portable(blocks, out),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            BatchKind::ShaNi => unsafe { batch_shani::hash_blocks(blocks, out) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            BatchKind::Avx512 => unsafe { batch_avx512::hash_blocks(blocks, out) },
            #[cfg(target_arch = "x86_64")]
            BatchKind::Avx512ShaNi => {
                let count = blocks.len() / BLOCK_LEN;
                let rest = count % 16;
                let wide = if rest > SHANI_REMAINDER_MAX { count } else { count - rest };
                let (wide_in, rest_in) = blocks.split_at(wide * BLOCK_LEN);
                let (wide_out, rest_out) = out.split_at_mut(wide * OUT_LEN);
                // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which
                // cover both kernels (avx512f, avx512bw, sha, ssse3, sse4.1); each gets
                // matching slices.
                unsafe {
                    batch_avx512::hash_blocks(wide_in, wide_out);
                    batch_shani::hash_blocks(rest_in, rest_out);
                }
            }
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            BatchKind::Avx2 => unsafe { batch_avx2::hash_blocks(blocks, out) },
            #[cfg(target_arch = "aarch64")]
            BatchKind::ArmSha2 => {
                for (block, digest) in blocks.chunks_exact(BLOCK_LEN).zip(out.chunks_exact_mut(OUT_LEN)) {
                    let mut state = IV;
                    // SAFETY: the CPU has this kind's `requires` (checked for every Platform),
                    // which cover the kernel (neon, sha2).
                    unsafe {
                        armv8::compress_blocks(&mut state, block);
                        armv8::compress_blocks(&mut state, &PADDING_BLOCK);
                    }
                    write_digest(&state, digest);
                }
            }
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "aarch64")]
            BatchKind::Neon => unsafe { batch_neon::hash_blocks(blocks, out) },
        }
    }
}

fn hash_blocks_portable(blocks: &[u8], out: &mut [u8]) {
    for (block, digest) in blocks.chunks_exact(BLOCK_LEN).zip(out.chunks_exact_mut(OUT_LEN)) {
        let mut state = IV;
        portable::compress_blocks(&mut state, block);
        portable::rounds_wk(&mut state, &PADDING_WK);
        write_digest(&state, digest);
    }
}

/// The padding block of a 64-byte message, for kernels that compress it like any block.
#[cfg(target_arch = "aarch64")]
const PADDING_BLOCK: [u8; BLOCK_LEN] = {
    let mut block = [0u8; BLOCK_LEN];
    block[0] = 0x80;
    block[BLOCK_LEN - 2] = ((BLOCK_LEN * 8) >> 8) as u8;
    block
};

fn write_digest(state: &[u32; 8], digest: &mut [u8]) {
    for (bytes, word) in digest.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
}

/// Threads split a batch only at multiples of this many blocks (a whole AVX-512 group).
const SPLIT_ALIGN: usize = 16;

/// Hashes batches of 64-byte blocks, each as a whole message (hashtree's semantics).
#[derive(Clone, Debug)]
pub struct BlockBatch {
    platform: BatchPlatform,
    threads: Threads,
}

impl Default for BlockBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockBatch {
    /// The detected platform, one thread.
    pub fn new() -> Self {
        BlockBatch { platform: BatchPlatform::detect(), threads: Threads::One }
    }

    /// Chooses the kernels (obtain one from [`BatchPlatform::from_name`] or
    /// [`BatchPlatform::all_supported`], which check that this CPU can run it).
    pub fn set_platform(&mut self, platform: BatchPlatform) -> &mut Self {
        self.platform = platform;
        self
    }

    /// The kernels in use.
    pub fn platform(&self) -> BatchPlatform {
        self.platform
    }

    /// How many threads one call may use; the blocks are split into contiguous ranges.
    /// The thresholds are the library's ([`crate::threads::MIN_BYTES_PER_THREAD`] and
    /// [`crate::threads::AUTO_MIN_BYTES_PER_THREAD`], in input bytes).
    pub fn set_max_threads(&mut self, threads: Threads) -> &mut Self {
        self.threads = threads;
        self
    }

    /// The same kernels on the caller's thread only.
    pub(super) fn one_thread(&self) -> BlockBatch {
        BlockBatch { platform: self.platform, threads: Threads::One }
    }

    /// How many threads a call on `len` input bytes may use (the thread policy).
    pub(super) fn pool_size(&self, len: usize) -> usize {
        self.threads.pool_size(len)
    }

    /// Writes the SHA-256 digest of block `i` of `blocks` at `out[32 * i..]`.
    ///
    /// `blocks.len()` must be a multiple of 64 and `out.len()` exactly `blocks.len() / 2`.
    pub fn hash_into(&self, blocks: &[u8], out: &mut [u8]) -> Result<(), Error> {
        check_blocks(blocks.len(), out.len())?;
        if blocks.is_empty() {
            return Ok(());
        }
        let pool_size = self.threads.pool_size(blocks.len());
        with_pool(pool_size, || self.hash_split(blocks, out, pool_size));
        Ok(())
    }

    /// Splits the blocks between `threads` threads in contiguous ranges.
    fn hash_split(&self, blocks: &[u8], out: &mut [u8], threads: usize) {
        let count = blocks.len() / BLOCK_LEN;
        if threads <= 1 || count < 2 * SPLIT_ALIGN {
            return self.platform.hash_blocks(blocks, out);
        }
        let left_threads = threads / 2;
        let mid = (count * left_threads / threads / SPLIT_ALIGN * SPLIT_ALIGN).max(SPLIT_ALIGN);
        let (left_in, right_in) = blocks.split_at(mid * BLOCK_LEN);
        let (left_out, right_out) = out.split_at_mut(mid * OUT_LEN);
        join(
            true,
            || self.hash_split(left_in, left_out, left_threads),
            || self.hash_split(right_in, right_out, threads - left_threads),
        );
    }
}

/// Checks the lengths of a batch of blocks (`blocks_len` a multiple of 64, `out_len` 32 bytes
/// a block) and returns the number of blocks.
pub(crate) fn check_blocks(blocks_len: usize, out_len: usize) -> Result<usize, Error> {
    if !blocks_len.is_multiple_of(BLOCK_LEN) {
        return Err(Error::InvalidArgument(format!(
            "blocks must be a whole number of {BLOCK_LEN}-byte blocks, got {blocks_len} bytes"
        )));
    }
    let expected = blocks_len / BLOCK_LEN * OUT_LEN;
    if out_len != expected {
        return Err(Error::InvalidLength { what: "output buffer (32 bytes per block)", expected, got: out_len });
    }
    Ok(blocks_len / BLOCK_LEN)
}

/// SHA-256 of each 64-byte block of `blocks`, written to `out` (32 bytes per block), with
/// the detected backend on the caller's thread. See [`BlockBatch`].
pub fn hash_blocks(blocks: &[u8], out: &mut [u8]) -> Result<(), Error> {
    BlockBatch::new().hash_into(blocks, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha256::K;

    /// The compile-time schedule against one computed here, word by word in a 16-word ring
    /// as the portable compression does, and its use against compressing P itself.
    #[test]
    fn padding_schedule_matches_runtime_computation() {
        let mut block = [0u8; BLOCK_LEN];
        block[0] = 0x80;
        block[56..].copy_from_slice(&512u64.to_be_bytes());
        let mut w: Vec<u32> = block.chunks_exact(4).map(|b| u32::from_be_bytes(b.try_into().unwrap())).collect();
        for t in 16..64 {
            let (w15, w2) = (w[t - 15], w[t - 2]);
            let s0 = w15.rotate_right(7) ^ w15.rotate_right(18) ^ (w15 >> 3);
            let s1 = w2.rotate_right(17) ^ w2.rotate_right(19) ^ (w2 >> 10);
            w.push(w[t - 16].wrapping_add(s0).wrapping_add(w[t - 7]).wrapping_add(s1));
        }
        let wk: Vec<u32> = w.iter().zip(K).map(|(w, k)| w.wrapping_add(k)).collect();
        assert_eq!(PADDING_WK.as_slice(), wk.as_slice());

        let mut rng = crate::test_rng::XorShift64::new(0x2545_F491_4F6C_DD1D);
        for _ in 0..100 {
            let state: [u32; 8] = core::array::from_fn(|_| rng.next_u64() as u32);
            let mut expected = state;
            super::super::portable::compress_blocks(&mut expected, &block);
            let mut got = state;
            portable::rounds_wk(&mut got, &PADDING_WK);
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn thread_split_matches_one_thread() {
        let blocks: Vec<u8> = (0..(1usize << 20) + 5 * 64).map(|i| ((i * 31) ^ (i >> 9)) as u8).collect();
        let mut one = vec![0u8; blocks.len() / 2];
        BlockBatch::new().hash_into(&blocks, &mut one).unwrap();
        for threads in [2, 3, 4] {
            let mut many = vec![0u8; blocks.len() / 2];
            let mut batch = BlockBatch::new();
            batch.set_max_threads(Threads::Max(threads));
            // Forced split, whatever the policy's thresholds.
            with_pool(threads, || batch.hash_split(&blocks, &mut many, threads));
            assert_eq!(many, one, "{threads} threads");
            batch.hash_into(&blocks, &mut many).unwrap();
            assert_eq!(many, one, "{threads} threads via hash_into");
        }
    }
}
