//! AVX-512 BLAKE3 kernel: 16 inputs at once, one per 32-bit lane of a 512-bit register.
//! Fewer than 16 remaining inputs go in one call (`hash_rest`): one to four in rows
//! (`rows.rs`), five to eight in the same kernel on 256-bit registers (padded), nine to
//! fifteen in the 16-lane kernel (padded).
//! The tree's levels of chaining values can stay in lane form between calls (`LaneLevels`).
//!
//! ## What this file holds
//!
//! 16 inputs at once (8 with AVX-512VL on ymm): the message loaded as 256-bit halves with
//! lanes 4-7 and 8-11 swapped (`INPUT_OF_LANE`, so the transposition ends with `vshufi64x2`),
//! G functions four at a time (`g4!`), its own prefetch (the next block into L1, the next 16
//! chunks into L2 with `simd::prefetch_l2`); the 1 to 15 inputs left over go in one call
//! (`hash_rest`): one to four in rows (`rows.rs`: four blocks side by side in zmm, three
//! padded to four, two in ymm, one in xmm), five to seven in one padded 8-lane call, nine to
//! fifteen in one padded 16-lane call (below 8 lanes a kernel runs at one block's latency, so
//! two narrow calls in a row cost more than one wide padded one); the same row-wise code is
//! the single-block compression; the tree's lane-form levels (`hash_many_to_lanes`: `hash16`
//! storing its state as it is, where batches and rows get eight 64-byte stores of pairs of
//! chaining values (`store_rows`); `parents_in_lanes`: the 16 parents of two groups, the
//! message from `vpermt2d` with `child_lanes` indices; `lanes_to_rows`)

use core::arch::x86_64::*;

use super::job::{hash_rest_after_groups, padded_call, whole_groups, Counters, HashManyJob, Lanes};
use super::rows::{cv_rows, first_middle_last, iv_row, pick};
use super::{avx2, CvWords, BLOCK_LEN, CHUNK_LEN, MSG_SCHEDULE, OUT_LEN};
use crate::simd::{transpose8, transpose_in_chunks};

const DEGREE: usize = 16;

/// The four G functions of a column or diagonal step, each operation done for all four
/// before the next: four independent dependency chains side by side, the order the
/// official crate's assembly uses. `$a`..`$d` list the state words of the four G's, `$x`
/// and `$y` their message words. A macro so that every index is a constant (the state
/// must stay in registers, and a function this size is not reliably inlined). Against one
/// G after another (the compiler reorders either), and against xor and rotate as separate
/// steps, this order measured faster (docs/tuning-history.md, "blake3/avx512.rs").
macro_rules! g4 {
    ($add:ident, $xor:ident, $ror:ident, $v:ident, [$($a:literal),*], [$($b:literal),*], [$($c:literal),*], [$($d:literal),*], [$($x:expr),*], [$($y:expr),*]) => {
        $( $v[$a] = $add($v[$a], $x); )*
        $( $v[$a] = $add($v[$a], $v[$b]); )*
        $( $v[$d] = $ror::<16>($xor($v[$d], $v[$a])); )*
        $( $v[$c] = $add($v[$c], $v[$d]); )*
        $( $v[$b] = $ror::<12>($xor($v[$b], $v[$c])); )*
        $( $v[$a] = $add($v[$a], $y); )*
        $( $v[$a] = $add($v[$a], $v[$b]); )*
        $( $v[$d] = $ror::<8>($xor($v[$d], $v[$a])); )*
        $( $v[$c] = $add($v[$c], $v[$d]); )*
        $( $v[$b] = $ror::<7>($xor($v[$b], $v[$c])); )*
    };
}

