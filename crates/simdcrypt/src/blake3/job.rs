//! What a kernel is given: a job of equal-length inputs (`HashManyJob`), its lanes after
//! one length check (`Lanes`), and the walks over whole groups that the x86-64 kernels share.
//! Kernels import this file, and the dispatcher (`platform.rs`) imports the kernels, so
//! neither imports the other.
//!
//! ## What this file holds
//!
//! what a kernel is given: `HashManyJob`, `Lanes` and the walks over whole groups
//! (`whole_groups`, `hash_groups`, `hash_rest_after_groups`, `padded_call`); the kernels
//! import it and the dispatcher imports the kernels, so neither imports the other

#[cfg(target_arch = "x86_64")]
use super::OUT_LEN;
use super::{CvWords, BLOCK_LEN};

/// The x86-64 kernels' walk over a job (`Platform::hash_many_prefix`): its inputs `N` at a
/// time from the first, each group's lengths checked just before it, for as long as whole
/// groups of the first input's length are left. Yields the index of each group's first input
/// and its lanes. The AVX-512 and SSE4.1 kernels run this loop inside their
/// `#[target_feature]` function, so that their set-up (frame, key, counters) comes once per
/// call rather than once per group; AVX2 calls its kernel per group (`hash_groups`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn whole_groups<'a, const N: usize>(job: &HashManyJob<'a>) -> impl Iterator<Item = (usize, Lanes<'a, N>)> {
    let blocks = job.inputs.first().map_or(0, |i| i.len() / BLOCK_LEN);
    job.inputs
        .chunks_exact(N)
        .map_while(move |group| Lanes::<N>::with_blocks(group, blocks))
        .enumerate()
        .map(|(g, lanes)| (g * N, lanes))
}

/// `whole_groups` with `group` called once per group (a kernel whose set-up costs less than
/// walking the groups inside it: the AVX2 one), then `hash_rest_after_groups`. Returns how
/// many inputs were hashed.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn hash_groups<const N: usize>(
    job: &HashManyJob<'_>,
    out: &mut [u8],
    mut group: impl FnMut(usize, &Lanes<'_, N>, &mut [u8]),
    rest: impl FnOnce(usize, &mut [u8]),
) -> usize {
    let mut hashed = 0;
    for (first, lanes) in whole_groups::<N>(job) {
        group(first, &lanes, &mut out[first * OUT_LEN..]);
        hashed = first + N;
    }
    hash_rest_after_groups(job, hashed, out, rest)
}

/// The end of a kernel's walk, once its whole groups are hashed up to input `first`: `rest`
/// hashes the inputs left (fewer than a group) if they all have the first input's length.
/// Returns
/// how many inputs are hashed: all of them, or up to the start of the first group that holds
/// another length.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn hash_rest_after_groups(
    job: &HashManyJob<'_>,
    first: usize,
    out: &mut [u8],
    rest: impl FnOnce(usize, &mut [u8]),
) -> usize {
    let len = job.inputs.first().map_or(0, |i| i.len());
    if first == job.inputs.len() || job.inputs[first..].iter().any(|i| i.len() != len) {
        return first;
    }
    rest(first, &mut out[first * OUT_LEN..]);
    job.inputs.len()
}

/// Hashes inputs `first..` of `job` (fewer than `N`) with an `N`-lane kernel, the missing
/// lanes filled with copies of the last input and their chaining values dropped: for a few
/// inputs left over, one padded call costs less than hashing them one at a time.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn padded_call<const N: usize>(
    job: &HashManyJob<'_>,
    first: usize,
    out: &mut [u8],
    kernel: impl FnOnce(&HashManyJob<'_>, &mut [u8]),
) {
    let inputs = &job.inputs[first..];
    let n = inputs.len();
    assert!(n > 0 && n < N, "padded_call takes 1 to N - 1 inputs");
    let mut lanes = [inputs[n - 1]; N];
    lanes[..n].copy_from_slice(inputs);
    let per_lane: [u64; N];
    let counters = match job.counters {
        Counters::PerInput(_) => {
            // The copies of the last input take its counter too.
            per_lane = core::array::from_fn(|lane| job.counter_for(first + lane.min(n - 1)));
            Counters::PerInput(&per_lane)
        }
        other => other.from(first),
    };
    let padded_job = HashManyJob { inputs: &lanes, counters, ..*job };
    let mut cvs = [[0u8; OUT_LEN]; N];
    kernel(&padded_job, cvs.as_flattened_mut());
    out[..n * OUT_LEN].copy_from_slice(&cvs.as_flattened()[..n * OUT_LEN]);
}

