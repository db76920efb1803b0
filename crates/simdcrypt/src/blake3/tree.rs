//! The tree below the root: whole subtrees of chunks hashed by the wide kernels (in lane
//! form where the backend has it), their parents level by level, and the split of large
//! subtrees between threads.
//!
//! ## What this file holds
//!
//! the tree below the root: wide subtree hashing, levels in lane form, the thread split of
//! large subtrees (`compress_subtree_wide`, `hash_subtrees`, ...)
//!
//! ## The tree, from `Hasher::update` down
//!
//! `Hasher::update` fills the current chunk; whole subtrees (the largest power-of-two number
//! of chunks that the input and the alignment of the position allow) go to
//! `compress_subtree_to_parent_node`, which splits them recursively into halves down to 128
//! KiB and compresses parents side by side on the way up. A subtree of up to 128 chunks is
//! hashed a level at a time (`compress_subtree_by_levels`): all its chunks in one `hash_many`
//! call, then each level of parents in one call, pairing from the left and passing an odd last
//! value up (which is BLAKE3's left-balanced tree), each level written into the other of two
//! buffers (a per-thread scratch, `LEVEL_SCRATCH`, not a stack array zeroed per call), until
//! at most `simd_degree` values are left; recursing down to `simd_degree` chunks made two
//! kernel calls per `simd_degree` chunks, whose fixed costs were measurable at 1 MiB
//! (docs/tuning-history.md). On the x86-64
//! SIMD backends a subtree of a multiple of two groups of whole chunks (32, 16 or 8 on
//! AVX-512, AVX2, SSE4.1) keeps its levels in lane form (`LaneLevels` in `blake3/platform.rs`,
//! kernels in `blake3/avx512.rs`, `blake3/avx2.rs`, `blake3/sse41.rs`): each group of 16, 8 or
//! 4 chaining values stays as the wide kernel's state leaves it (vector `w` holding word `w`
//! of each), and the parents of two groups take their message from one two-source permute per
//! word (AVX-512 `vpermt2d`; AVX2 `vshufps` then `vpermq`; SSE4.1 `shufps`), instead of a
//! transposition out of the kernel and another back in; only the last level is written back in
//! rows. NEON keeps rows. With `Threads::Max(n)`/`Auto` the halves run under `rayon::join` at
//! every level down to 32 KiB (`JOIN_GRAIN`; 128 KiB left two threads on 1 MiB unbalanced), so
//! threads that start late still find work to take and the first to finish can take over part
//! of the other's; how many run at once is bounded by the pool: rayon's global pool when `n`
//! is at least its size, else a pool of exactly `n` threads, created the first time that size
//! is asked for and kept (`with_pool`; never one per call). The whole subtrees of one update
//! run in one join tree (the largest against the rest; up to 16 per tree, a rare longer split
//! takes several rounds), so no sequential part is left to the caller's thread while pool
//! workers spin. Whether to use threads at all comes from `Threads::pool_size`: `Max(n)` from
//! 256 KiB, `Auto` from 32 MiB; both thresholds are measurements, recorded in
//! docs/tuning-history.md ("Thread policy"). Completed subtrees' chaining values go on a stack
//! that is merged lazily, because the last entries may still become the root. The last chunk
//! stays in the chunk state while it may be the root (the input's first chunk) or is not
//! whole; a whole chunk after the first is hashed with the update's subtrees. On one thread,
//! an update's subtrees are hashed together (`hash_small_subtrees`) when there are two within
//! 16 chunks or three or more within 32: every chunk in one kernel call (which runs the
//! 16-lane groups and pads the rest), then each subtree's parents, rather than one call per
//! subtree in a row.

use super::*;

