//! Every backend against the official `blake3` crate on random inputs over the named edge
//! lengths, in all three modes, with random splits into update() calls and extended output.

mod common;

use rand::Rng;
use simdcrypt::blake3::{Hasher, Platform, Threads};

const KEY: [u8; 32] = *b"simdcrypt differential test key!";
const CONTEXT: &str = "simdcrypt 2026-11-20 differential tests";

/// Our hasher and the official one, in the same mode.
fn hasher_pairs(platform: Platform) -> [(Hasher, blake3::Hasher, &'static str); 3] {
    let mut ours = [Hasher::new(), Hasher::new_keyed(&KEY), Hasher::new_derive_key(CONTEXT)];
    for h in &mut ours {
        h.set_platform(platform);
    }
    let [a, b, c] = ours;
    [
        (a, blake3::Hasher::new(), "hash"),
        (b, blake3::Hasher::new_keyed(&KEY), "keyed"),
        (c, blake3::Hasher::new_derive_key(CONTEXT), "derive_key"),
    ]
}

/// `input` hashed whole in every mode on `platform` against the official crate.
fn assert_modes_agree(platform: Platform, input: &[u8], what: &str) {
    for (mut ours, mut theirs, mode) in hasher_pairs(platform) {
        ours.update(input);
        theirs.update(input);
        assert_eq!(ours.finalize(), *theirs.finalize().as_bytes(), "{platform:?} {mode} {what}");
    }
}

#[test]
fn edge_lengths_all_modes_every_backend() {
    let lengths = common::edge_lengths(64, 1024);
    let max = *lengths.iter().max().unwrap();
    let data = common::random_bytes(1, max);
    for platform in common::supported_backends::<Platform>("edge_lengths_all_modes_every_backend") {
        for &len in &lengths {
            assert_modes_agree(platform, &data[..len], &format!("len {len}"));
        }
    }
}

#[test]
fn random_splits_every_backend() {
    let mut rng = common::rng(2);
    let data = common::random_bytes(3, 40 * 1024 + 17);
    for platform in common::supported_backends::<Platform>("random_splits_every_backend") {
        for trial in 0..40 {
            let len = rng.random_range(0..=data.len());
            let input = &data[..len];
            let cuts: Vec<usize> = (0..rng.random_range(0..8)).map(|_| rng.random_range(0..=len)).collect();
            for (mut ours, mut theirs, mode) in hasher_pairs(platform) {
                for piece in common::split_at_points(input, &cuts) {
                    ours.update(piece);
                }
                theirs.update(input);
                assert_eq!(
                    ours.finalize(),
                    *theirs.finalize().as_bytes(),
                    "{platform:?} {mode} trial {trial} len {len} cuts {cuts:?}"
                );
            }
        }
    }
}

#[test]
fn extended_output_and_seek_every_backend() {
    let data = common::random_bytes(4, 5000);
    for platform in common::supported_backends::<Platform>("extended_output_and_seek_every_backend") {
        for (mut ours, mut theirs, mode) in hasher_pairs(platform) {
            ours.update(&data);
            theirs.update(&data);
            let mut expected = vec![0u8; 2100];
            theirs.finalize_xof().fill(&mut expected);
            for (seek, len) in [(0, 0), (0, 1), (0, 2100), (1, 63), (63, 2), (64, 64), (100, 1000), (2099, 1)] {
                let mut reader = ours.finalize_xof();
                reader.set_position(seek as u64);
                let mut out = vec![0u8; len];
                reader.fill(&mut out);
                assert_eq!(out, expected[seek..seek + len], "{platform:?} {mode} seek {seek} len {len}");
                assert_eq!(reader.position(), (seek + len) as u64);
            }
            // Positions far out in the stream, where the block counter exceeds 32 bits.
            for seek in [u64::from(u32::MAX) * 64 - 1, (1u64 << 40) + 5, u64::MAX - 63] {
                let mut mine = ours.finalize_xof();
                mine.set_position(seek);
                let mut theirs_reader = theirs.finalize_xof();
                theirs_reader.set_position(seek);
                let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
                mine.fill(&mut a);
                theirs_reader.fill(&mut b);
                assert_eq!(a, b, "{platform:?} {mode} seek {seek}");
            }
        }
    }
}

#[test]
fn threads_give_the_same_digest() {
    // Larger than 2 x AUTO_MIN_BYTES_PER_THREAD, so AUTO splits too; unaligned, so subtrees of
    // every size occur; fed as one byte and then the rest, so the position is unaligned.
    let len = 2 * simdcrypt::blake3::AUTO_MIN_BYTES_PER_THREAD + 3 * 1024 + 11;
    let data = common::random_bytes(5, len);
    let expected = *blake3::hash(&data).as_bytes();
    for platform in common::supported_backends::<Platform>("threads_give_the_same_digest") {
        for threads in [Threads::Max(2), Threads::Max(3), Threads::Max(8), Threads::Auto] {
            let mut h = Hasher::new();
            h.set_platform(platform).set_max_threads(threads);
            h.update(&data[..1]).update(&data[1..]);
            assert_eq!(h.finalize(), expected, "{platform:?} {threads:?}");
            // A 9 MiB piece: Max(n) splits it, AUTO does not.
            let mut h = Hasher::new();
            h.set_platform(platform).set_max_threads(threads).update(&data[..9 << 20]);
            assert_eq!(h.finalize(), *blake3::hash(&data[..9 << 20]).as_bytes(), "{platform:?} {threads:?} 9 MiB");
        }
    }
}

/// Whole inputs of 17 to 300 chunks, where the tree is hashed a level at a time below 128
/// chunks and by halves above (odd counts pass a chaining value up a level), against the
/// crate on every backend, in one `update` and through the one-shot function.
#[test]
fn tree_shapes_match_the_crate_every_backend() {
    let data = common::random_bytes(11, 300 * 1024 + 1);
    let mut lengths = Vec::new();
    for chunks in [17, 31, 33, 48, 63, 65, 100, 127, 128, 129, 191, 255, 256, 257, 300] {
        lengths.extend([chunks * 1024 - 1, chunks * 1024, chunks * 1024 + 1]);
    }
    for platform in common::supported_backends::<Platform>("tree_shapes_match_the_crate_every_backend") {
        for &len in &lengths {
            assert_modes_agree(platform, &data[..len], &format!("{len} bytes"));
        }
    }
    for &len in &lengths {
        let m = &data[..len];
        assert_eq!(simdcrypt::blake3::hash(m), *blake3::hash(m).as_bytes(), "hash, {len} bytes");
    }
}

#[test]
fn reset_and_count() {
    let mut h = Hasher::new_keyed(&KEY);
    h.update(&[7u8; 3000]);
    assert_eq!(h.count(), 3000);
    h.reset();
    assert_eq!(h.count(), 0);
    h.update(b"abc");
    assert_eq!(h.finalize(), *blake3::keyed_hash(&KEY, b"abc").as_bytes());
}

/// The one-shot functions, which hash without a `Hasher` (one compression, one chunk
/// state, or one descent of the tree), against the crate's, at every length up to two
/// chunks and at lengths around larger tree shapes.
#[test]
fn one_shot_functions_match_the_crate() {
    let data = common::random_bytes(7, 100 * 1024 + 1);
    let larger = [3 << 10, (4 << 10) + 1, (16 << 10) - 1, (17 << 10) + 5, 100 << 10, (100 << 10) + 1];
    for len in (0..=2049).chain(larger) {
        let m = &data[..len];
        assert_eq!(simdcrypt::blake3::hash(m), *blake3::hash(m).as_bytes(), "hash, {len} bytes");
        assert_eq!(
            simdcrypt::blake3::keyed_hash(&KEY, m),
            *blake3::keyed_hash(&KEY, m).as_bytes(),
            "keyed, {len} bytes"
        );
    }
    assert_eq!(simdcrypt::blake3::derive_key(CONTEXT, &data[..100]), blake3::derive_key(CONTEXT, &data[..100]));
}
