//! Batches of messages and subtree chaining values, on every backend, against the official
//! `blake3` crate (its `hazmat` module for subtrees).

mod common;

use blake3::hazmat::{self, HasherExt};
use rand::Rng;
use simdcrypt::blake3::{subtree, Batch, Hasher, Mode, Platform, Threads};

const KEY: [u8; 32] = *b"simdcrypt batch/subtree test key";
const CONTEXT: &str = "simdcrypt 2026-11-20 batch tests";

fn modes() -> [(Mode<'static>, blake3::Hasher); 3] {
    [
        (Mode::Hash, blake3::Hasher::new()),
        (Mode::KeyedHash(&KEY), blake3::Hasher::new_keyed(&KEY)),
        (Mode::DeriveKey(CONTEXT), blake3::Hasher::new_derive_key(CONTEXT)),
    ]
}

fn expected(reference: &blake3::Hasher, message: &[u8], out_len: usize) -> Vec<u8> {
    let mut h = reference.clone();
    h.update(message);
    let mut out = vec![0u8; out_len];
    h.finalize_xof().fill(&mut out);
    out
}

fn check_batch(batch: &Batch, reference: &blake3::Hasher, messages: &[&[u8]], out_len: usize, what: &str) {
    let mut out = vec![0u8; messages.len() * out_len];
    batch.hash_into(messages, out_len, &mut out).unwrap();
    for (i, m) in messages.iter().enumerate() {
        assert_eq!(
            out[i * out_len..][..out_len],
            expected(reference, m, out_len)[..],
            "{what}: message {i} (len {})",
            m.len()
        );
    }
}

#[test]
fn equal_length_batches_every_backend() {
    let data = common::random_bytes(10, 1000 * 2100);
    // Counts around every kernel width; lengths around block and chunk edges.
    let counts = [1usize, 3, 4, 5, 7, 8, 9, 15, 16, 17, 30, 31, 33, 300];
    let lengths = [0usize, 1, 31, 63, 64, 65, 127, 128, 500, 1023, 1024, 1025, 2048, 2100];
    for platform in common::supported_backends::<Platform>("equal_length_batches_every_backend") {
        for (mode, reference) in modes() {
            let mut batch = Batch::new(mode);
            batch.set_platform(platform);
            for &len in &lengths {
                for &count in &counts {
                    if count * len > data.len() || (count > 33 && len > 128) {
                        continue;
                    }
                    let messages: Vec<&[u8]> = (0..count).map(|i| &data[i * len..][..len]).collect();
                    check_batch(
                        &batch,
                        &reference,
                        &messages,
                        32,
                        &format!("{platform:?} {mode:?} len {len} count {count}"),
                    );
                }
            }
        }
    }
}

/// A run of equal whole-block messages, then one of another length, then more of the
/// first: the kernels hash the run in place for as long as the lengths stay equal (checking
/// them group by group), and what follows must still come out right.
#[test]
fn equal_runs_broken_by_another_length() {
    let data = common::random_bytes(13, 1 << 20);
    for platform in common::supported_backends::<Platform>("equal_runs_broken_by_another_length") {
        let mut batch = Batch::new(Mode::Hash);
        batch.set_platform(platform);
        let reference = blake3::Hasher::new();
        for len in [64usize, 128, 1024] {
            for run in [0usize, 1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 64] {
                for other in [0usize, 5, 64, 128, 192, 1024, 1025, 4096] {
                    if other == len {
                        continue;
                    }
                    for tail in [0usize, 1, 16, 20] {
                        let mut lens = vec![len; run];
                        lens.push(other);
                        lens.extend(std::iter::repeat_n(len, tail));
                        let mut at = 0;
                        let messages: Vec<&[u8]> = lens
                            .iter()
                            .map(|&l| {
                                at += 7;
                                &data[at..at + l]
                            })
                            .collect();
                        let what = format!("{platform:?} len {len} run {run} other {other} tail {tail}");
                        check_batch(&batch, &reference, &messages, 32, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn ragged_batches_lengths_and_threads() {
    let mut rng = common::rng(11);
    let data = common::random_bytes(12, 1 << 20);
    for platform in common::supported_backends::<Platform>("ragged_batches_lengths_and_threads") {
        for (mode, reference) in modes() {
            for trial in 0..6 {
                let count = rng.random_range(1..200);
                let messages: Vec<&[u8]> = (0..count)
                    .map(|_| {
                        let len =
                            if rng.random_bool(0.1) { rng.random_range(0..5000) } else { rng.random_range(0..=1024) };
                        let start = rng.random_range(0..data.len() - len);
                        &data[start..start + len]
                    })
                    .collect();
                for (out_len, threads) in
                    [(32, Threads::One), (16, Threads::Max(2)), (1, Threads::Auto), (100, Threads::Max(3))]
                {
                    let mut batch = Batch::new(mode);
                    batch.set_platform(platform).set_max_threads(threads);
                    check_batch(
                        &batch,
                        &reference,
                        &messages,
                        out_len,
                        &format!("{platform:?} {mode:?} trial {trial} out {out_len} {threads:?}"),
                    );
                }
            }
        }
    }
}

/// Messages longer than a chunk, hashed together as forests: lengths at chunk and kernel-
/// group edges (a whole number of chunks, or a byte either side), at the forest's limit
/// (256 KiB, from which messages are hashed alone), random ones, in a shuffled order beside short
/// messages; every mode, every backend, shorter outputs and threads.
#[test]
fn long_messages_in_forests() {
    let mut rng = common::rng(15);
    let data = common::random_bytes(14, (1 << 20) + 70_000);
    let mut lengths = Vec::new();
    for chunks in [1usize, 2, 3, 4, 8, 15, 16, 17, 31, 32, 33, 64, 65, 127, 128] {
        for len in [chunks * 1024 - 1, chunks * 1024, chunks * 1024 + 1] {
            if len > 1024 {
                lengths.push(len);
            }
        }
    }
    lengths.extend([(256 << 10) - 1, 256 << 10, (256 << 10) + 1, 1 << 20, (1 << 20) + 65_536]);
    lengths.extend((0..40).map(|_| rng.random_range(1025..200_000)));
    lengths.extend([0, 1, 64, 1000, 1024, 5, 5]);
    for i in (1..lengths.len()).rev() {
        lengths.swap(i, rng.random_range(0..=i));
    }
    let messages: Vec<&[u8]> = lengths
        .iter()
        .map(|&len| {
            let start = rng.random_range(0..=data.len() - len);
            &data[start..start + len]
        })
        .collect();
    for platform in common::supported_backends::<Platform>("long_messages_in_forests") {
        for (mode, reference) in modes() {
            for (out_len, threads) in [(32, Threads::One), (16, Threads::Max(2)), (32, Threads::Auto)] {
                let mut batch = Batch::new(mode);
                batch.set_platform(platform).set_max_threads(threads);
                let what = format!("{platform:?} {mode:?} out {out_len} {threads:?}");
                check_batch(&batch, &reference, &messages, out_len, &what);
            }
        }
    }
}

#[test]
fn batch_rejects_a_wrong_output_size() {
    let err = Batch::new(Mode::Hash).hash_into(&[b"a", b"b"], 32, &mut [0u8; 63]).unwrap_err();
    assert!(err.to_string().contains("2 messages x 32 bytes, got 63"), "{err}");
    Batch::new(Mode::Hash).hash_into(&[], 32, &mut []).unwrap();
}

/// Splits `input` into the tree's two children at the root, recursively down to `depth`
/// levels, hashing leaves with `subtree::chaining_value` and merging with merge_non_root.
fn tree_cv(input: &[u8], offset: u64, depth: u32, mode: Mode<'_>) -> [u8; 32] {
    if depth == 0 || input.len() <= 1024 {
        return subtree::chaining_value(mode, input, offset).unwrap();
    }
    let split = subtree::left_subtree_len(input.len() as u64) as usize;
    let left = tree_cv(&input[..split], offset, depth - 1, mode);
    let right = tree_cv(&input[split..], offset + split as u64, depth - 1, mode);
    subtree::merge_non_root(&left, &right, mode)
}

#[test]
fn subtrees_merge_to_the_plain_digest() {
    let data = common::random_bytes(13, 70 * 1024 + 5);
    for len in [1025usize, 2048, 2049, 3 * 1024, 4096 + 1, 16 * 1024, 31 * 1024 + 7, 70 * 1024 + 5] {
        let input = &data[..len];
        for (mode, reference) in modes() {
            let split = subtree::left_subtree_len(len as u64) as usize;
            for depth in 0..6 {
                let left = tree_cv(&input[..split], 0, depth, mode);
                let right = tree_cv(&input[split..], split as u64, depth, mode);
                let mut out = [0u8; 80];
                subtree::merge_root(&left, &right, mode).fill(&mut out);
                assert_eq!(out[..], expected(&reference, input, 80)[..], "{mode:?} len {len} depth {depth}");
            }
        }
    }
}

#[test]
fn subtree_values_match_the_official_hazmat() {
    let data = common::random_bytes(14, 64 * 1024);
    let mut rng = common::rng(15);
    for platform in common::supported_backends::<Platform>("subtree_values_match_the_official_hazmat") {
        for _ in 0..60 {
            // A random chunk-aligned offset and a length its alignment allows.
            let offset_chunks: u64 = rng.random_range(0..64);
            let offset = offset_chunks * 1024;
            let max = subtree::max_subtree_len(offset).unwrap_or(1 << 16).min(data.len() as u64);
            let len = rng.random_range(1..=max) as usize;
            let mut ours = Hasher::new_keyed(&KEY);
            ours.set_platform(platform).set_input_offset(offset, len as u64).unwrap();
            ours.update(&data[..len]);
            let mut theirs = blake3::Hasher::new_keyed(&KEY);
            theirs.set_input_offset(offset).update(&data[..len]);
            assert_eq!(ours.finalize_non_root(), theirs.finalize_non_root(), "{platform:?} offset {offset} len {len}");
        }
    }
    let (l, r) = ([1u8; 32], [2u8; 32]);
    assert_eq!(
        subtree::merge_non_root(&l, &r, Mode::Hash),
        hazmat::merge_subtrees_non_root(&l, &r, hazmat::Mode::Hash)
    );
    let mut ours = [0u8; 32];
    subtree::merge_root(&l, &r, Mode::DeriveKey(CONTEXT)).fill(&mut ours);
    let ctx_key = hazmat::hash_derive_key_context(CONTEXT);
    assert_eq!(ours, *hazmat::merge_subtrees_root(&l, &r, hazmat::Mode::DeriveKeyMaterial(&ctx_key)).as_bytes());
}

#[test]
fn subtree_rules_are_enforced_with_clear_errors() {
    let msg =
        |offset: u64, len: usize| subtree::chaining_value(Mode::Hash, &vec![0u8; len], offset).unwrap_err().to_string();
    assert!(msg(1000, 10).contains("not a multiple of the chunk length 1024"));
    assert!(msg(3072, 2048).contains("at most 1024 bytes"));
    assert!(msg(2048, 0).contains("must not be empty"));
    assert!(subtree::chaining_value(Mode::Hash, &[0u8; 2048], 2048).is_ok());
    assert!(subtree::chaining_value(Mode::Hash, &[], 0).is_ok());
    assert_eq!(subtree::max_subtree_len(0), None);
    assert_eq!(subtree::max_subtree_len(3 << 12), Some(1 << 12));
    assert_eq!(subtree::left_subtree_len(1025), 1024);
    assert_eq!(subtree::left_subtree_len(4096), 2048);
    assert_eq!(subtree::left_subtree_len(4097), 4096);
}
