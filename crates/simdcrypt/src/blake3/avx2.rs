//! AVX2 BLAKE3 kernel: 8 inputs at once, one per 32-bit lane of a 256-bit register.
//! Of fewer than 8 remaining inputs, one to four are hashed in rows (`rows.rs`, three padded
//! to four), five to seven in one padded 8-lane call.
//! The tree's levels of chaining values can stay in lane form between calls (`LaneLevels`).

use core::arch::x86_64::*;

use super::job::{hash_groups, padded_call, HashManyJob, Lanes};
use super::rows::{block_at, block_len_and_flags, cv_rows, iv_row, rotation_masks, MessageSlots};
use super::{sse41, CvWords, BLOCK_LEN, CHUNK_LEN, IV, OUT_LEN};
use crate::simd::transpose8;

pub(super) const DEGREE: usize = 8;

// ---- The compression in assembly. ----
//
// With 16 ymm registers, the state (16 vectors), the message (16) and a temporary for the
// shift-based rotations cannot all be in registers. Left to the compiler, the kernel
// spilled and reloaded about 140 vectors per block, and did some rotations by 16 in two
// shuffles to spare a register, well behind the official crate's AVX2 assembly. Here each
// block's compression is one block of assembly whose register use is decided by hand:
// - the message stays in memory (`BlockBuffer`), read as operands of the additions;
// - state word 8 lives in a memory slot whenever it is idle: as a `c` word it is not
//   needed between `b ^= c` and the next `c += d`, which reloads it as its memory operand;
// - its register `{t}` is meanwhile the temporary of the rotations by 12 and 7 and holds
//   the byte-shuffle mask of the rotations by 16 and 8.
// That closed most of the gap; the later changes noted at `avx2_word8!` and
// `load_message_into` closed more (docs/tuning-history.md, "blake3/avx2.rs").

/// `c += d` for one G; word 8 comes back from the spill slot into `{t}`.
macro_rules! avx2_c_add {
    (8, $d:tt) => {
        concat!("vpaddd {t}, {v", $d, "}, ymmword ptr [{buf} + 576]\n")
    };
    ($c:tt, $d:tt) => {
        concat!("vpaddd {v", $c, "}, {v", $c, "}, {v", $d, "}\n")
    };
}

/// `b ^= c` for one G; word 8 is in `{t}`.
macro_rules! avx2_b_xor {
    ($b:tt, 8) => {
        concat!("vpxor {v", $b, "}, {v", $b, "}, {t}\n")
    };
    ($b:tt, $c:tt) => {
        concat!("vpxor {v", $b, "}, {v", $b, "}, {v", $c, "}\n")
    };
}

/// Rotation right by `$n` (12 or 7) of word `$b`, with `{t}` as the temporary.
macro_rules! avx2_ror_shift {
    ($b:literal, $n:literal, $l:literal) => {
        concat!(
            "vpsrld {t}, {v",
            $b,
            "}, ",
            $n,
            "\nvpslld {v",
            $b,
            "}, {v",
            $b,
            "}, ",
            $l,
            "\nvpor {v",
            $b,
            "}, {v",
            $b,
            "}, {t}\n"
        )
    };
}

/// After the last `b ^= c` of a G step, with word 8 in `{t}`: `park` stores it in its slot;
/// `finish` (the last step of all) xors words 0..4 into the new chaining value instead,
/// which saves storing and reloading word 8 just before the next block needs it.
macro_rules! avx2_word8 {
    (park) => {
        "vmovdqa ymmword ptr [{buf} + 576], {t}\n"
    };
    (finish) => {
        "vpxor {v0}, {v0}, {t}\nvpxor {v1}, {v1}, {v9}\nvpxor {v2}, {v2}, {v10}\nvpxor {v3}, {v3}, {v11}\n"
    };
}