/// One round of `g4!` steps: the columns, then the diagonals. `$m` holds the message words.
#[rustfmt::skip]
macro_rules! round4 {
    ($add:ident, $xor:ident, $ror:ident, $v:ident, $m:ident, $s:ident) => {
        g4!($add, $xor, $ror, $v, [0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15],
            [$m[$s[0]], $m[$s[2]], $m[$s[4]], $m[$s[6]]], [$m[$s[1]], $m[$s[3]], $m[$s[5]], $m[$s[7]]]);
        g4!($add, $xor, $ror, $v, [0, 1, 2, 3], [5, 6, 7, 4], [10, 11, 8, 9], [15, 12, 13, 14],
            [$m[$s[8]], $m[$s[10]], $m[$s[12]], $m[$s[14]]], [$m[$s[9]], $m[$s[11]], $m[$s[13]], $m[$s[15]]]);
    };
}

#[inline]
#[target_feature(enable = "avx512f")]
fn round<const R: usize>(v: &mut [__m512i; 16], m: &[__m512i; 16]) {
    let s = &MSG_SCHEDULE[R];
    round4!(_mm512_add_epi32, _mm512_xor_si512, _mm512_ror_epi32, v, m, s);
}

/// How far ahead of the block being hashed each lane's input is prefetched into L1: the
/// next block. The 16 lanes read 16 streams of 1 KiB, too short for the hardware prefetcher;
/// what comes from further away than L2 was asked for by the far prefetch below. One block
/// ahead measured best of one, two and four blocks (the SSE4.1 and AVX2 kernels' distance)
/// (docs/tuning-history.md, "blake3/avx512.rs").
const PREFETCH_NEAR: usize = BLOCK_LEN;

/// How far ahead the same block of each lane is prefetched into L2: the 16 chunks after
/// these 16, which the next call hashes when the inputs are the chunks of one long input
/// (and whole messages of 1 KiB in a batch). In DRAM the near prefetch alone starts too
/// late: with this one, inputs far beyond L2 overtake the crate (docs/tuning-history.md, "blake3/avx512.rs").
const PREFETCH_FAR: usize = DEGREE * CHUNK_LEN;

/// The input whose words lane `l` of the message vectors holds (`load_message`): lanes
/// 4..8 and 8..12 are swapped, which saves the transposition a lane-crossing permute.
/// Counters and chaining values follow the same order. An involution.
const INPUT_OF_LANE: [usize; DEGREE] = [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15];

/// Words `8 * half..8 * half + 8` of block `block_index` of the 16 inputs, transposed:
/// `m[w]` holds word `8 * half + w` of every input, in `INPUT_OF_LANE` order.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_half(lanes: &Lanes<'_, DEGREE>, block_index: usize, half: usize, far: bool) -> [__m512i; 8] {
    // Row i: the eight words of input i, then those of input i + 8. Its 128-bit chunks are
    // words 0-3 and 4-7 of input i, then of input i + 8. The 256-bit loads and the insert
    // (which takes its second half straight from memory) do one stage of the transposition.
    let rows: [__m512i; 8] = core::array::from_fn(|i| {
        let (lo, hi) = (lanes.block(i, block_index), lanes.block(i + 8, block_index));
        if half == 0 {
            crate::simd::prefetch::<PREFETCH_NEAR>(lo);
            crate::simd::prefetch::<PREFETCH_NEAR>(hi);
            if far {
                crate::simd::prefetch_l2::<PREFETCH_FAR>(lo);
                crate::simd::prefetch_l2::<PREFETCH_FAR>(hi);
            }
        }
        // SAFETY: `block_index < lanes.blocks()` (the caller's loop bound), so both blocks
        // are 64 readable bytes (`Lanes`) and `32 * half + 32 <= 64`; loadu has no alignment
        // requirement.
        unsafe {
            _mm512_inserti64x4::<1>(
                _mm512_castsi256_si512(_mm256_loadu_si256(lo.add(32 * half).cast())),
                _mm256_loadu_si256(hi.add(32 * half).cast()),
            )
        }
    });
    // A 4x4 transpose inside each 128-bit chunk of each group of four rows: chunk k of
    // u[g][c] is word c of chunk k of rows 4g..4g+4.
    let u: [[__m512i; 4]; 2] =
        core::array::from_fn(|g| transpose_in_chunks([rows[4 * g], rows[4 * g + 1], rows[4 * g + 2], rows[4 * g + 3]]));
    // Word c is chunks 0 and 2 of u[0][c] and u[1][c] (inputs 0-3, 8-11, then 4-7, 12-15:
    // `INPUT_OF_LANE`), word 4 + c their chunks 1 and 3.
    let mut m = [_mm512_setzero_si512(); 8];
    for c in 0..4 {
        m[c] = _mm512_shuffle_i32x4::<0b10_00_10_00>(u[0][c], u[1][c]);
        m[4 + c] = _mm512_shuffle_i32x4::<0b11_01_11_01>(u[0][c], u[1][c]);
    }
    m
}

