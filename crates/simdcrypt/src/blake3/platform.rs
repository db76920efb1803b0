//! BLAKE3 backend selection and the one dispatch point into the kernels.
//!
//! ## What this file holds
//!
//! `Platform` (the backend enum) and the single dispatch point into kernels; `HashManyJob`
//! (one kernel job) and `Lanes` (a job's inputs after one length check, so kernels index
//! blocks without per-block bounds checks); `hash_many_prefix`, which hashes inputs while they
//! keep the first one's length and says how many (the x86-64 kernels check each group of 16, 8
//! or 4 as they go, through one shared walk, `whole_groups`, so a batch of messages needs no
//! pass over all lengths first; the AVX-512 and SSE4.1 kernels run that walk inside their
//! `#[target_feature]` function so their set-up comes once per call, AVX2 calls its kernel per
//! group through `hash_groups`, measured faster there; `hash_rest_after_groups` is the shared
//! tail); `LaneLevels`, the lane-form level kernels a backend may have (AVX-512, AVX2,
//! SSE4.1), obtainable only from a checked `Platform`

pub(crate) use super::job::{Counters, HashManyJob};
use super::{portable, CvWords, BLOCK_LEN, OUT_LEN};

#[cfg(target_arch = "aarch64")]
use super::neon;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512, sse41};

crate::backend::kernel_kinds! {
    algorithm: "blake3",
    /// A BLAKE3 kernel set this CPU can run: chosen once per hasher; every call goes through
    /// its methods, which are the only place that enters a SIMD kernel.
    pub type Platform = Checked<Kind>;

    pub enum Kind {
        /// x86-64 AVX-512 (F and VL): 16 inputs at a time.
        // AVX-512's 8-lane remainder kernel uses the AVX2 kernel's message loading.
        Avx512 = "avx512" on "x86_64" needs [Sse41, Avx, Avx2, Avx512F, Avx512Vl],
        /// x86-64 AVX2: 8 inputs at a time.
        // Every AVX2 kernel, remainders and single blocks included, is AVX2 code; SSE4.1
        // and AVX, which every AVX2 CPU has, are listed so the check states all it needs.
        Avx2 = "avx2" on "x86_64" needs [Sse41, Avx, Avx2],
        /// x86-64 SSE4.1: 4 inputs at a time.
        Sse41 = "sse41" on "x86_64" needs [Sse41],
        /// aarch64 NEON: 4 inputs at a time.
        Neon = "neon" on "aarch64" needs [Neon],
        /// Plain Rust, any CPU.
        Portable = "portable",
    }
}

