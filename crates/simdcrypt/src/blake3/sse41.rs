//! SSE4.1 BLAKE3 kernel: 4 inputs at once, one per 32-bit lane of a 128-bit register.
//! One or two inputs left over are hashed in rows (`rows.rs`), as are single compressions;
//! three in one padded 4-lane call.
//! The tree's levels of chaining values can stay in lane form between calls (`LaneLevels`).
//!
//! ## What this file holds
//!
//! 4 inputs at once (one per 32-bit lane); the prefetch distance of the SSE4.1 kernel and of
//! the transposition the AVX-512VL 8-lane path borrows from `avx2.rs` (each lane reads its own
//! 1 KiB chunk, too short a stream for the hardware prefetcher; the prefetch itself is
//! `simd::prefetch`; two blocks ahead, for the AVX2 kernel too; for inputs of whole chunks
//! also the same block 16 chunks ahead into L2, `simd::prefetch_l2`, which from DRAM the near
//! one alone reaches too late); each block's compression in one `asm!` block, the AVX2
//! kernel's register plan in two-operand SSE instructions; the message loaded and transposed a
//! quarter at a time (all 16 loads at once pushed the chaining values out of their registers
//! around every block); lane counters computed in vectors; one or two leftover inputs and
//! every single compression in rows (`rows.rs`); the tree's lane-form levels
//! (`hash_many_to_lanes`, `parents_in_lanes` with `shufps`, `lanes_to_rows`, as in
//! `avx512.rs`)

use core::arch::x86_64::*;

use super::job::{hash_rest_after_groups, padded_call, whole_groups, Counters, HashManyJob, Lanes};
use super::rows::{block_at, cv_rows, init_rows, rotation_masks, MessageSlots};
use super::{CvWords, BLOCK_LEN, CHUNK_LEN, IV, OUT_LEN};

const DEGREE: usize = 4;

/// How far ahead of the block being hashed each lane's input is prefetched. Every lane reads
/// its own 1 KiB chunk, too short a stream for the hardware prefetcher to pick up on its
/// own, so data coming from DRAM would otherwise stall each lane in turn. Two blocks, for
/// this kernel and the AVX2 one: three and four measured slower (docs/tuning-history.md, "blake3/sse41.rs").
const PREFETCH_AHEAD: usize = 2 * BLOCK_LEN;

/// How far ahead the same block of each lane is prefetched into L2 when the inputs are whole
/// chunks (most likely the chunks of one long input, in order): 16 chunks, as the AVX-512
/// kernel's far prefetch. From DRAM the near prefetch alone starts too late: with this one
/// both this kernel and the AVX2 one pass the crate beyond L2, at a small cost to batches of
/// 1 KiB messages in cache (docs/tuning-history.md, "blake3/sse41.rs").
const PREFETCH_FAR: usize = 16 * CHUNK_LEN;

/// Asks for the memory `PREFETCH_AHEAD` bytes past `block`, and with `far` also the memory
/// `PREFETCH_FAR` bytes past it, into L2.
#[inline(always)]
pub(super) fn prefetch_ahead(block: *const u8, far: bool) {
    crate::simd::prefetch::<PREFETCH_AHEAD>(block);
    if far {
        crate::simd::prefetch_l2::<PREFETCH_FAR>(block);
    }
}

// ---- The compression in assembly: the AVX2 kernel's register plan (see avx2.rs) in
// two-operand SSE instructions. The message, the byte-shuffle masks and, while it is idle,
// state word 8 live in `BlockBuffer`; word 8's register `{t}` is the temporary.

/// `c += d` for one G; word 8 comes back from its slot into `{t}`.
macro_rules! sse_c_add {
    (8, $d:tt) => {
        concat!("movdqa {t}, xmmword ptr [{buf} + 288]\npaddd {t}, {v", $d, "}\n")
    };
    ($c:tt, $d:tt) => {
        concat!("paddd {v", $c, "}, {v", $d, "}\n")
    };
}

/// `b ^= c` for one G; word 8 is in `{t}`.
macro_rules! sse_b_xor {
    ($b:tt, 8) => {
        concat!("pxor {v", $b, "}, {t}\n")
    };
    ($b:tt, $c:tt) => {
        concat!("pxor {v", $b, "}, {v", $c, "}\n")
    };
}