/// Loads block `block_index` of each of the 16 inputs, transposed so that `m[w]` holds
/// message word `w` of every input, lanes in `INPUT_OF_LANE` order. `far`: also prefetch
/// the 16 chunks after these (`PREFETCH_FAR`).
#[inline]
#[target_feature(enable = "avx512f")]
fn load_message(lanes: &Lanes<'_, DEGREE>, block_index: usize, far: bool) -> [__m512i; 16] {
    let lo = load_half(lanes, block_index, 0, far);
    let hi = load_half(lanes, block_index, 1, far);
    core::array::from_fn(|w| if w < 8 { lo[w] } else { hi[w - 8] })
}

/// `INPUT_OF_LANE` order: built in vectors, not as 32 scalar words stored and loaded back
/// per call (docs/tuning-history.md, "blake3/avx512.rs").
#[inline]
#[target_feature(enable = "avx512f")]
fn lane_counters(job: &HashManyJob<'_>, first: usize) -> (__m512i, __m512i) {
    if let Counters::PerInput(counters) = job.counters {
        let lo: [u32; DEGREE] = core::array::from_fn(|lane| counters[first + INPUT_OF_LANE[lane]] as u32);
        let hi: [u32; DEGREE] = core::array::from_fn(|lane| (counters[first + INPUT_OF_LANE[lane]] >> 32) as u32);
        // SAFETY: each array is 64 readable bytes; loadu has no alignment requirement.
        return unsafe { (_mm512_loadu_si512(lo.as_ptr().cast()), _mm512_loadu_si512(hi.as_ptr().cast())) };
    }
    let base = job.counter_for(first);
    let lo = _mm512_set1_epi32(base as u32 as i32);
    let hi = _mm512_set1_epi32((base >> 32) as u32 as i32);
    if let Counters::Fixed(_) = job.counters {
        return (lo, hi);
    }
    let offsets: [i32; DEGREE] = core::array::from_fn(|lane| INPUT_OF_LANE[lane] as i32);
    // SAFETY: `offsets` is 64 readable bytes; loadu has no alignment requirement.
    let lanes_lo = _mm512_add_epi32(lo, unsafe { _mm512_loadu_si512(offsets.as_ptr().cast()) });
    // A lane whose low half wrapped below the base's carries one into its high half.
    let carried = _mm512_cmplt_epu32_mask(lanes_lo, lo);
    (lanes_lo, _mm512_mask_add_epi32(hi, carried, hi, _mm512_set1_epi32(1)))
}

/// The seven rounds of one block, `$round::<0>` to `$round::<6>`. A macro: as a function
/// the rounds were not inlined, and the state went through memory (docs/tuning-history.md, "blake3/avx512.rs").
macro_rules! seven_rounds {
    ($round:ident, $v:expr, $m:expr) => {
        $round::<0>($v, $m);
        $round::<1>($v, $m);
        $round::<2>($v, $m);
        $round::<3>($v, $m);
        $round::<4>($v, $m);
        $round::<5>($v, $m);
        $round::<6>($v, $m);
    };
}