/// Calls the single-block kernel `$kernel` (`compress_in_place`, `compress_xof`) of the
/// platform's backend: the x86-64 backends' rows kernels (`rows.rs`), or the portable one.
macro_rules! single_block {
    ($platform:expr, $kernel:ident($($arg:expr),*)) => {
        match $platform.kind() {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => {
                // SAFETY: a Platform of this kind exists only once AVX-512 F+VL (and what `requires` lists) were found.
                unsafe { avx512::$kernel($($arg),*) }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => {
                // SAFETY: a Platform of this kind exists only once AVX2 (and what `requires` lists) was found.
                unsafe { avx2::$kernel($($arg),*) }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Sse41 => {
                // SAFETY: a Platform of this kind exists only once SSE4.1 was found.
                unsafe { sse41::$kernel($($arg),*) }
            }
            _ => portable::$kernel($($arg),*),
        }
    };
}

impl Platform {
    /// How many inputs the widest kernel of this backend hashes at once.
    pub const fn simd_degree(self) -> usize {
        match self.kind() {
            Kind::Portable => 1,
            #[cfg(target_arch = "x86_64")]
            Kind::Sse41 => 4,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => 8,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => 16,
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => 4,
        }
    }

    /// One compression of a single block, keeping the new chaining value.
    pub(crate) fn compress_in_place(
        self,
        cv: &mut CvWords,
        block: &[u8; BLOCK_LEN],
        block_len: u8,
        counter: u64,
        flags: u8,
    ) {
        single_block!(self, compress_in_place(cv, block, block_len, counter, flags))
    }

    /// One compression of a single block with the full 64-byte output.
    pub(crate) fn compress_xof(
        self,
        cv: &CvWords,
        block: &[u8; BLOCK_LEN],
        block_len: u8,
        counter: u64,
        flags: u8,
    ) -> [u8; 64] {
        single_block!(self, compress_xof(cv, block, block_len, counter, flags))
    }

    /// Hashes every input of `job` to a 32-byte chaining value, written to `out` in order.
    ///
    /// Panics if the inputs are not all the same whole number (at least one) of blocks, or if
    /// `out` is shorter than 32 bytes per input.
    pub(crate) fn hash_many(self, job: &HashManyJob<'_>, out: &mut [u8]) {
        let hashed = self.hash_many_prefix(job, out);
        assert_eq!(hashed, job.inputs.len(), "hash_many inputs must have equal lengths");
    }

    /// Hashes the inputs of `job` for as long as they have the first input's length, which
    /// must be a whole number (at least one) of blocks, and returns how many it hashed: all
    /// of them when the lengths are equal, otherwise never the one that differs nor any
    /// after it (the x86-64 kernels stop at the start of the group of 16, 8 or 4 inputs
    /// that holds it, the others just before it). `out` needs 32 bytes per input.
    ///
    /// The x86-64 kernels check each group's lengths as they go (`whole_groups`), in the
    /// shadow of the previous group's vector work: for batches of messages, a pass over all
    /// the lengths first measured slower (docs/tuning-history.md, "Notes moved from the
    /// code", "blake3/platform.rs"). The others take one pass first.
    pub(crate) fn hash_many_prefix(self, job: &HashManyJob<'_>, out: &mut [u8]) -> usize {
        let len = job.inputs.first().map_or(BLOCK_LEN, |i| i.len());
        assert!(len >= BLOCK_LEN && len.is_multiple_of(BLOCK_LEN), "hash_many inputs must be whole blocks");
        assert!(out.len() >= job.inputs.len() * OUT_LEN, "hash_many output too short");
        // A Platform other than the portable one exists only once its CPU support is checked
        // (`crate::backend::Checked`); these kernels check each group's lengths before
        // they read it.
        #[cfg(target_arch = "x86_64")]
        match self.kind() {
            // SAFETY: SSE4.1 was checked when the Platform was chosen.
            Kind::Sse41 => return unsafe { sse41::hash_many_prefix(job, out) },
            // SAFETY: AVX2 (with the SSE4.1 and AVX its check lists) was checked likewise.
            Kind::Avx2 => return unsafe { avx2::hash_many_prefix(job, out) },
            // SAFETY: AVX-512 F+VL, AVX2 and SSE4.1 were checked likewise.
            Kind::Avx512 => return unsafe { avx512::hash_many_prefix(job, out) },
            Kind::Portable => {}
        }
        let n = job.inputs.iter().position(|i| i.len() != len).unwrap_or(job.inputs.len());
        // A copy only when the inputs are cut short: copying the job reads its four flag
        // bytes as one word, which cannot be forwarded from the caller's four byte stores
        // just before (a stall on every kernel call of a tree; docs/tuning-history.md, "Notes
        // moved from the code", "blake3/platform.rs").
        let prefix;
        let job = if n == job.inputs.len() {
            job
        } else {
            prefix = HashManyJob { inputs: &job.inputs[..n], ..*job };
            &prefix
        };
        match self.kind() {
            Kind::Portable => portable::hash_many(job, out),
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => {
                // SAFETY: support checked at construction; the lengths were checked above.
                unsafe { neon::hash_many(job, out) }
            }
            #[cfg(target_arch = "x86_64")]
            _ => unreachable!("returned above"),
        }
        n
    }
}

/// The kernels that keep a subtree's levels of chaining values in lane form (word `w` of a
/// group of values in one vector, as the wide kernel's state holds them) between kernel
/// calls, so that the parents of a level are built with a few permutes instead of a
/// transposition out of the kernel and another back in. The x86-64 SIMD backends have them
/// (`avx512.rs`, `avx2.rs`, `sse41.rs`); [`Platform::lane_levels`] is the only way to get
/// one, so holding one means the CPU support was checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneLevels(Platform);

impl Platform {
    /// The lane-form level kernels of this backend, if it has them.
    pub(crate) fn lane_levels(self) -> Option<LaneLevels> {
        match self.kind() {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 | Kind::Avx2 | Kind::Sse41 => Some(LaneLevels(self)),
            _ => None,
        }
    }
}

// Elsewhere than x86-64 no LaneLevels is ever made: the arguments go unused and the code
// after the dispatch is unreachable.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables, unreachable_code))]
impl LaneLevels {
    /// Chaining values per group.
    pub fn group(self) -> usize {
        self.0.simd_degree()
    }

    /// Hashes the inputs of `job` (equal whole blocks, a multiple of `group()` of them)
    /// into their chaining values in lane form at the front of `out`.
    pub fn hash_many(self, job: &HashManyJob<'_>, out: &mut [u8]) {
        assert!(job.inputs.len().is_multiple_of(self.group()), "lane form takes whole groups");
        let len = job.inputs.first().map_or(0, |i| i.len());
        assert!(len >= BLOCK_LEN && len.is_multiple_of(BLOCK_LEN), "hash_many inputs must be whole blocks");
        assert!(out.len() >= job.inputs.len() * OUT_LEN, "hash_many output too short");
        let hashed: usize = match self.0.kind() {
            // SAFETY: a LaneLevels holds AVX-512 only once its support was checked
            // (`lane_levels` is called on a Platform, which exists only once checked).
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::hash_many_to_lanes(job, out) },
            // SAFETY: likewise for AVX2.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2::hash_many_to_lanes(job, out) },
            // SAFETY: likewise for SSE4.1.
            #[cfg(target_arch = "x86_64")]
            Kind::Sse41 => unsafe { sse41::hash_many_to_lanes(job, out) },
            _ => unreachable!("LaneLevels is made only for the x86-64 SIMD backends"),
        };
        assert_eq!(hashed, job.inputs.len(), "hash_many inputs must have equal lengths");
    }

    /// Compresses the lane-form chaining values of `children` (an even number of whole
    /// groups), pairing from the left, into their parents in lane form at the front of `out`.
    /// `flags` must include `PARENT`.
    pub fn parents(self, children: &[u8], key: &CvWords, flags: u8, out: &mut [u8]) {
        match self.0.kind() {
            // SAFETY: as in `hash_many`.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::parents_in_lanes(children, key, flags, out) },
            // SAFETY: likewise for AVX2.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2::parents_in_lanes(children, key, flags, out) },
            // SAFETY: likewise for SSE4.1.
            #[cfg(target_arch = "x86_64")]
            Kind::Sse41 => unsafe { sse41::parents_in_lanes(children, key, flags, out) },
            _ => unreachable!("LaneLevels is made only for the x86-64 SIMD backends"),
        }
    }

    /// Rewrites whole groups in lane form as chaining values of 32 bytes in order, in place.
    pub fn to_rows(self, groups: &mut [u8]) {
        match self.0.kind() {
            // SAFETY: as in `hash_many`.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::lanes_to_rows(groups) },
            // SAFETY: likewise for AVX2.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2::lanes_to_rows(groups) },
            // SAFETY: likewise for SSE4.1.
            #[cfg(target_arch = "x86_64")]
            Kind::Sse41 => unsafe { sse41::lanes_to_rows(groups) },
            _ => unreachable!("LaneLevels is made only for the x86-64 SIMD backends"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each backend's `hash_many` against the portable one, for chunk jobs (counter
    /// incrementing across the 2^32 boundary and near i32::MAX), parent jobs and jobs with a
    /// counter per input (some across the boundary, checked against one portable call per
    /// input with that counter), on input counts that hit every kernel width and remainder:
    /// 31 = 16 + 8 + 4 + 2 + 1.
    #[test]
    fn hash_many_matches_portable() {
        let key: CvWords = core::array::from_fn(|i| 0x0101_0101u32.wrapping_mul(i as u32 + 1));
        let mut data = vec![0u8; 31 * 1024];
        crate::test_rng::XorShift64::new(0x2545_F491_4F6C_DD1D).fill(&mut data);
        #[derive(Clone, Copy, Debug, PartialEq)]
        enum Kind {
            Incrementing,
            Fixed,
            PerInput,
        }
        crate::backend::for_each_supported("hash_many_matches_portable", |platform: Platform| {
            for (blocks, kind) in [
                (16usize, Kind::Incrementing),
                (1, Kind::Fixed),
                (3, Kind::Incrementing),
                (16, Kind::PerInput),
                (2, Kind::PerInput),
            ] {
                let len = blocks * BLOCK_LEN;
                for counter in [0u64, u64::from(u32::MAX), i32::MAX as u64, u64::from(u32::MAX) - 5] {
                    for count in [1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31] {
                        let inputs: Vec<&[u8]> = data.chunks_exact(len).take(count).collect();
                        if inputs.len() < count {
                            continue;
                        }
                        // Unordered, some on each side of 2^32 when `counter` is near it.
                        let per_input: Vec<u64> = (0..count as u64)
                            .map(|i| counter.wrapping_add((i * 0x9E37) % 11).wrapping_sub(3))
                            .collect();
                        let counters = match kind {
                            Kind::Incrementing => Counters::Incrementing(counter),
                            Kind::Fixed => Counters::Fixed(counter),
                            Kind::PerInput => Counters::PerInput(&per_input),
                        };
                        let job = HashManyJob {
                            inputs: &inputs,
                            key: &key,
                            counters,
                            flags: 0x40,
                            flags_start: 1,
                            flags_end: 2,
                            // A short last block, as batches of short messages use.
                            last_block_len: if kind == Kind::Fixed { 17 } else { 64 },
                        };
                        let mut expected = vec![0u8; count * OUT_LEN];
                        if kind == Kind::PerInput {
                            for (i, out) in expected.chunks_exact_mut(OUT_LEN).enumerate() {
                                let one = HashManyJob {
                                    inputs: &inputs[i..i + 1],
                                    counters: Counters::Fixed(per_input[i]),
                                    ..job
                                };
                                Platform::portable().hash_many(&one, out);
                            }
                        } else {
                            Platform::portable().hash_many(&job, &mut expected);
                        }
                        let mut got = vec![0u8; count * OUT_LEN];
                        platform.hash_many(&job, &mut got);
                        let what = format!("{platform:?} {kind:?} blocks {blocks} counter {counter:#x} count {count}");
                        assert_eq!(got, expected, "{what}");
                        // The same through the prefix walk the batches use.
                        let mut prefix = vec![0u8; count * OUT_LEN];
                        assert_eq!(platform.hash_many_prefix(&job, &mut prefix), count, "{what}");
                        assert_eq!(prefix, expected, "{what} (prefix)");
                    }
                }
            }
        });
    }

    /// Each backend's single compressions against the portable ones: counters across the
    /// 2^32 boundary, every block length class and the flags a root block carries.
    #[test]
    fn compressions_match_portable() {
        let mut rng = crate::test_rng::XorShift64::new(0x9E37_79B9_7F4A_7C15);
        let mut next = move || rng.next_u64();
        crate::backend::for_each_supported("compressions_match_portable", |platform: Platform| {
            for counter in [0u64, 1, u64::from(u32::MAX), u64::from(u32::MAX) + 1, i32::MAX as u64, u64::MAX] {
                for (block_len, flags) in [(64u8, 0u8), (64, 1), (17, 2 | 8), (0, 1 | 2 | 8), (64, 4 | 8 | 16)] {
                    let cv: CvWords = core::array::from_fn(|_| next() as u32);
                    let block: [u8; BLOCK_LEN] = core::array::from_fn(|_| next() as u8);
                    let what = format!("{platform:?} counter {counter:#x} len {block_len} flags {flags:#x}");
                    let (mut got, mut expected) = (cv, cv);
                    platform.compress_in_place(&mut got, &block, block_len, counter, flags);
                    Platform::portable().compress_in_place(&mut expected, &block, block_len, counter, flags);
                    assert_eq!(got, expected, "compress_in_place {what}");
                    let got = platform.compress_xof(&cv, &block, block_len, counter, flags);
                    let expected = Platform::portable().compress_xof(&cv, &block, block_len, counter, flags);
                    assert_eq!(got, expected, "compress_xof {what}");
                }
            }
        });
    }

    /// `hash_many_prefix` stops at a length that differs from the first input's: it hashes
    /// at least the inputs before it (correctly) and none after it.
    #[test]
    fn hash_many_prefix_stops_at_another_length() {
        let key: CvWords = core::array::from_fn(|i| 0x0303_0303u32.wrapping_mul(i as u32 + 1));
        let data: Vec<u8> = (0..64 * 1024).map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        crate::backend::for_each_supported("hash_many_prefix_stops_at_another_length", |platform: Platform| {
            for (len, other) in [(64usize, 128usize), (128, 64), (1024, 192)] {
                for count in [1usize, 9, 16, 17, 33, 40] {
                    for differs in 1..=count {
                        let mut inputs: Vec<&[u8]> = (0..count).map(|i| &data[i * 7..][..len]).collect();
                        if differs < count {
                            inputs[differs] = &data[3..3 + other];
                        }
                        let job = HashManyJob {
                            inputs: &inputs,
                            key: &key,
                            counters: Counters::Fixed(0),
                            flags: 0,
                            flags_start: 1,
                            flags_end: 2 | 8,
                            last_block_len: 64,
                        };
                        let mut got = vec![0u8; count * OUT_LEN];
                        let hashed = platform.hash_many_prefix(&job, &mut got);
                        let what = format!("{platform:?} len {len} count {count} differs at {differs}");
                        assert!(hashed <= differs, "{what}: hashed {hashed}");
                        assert!(hashed >= differs.min(count) / 16 * 16, "{what}: hashed only {hashed}");
                        let mut expected = vec![0u8; hashed * OUT_LEN];
                        Platform::portable()
                            .hash_many(&HashManyJob { inputs: &inputs[..hashed], ..job }, &mut expected);
                        assert_eq!(got[..hashed * OUT_LEN], expected[..], "{what}");
                    }
                }
            }
        });
    }

    /// The lane-form level kernels against the portable kernel in rows: 64 chunks (counters
    /// from below and across the 2^32 boundary), then two levels of parents, each written
    /// back in rows and compared.
    #[test]
    fn lane_levels_match_rows() {
        let key: CvWords = core::array::from_fn(|i| 0x0505_0505u32.wrapping_mul(i as u32 + 3));
        let mut data = vec![0u8; 64 * 1024];
        crate::test_rng::XorShift64::new(0x1234_5678_9ABC_DEF1).fill(&mut data);
        let chunks: Vec<&[u8]> = data.chunks_exact(1024).collect();
        let mut exercised = Vec::new();
        for platform in Platform::all_supported() {
            let Some(lanes) = platform.lane_levels() else { continue };
            exercised.push(platform.name());
            for counter in [0u64, u64::from(u32::MAX) - 20, i32::MAX as u64 - 3] {
                let job = HashManyJob {
                    inputs: &chunks,
                    key: &key,
                    counters: Counters::Incrementing(counter),
                    flags: 0x10,
                    flags_start: 1,
                    flags_end: 2,
                    last_block_len: 64,
                };
                let mut expected = vec![0u8; chunks.len() * OUT_LEN];
                Platform::portable().hash_many(&job, &mut expected);
                let mut level = vec![0u8; chunks.len() * OUT_LEN];
                lanes.hash_many(&job, &mut level);
                let mut rows = level.clone();
                lanes.to_rows(&mut rows);
                assert_eq!(rows, expected, "{platform:?} chunks, counter {counter:#x}");
                for depth in 1..=2 {
                    let pairs: Vec<&[u8]> = expected.chunks_exact(2 * OUT_LEN).collect();
                    let parent_job = HashManyJob {
                        inputs: &pairs,
                        counters: Counters::Fixed(0),
                        flags: 0x10 | 4,
                        flags_start: 0,
                        flags_end: 0,
                        ..job
                    };
                    let mut parents = vec![0u8; pairs.len() * OUT_LEN];
                    Platform::portable().hash_many(&parent_job, &mut parents);
                    let mut next = vec![0u8; level.len() / 2];
                    lanes.parents(&level, &key, 0x10 | 4, &mut next);
                    let mut rows = next.clone();
                    lanes.to_rows(&mut rows);
                    assert_eq!(rows, parents, "{platform:?} parents, level {depth}, counter {counter:#x}");
                    (level, expected) = (next, parents);
                }
            }
        }
        println!("lane_levels_match_rows: blake3 backends exercised: {}", exercised.join(", "));
        #[cfg(target_arch = "x86_64")]
        for platform in Platform::all_supported().into_iter().filter(|p| !p.is_portable()) {
            assert!(exercised.contains(&platform.name()), "{platform:?} has lane-form levels");
        }
    }
}