/// Rotation right by `$n` (12 or 7) of word `$b`, with `{t}` as the temporary.
macro_rules! sse_ror_shift {
    ($b:tt, $n:literal, $l:literal) => {
        concat!("movdqa {t}, {v", $b, "}\npsrld {t}, ", $n, "\npslld {v", $b, "}, ", $l, "\npor {v", $b, "}, {t}\n")
    };
}

/// After the last `b ^= c` of a G step, with word 8 in `{t}`: `park` stores it in its slot;
/// `finish` (the last step of all) xors words 0..4 into the new chaining value instead.
macro_rules! sse_word8 {
    (park) => {
        "movdqa xmmword ptr [{buf} + 288], {t}\n"
    };
    (finish) => {
        "pxor {v0}, {t}\npxor {v1}, {v9}\npxor {v2}, {v10}\npxor {v3}, {v11}\n"
    };
}

/// One half of four G functions: `a += m[$x] + b`, `d = (d ^ a) >>> 16 or 8` (the byte
/// shuffle at `$mask`), `c += d`, `b = (b ^ c) >>> $n` (12 or 7; `$l` = 32 - `$n`), with
/// `$end` for word 8 after the last `b ^= c` (`sse_word8!`).
macro_rules! sse_g4_half {
    ([$($a:tt),*], [$($b:tt),*], [$($c:tt),*], [$($d:tt),*], [$($x:tt),*], $mask:literal, $end:ident, $n:literal, $l:literal) => {
        concat!(
            $("paddd {v", $a, "}, xmmword ptr [{buf} + ", $x, "*16]\n",)*
            $("paddd {v", $a, "}, {v", $b, "}\n",)*
            $("pxor {v", $d, "}, {v", $a, "}\n",)*
            "movdqa {t}, xmmword ptr [{buf} + ", $mask, "]\n",
            $("pshufb {v", $d, "}, {t}\n",)*
            $(sse_c_add!($c, $d),)*
            $(sse_b_xor!($b, $c),)*
            sse_word8!($end),
            $(sse_ror_shift!($b, $n, $l),)*
        )
    };
}

/// Four G functions step by step (the order of `g4!`). `$x`, `$y`: their message words;
/// `$end`: what becomes of word 8 at the end (`sse_word8!`).
macro_rules! sse_g4 {
    ($a:tt, $b:tt, $c:tt, $d:tt, $x:tt, $y:tt, $end:ident) => {
        concat!(sse_g4_half!($a, $b, $c, $d, $x, 256, park, 12, 20), sse_g4_half!($a, $b, $c, $d, $y, 272, $end, 7, 25))
    };
}

const _: () = assert!(super::asm_message_words_match(asm_rounds!(sse_g4).as_bytes(), 16));

/// What the assembly reads and writes in memory (offsets as in its text).
#[repr(C, align(16))]
struct BlockBuffer {
    /// The transposed message: `m[w]` holds word `w` of every input.
    m: [__m128i; 16],
    rot16: __m128i,
    rot8: __m128i,
    /// State word 8 while it is idle.
    word8: __m128i,
    /// IV words 0..4, the counters' low and high halves.
    start: [__m128i; 6],
    /// The block length and the flags, in the first word of each: the assembly loads and
    /// spreads them (as the AVX2 kernel broadcasts them). The rest of each slot is padding.
    block_len: [u32; 4],
    flags: [u32; 4],
}

impl BlockBuffer {
    /// A buffer for blocks whose counters are `ctr_lo`/`ctr_hi`, with the block length and
    /// flags slots set to `block_len` and `flags` (a kernel may change them per block).
    #[inline]
    #[target_feature(enable = "sse4.1")]
    fn new(ctr_lo: __m128i, ctr_hi: __m128i, block_len: u8, flags: u8) -> Self {
        let iv = |i: usize| _mm_set1_epi32(IV[i] as i32);
        let (rot16, rot8) = rotation_masks();
        BlockBuffer {
            m: [_mm_setzero_si128(); 16],
            rot16,
            rot8,
            word8: _mm_setzero_si128(),
            start: [iv(0), iv(1), iv(2), iv(3), ctr_lo, ctr_hi],
            block_len: [u32::from(block_len); 4],
            flags: [u32::from(flags); 4],
        }
    }
}