/// Writes the items of `items` into the front of `slots` and returns them as a slice.
/// Panics if there are more items than slots. The slots are left uninitialized rather than
/// filled with empty slices first: writing every 16-byte entry twice was more than half of
/// the tree's own work on long inputs (`perf`; docs/tuning-history.md, "blake3/mod.rs").
pub(super) fn fill_prefix<'a, 'b>(
    slots: &'b mut [MaybeUninit<&'a [u8]>],
    items: impl Iterator<Item = &'a [u8]>,
) -> &'b [&'a [u8]] {
    let mut n = 0;
    for item in items {
        slots[n].write(item);
        n += 1;
    }
    // SAFETY: slots `..n` were written above, and `MaybeUninit<T>` has the layout of `T`.
    unsafe { core::slice::from_raw_parts(slots.as_ptr().cast::<&'a [u8]>(), n) }
}

/// Zeroes the first `n` of `slots` and returns them; the rest stay uninitialized. For a
/// hasher's per-update scratch, sized for the most subtrees but usually holding one or
/// two: zeroing all 16 nodes (a 1 KiB `memset` call) showed on a hasher's short inputs. Not
/// `fill_prefix` made generic (fed `repeat_n` zeroes): that measured slower on a hasher's
/// 2 and 4 KiB (docs/tuning-history.md, "blake3/mod.rs").
pub(super) fn zeroed_prefix<const N: usize>(
    slots: &mut [MaybeUninit<[u8; BLOCK_LEN]>; N],
    n: usize,
) -> &mut [[u8; BLOCK_LEN]] {
    let slots = &mut slots[..n];
    for slot in slots.iter_mut() {
        slot.write([0; BLOCK_LEN]);
    }
    // SAFETY: every slot of `slots` was written above, and `MaybeUninit<T>` has the layout
    // of `T`.
    unsafe { core::slice::from_raw_parts_mut(slots.as_mut_ptr().cast::<[u8; BLOCK_LEN]>(), n) }
}

/// The kernel job for whole chunks of one input, the first at `chunk_counter`.
pub(super) fn chunks_job<'a>(
    chunks: &'a [&'a [u8]],
    key: &'a CvWords,
    chunk_counter: u64,
    flags: u8,
) -> HashManyJob<'a> {
    HashManyJob {
        inputs: chunks,
        key,
        counters: Counters::Incrementing(chunk_counter),
        flags,
        flags_start: CHUNK_START,
        flags_end: CHUNK_END,
        last_block_len: BLOCK_LEN as u8,
    }
}

/// Hashes up to `CAP` chunks (the last may be partial) in one kernel call. Returns the number
/// of chaining values written to `out`.
pub(super) fn compress_chunks_parallel<const CAP: usize>(
    input: &[u8],
    key: &CvWords,
    chunk_counter: u64,
    flags: u8,
    platform: Platform,
    out: &mut [u8],
) -> usize {
    debug_assert!(!input.is_empty() && input.len() <= CAP * CHUNK_LEN);
    let whole = input.chunks_exact(CHUNK_LEN);
    let partial = whole.remainder();
    let mut slots = [const { MaybeUninit::<&[u8]>::uninit() }; CAP];
    let chunks = fill_prefix(&mut slots, whole);
    let mut n = chunks.len();
    if n > 0 {
        platform.hash_many(&chunks_job(chunks, key, chunk_counter, flags), out);
    }
    if !partial.is_empty() {
        let mut state = ChunkState::new(key, chunk_counter + n as u64, flags, platform);
        out[n * OUT_LEN..][..OUT_LEN].copy_from_slice(&state.update(partial).output().chaining_value());
        n += 1;
    }
    n
}