/// One half of four G functions: `a += m[$x] + b`, `d = (d ^ a) >>> 16 or 8` (the byte
/// shuffle at `$mask`), `c += d`, `b = (b ^ c) >>> $n` (12 or 7; `$l` = 32 - `$n`), with
/// `$end` for word 8 after the last `b ^= c` (`avx2_word8!`).
macro_rules! avx2_g4_half {
    ([$($a:tt),*], [$($b:tt),*], [$($c:tt),*], [$($d:tt),*], [$($x:tt),*], $mask:literal, $end:ident, $n:literal, $l:literal) => {
        concat!(
            $("vpaddd {v", $a, "}, {v", $a, "}, ymmword ptr [{buf} + ", $x, "*32]\n",)*
            $("vpaddd {v", $a, "}, {v", $a, "}, {v", $b, "}\n",)*
            $("vpxor {v", $d, "}, {v", $d, "}, {v", $a, "}\n",)*
            "vmovdqa {t}, ymmword ptr [{buf} + ", $mask, "]\n",
            $("vpshufb {v", $d, "}, {v", $d, "}, {t}\n",)*
            $(avx2_c_add!($c, $d),)*
            $(avx2_b_xor!($b, $c),)*
            avx2_word8!($end),
            $(avx2_ror_shift!($b, $n, $l),)*
        )
    };
}

/// Four G functions step by step (the order of `g4!`). `$x`, `$y`: their message words;
/// `$end`: what becomes of word 8 at the end (`avx2_word8!`).
macro_rules! avx2_g4 {
    ($a:tt, $b:tt, $c:tt, $d:tt, $x:tt, $y:tt, $end:ident) => {
        concat!(
            avx2_g4_half!($a, $b, $c, $d, $x, 512, park, 12, 20),
            avx2_g4_half!($a, $b, $c, $d, $y, 544, $end, 7, 25)
        )
    };
}

const _: () = assert!(super::asm_message_words_match(asm_rounds!(avx2_g4).as_bytes(), 32));

/// What the assembly reads and writes in memory: the transposed message, the byte shuffles
/// for rotations by 16 and 8, the slot of state word 8, and the words that start state
/// rows 2 and 3 (offsets as in the assembly text).
#[repr(C, align(32))]
struct BlockBuffer {
    m: [__m256i; 16],
    rot16: __m256i,
    rot8: __m256i,
    word8: __m256i,
    /// IV words 0..4, the counters' low and high halves.
    start: [__m256i; 6],
    /// The block length and the flags, in the first word of each: the assembly broadcasts
    /// them from memory. Built with `vmovd` + `vpbroadcastd` (two shuffle-port µops each)
    /// and stored as vectors, they cost a measurable share of a long hash
    /// (docs/tuning-history.md, "blake3/avx2.rs"). The rest of each slot is padding.
    block_len: [u32; 8],
    flags: [u32; 8],
}

impl BlockBuffer {
    /// A buffer for blocks whose counters are `ctr_lo`/`ctr_hi`, with the block length and
    /// flags slots set to `block_len` and `flags` (a kernel may change them per block).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(ctr_lo: __m256i, ctr_hi: __m256i, block_len: u8, flags: u8) -> Self {
        let iv = |i: usize| _mm256_set1_epi32(IV[i] as i32);
        let (rot16, rot8) = rotation_masks256();
        BlockBuffer {
            m: [_mm256_setzero_si256(); 16],
            rot16,
            rot8,
            word8: _mm256_setzero_si256(),
            start: [iv(0), iv(1), iv(2), iv(3), ctr_lo, ctr_hi],
            block_len: [u32::from(block_len); 8],
            flags: [u32::from(flags); 8],
        }
    }

    /// A buffer for `hash8`, which sets the counters and the per-block slots itself.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new_for_groups() -> Self {
        let zero = _mm256_setzero_si256();
        Self::new(zero, zero, 0, 0)
    }
}

// The offsets the assembly text uses.
const _: () = {
    assert!(core::mem::offset_of!(BlockBuffer, rot16) == 512);
    assert!(core::mem::offset_of!(BlockBuffer, rot8) == 544);
    assert!(core::mem::offset_of!(BlockBuffer, word8) == 576);
    assert!(core::mem::offset_of!(BlockBuffer, start) == 608);
    assert!(core::mem::offset_of!(BlockBuffer, block_len) == 800);
    assert!(core::mem::offset_of!(BlockBuffer, flags) == 832);
    assert!(core::mem::size_of::<BlockBuffer>() == 608 + 8 * 32);
};