// The offsets the assembly text uses.
const _: () = {
    assert!(core::mem::offset_of!(BlockBuffer, rot16) == 256);
    assert!(core::mem::offset_of!(BlockBuffer, rot8) == 272);
    assert!(core::mem::offset_of!(BlockBuffer, word8) == 288);
    assert!(core::mem::offset_of!(BlockBuffer, start) == 304);
    assert!(core::mem::offset_of!(BlockBuffer, block_len) == 400);
    assert!(core::mem::offset_of!(BlockBuffer, flags) == 416);
    assert!(core::mem::size_of::<BlockBuffer>() == 304 + 8 * 16);
};

/// One 4-lane compression of the message in `buf.m` into the chaining values `h`.
#[inline]
#[target_feature(enable = "sse4.1")]
fn compress4(h: &mut [__m128i; 8], buf: &mut BlockBuffer) {
    // SAFETY: the text reads and writes only its register operands and `*buf` (offsets
    // 0..432 of the 432-byte, 16-byte aligned struct, aligned accesses), uses no stack and
    // leaves the flags alone; `sse4.1` (with SSSE3's pshufb) is enabled for this function.
    unsafe {
        core::arch::asm!(
            // Word 8 starts as IV[0] (in its slot); words 9..14 from the start row, 14 and 15
            // (block length, flags) spread from their scalar slots.
            "movdqa {t}, xmmword ptr [{buf} + 304]",
            "movdqa xmmword ptr [{buf} + 288], {t}",
            "movdqa {v9}, xmmword ptr [{buf} + 320]",
            "movdqa {v10}, xmmword ptr [{buf} + 336]",
            "movdqa {v11}, xmmword ptr [{buf} + 352]",
            "movdqa {v12}, xmmword ptr [{buf} + 368]",
            "movdqa {v13}, xmmword ptr [{buf} + 384]",
            "movd {v14}, dword ptr [{buf} + 400]",
            "pshufd {v14}, {v14}, 0",
            "movd {v15}, dword ptr [{buf} + 416]",
            "pshufd {v15}, {v15}, 0",
            asm_rounds!(sse_g4),
            // The rest of the new chaining value: words 4..8 xor words 12..16.
            "pxor {v4}, {v12}",
            "pxor {v5}, {v13}",
            "pxor {v6}, {v14}",
            "pxor {v7}, {v15}",
            buf = in(reg) buf,
            t = out(xmm_reg) _,
            v0 = inout(xmm_reg) h[0], v1 = inout(xmm_reg) h[1], v2 = inout(xmm_reg) h[2], v3 = inout(xmm_reg) h[3],
            v4 = inout(xmm_reg) h[4], v5 = inout(xmm_reg) h[5], v6 = inout(xmm_reg) h[6], v7 = inout(xmm_reg) h[7],
            v9 = out(xmm_reg) _, v10 = out(xmm_reg) _, v11 = out(xmm_reg) _,
            v12 = out(xmm_reg) _, v13 = out(xmm_reg) _, v14 = out(xmm_reg) _,
            v15 = out(xmm_reg) _,
            options(nostack, preserves_flags),
        );
    }
}

/// Transposes a 4x4 matrix of 32-bit words held as 4 rows.
#[inline]
#[target_feature(enable = "sse4.1")]
fn transpose4(r: &mut [__m128i]) {
    let t0 = _mm_unpacklo_epi32(r[0], r[1]);
    let t1 = _mm_unpackhi_epi32(r[0], r[1]);
    let t2 = _mm_unpacklo_epi32(r[2], r[3]);
    let t3 = _mm_unpackhi_epi32(r[2], r[3]);
    r[0] = _mm_unpacklo_epi64(t0, t2);
    r[1] = _mm_unpackhi_epi64(t0, t2);
    r[2] = _mm_unpacklo_epi64(t1, t3);
    r[3] = _mm_unpackhi_epi64(t1, t3);
}

/// Writes block `block_index` of the 4 inputs into `m` transposed (`m[w]` holds word `w` of
/// every input), a quarter at a time so that few registers are live beside the chaining
/// values (loaded all at once, they pushed the chaining values out to memory and back
/// around every block).
#[inline]
#[target_feature(enable = "sse4.1")]
fn load_message_into(lanes: &Lanes<'_, DEGREE>, block_index: usize, far: bool, m: &mut [__m128i; 16]) {
    let blocks: [*const u8; DEGREE] = core::array::from_fn(|lane| lanes.block(lane, block_index));
    for block in blocks {
        prefetch_ahead(block, far);
    }
    for (quarter, words) in m.chunks_exact_mut(4).enumerate() {
        for (word, block) in words.iter_mut().zip(blocks) {
            // SAFETY: `block_index < lanes.blocks()` (the caller's loop bound), so each block
            // is 64 readable bytes (`Lanes`) and 16 * quarter + 16 <= 64; loadu has no
            // alignment requirement.
            *word = unsafe { _mm_loadu_si128(block.add(16 * quarter).cast()) };
        }
        transpose4(words);
    }
}