/// The `N` inputs of one kernel call, as pointers to their blocks, after a single length
/// check: block `b` of any lane is readable for every `b < blocks()`. Kernels index blocks
/// through this rather than slicing per block, which kept bounds checks (scalar work on the
/// same ports as the vector math) inside the hot loop.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // the NEON kernel slices per block
pub(crate) struct Lanes<'a, const N: usize> {
    ptrs: [*const u8; N],
    blocks: usize,
    _inputs: core::marker::PhantomData<&'a [u8]>,
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
impl<'a, const N: usize> Lanes<'a, N> {
    /// The first `N` of `inputs`, which must all be the same whole number of blocks.
    #[inline(always)]
    pub fn new(inputs: &[&'a [u8]]) -> Self {
        Self::with_blocks(inputs, inputs[0].len() / BLOCK_LEN).expect("kernel inputs must be equal whole blocks")
    }

    /// The first `N` of `inputs` if each is exactly `blocks` blocks long.
    #[inline(always)]
    pub fn with_blocks(inputs: &[&'a [u8]], blocks: usize) -> Option<Self> {
        let inputs = &inputs[..N];
        let len = blocks * BLOCK_LEN;
        // One branch for all N: the lengths are compared without stopping at the first.
        if inputs.iter().fold(0, |diff, i| diff | (i.len() ^ len)) != 0 {
            return None;
        }
        Some(Lanes {
            ptrs: core::array::from_fn(|lane| inputs[lane].as_ptr()),
            blocks,
            _inputs: core::marker::PhantomData,
        })
    }

    /// The number of blocks in each input.
    #[inline(always)]
    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// The start of block `b` of `lane`: 64 readable bytes when `b < self.blocks()`.
    #[inline(always)]
    pub fn block(&self, lane: usize, b: usize) -> *const u8 {
        debug_assert!(b < self.blocks);
        self.ptrs[lane].wrapping_add(b * BLOCK_LEN)
    }
}

/// The counter each input of a job hashes with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Counters<'a> {
    /// Input `i` uses the given counter plus `i`: consecutive chunks of one tree.
    Incrementing(u64),
    /// Every input uses the same counter: parent nodes (0), one-chunk messages (0).
    Fixed(u64),
    /// Input `i` uses element `i` (as long as the inputs): chunks of several trees side by
    /// side, so that the chunks left over from each tree's groups share kernel calls
    /// (`Batch`'s long messages).
    PerInput(&'a [u64]),
}

impl<'a> Counters<'a> {
    /// The counter of input `i`.
    #[inline(always)]
    pub fn of(self, i: usize) -> u64 {
        match self {
            Counters::Incrementing(base) => base.wrapping_add(i as u64),
            Counters::Fixed(counter) => counter,
            Counters::PerInput(counters) => counters[i],
        }
    }

    /// The counters of inputs `first..`, as a job of those inputs needs them.
    #[inline(always)]
    pub fn from(self, first: usize) -> Counters<'a> {
        match self {
            Counters::Incrementing(base) => Counters::Incrementing(base.wrapping_add(first as u64)),
            Counters::Fixed(counter) => Counters::Fixed(counter),
            Counters::PerInput(counters) => Counters::PerInput(&counters[first..]),
        }
    }
}

/// Many equal-length inputs to hash side by side: chunks of one tree (counter incrementing),
/// chunks of several (a counter per input) or parent nodes (counter fixed at 0).
pub(crate) struct HashManyJob<'a> {
    /// The inputs; all the same whole number of blocks.
    pub inputs: &'a [&'a [u8]],
    /// The starting chaining value (the key words).
    pub key: &'a CvWords,
    /// Each input's counter.
    pub counters: Counters<'a>,
    /// Flags on every block.
    pub flags: u8,
    /// Extra flags on each input's first block.
    pub flags_start: u8,
    /// Extra flags on each input's last block.
    pub flags_end: u8,
    /// The number of message bytes in each input's last block (64 except for a batch of
    /// short messages, whose last blocks are zero-padded copies).
    pub last_block_len: u8,
}

impl HashManyJob<'_> {
    /// The counter of input `i`.
    #[inline(always)]
    pub fn counter_for(&self, i: usize) -> u64 {
        self.counters.of(i)
    }

    /// The length field of block `b` of an input whose last block is `last`.
    #[inline(always)]
    pub fn block_len(&self, b: usize, last: usize) -> u8 {
        if b == last {
            self.last_block_len
        } else {
            BLOCK_LEN as u8
        }
    }

    /// The flags of block `b` of an input whose last block is `last`.
    #[inline(always)]
    pub fn block_flags(&self, b: usize, last: usize) -> u8 {
        let mut f = self.flags;
        if b == 0 {
            f |= self.flags_start;
        }
        if b == last {
            f |= self.flags_end;
        }
        f
    }
}