/// One 8-lane compression of the message in `buf.m` into the chaining values `h`.
#[inline]
#[target_feature(enable = "avx2")]
fn compress8(h: &mut [__m256i; 8], buf: &mut BlockBuffer) {
    // SAFETY: the text reads and writes only its register operands and `*buf` (offsets
    // 0..864 of the 864-byte, 32-byte aligned struct, aligned accesses), uses no stack and
    // leaves the flags alone; `avx2` is enabled for this function.
    unsafe {
        core::arch::asm!(
            // Word 8 starts as IV[0] (in its slot); words 9..14 from the start row, 14 and 15
            // (block length, flags) broadcast from their scalar slots.
            "vmovdqa {t}, ymmword ptr [{buf} + 608]",
            "vmovdqa ymmword ptr [{buf} + 576], {t}",
            "vmovdqa {v9}, ymmword ptr [{buf} + 640]",
            "vmovdqa {v10}, ymmword ptr [{buf} + 672]",
            "vmovdqa {v11}, ymmword ptr [{buf} + 704]",
            "vmovdqa {v12}, ymmword ptr [{buf} + 736]",
            "vmovdqa {v13}, ymmword ptr [{buf} + 768]",
            "vpbroadcastd {v14}, dword ptr [{buf} + 800]",
            "vpbroadcastd {v15}, dword ptr [{buf} + 832]",
            asm_rounds!(avx2_g4),
            // The rest of the new chaining value: words 4..8 xor words 12..16.
            "vpxor {v4}, {v4}, {v12}",
            "vpxor {v5}, {v5}, {v13}",
            "vpxor {v6}, {v6}, {v14}",
            "vpxor {v7}, {v7}, {v15}",
            buf = in(reg) buf,
            t = out(ymm_reg) _,
            v0 = inout(ymm_reg) h[0], v1 = inout(ymm_reg) h[1], v2 = inout(ymm_reg) h[2], v3 = inout(ymm_reg) h[3],
            v4 = inout(ymm_reg) h[4], v5 = inout(ymm_reg) h[5], v6 = inout(ymm_reg) h[6], v7 = inout(ymm_reg) h[7],
            v9 = out(ymm_reg) _, v10 = out(ymm_reg) _, v11 = out(ymm_reg) _,
            v12 = out(ymm_reg) _, v13 = out(ymm_reg) _, v14 = out(ymm_reg) _, v15 = out(ymm_reg) _,
            options(nostack, preserves_flags),
        );
    }
}

/// Writes block `block_index` of the 8 inputs into `m` transposed (`m[w]` holds word `w`
/// of every input), four words at a time so that few registers are live beside the
/// chaining values.
#[inline]
#[target_feature(enable = "avx2")]
fn load_message_into(lanes: &Lanes<'_, DEGREE>, block_index: usize, far: bool, m: &mut [__m256i; 16]) {
    let blocks: [*const u8; DEGREE] = core::array::from_fn(|lane| lanes.block(lane, block_index));
    for block in blocks {
        sse41::prefetch_ahead(block, far);
    }
    for q in 0..4 {
        // Row i: words 4q..4q+4 of input i, then of input i + 4.
        // SAFETY: `block_index < lanes.blocks()` (the caller's loop bound), so each block is
        // 64 readable bytes (`Lanes`) and 16 * q + 16 <= 64; loadu has no alignment
        // requirement.
        let r: [__m256i; 4] = core::array::from_fn(|i| unsafe {
            _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(_mm_loadu_si128(blocks[i].add(16 * q).cast())),
                _mm_loadu_si128(blocks[i + 4].add(16 * q).cast()),
            )
        });
        // Pairs of words first, then the even and the odd word of each pair with `shufps`
        // (the official crate's order). Unpacking single words first, then pairs, took
        // longer per block (docs/tuning-history.md, "blake3/avx2.rs").
        let (ps, si) = (_mm256_castsi256_ps, _mm256_castps_si256);
        let t0 = ps(_mm256_unpacklo_epi64(r[0], r[1]));
        let t1 = ps(_mm256_unpackhi_epi64(r[0], r[1]));
        let t2 = ps(_mm256_unpacklo_epi64(r[2], r[3]));
        let t3 = ps(_mm256_unpackhi_epi64(r[2], r[3]));
        m[4 * q] = si(_mm256_shuffle_ps::<0x88>(t0, t2));
        m[4 * q + 1] = si(_mm256_shuffle_ps::<0xdd>(t0, t2));
        m[4 * q + 2] = si(_mm256_shuffle_ps::<0x88>(t1, t3));
        m[4 * q + 3] = si(_mm256_shuffle_ps::<0xdd>(t1, t3));
    }
}