/// The counters of inputs `first..first + 4` as low and high 32-bit halves, computed in
/// vectors (built lane by lane with inserts they cost more per call: docs/tuning-history.md, "blake3/sse41.rs").
#[inline]
#[target_feature(enable = "sse4.1")]
fn lane_counters(job: &HashManyJob<'_>, first: usize) -> (__m128i, __m128i) {
    if let Counters::PerInput(counters) = job.counters {
        let lo: [u32; DEGREE] = core::array::from_fn(|lane| counters[first + lane] as u32);
        let hi: [u32; DEGREE] = core::array::from_fn(|lane| (counters[first + lane] >> 32) as u32);
        // SAFETY: each array is 16 readable bytes; loadu has no alignment requirement.
        return unsafe { (_mm_loadu_si128(lo.as_ptr().cast()), _mm_loadu_si128(hi.as_ptr().cast())) };
    }
    let base = job.counter_for(first);
    let lo = _mm_set1_epi32(base as u32 as i32);
    let hi = _mm_set1_epi32((base >> 32) as u32 as i32);
    if let Counters::Fixed(_) = job.counters {
        return (lo, hi);
    }
    let lanes_lo = _mm_add_epi32(lo, _mm_setr_epi32(0, 1, 2, 3));
    // A lane carries into the high half where its low half wrapped below the base's
    // (unsigned compare: both sides with the sign bit flipped); the mask is -1 there.
    let sign = _mm_set1_epi32(i32::MIN);
    let carried = _mm_cmpgt_epi32(_mm_xor_si128(lo, sign), _mm_xor_si128(lanes_lo, sign));
    (lanes_lo, _mm_sub_epi32(hi, carried))
}

/// Hashes the job's inputs 4 at a time from the first on, while a whole group of the first
/// one's length (whole blocks) is left, into 4 chaining values per group at
/// `out[128 * g..]`: in rows of 32 bytes, or with `lane_form` as the state holds them
/// (`store_group`). Returns how many inputs it hashed. One function for both, walking the
/// groups itself, as the AVX-512 kernel's `hash16`.
#[target_feature(enable = "sse4.1")]
fn hash4(job: &HashManyJob<'_>, out: &mut [u8], lane_form: bool) -> usize {
    let blocks = job.inputs.first().map_or(0, |i| i.len() / BLOCK_LEN);
    let key: [__m128i; 8] = core::array::from_fn(|w| _mm_set1_epi32(job.key[w] as i32));
    let zero = _mm_setzero_si128();
    let mut buf = BlockBuffer::new(zero, zero, 0, 0);
    // Only inputs of whole chunks are likely to be followed by more of the same input.
    let far = blocks == CHUNK_LEN / BLOCK_LEN;
    let mut hashed = 0;
    for (first, lanes) in whole_groups::<DEGREE>(job) {
        let (ctr_lo, ctr_hi) = lane_counters(job, first);
        (buf.start[4], buf.start[5]) = (ctr_lo, ctr_hi);
        let mut h = key;
        for b in 0..blocks {
            load_message_into(&lanes, b, far, &mut buf.m);
            buf.block_len[0] = u32::from(job.block_len(b, blocks - 1));
            buf.flags[0] = u32::from(job.block_flags(b, blocks - 1));
            compress4(&mut h, &mut buf);
        }
        let out = &mut out[first * OUT_LEN..];
        if lane_form {
            store_group(h, out);
        } else {
            store_rows(h, out);
        }
        hashed = first + DEGREE;
    }
    hashed
}