/// Compresses pairs of child chaining values into parents (up to `CAP` of them) in one kernel
/// call; an odd last child is passed through. Returns the number of chaining values written
/// to `out`.
pub(super) fn compress_parents_parallel<const CAP: usize>(
    child_cvs: &[u8],
    key: &CvWords,
    flags: u8,
    platform: Platform,
    out: &mut [u8],
) -> usize {
    let pairs = child_cvs.chunks_exact(2 * OUT_LEN);
    let odd = pairs.remainder();
    let mut slots = [const { MaybeUninit::<&[u8]>::uninit() }; CAP];
    let parents = fill_prefix(&mut slots, pairs);
    let mut n = parents.len();
    let job = HashManyJob {
        inputs: parents,
        key,
        counters: Counters::Fixed(0),
        flags: flags | PARENT,
        flags_start: 0,
        flags_end: 0,
        last_block_len: BLOCK_LEN as u8,
    };
    platform.hash_many(&job, out);
    if !odd.is_empty() {
        out[n * OUT_LEN..][..OUT_LEN].copy_from_slice(odd);
        n += 1;
    }
    n
}

/// Subtrees of up to this many chunks are hashed a level at a time (`compress_subtree_by_levels`)
/// on one thread; with threads, those up to `JOIN_GRAIN`. As large as the smallest input
/// that `Threads::Max` splits gives each half (`MIN_BYTES_PER_THREAD`).
pub(super) const LEVEL_CHUNKS: usize = MIN_BYTES_PER_THREAD / CHUNK_LEN;

/// Hashes a subtree of up to `LEVEL_CHUNKS` chunks down to at most max(degree, 2) chaining
/// values (the contract of `compress_subtree_wide`): every chunk in one kernel call, then
/// each level of parents in one call, pairing from the left and passing an odd last value
/// up, which gives BLAKE3's left-balanced tree. Recursing down to `degree` chunks instead
/// makes two kernel calls (and a stack frame) per `degree` chunks, whose fixed costs
/// showed on long inputs, more with fewer lanes (docs/tuning-history.md, "blake3/mod.rs").
pub(super) fn compress_subtree_by_levels(
    input: &[u8],
    key: &CvWords,
    chunk_counter: u64,
    flags: u8,
    platform: Platform,
    out: &mut [u8],
) -> usize {
    let max_out = platform.simd_degree().max(2);
    LEVEL_SCRATCH.with_borrow_mut(|scratch| {
        let (chunk_cvs, parent_cvs) = scratch.0.split_at_mut(LEVEL_CHUNKS * OUT_LEN);
        let (level, next, n) = match platform.lane_levels() {
            Some(lanes) if input.len().is_multiple_of(2 * lanes.group() * CHUNK_LEN) => {
                levels_in_lanes(lanes, input, key, chunk_counter, flags, chunk_cvs, parent_cvs)
            }
            _ => {
                let n = compress_chunks_parallel::<LEVEL_CHUNKS>(input, key, chunk_counter, flags, platform, chunk_cvs);
                (chunk_cvs, parent_cvs, n)
            }
        };
        let cvs = reduce_levels::<{ LEVEL_CHUNKS / 2 }>(level, next, n, max_out, key, flags, platform);
        out[..cvs.len()].copy_from_slice(cvs);
        cvs.len() / OUT_LEN
    })
}

/// The first levels of a subtree of whole chunks, a multiple of two groups of them, in lane
/// form (`LaneLevels`): the chunks, then each level of parents while it pairs up by whole
/// groups. The last such level (one group, or an odd number of them) is rewritten in rows.
/// Returns its buffer (one of `level` and `next`), the other one, and how many chaining
/// values it holds. At 1 MiB on AVX-512, 56 of the 63 groups of parents are made this way.
pub(super) fn levels_in_lanes<'a>(
    lanes: LaneLevels,
    input: &[u8],
    key: &CvWords,
    chunk_counter: u64,
    flags: u8,
    mut level: &'a mut [u8],
    mut next: &'a mut [u8],
) -> (&'a mut [u8], &'a mut [u8], usize) {
    let group_bytes = lanes.group() * OUT_LEN;
    let mut slots = [const { MaybeUninit::<&[u8]>::uninit() }; LEVEL_CHUNKS];
    let chunks = fill_prefix(&mut slots, input.chunks_exact(CHUNK_LEN));
    debug_assert_eq!(chunks.len() * CHUNK_LEN, input.len(), "whole chunks");
    lanes.hash_many(&chunks_job(chunks, key, chunk_counter, flags), level);
    let mut groups = chunks.len() / lanes.group();
    while groups > 1 && groups.is_multiple_of(2) {
        lanes.parents(&level[..groups * group_bytes], key, flags | PARENT, next);
        groups /= 2;
        core::mem::swap(&mut level, &mut next);
    }
    lanes.to_rows(&mut level[..groups * group_bytes]);
    (level, next, groups * lanes.group())
}