/// The 16 state words of one compression: the chaining value `h`, four IV words, then
/// `d` (counter low and high, block length, flags).
#[inline]
#[target_feature(enable = "avx512f")]
fn initial_state(h: &[__m512i; 8], d: [__m512i; 4]) -> [__m512i; 16] {
    super::lane_state(h, |w| _mm512_set1_epi32(w as i32), d)
}

/// Hashes the job's inputs 16 at a time from the first on, while a whole group of the first
/// one's length (whole blocks) is left, into 16 chaining values per group at
/// `out[512 * g..]`: in rows of 32 bytes in input order, or with `lane_form` as the state
/// holds them (`store_group`). Returns how many inputs it hashed.
///
/// The walk over the groups (`whole_groups`) is here: called once per group, as it was, its
/// set-up (frame, key, pointers to the stack) came once per 16 inputs, which held batches of
/// short messages behind the crate's kernel. One function for the batch and tree callers
/// (rows or lane form), so that both run the same compiled loop: split into a loop function
/// and two callers, the loop was no longer inlined and batches of 1 KiB ran slower
/// (docs/tuning-history.md, "blake3/avx512.rs").
#[target_feature(enable = "avx512f")]
fn hash16(job: &HashManyJob<'_>, out: &mut [u8], lane_form: bool) -> usize {
    let blocks = job.inputs.first().map_or(0, |i| i.len() / BLOCK_LEN);
    let key: [__m512i; 8] = core::array::from_fn(|w| _mm512_set1_epi32(job.key[w] as i32));
    // Only inputs of whole chunks are likely to be followed by more of the same input.
    let far = blocks == CHUNK_LEN / BLOCK_LEN;
    // Each block's length and flags, once per call: the rounds then take them as broadcasts
    // from memory folded into their first xors, where computing them per block cost scalar
    // work and two broadcasts from general registers (shuffle-port µops)
    // (docs/tuning-history.md, "blake3/avx512.rs").
    assert!(blocks <= CHUNK_LEN / BLOCK_LEN, "kernel inputs are at most one chunk");
    let mut block_words = [[0i32; 2]; CHUNK_LEN / BLOCK_LEN];
    for (b, words) in block_words.iter_mut().enumerate().take(blocks) {
        *words = [job.block_len(b, blocks - 1) as i32, job.block_flags(b, blocks - 1) as i32];
    }
    let block_words = &block_words[..blocks];
    let mut hashed = 0;
    for (first, lanes) in whole_groups::<DEGREE>(job) {
        let (ctr_lo, ctr_hi) = lane_counters(job, first);
        let ctr = [ctr_lo, ctr_hi];
        let mut h = key;
        // Indexed: iterating over `block_words` led the compiler to load each pair into
        // general registers and broadcast from there again, losing the gain above.
        #[allow(clippy::needless_range_loop)]
        for b in 0..blocks {
            let m = load_message(&lanes, b, far);
            // The counters from memory in every block (`black_box` hides that they are the
            // same each time): kept in registers across the loop, they are two more than the
            // state and message leave free, and the compiler then spilled more than them
            // (docs/tuning-history.md, "blake3/avx512.rs").
            let ctr = core::hint::black_box(&ctr);
            let flags = _mm512_set1_epi32(block_words[b][1]);
            let block_len = _mm512_set1_epi32(block_words[b][0]);
            let mut v = initial_state(&h, [ctr[0], ctr[1], block_len, flags]);
            seven_rounds!(round, &mut v, &m);
            for i in 0..8 {
                h[i] = _mm512_xor_si512(v[i], v[i + 8]);
            }
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

/// Writes 16 chaining values held in lane form (`h[w]`: word `w` of each, lanes in
/// `INPUT_OF_LANE` order) as rows of 32 bytes in input order at the front of `out`: 32
/// shuffles and eight 64-byte stores, each of two neighbouring inputs (a full 16x16
/// transposition, half of it on unused rows, took 48 shuffles and sixteen 32-byte stores).
#[inline]
#[target_feature(enable = "avx512f")]
fn store_rows(h: [__m512i; 8], out: &mut [u8]) {
    // Chunk k of lo[c] is words 0-3 of lane 4k + c, of hi[c] its words 4-7.
    let lo = transpose_in_chunks([h[0], h[1], h[2], h[3]]);
    let hi = transpose_in_chunks([h[4], h[5], h[6], h[7]]);
    let out = &mut out[..DEGREE * OUT_LEN];
    for c in (0..4).step_by(2) {
        // Lanes 4k + c and 4k + c + 1 hold two neighbouring inputs (`INPUT_OF_LANE` keeps
        // pairs), the first even. halves[i][p]: chunks 2p and 2p + 1 of lo[c + i], then of hi[c + i].
        let halves = [c, c + 1].map(|c| {
            [_mm512_shuffle_i32x4::<0b01_00_01_00>(lo[c], hi[c]), _mm512_shuffle_i32x4::<0b11_10_11_10>(lo[c], hi[c])]
        });
        for k in 0..4 {
            let (p, q) = (k / 2, k % 2);
            // Chunks q and 2 + q of each: the whole chaining values of lanes 4k + c, 4k + c + 1.
            let pair = if q == 0 {
                _mm512_shuffle_i32x4::<0b10_00_10_00>(halves[0][p], halves[1][p])
            } else {
                _mm512_shuffle_i32x4::<0b11_01_11_01>(halves[0][p], halves[1][p])
            };
            let dst = &mut out[INPUT_OF_LANE[4 * k + c] * OUT_LEN..][..2 * OUT_LEN];
            // SAFETY: `dst` is 64 writable bytes; storeu has no alignment requirement.
            unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), pair) };
        }
    }
}