/// Writes 4 chaining values held in lane form (`h[w]`: word `w` of each) as rows of 32
/// bytes in order at the front of `out`.
#[inline]
#[target_feature(enable = "sse4.1")]
fn store_rows(mut h: [__m128i; 8], out: &mut [u8]) {
    // h[0..4] holds words 0-3 of every lane, h[4..8] words 4-7; transpose each to per-lane rows.
    transpose4(&mut h[..4]);
    transpose4(&mut h[4..]);
    let out = &mut out[..DEGREE * OUT_LEN];
    for (lane, cv) in out.chunks_exact_mut(OUT_LEN).enumerate() {
        let p = cv.as_mut_ptr().cast::<__m128i>();
        // SAFETY: `cv` is 32 writable bytes; storeu has no alignment requirement.
        unsafe {
            _mm_storeu_si128(p, h[lane]);
            _mm_storeu_si128(p.add(1), h[4 + lane]);
        }
    }
}

// ---- Chaining values in lane form, for the levels of a subtree (`LaneLevels`), as in
// `avx512.rs`: a group of 4 values as 8 vectors, vector `w` holding word `w` of each, in
// input order. The parents of two groups `a` and `b` take the left children's word `w`
// (lanes 0 and 2 of `a`, then of `b`) with one `shufps`, the right children's (lanes 1
// and 3) with another: 16 shuffles per 4 parents where rows cost 8 to leave the kernel
// and 16 to enter it again, besides the loads and stores.

/// Bytes of one group of chaining values in lane form.
const GROUP_BYTES: usize = DEGREE * OUT_LEN;

/// Stores one group in lane form at the front of `out`.
#[inline]
#[target_feature(enable = "sse4.1")]
fn store_group(h: [__m128i; 8], out: &mut [u8]) {
    let out = &mut out[..GROUP_BYTES];
    for (hw, word) in h.into_iter().zip(out.chunks_exact_mut(16)) {
        // SAFETY: `word` is 16 writable bytes; storeu has no alignment requirement.
        unsafe { _mm_storeu_si128(word.as_mut_ptr().cast(), hw) };
    }
}

/// Loads one group in lane form (`GROUP_BYTES` at the front of `group`).
#[inline]
#[target_feature(enable = "sse4.1")]
fn load_group(group: &[u8]) -> [__m128i; 8] {
    let group = &group[..GROUP_BYTES];
    // SAFETY: `group` is 128 readable bytes, 16 per vector; loadu has no alignment
    // requirement.
    core::array::from_fn(|w| unsafe { _mm_loadu_si128(group.as_ptr().add(16 * w).cast()) })
}

/// Hashes the job's inputs (a multiple of 4, checked by the caller) into their chaining
/// values in lane form, one group per 4 inputs, while they have the first one's length
/// (whole blocks); returns how many.
#[target_feature(enable = "sse4.1")]
pub(super) fn hash_many_to_lanes(job: &HashManyJob<'_>, out: &mut [u8]) -> usize {
    hash4(job, out, true)
}

/// Compresses the chaining values of `children` (lane form, an even number of groups) into
/// their parents (lane form, one group per two groups of children) at the front of `out`.
/// `flags` must include `PARENT`.
#[target_feature(enable = "sse4.1")]
pub(super) fn parents_in_lanes(children: &[u8], key: &CvWords, flags: u8, out: &mut [u8]) {
    let pairs = children.chunks_exact(2 * GROUP_BYTES);
    assert!(pairs.remainder().is_empty(), "lane-form parents take pairs of whole groups");
    let out = &mut out[..pairs.len() * GROUP_BYTES];
    let zero = _mm_setzero_si128();
    let mut buf = BlockBuffer::new(zero, zero, BLOCK_LEN as u8, flags);
    let (ps, si) = (_mm_castsi128_ps, _mm_castps_si128);
    for (pair, out) in pairs.zip(out.chunks_exact_mut(GROUP_BYTES)) {
        let (a, b) = (load_group(pair), load_group(&pair[GROUP_BYTES..]));
        for w in 0..8 {
            buf.m[w] = si(_mm_shuffle_ps::<0b10_00_10_00>(ps(a[w]), ps(b[w])));
            buf.m[8 + w] = si(_mm_shuffle_ps::<0b11_01_11_01>(ps(a[w]), ps(b[w])));
        }
        let mut h = key.map(|k| _mm_set1_epi32(k as i32));
        compress4(&mut h, &mut buf);
        store_group(h, out);
    }
}

/// Rewrites whole groups of chaining values in lane form as rows of 32 bytes in order, in
/// place.
#[target_feature(enable = "sse4.1")]
pub(super) fn lanes_to_rows(groups: &mut [u8]) {
    assert!(groups.len().is_multiple_of(GROUP_BYTES), "lane form is whole groups");
    for group in groups.chunks_exact_mut(GROUP_BYTES) {
        store_rows(load_group(group), group);
    }
}