std::thread_local! {
    /// `compress_subtree_by_levels`' chaining values: a level of chunks, then room for the
    /// first level of parents (the two buffers `reduce_levels` alternates between). Per
    /// thread rather than on the stack, where zeroing its 6 KiB on every call showed in
    /// `perf` as `memset` (docs/tuning-history.md, "blake3/mod.rs"). Nothing in that function re-enters it on the same
    /// thread (it calls only the kernels, never `join`), so the borrow cannot fail.
    static LEVEL_SCRATCH: core::cell::RefCell<CacheLines<{ LEVEL_CHUNKS * OUT_LEN + LEVEL_CHUNKS / 2 * OUT_LEN + OUT_LEN }>> =
        const { core::cell::RefCell::new(CacheLines([0; LEVEL_CHUNKS * OUT_LEN + LEVEL_CHUNKS / 2 * OUT_LEN + OUT_LEN])) };
}

/// Bytes aligned to a cache line: the lane-form kernels load and store whole 64-byte
/// vectors, which would otherwise straddle two lines.
#[repr(C, align(64))]
pub(super) struct CacheLines<const N: usize>(pub(super) [u8; N]);

/// Compresses the `n` chaining values at the front of `level` into parents a level at a
/// time (up to `CAP` parents per level, in one kernel call), until at most `max_out` are
/// left, and returns those. Each level is written into the other buffer, with no copy
/// between levels: `next` must hold `n / 2 + 1` values, `level` the rest.
pub(super) fn reduce_levels<'a, const CAP: usize>(
    mut level: &'a mut [u8],
    mut next: &'a mut [u8],
    mut n: usize,
    max_out: usize,
    key: &CvWords,
    flags: u8,
    platform: Platform,
) -> &'a [u8] {
    while n > max_out {
        n = compress_parents_parallel::<CAP>(&level[..n * OUT_LEN], key, flags, platform, next);
        core::mem::swap(&mut level, &mut next);
    }
    let level: &'a [u8] = level;
    &level[..n * OUT_LEN]
}

/// The size of the left subtree of an input of `len` bytes (`len` > one chunk): the largest
/// power-of-two number of chunks that leaves at least one byte on the right.
pub(super) fn left_subtree_len(len: usize) -> usize {
    debug_assert!(len > CHUNK_LEN);
    let full_chunks = (len - 1) / CHUNK_LEN;
    (1usize << (usize::BITS - 1 - full_chunks.leading_zeros())) * CHUNK_LEN
}

/// A whole subtree of one update's input: `len` bytes from `start`, its first chunk's index.
#[derive(Clone, Copy)]
pub(super) struct Subtree {
    pub(super) start: usize,
    pub(super) len: usize,
    pub(super) counter: u64,
}

/// How many of an update's whole subtrees are hashed in one join tree. An update splits into
/// a few subtrees (sizes rise to the alignment of the position, then fall); more than 16 is
/// rare, and then the largest come first. Small, so the per-update scratch stays small.
pub(super) const SUBTREES_PER_ROUND: usize = 16;