/// Loads block `block_index` of each of the 8 inputs, transposed so that `m[w]` holds
/// message word `w` of every input.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load_message(lanes: &Lanes<'_, DEGREE>, block_index: usize) -> [__m256i; 16] {
    let mut lo = [_mm256_setzero_si256(); 8];
    let mut hi = [_mm256_setzero_si256(); 8];
    for lane in 0..DEGREE {
        let block = lanes.block(lane, block_index);
        sse41::prefetch_ahead(block, false);
        let p = block.cast::<__m256i>();
        // SAFETY: `block_index < lanes.blocks()` (the caller's loop bound), so `block` is 64
        // readable bytes (`Lanes`); loadu has no alignment requirement.
        unsafe {
            lo[lane] = _mm256_loadu_si256(p);
            hi[lane] = _mm256_loadu_si256(p.add(1));
        }
    }
    transpose8(&mut lo);
    transpose8(&mut hi);
    let mut m = [_mm256_setzero_si256(); 16];
    m[..8].copy_from_slice(&lo);
    m[8..].copy_from_slice(&hi);
    m
}

/// The counters of inputs `first..first + 8` as low and high 32-bit halves, computed in
/// vectors (built lane by lane with inserts they cost more per call, which batches of short
/// messages feel: docs/tuning-history.md, "blake3/avx2.rs").
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn lane_counters(job: &HashManyJob<'_>, first: usize) -> (__m256i, __m256i) {
    let base = job.counter_for(first);
    let lo = _mm256_set1_epi32(base as u32 as i32);
    let hi = _mm256_set1_epi32((base >> 32) as u32 as i32);
    if !job.increment_counter {
        return (lo, hi);
    }
    let lanes_lo = _mm256_add_epi32(lo, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    // A lane carries into the high half where its low half wrapped below the base's
    // (unsigned compare: both sides with the sign bit flipped); the mask is -1 there.
    let sign = _mm256_set1_epi32(i32::MIN);
    let carried = _mm256_cmpgt_epi32(_mm256_xor_si256(lo, sign), _mm256_xor_si256(lanes_lo, sign));
    (lanes_lo, _mm256_sub_epi32(hi, carried))
}

/// Hashes inputs `first..first + 8` of the job (`lanes`) into 8 chaining values at
/// `out[..256]`: in rows of 32 bytes, or with `lane_form` as the state holds them
/// (`store_group`). One function for both, as the AVX-512 kernel's `hash16`. `buf` is the
/// caller's, made once for all its groups (`BlockBuffer::new`); this sets its counters and
/// per-block slots. Made here for every group, it was a measurable share of a batch of
/// one-block inputs (docs/tuning-history.md, "BLAKE3 batches of one-block inputs with AVX2").
#[target_feature(enable = "avx2")]
fn hash8(
    job: &HashManyJob<'_>,
    first: usize,
    lanes: &Lanes<'_, DEGREE>,
    out: &mut [u8],
    lane_form: bool,
    buf: &mut BlockBuffer,
) {
    let blocks = lanes.blocks();
    let mut h = [_mm256_setzero_si256(); 8];
    for (hw, &kw) in h.iter_mut().zip(job.key) {
        *hw = _mm256_set1_epi32(kw as i32);
    }
    (buf.start[4], buf.start[5]) = lane_counters(job, first);
    // Only inputs of whole chunks are likely to be followed by more of the same input.
    let far = blocks == CHUNK_LEN / BLOCK_LEN;
    for b in 0..blocks {
        load_message_into(lanes, b, far, &mut buf.m);
        buf.block_len[0] = u32::from(job.block_len(b, blocks - 1));
        buf.flags[0] = u32::from(job.block_flags(b, blocks - 1));
        compress8(&mut h, buf);
    }
    if !lane_form {
        transpose8(&mut h);
    }
    store_group(h, out);
}

// ---- Chaining values in lane form, for the levels of a subtree (`LaneLevels`), as in
// `avx512.rs`: a group of 8 values as 8 vectors, vector `w` holding word `w` of each, in
// input order. The parents of two groups `a` and `b` take the left children's word `w`
// (lanes 0, 2, 4, 6 of `a`, then of `b`) with one `vshufps` and one `vpermq` (`vshufps`
// alone leaves them as a0 a2 b0 b2 | a4 a6 b4 b6), the right children's likewise: 32
// shuffles per 8 parents where rows cost 24 to leave the kernel and 48 to enter it again.

/// Bytes of one group of chaining values in lane form (or in rows).
const GROUP_BYTES: usize = DEGREE * OUT_LEN;

/// Stores 8 vectors of 32 bytes at the front of `out` (a group in lane form, or 8 chaining
/// values in rows).
#[inline]
#[target_feature(enable = "avx2")]
fn store_group(h: [__m256i; 8], out: &mut [u8]) {
    let out = &mut out[..GROUP_BYTES];
    for (hw, cv) in h.into_iter().zip(out.chunks_exact_mut(OUT_LEN)) {
        // SAFETY: `cv` is 32 writable bytes; storeu has no alignment requirement.
        unsafe { _mm256_storeu_si256(cv.as_mut_ptr().cast(), hw) };
    }
}

/// Loads one group (`GROUP_BYTES` at the front of `group`).
#[inline]
#[target_feature(enable = "avx2")]
fn load_group(group: &[u8]) -> [__m256i; 8] {
    let group = &group[..GROUP_BYTES];
    // SAFETY: `group` is 256 readable bytes, 32 per vector; loadu has no alignment
    // requirement.
    core::array::from_fn(|w| unsafe { _mm256_loadu_si256(group.as_ptr().add(32 * w).cast()) })
}

/// Hashes the job's inputs (a multiple of 8, checked by the caller) into their chaining
/// values in lane form, one group per 8 inputs, while they have the first one's length
/// (whole blocks); returns how many.
#[target_feature(enable = "avx2")]
pub(super) fn hash_many_to_lanes(job: &HashManyJob<'_>, out: &mut [u8]) -> usize {
    let mut buf = BlockBuffer::new_for_groups();
    hash_groups::<DEGREE>(
        job,
        out,
        |first, lanes, out| hash8(job, first, lanes, out, true, &mut buf),
        |_, _| unreachable!("lane form takes whole groups"),
    )
}

/// Compresses the chaining values of `children` (lane form, an even number of groups) into
/// their parents (lane form, one group per two groups of children) at the front of `out`.
/// `flags` must include `PARENT`.
#[target_feature(enable = "avx2")]
pub(super) fn parents_in_lanes(children: &[u8], key: &CvWords, flags: u8, out: &mut [u8]) {
    let pairs = children.chunks_exact(2 * GROUP_BYTES);
    assert!(pairs.remainder().is_empty(), "lane-form parents take pairs of whole groups");
    let out = &mut out[..pairs.len() * GROUP_BYTES];
    let zero = _mm256_setzero_si256();
    let mut buf = BlockBuffer::new(zero, zero, BLOCK_LEN as u8, flags);
    let (ps, si) = (_mm256_castsi256_ps, _mm256_castps_si256);
    for (pair, out) in pairs.zip(out.chunks_exact_mut(GROUP_BYTES)) {
        let (a, b) = (load_group(pair), load_group(&pair[GROUP_BYTES..]));
        for w in 0..8 {
            let left = si(_mm256_shuffle_ps::<0b10_00_10_00>(ps(a[w]), ps(b[w])));
            let right = si(_mm256_shuffle_ps::<0b11_01_11_01>(ps(a[w]), ps(b[w])));
            buf.m[w] = _mm256_permute4x64_epi64::<0b11_01_10_00>(left);
            buf.m[8 + w] = _mm256_permute4x64_epi64::<0b11_01_10_00>(right);
        }
        let mut h = key.map(|k| _mm256_set1_epi32(k as i32));
        compress8(&mut h, &mut buf);
        store_group(h, out);
    }
}

/// Rewrites whole groups of chaining values in lane form as rows of 32 bytes in order, in
/// place.
#[target_feature(enable = "avx2")]
pub(super) fn lanes_to_rows(groups: &mut [u8]) {
    assert!(groups.len().is_multiple_of(GROUP_BYTES), "lane form is whole groups");
    for group in groups.chunks_exact_mut(GROUP_BYTES) {
        let mut h = load_group(group);
        transpose8(&mut h);
        store_group(h, group);
    }
}

/// Hashes the inputs of the job while they have the first one's length, which the
/// dispatcher checked is whole blocks (`Platform::hash_many_prefix`); returns how many.
#[target_feature(enable = "avx2")]
pub(super) fn hash_many_prefix(job: &HashManyJob<'_>, out: &mut [u8]) -> usize {
    // Made at the first group: a hash of two to seven chunks has none.
    let mut buf = None;
    hash_groups::<DEGREE>(
        job,
        out,
        |first, lanes, out| {
            hash8(job, first, lanes, out, false, buf.get_or_insert_with(|| BlockBuffer::new_for_groups()))
        },
        |first, out| hash_rest(job, first, out),
    )
}

/// Hashes the one to seven inputs from `first` on (lengths already checked). One to four: in
/// rows (below; three padded to four). Five to seven: one padded 8-lane call, whose step
/// costs less than a four-block rows step and a one- or two-block one after the other
/// (the per-step costs: docs/tuning-history.md, "blake3/avx2.rs").
#[inline]
#[target_feature(enable = "avx2")]
fn hash_rest(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    match job.inputs.len() - first {
        n @ (1 | 2) => hash_rows(job, first, n, out),
        3 => padded_call::<ROWS4>(job, first, out, |j, o| hash_rows4(j, 0, o)),
        4 => hash_rows4(job, first, out),
        _ => padded_call::<DEGREE>(job, first, out, |j, o| {
            hash8(j, 0, &Lanes::new(j.inputs), o, false, &mut BlockBuffer::new_for_groups())
        }),
    }
}

// ---- Blocks in rows (`rows.rs`): a block's state as four 128-bit rows, one block in
// 128-bit registers or two side by side in 256-bit ones, for what is left after `hash8`
// and for single compressions. The 8-lane kernel spends as long on one padded step as
// on eight blocks.

/// `rotation_masks` in both 128-bit lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn rotation_masks256() -> (__m256i, __m256i) {
    let (rot16, rot8) = rotation_masks();
    (_mm256_broadcastsi128_si256(rot16), _mm256_broadcastsi128_si256(rot8))
}

