//! Portable BLAKE3 kernels: plain Rust, any CPU. Every SIMD backend is tested against these.
//!
//! ## What this file holds
//!
//! plain Rust compression and `hash_many`: the reference every SIMD backend is tested against
//! (on x86-64 its `hash_many` prefetches eight blocks ahead: one compression is too long for
//! the core to reach the next block's loads early)

use super::job::HashManyJob;
use super::{CvWords, BLOCK_LEN, IV, MSG_SCHEDULE, OUT_LEN};

#[inline(always)]
/// The message word is added first: `a` is ready before `b`, so this shortens the
/// dependency chain by one addition.
fn g(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize, x: u32, y: u32) {
    s[a] = s[a].wrapping_add(x).wrapping_add(s[b]);
    s[d] = (s[d] ^ s[a]).rotate_right(16);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_right(12);
    s[a] = s[a].wrapping_add(y).wrapping_add(s[b]);
    s[d] = (s[d] ^ s[a]).rotate_right(8);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_right(7);
}

#[inline(always)]
fn round<const R: usize>(s: &mut [u32; 16], m: &[u32; 16]) {
    let schedule = &MSG_SCHEDULE[R];
    // Columns, then diagonals.
    g(s, 0, 4, 8, 12, m[schedule[0]], m[schedule[1]]);
    g(s, 1, 5, 9, 13, m[schedule[2]], m[schedule[3]]);
    g(s, 2, 6, 10, 14, m[schedule[4]], m[schedule[5]]);
    g(s, 3, 7, 11, 15, m[schedule[6]], m[schedule[7]]);
    g(s, 0, 5, 10, 15, m[schedule[8]], m[schedule[9]]);
    g(s, 1, 6, 11, 12, m[schedule[10]], m[schedule[11]]);
    g(s, 2, 7, 8, 13, m[schedule[12]], m[schedule[13]]);
    g(s, 3, 4, 9, 14, m[schedule[14]], m[schedule[15]]);
}

pub(crate) fn words_from_le_bytes<const N: usize>(bytes: &[u8]) -> [u32; N] {
    debug_assert_eq!(bytes.len(), 4 * N);
    let mut words = [0u32; N];
    for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
        *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    words
}

/// Inlined into both callers: returned through memory, the state slowed a long hash measurably
/// (docs/tuning-history.md, "blake3/portable.rs").
#[inline(always)]
fn compress_state(cv: &CvWords, block: &[u8; BLOCK_LEN], block_len: u8, counter: u64, flags: u8) -> [u32; 16] {
    let m: [u32; 16] = words_from_le_bytes(block);
    let mut s = [
        cv[0],
        cv[1],
        cv[2],
        cv[3],
        cv[4],
        cv[5],
        cv[6],
        cv[7],
        IV[0],
        IV[1],
        IV[2],
        IV[3],
        counter as u32,
        (counter >> 32) as u32,
        block_len as u32,
        flags as u32,
    ];
    round::<0>(&mut s, &m);
    round::<1>(&mut s, &m);
    round::<2>(&mut s, &m);
    round::<3>(&mut s, &m);
    round::<4>(&mut s, &m);
    round::<5>(&mut s, &m);
    round::<6>(&mut s, &m);
    s
}

/// One compression that keeps only the new chaining value.
pub(crate) fn compress_in_place(cv: &mut CvWords, block: &[u8; BLOCK_LEN], block_len: u8, counter: u64, flags: u8) {
    let s = compress_state(cv, block, block_len, counter, flags);
    for i in 0..8 {
        cv[i] = s[i] ^ s[i + 8];
    }
}

/// One compression with the full 64-byte output, for root blocks of extendable output.
pub(crate) fn compress_xof(cv: &CvWords, block: &[u8; BLOCK_LEN], block_len: u8, counter: u64, flags: u8) -> [u8; 64] {
    let mut s = compress_state(cv, block, block_len, counter, flags);
    for i in 0..8 {
        s[i] ^= s[i + 8];
        s[i + 8] ^= cv[i];
    }
    let mut out = [0u8; 64];
    for (chunk, w) in out.chunks_exact_mut(4).zip(s) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// Hashes each input of the job one after another (the reference for the SIMD versions).
pub(crate) fn hash_many(job: &HashManyJob<'_>, out: &mut [u8]) {
    for (i, (input, cv_out)) in job.inputs.iter().zip(out.chunks_exact_mut(OUT_LEN)).enumerate() {
        let mut cv = *job.key;
        let counter = job.counter_for(i);
        let blocks = input.chunks_exact(BLOCK_LEN);
        let last = blocks.len() - 1;
        for (b, block) in blocks.enumerate() {
            let block: &[u8; BLOCK_LEN] = block.try_into().expect("chunks_exact yields whole blocks");
            // Eight blocks ahead into L1: a compression is too long (about 800 µops) for the
            // core to reach the next block's loads early by itself. Beyond L2 this is most of
            // the difference to the crate's portable code (docs/tuning-history.md, "blake3/portable.rs").
            #[cfg(target_arch = "x86_64")]
            crate::simd::prefetch::<{ 8 * BLOCK_LEN }>(block.as_ptr());
            compress_in_place(&mut cv, block, job.block_len(b, last), counter, job.block_flags(b, last));
        }
        for (chunk, w) in cv_out.chunks_exact_mut(4).zip(cv) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
    }
}