/// Hashes the whole subtrees `parts` of `input`: a one-chunk subtree to its chaining value
/// (the first half of its `nodes` entry), a larger one to its two children's (the whole
/// entry). With `par`, all of them run in one join tree, the first part against the rest,
/// so that no sequential part is left to the caller's thread while pool workers spin for
/// work: a 768 KiB update whose 256 KiB tail was hashed after the parallel 512 KiB head ran
/// slower on 2 cores than one thread (docs/tuning-history.md, "blake3/mod.rs").
pub(super) fn hash_subtrees(
    input: &[u8],
    parts: &[Subtree],
    key: &CvWords,
    flags: u8,
    platform: Platform,
    par: bool,
    nodes: &mut [[u8; BLOCK_LEN]],
) {
    // Past one 16-lane group, two subtrees take two kernel calls together as apart (24 KiB:
    // 16 + 8 chunks); three or more take fewer together (31 KiB: two calls, not five).
    let chunks = input.len() / CHUNK_LEN;
    if !par && (parts.len() > 2 || (parts.len() == 2 && chunks <= MAX_SIMD_DEGREE)) && chunks <= SMALL_SUBTREES_CHUNKS {
        return hash_small_subtrees(input, parts, key, flags, platform, nodes);
    }
    if let [part] = parts {
        let data = &input[part.start..][..part.len];
        nodes[0] = if part.len == CHUNK_LEN {
            let mut node = [0u8; BLOCK_LEN];
            node[..OUT_LEN].copy_from_slice(
                &ChunkState::new(key, part.counter, flags, platform).update(data).output().chaining_value(),
            );
            node
        } else {
            compress_subtree_to_parent_node(data, key, part.counter, flags, platform, par)
        };
        return;
    }
    let (head_nodes, tail_nodes) = nodes.split_at_mut(1);
    join(
        par,
        || hash_subtrees(input, &parts[..1], key, flags, platform, par, head_nodes),
        || hash_subtrees(input, &parts[1..], key, flags, platform, par, tail_nodes),
    );
}

/// Up to how many chunks in all `hash_small_subtrees` takes: two 16-lane groups.
pub(super) const SMALL_SUBTREES_CHUNKS: usize = 2 * MAX_SIMD_DEGREE;

/// `hash_subtrees` on one thread for subtrees of at most `SMALL_SUBTREES_CHUNKS` chunks in
/// all: every chunk in one `hash_many` call (which runs as few kernel calls as the backend's
/// widths allow), then each subtree's parents from those chaining values. One call per
/// subtree put their dependency chains one after another, which made a hasher's 13 KiB
/// (8 chunks, 4, then 1) much slower (docs/tuning-history.md, "blake3/mod.rs").
pub(super) fn hash_small_subtrees(
    input: &[u8],
    parts: &[Subtree],
    key: &CvWords,
    flags: u8,
    platform: Platform,
    nodes: &mut [[u8; BLOCK_LEN]],
) {
    let mut cvs = [0u8; SMALL_SUBTREES_CHUNKS * OUT_LEN];
    let n = compress_chunks_parallel::<SMALL_SUBTREES_CHUNKS>(input, key, parts[0].counter, flags, platform, &mut cvs);
    debug_assert_eq!(n * CHUNK_LEN, input.len(), "subtrees are whole chunks");
    // Two or more parts in at most 32 chunks: none is over 16 (each is a power of two
    // smaller than the whole), so a part's first level has at most 8 parents.
    let mut next = [0u8; SMALL_SUBTREES_CHUNKS / 4 * OUT_LEN + OUT_LEN];
    for (part, node) in parts.iter().zip(nodes) {
        let chunks = part.len / CHUNK_LEN;
        let level = &mut cvs[part.start / CHUNK_LEN * OUT_LEN..][..chunks * OUT_LEN];
        let top = reduce_levels::<{ SMALL_SUBTREES_CHUNKS / 4 }>(level, &mut next, chunks, 2, key, flags, platform);
        node[..top.len()].copy_from_slice(top);
    }
}

/// With threads, the halves of a subtree are offered to other threads down to this size
/// (and hashed a level at a time below it): a fine grain lets the thread that finishes
/// first take over part of the other's work. At 128 KiB (the size hashed by levels on one
/// thread) two threads on 1 MiB ran at 0.88-0.96 of the crate's `update_rayon`, which
/// offers down to 16 KiB; at 64 KiB 1.00-1.04, at 32 KiB 1.00-1.08 (criterion, 2-core VM).
pub(super) const JOIN_GRAIN: usize = 32 * 1024;