/// The seven rounds of one block in rows; `m`: the block's four 16-byte quarters.
#[inline]
#[target_feature(enable = "avx2")]
fn rounds_rows1(r: &mut [__m128i; 4], m: [__m128i; 4]) {
    let (rot16, rot8) = rotation_masks();
    rows_asm!(avx2, xmm_reg, __m128i, r, m, rot16, rot8);
}

/// The seven rounds of two blocks side by side, one per 128-bit lane of `r` and `m`.
#[inline]
#[target_feature(enable = "avx2")]
fn rounds_rows2(r: &mut [__m256i; 4], m: [__m256i; 4]) {
    let (rot16, rot8) = rotation_masks256();
    rows_asm!(avx2, ymm_reg, __m256i, r, m, rot16, rot8);
}

rows_kernels!("avx2");

/// Blocks per call of `hash_rows4`.
const ROWS4: usize = 4;

/// The seven rounds of four blocks in rows: two sets of 256-bit rows (`r[0..4]`, `r[4..8]`),
/// two blocks side by side in each, worked on in turn so that their chains overlap. The
/// messages stay in `buf` (round 0's, `round0_order!`, in slots 0-3 and 8-11): with both sets'
/// state in registers, they do not fit there too.
#[inline]
#[target_feature(enable = "avx2")]
fn rounds_rows4(r: &mut [__m256i; 8], buf: &mut MessageSlots<__m256i>) {
    let (rot16, rot8) = rotation_masks256();
    rows_asm_two_sets!(avx2, ymm_reg, __m256i, r, buf, rot16, rot8);
}