// ---- Chaining values in lane form, for the levels of a subtree (`LaneLevels`). ----
//
// A group of 16 chaining values is kept as the 16-lane kernel's state leaves them: 8 vectors,
// vector `w` holding word `w` of each value, lanes in `INPUT_OF_LANE` order (512 bytes, as in
// rows). A level of parents is made from two groups with one two-source permute per message
// word: 16 shuffles per 16 parents where rows cost 32 to leave the kernel and 64 to enter it
// again, plus the loads and stores of both.

/// Bytes of one group of chaining values in lane form.
const LANE_GROUP_BYTES: usize = DEGREE * OUT_LEN;

/// The permute indices that make the message of the 16 parents of two groups (`a`, then
/// `b`): for `side` 0, the left child of the parent in each lane, for 1 the right one. Lane
/// `l` of the parents' group holds parent `p = INPUT_OF_LANE[l]`, whose children are values
/// `2p` and `2p + 1` of the 32; value `c` lies in lane `INPUT_OF_LANE[c]` of `a` (index
/// below 16) or `INPUT_OF_LANE[c - 16]` of `b` (index 16 and up).
const fn child_lanes(side: usize) -> [i32; DEGREE] {
    let mut idx = [0; DEGREE];
    let mut lane = 0;
    while lane < DEGREE {
        let child = 2 * INPUT_OF_LANE[lane] + side;
        idx[lane] = if child < DEGREE { INPUT_OF_LANE[child] } else { DEGREE + INPUT_OF_LANE[child - DEGREE] } as i32;
        lane += 1;
    }
    idx
}

/// Loads one group in lane form (`LANE_GROUP_BYTES` at the front of `group`).
#[inline]
#[target_feature(enable = "avx512f")]
fn load_group(group: &[u8]) -> [__m512i; 8] {
    let group = &group[..LANE_GROUP_BYTES];
    // SAFETY: `group` is 512 readable bytes, 64 per vector; loadu has no alignment
    // requirement.
    core::array::from_fn(|w| unsafe { _mm512_loadu_si512(group.as_ptr().add(64 * w).cast()) })
}