/// Hashes the inputs of the job while they have the first one's length, which the
/// dispatcher checked is whole blocks (`Platform::hash_many_prefix`); returns how many.
#[target_feature(enable = "sse4.1")]
pub(super) fn hash_many_prefix(job: &HashManyJob<'_>, out: &mut [u8]) -> usize {
    // Fewer inputs than a group skip the kernel's set-up.
    let first = if job.inputs.len() >= DEGREE { hash4(job, out, false) } else { 0 };
    hash_rest_after_groups(job, first, out, |first, out| hash_rest(job, first, out))
}

/// Hashes the one to three inputs from `first` on (lengths already checked): one or two in
/// rows (below), three in one padded 4-lane call.
#[inline]
#[target_feature(enable = "sse4.1")]
fn hash_rest(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    match job.inputs.len() - first {
        1 => hash_one_in_rows(job, first, out),
        2 => hash_two_in_rows(job, first, out),
        _ => padded_call::<DEGREE>(job, first, out, |j, o| {
            let hashed = hash4(j, o, false);
            debug_assert_eq!(hashed, DEGREE, "a padded call is one whole group");
        }),
    }
}

// ---- Blocks in rows (`rows.rs`): a block's state as four 128-bit rows, for one or two
// inputs left over after `hash4` and for single compressions.

/// The seven rounds of one block in rows; `m`: the block's four 16-byte quarters.
#[inline]
#[target_feature(enable = "sse4.1")]
fn rounds_rows1(r: &mut [__m128i; 4], m: [__m128i; 4]) {
    let (rot16, rot8) = rotation_masks();
    rows_asm!(sse41, xmm_reg, __m128i, r, m, rot16, rot8);
}

rows_kernels!(single_blocks, "sse4.1");

/// The seven rounds of two blocks in rows, `r[0..4]` and `r[4..8]`, worked on in turn so that
/// their chains overlap. The messages stay in `buf` (round 0's, `round0_order!`, in slots
/// 0-3 and 8-11): with both states in registers, they do not fit there too.
#[inline]
#[target_feature(enable = "sse4.1")]
fn rounds_two_sets(r: &mut [__m128i; 8], buf: &mut MessageSlots<__m128i>) {
    let (rot16, rot8) = rotation_masks();
    rows_asm_two_sets!(sse41, xmm_reg, __m128i, r, buf, rot16, rot8);
}

/// Hashes inputs `first` and `first + 1` in rows (`rounds_two_sets`).
#[target_feature(enable = "sse4.1")]
fn hash_two_in_rows(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    let inputs = &job.inputs[first..first + 2];
    let blocks = inputs[0].len() / BLOCK_LEN;
    let key = cv_rows(job.key);
    let mut cvs = [key, key];
    let mut buf = MessageSlots([_mm_setzero_si128(); 16]);
    for b in 0..blocks {
        let (block_len, flags) = (job.block_len(b, blocks - 1), job.block_flags(b, blocks - 1));
        // Not a closure over the two inputs: a build without LTO left one out of line.
        let x = init_rows(cvs[0], job.counter_for(first), block_len, flags);
        let y = init_rows(cvs[1], job.counter_for(first + 1), block_len, flags);
        let mut r = [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]];
        buf.0[..4].copy_from_slice(&round0_order!(mm, quarters!(block_at(inputs[0], b))));
        buf.0[8..12].copy_from_slice(&round0_order!(mm, quarters!(block_at(inputs[1], b))));
        rounds_two_sets(&mut r, &mut buf);
        cvs = [
            [_mm_xor_si128(r[0], r[2]), _mm_xor_si128(r[1], r[3])],
            [_mm_xor_si128(r[4], r[6]), _mm_xor_si128(r[5], r[7])],
        ];
    }
    for (cv, bytes) in cvs.iter().zip(out[..2 * OUT_LEN].chunks_exact_mut(OUT_LEN)) {
        // SAFETY: `bytes` is 32 writable bytes; storeu has no alignment requirement.
        unsafe {
            _mm_storeu_si128(bytes.as_mut_ptr().cast(), cv[0]);
            _mm_storeu_si128(bytes.as_mut_ptr().add(16).cast(), cv[1]);
        }
    }
}