/// Hashes inputs `first..first + 4` in rows (`rounds_rows4`): inputs 0 and 1 side by side
/// in the first set, 2 and 3 in the second.
#[target_feature(enable = "avx2")]
fn hash_rows4(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    let inputs: &[&[u8]; ROWS4] = job.inputs[first..first + ROWS4].try_into().expect("4 inputs");
    let blocks = inputs[0].len() / BLOCK_LEN;
    let both = |x: __m128i| _mm256_set_m128i(x, x);
    let key = cv_rows(job.key);
    let mut cv = [both(key[0]), both(key[1]), both(key[0]), both(key[1])];
    // Row d: each block's counter (words 0, 1 of its lane), set once; each block's length
    // and flags (words 2, 3) blended in per block.
    let ctr: [u64; ROWS4] = core::array::from_fn(|i| job.counter_for(first + i));
    let ctr = [
        _mm256_setr_epi64x(ctr[0] as i64, 0, ctr[1] as i64, 0),
        _mm256_setr_epi64x(ctr[2] as i64, 0, ctr[3] as i64, 0),
    ];
    let iv = both(iv_row());
    let mut buf = MessageSlots([_mm256_setzero_si256(); 16]);
    for b in 0..blocks {
        let tail = _mm256_set1_epi64x(block_len_and_flags(job, b, blocks));
        let d = [_mm256_blend_epi32::<0b1100_1100>(ctr[0], tail), _mm256_blend_epi32::<0b1100_1100>(ctr[1], tail)];
        let mut r = [cv[0], cv[1], iv, d[0], cv[2], cv[3], iv, d[1]];
        buf.0[..4].copy_from_slice(&round0_order!(mm256, quarters!(block_at(inputs[0], b), block_at(inputs[1], b))));
        buf.0[8..12].copy_from_slice(&round0_order!(mm256, quarters!(block_at(inputs[2], b), block_at(inputs[3], b))));
        rounds_rows4(&mut r, &mut buf);
        cv = [
            _mm256_xor_si256(r[0], r[2]),
            _mm256_xor_si256(r[1], r[3]),
            _mm256_xor_si256(r[4], r[6]),
            _mm256_xor_si256(r[5], r[7]),
        ];
    }
    // Input 2s + i's chaining value: lane i of cv[2s] and cv[2s + 1].
    for (i, bytes) in out[..ROWS4 * OUT_LEN].chunks_exact_mut(OUT_LEN).enumerate() {
        let (lo, hi) = (cv[i / 2 * 2], cv[i / 2 * 2 + 1]);
        let (lo, hi) = if i % 2 == 0 {
            (_mm256_castsi256_si128(lo), _mm256_castsi256_si128(hi))
        } else {
            (_mm256_extracti128_si256::<1>(lo), _mm256_extracti128_si256::<1>(hi))
        };
        // SAFETY: `bytes` is 32 writable bytes; storeu has no alignment requirement.
        unsafe {
            _mm_storeu_si128(bytes.as_mut_ptr().cast(), lo);
            _mm_storeu_si128(bytes.as_mut_ptr().add(16).cast(), hi);
        }
    }
}