/// Stores one group in lane form at the front of `out`.
#[inline]
#[target_feature(enable = "avx512f")]
fn store_group(h: [__m512i; 8], out: &mut [u8]) {
    let out = &mut out[..LANE_GROUP_BYTES];
    for (w, hw) in h.into_iter().enumerate() {
        // SAFETY: `out` is 512 writable bytes, 64 per vector; storeu has no alignment
        // requirement.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(64 * w).cast(), hw) };
    }
}

/// Hashes the job's inputs (a multiple of 16, checked by the caller) into their chaining
/// values in lane form, one group per 16 inputs, while they have the first one's length
/// (whole blocks); returns how many.
#[target_feature(enable = "avx512f")]
pub(super) fn hash_many_to_lanes(job: &HashManyJob<'_>, out: &mut [u8]) -> usize {
    hash16(job, out, true)
}

/// Compresses the chaining values of `children` (lane form, an even number of groups) into
/// their parents (lane form, one group per two groups of children) at the front of `out`.
/// `flags` must include `PARENT`.
#[target_feature(enable = "avx512f")]
pub(super) fn parents_in_lanes(children: &[u8], key: &CvWords, flags: u8, out: &mut [u8]) {
    let pairs = children.chunks_exact(2 * LANE_GROUP_BYTES);
    assert!(pairs.remainder().is_empty(), "lane-form parents take pairs of whole groups");
    let out = &mut out[..pairs.len() * LANE_GROUP_BYTES];
    const LEFT: [i32; DEGREE] = child_lanes(0);
    const RIGHT: [i32; DEGREE] = child_lanes(1);
    // SAFETY: each array is 64 readable bytes; loadu has no alignment requirement.
    let [left, right] = [LEFT, RIGHT].map(|idx| unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) });
    let key = key.map(|w| _mm512_set1_epi32(w as i32));
    let zero = _mm512_setzero_si512();
    for (pair, out) in pairs.zip(out.chunks_exact_mut(LANE_GROUP_BYTES)) {
        let (a, b) = (load_group(pair), load_group(&pair[LANE_GROUP_BYTES..]));
        let m: [__m512i; 16] = core::array::from_fn(|w| {
            if w < 8 {
                _mm512_permutex2var_epi32(a[w], left, b[w])
            } else {
                _mm512_permutex2var_epi32(a[w - 8], right, b[w - 8])
            }
        });
        let row_d = [zero, zero, _mm512_set1_epi32(BLOCK_LEN as i32), _mm512_set1_epi32(i32::from(flags))];
        let mut v = initial_state(&key, row_d);
        seven_rounds!(round, &mut v, &m);
        store_group(core::array::from_fn(|i| _mm512_xor_si512(v[i], v[i + 8])), out);
    }
}

/// Rewrites whole groups of chaining values in lane form as rows of 32 bytes in order, in
/// place.
#[target_feature(enable = "avx512f")]
pub(super) fn lanes_to_rows(groups: &mut [u8]) {
    assert!(groups.len().is_multiple_of(LANE_GROUP_BYTES), "lane form is whole groups");
    for group in groups.chunks_exact_mut(LANE_GROUP_BYTES) {
        store_rows(load_group(group), group);
    }
}

// ---- 8 inputs at once on 256-bit registers, for what is left after groups of 16. ----
//
// The AVX2 kernel's shape, with AVX-512VL's one-instruction rotates (AVX2 needs a shuffle
// or three instructions per rotate). 256-bit operations issue on more ports than 512-bit
// ones, so this also runs close to the 16-lane kernel's speed per byte. The message
// loading and transposes are the AVX2 kernel's own.

#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn round8<const R: usize>(v: &mut [__m256i; 16], m: &[__m256i; 16]) {
    let s = &MSG_SCHEDULE[R];
    round4!(_mm256_add_epi32, _mm256_xor_si256, _mm256_ror_epi32, v, m, s);
}