/// Hashes a whole subtree of a chunk-aligned position down to at most max(degree, 2)
/// chaining values (never fewer than 2 when the input is longer than one chunk), so that
/// parents can be compressed `degree` at a time on the way up. Returns how many were written.
pub(super) fn compress_subtree_wide(
    input: &[u8],
    key: &CvWords,
    chunk_counter: u64,
    flags: u8,
    platform: Platform,
    par: bool,
    out: &mut [u8],
) -> usize {
    if input.len() <= platform.simd_degree() * CHUNK_LEN {
        return compress_chunks_parallel::<MAX_SIMD_DEGREE>(input, key, chunk_counter, flags, platform, out);
    }
    if input.len() <= LEVEL_CHUNKS * CHUNK_LEN && !(par && input.len() > JOIN_GRAIN) {
        return compress_subtree_by_levels(input, key, chunk_counter, flags, platform, out);
    }
    let (left, right) = input.split_at(left_subtree_len(input.len()));
    let right_counter = chunk_counter + (left.len() / CHUNK_LEN) as u64;

    // Each side returns up to `degree` values; with a degree-1 kernel a side holding one
    // chunk returns exactly one.
    let degree = if left.len() == CHUNK_LEN { 1 } else { platform.simd_degree().max(2) };
    let mut cvs = [0u8; 2 * MAX_SIMD_DEGREE_OR_2 * OUT_LEN];
    let (left_out, right_out) = cvs.split_at_mut(degree * OUT_LEN);

    // Offer the right half to other threads at every level down to JOIN_GRAIN, so
    // that threads that start late still find work to take (the pool's size bounds how many
    // run at once).
    let par = par && right.len() >= JOIN_GRAIN;
    let (left_n, right_n) = join(
        par,
        || compress_subtree_wide(left, key, chunk_counter, flags, platform, par, left_out),
        || compress_subtree_wide(right, key, right_counter, flags, platform, par, right_out),
    );

    debug_assert_eq!(left_n, degree);
    if left_n == 1 {
        // Degree 1: two single chaining values. Return both so the caller still has a pair.
        out[..2 * OUT_LEN].copy_from_slice(&cvs[..2 * OUT_LEN]);
        return 2;
    }
    compress_parents_parallel::<MAX_SIMD_DEGREE_OR_2>(&cvs[..(left_n + right_n) * OUT_LEN], key, flags, platform, out)
}

/// Hashes a subtree of more than one chunk down to its two children's chaining values
/// (the 64-byte block of its parent node).
pub(super) fn compress_subtree_to_parent_node(
    input: &[u8],
    key: &CvWords,
    chunk_counter: u64,
    flags: u8,
    platform: Platform,
    par: bool,
) -> [u8; BLOCK_LEN] {
    debug_assert!(input.len() > CHUNK_LEN);
    let mut cvs = [0u8; MAX_SIMD_DEGREE_OR_2 * OUT_LEN];
    let n = compress_subtree_wide(input, key, chunk_counter, flags, platform, par, &mut cvs);
    debug_assert!(n >= 2);
    if n == 2 {
        // Two chunks (or a degree-1 kernel's pair): no level to reduce, and no scratch to
        // zero for one (the zeroing showed on a 2 KiB hash).
        return cvs[..BLOCK_LEN].try_into().expect("two chaining values");
    }
    let mut parents = [0u8; MAX_SIMD_DEGREE_OR_2 / 2 * OUT_LEN + OUT_LEN];
    let two = reduce_levels::<{ MAX_SIMD_DEGREE_OR_2 / 2 }>(&mut cvs, &mut parents, n, 2, key, flags, platform);
    two.try_into().expect("two chaining values")
}