/// Hashes inputs `first..first + 8` of the job into 8 chaining values at `out[..256]`.
#[target_feature(enable = "avx512f,avx512vl")]
fn hash8(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    let lanes = Lanes::<{ avx2::DEGREE }>::new(&job.inputs[first..]);
    let blocks = lanes.blocks();
    let mut h: [__m256i; 8] = core::array::from_fn(|i| _mm256_set1_epi32(job.key[i] as i32));
    let (ctr_lo, ctr_hi) = avx2::lane_counters(job, first);
    for b in 0..blocks {
        let m = avx2::load_message(&lanes, b);
        let flags = _mm256_set1_epi32(job.block_flags(b, blocks - 1) as i32);
        let block_len = _mm256_set1_epi32(job.block_len(b, blocks - 1) as i32);
        let mut v = super::lane_state(&h, |w| _mm256_set1_epi32(w as i32), [ctr_lo, ctr_hi, block_len, flags]);
        seven_rounds!(round8, &mut v, &m);
        for i in 0..8 {
            h[i] = _mm256_xor_si256(v[i], v[i + 8]);
        }
    }
    transpose8(&mut h);
    for (lane, cv) in out[..avx2::DEGREE * OUT_LEN].chunks_exact_mut(OUT_LEN).enumerate() {
        // SAFETY: `cv` is 32 writable bytes; storeu has no alignment requirement.
        unsafe { _mm256_storeu_si256(cv.as_mut_ptr().cast(), h[lane]) };
    }
}

/// Hashes the inputs of the job while they have the first one's length, which the
/// dispatcher checked is whole blocks (`Platform::hash_many_prefix`); returns how many.
#[target_feature(enable = "avx512f,avx512vl")]
pub(super) fn hash_many_prefix(job: &HashManyJob<'_>, out: &mut [u8]) -> usize {
    // Fewer inputs than a group skip the kernel's set-up.
    let first = if job.inputs.len() >= DEGREE { hash16(job, out, false) } else { 0 };
    hash_rest_after_groups(job, first, out, |first, out| hash_rest(job, first, out))
}

/// Hashes the one to fifteen inputs from `first` on (lengths already checked) in one call,
/// padded to the next width that has a kernel: below 8 lanes the kernels are bound by one
/// block's dependency chain, so one padded wider call beats two narrower ones in a row.
/// Measured per 64-byte step of each width: one or two in rows cost about what the crate's
/// assembly costs, four in zmm rows barely more, and far less than the 8- and 16-lane
/// kernels (a transposed 4-lane kernel in 128-bit registers lost). Hence one or two in
/// rows, three or four side by side in zmm rows, five to eight in the 8-lane kernel, nine
/// to fifteen in the 16-lane one (where 8 + 4 + 1 in turn was slower for 13 KiB). Out of
/// line: inlined into `hash_many_prefix`, its rows kernels ran slower at 4 KiB once that
/// function's own code shrank (the same instructions at other addresses)
/// (docs/tuning-history.md, "blake3/avx512.rs").
#[inline(never)]
#[target_feature(enable = "avx512f,avx512vl")]
fn hash_rest(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    match job.inputs.len() - first {
        n @ (1 | 2) => hash_rows(job, first, n, out),
        3 => padded_call::<ROWS4>(job, first, out, |j, o| hash_rows4(j, 0, o)),
        4 => hash_rows4(job, first, out),
        5..=7 => padded_call::<{ avx2::DEGREE }>(job, first, out, |j, o| hash8(j, 0, o)),
        8 => hash8(job, first, out),
        _ => padded_call::<DEGREE>(job, first, out, |j, o| {
            let hashed = hash16(j, o, false);
            debug_assert_eq!(hashed, DEGREE, "a padded call is one whole group");
        }),
    }
}

// ---- Blocks in rows (`rows.rs`): a block's state as four 128-bit rows, one, two or four
// blocks side by side, for what is left after the transposed kernels and for single
// compressions. AVX-512VL for the rotations and the masked merges.

/// Blocks per call of `hash_rows4`.
const ROWS4: usize = 4;

/// The seven rounds of one block in rows; `m`: the block's four 16-byte quarters.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn rounds_rows1(r: &mut [__m128i; 4], m: [__m128i; 4]) {
    rows_asm!(avx512, xmm_reg, __m128i, r, m);
}

/// The seven rounds of two blocks side by side, one per 128-bit lane of `r` and `m`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn rounds_rows2(r: &mut [__m256i; 4], m: [__m256i; 4]) {
    rows_asm!(avx512, ymm_reg, __m256i, r, m);
}

/// The seven rounds of four blocks side by side, one per 128-bit lane of `r` and `m`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn rounds_rows4(r: &mut [__m512i; 4], m: [__m512i; 4]) {
    rows_asm!(avx512, zmm_reg, __m512i, r, m);
}

rows_kernels!("avx512f,avx512vl");

/// Hashes inputs `first..first + 4` in rows, one per 128-bit lane of 512-bit registers.
#[target_feature(enable = "avx512f,avx512vl")]
fn hash_rows4(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
    let inputs: &[&[u8]; ROWS4] = job.inputs[first..first + ROWS4].try_into().expect("4 inputs");
    let blocks = inputs[0].len() / BLOCK_LEN;
    let key = cv_rows(job.key);
    let mut cv = [_mm512_broadcast_i32x4(key[0]), _mm512_broadcast_i32x4(key[1])];
    // Row d: each block's counter (words 0, 1 of its lane) and its length and flags (words
    // 2, 3), one row for first, middle and last blocks each.
    let ctr: [u64; 4] = core::array::from_fn(|i| job.counter_for(first + i));
    let ctr = _mm512_setr_epi64(ctr[0] as i64, 0, ctr[1] as i64, 0, ctr[2] as i64, 0, ctr[3] as i64, 0);
    let iv = _mm512_broadcast_i32x4(iv_row());
    let d_rows =
        first_middle_last(job, blocks).map(|tail| _mm512_mask_blend_epi32(0xcccc, ctr, _mm512_set1_epi64(tail)));
    // Not `inputs.map(..)`: `map` (no target features) cannot inline this function's
    // closure, and was left out of line, a call per input that showed at 4 KiB.
    let blocks_of = |i: usize| inputs[i].as_chunks::<BLOCK_LEN>().0;
    let (w, x, y, z) = (blocks_of(0), blocks_of(1), blocks_of(2), blocks_of(3));
    for (b, (((w, x), y), z)) in w.iter().zip(x).zip(y).zip(z).enumerate() {
        let mut r = [cv[0], cv[1], iv, pick(&d_rows, b, blocks)];
        rounds_rows4(&mut r, quarters!(w, x, y, z));
        cv = [_mm512_xor_si512(r[0], r[2]), _mm512_xor_si512(r[1], r[3])];
    }
    // Lane i of cv[0] and cv[1] is input i's chaining value.
    let lo: [__m128i; 4] = [
        _mm512_extracti32x4_epi32::<0>(cv[0]),
        _mm512_extracti32x4_epi32::<1>(cv[0]),
        _mm512_extracti32x4_epi32::<2>(cv[0]),
        _mm512_extracti32x4_epi32::<3>(cv[0]),
    ];
    let hi: [__m128i; 4] = [
        _mm512_extracti32x4_epi32::<0>(cv[1]),
        _mm512_extracti32x4_epi32::<1>(cv[1]),
        _mm512_extracti32x4_epi32::<2>(cv[1]),
        _mm512_extracti32x4_epi32::<3>(cv[1]),
    ];
    for (i, bytes) in out[..4 * OUT_LEN].chunks_exact_mut(OUT_LEN).enumerate() {
        // SAFETY: `bytes` is 32 writable bytes; storeu has no alignment requirement.
        unsafe {
            _mm_storeu_si128(bytes.as_mut_ptr().cast(), lo[i]);
            _mm_storeu_si128(bytes.as_mut_ptr().add(16).cast(), hi[i]);
        }
    }
}
