//! Every backend against the `highway` crate (an independent implementation) and against
//! portable: random keys, the shared edge lengths (`common::edge_lengths`) up to multi-MiB, random update splits;
//! checkpoints at every split point; batches of every interesting count, equal and ragged.

mod common;

use highway::HighwayHash as _;
use rand::Rng;
use simdcrypt::blake3::Threads;
use simdcrypt::highwayhash::{self, HighwayHasher, Platform, Size};

fn oracle(key: &[u8; 32], data: &[u8]) -> (u64, [u64; 2], [u64; 4]) {
    let k = highway::Key(highwayhash::key_words(key));
    (
        highway::HighwayHasher::new(k).hash64(data),
        highway::HighwayHasher::new(k).hash128(data),
        highway::HighwayHasher::new(k).hash256(data),
    )
}

fn ours(platform: Platform, key: &[u8; 32], pieces: &[&[u8]]) -> (u64, [u64; 2], [u64; 4]) {
    let mut h = HighwayHasher::new(key);
    h.set_platform(platform);
    for p in pieces {
        h.update(p);
    }
    (h.finalize64(), h.finalize128(), h.finalize256())
}

#[test]
fn edge_lengths_random_keys_against_highway_crate() {
    let platforms = common::supported_backends::<Platform>("edge_lengths_random_keys_against_highway_crate");
    let mut rng = common::rng(5);
    for (i, len) in common::edge_lengths(32, 1024).into_iter().enumerate() {
        let key: [u8; 32] = rng.random();
        let data = common::random_bytes(i as u64, len);
        let expected = oracle(&key, &data);
        for &platform in &platforms {
            assert_eq!(ours(platform, &key, &[&data]), expected, "{} len {len}", platform.name());
        }
        assert_eq!(highwayhash::hash64(&key, &data), expected.0, "hash64 len {len}");
        assert_eq!(highwayhash::hash128(&key, &data), expected.1, "hash128 len {len}");
        assert_eq!(highwayhash::hash256(&key, &data), expected.2, "hash256 len {len}");
    }
}

#[test]
fn random_update_splits_against_highway_crate() {
    let platforms = common::supported_backends::<Platform>("random_update_splits_against_highway_crate");
    let mut rng = common::rng(6);
    for trial in 0..60 {
        let len = if trial % 10 == 0 { rng.random_range(0..5 << 20) } else { rng.random_range(0..3000) };
        let key: [u8; 32] = rng.random();
        let data = common::random_bytes(1000 + trial, len);
        let cuts: Vec<usize> = (0..rng.random_range(0..8)).map(|_| rng.random_range(0..=len)).collect();
        let pieces = common::split_at_points(&data, &cuts);
        let expected = oracle(&key, &data);
        for &platform in &platforms {
            assert_eq!(ours(platform, &key, &pieces), expected, "{} len {len} cuts {cuts:?}", platform.name());
        }
    }
}

#[test]
fn checkpoint_restore_at_every_split_point() {
    let platforms = common::supported_backends::<Platform>("checkpoint_restore_at_every_split_point");
    let key: [u8; 32] = core::array::from_fn(|i| (i * 13 + 5) as u8);
    for len in [0usize, 31, 32, 33, 100, 257] {
        let data = common::random_bytes(len as u64, len);
        let expected = oracle(&key, &data);
        for &platform in &platforms {
            for cut in 0..=len {
                let mut h = HighwayHasher::new(&key);
                h.set_platform(platform).update(&data[..cut]);
                for size in Size::ALL {
                    let blob = h.export(size);
                    let mut resumed = HighwayHasher::restore(&blob, &key, size).unwrap();
                    assert_eq!(resumed.count(), cut as u64);
                    resumed.set_platform(platform).update(&data[cut..]);
                    let got = (resumed.finalize64(), resumed.finalize128(), resumed.finalize256());
                    assert_eq!(got, expected, "{} len {len} cut {cut} {}", platform.name(), size.name());
                }
            }
        }
    }
}

#[test]
fn checkpoint_errors_say_what_is_wrong() {
    let key = [1u8; 32];
    let mut h = HighwayHasher::new(&key);
    h.update(b"some input");
    let blob = h.export(Size::Bits64);
    let err = |b: &[u8], k: &[u8; 32], s: Size| HighwayHasher::restore(b, k, s).unwrap_err().to_string();
    assert!(err(&blob, &key, Size::Bits256).contains("state of highwayhash64, expected highwayhash256"));
    assert!(err(&blob, &[2u8; 32], Size::Bits64).contains("damaged, or another key was given"));
    assert!(err(&blob[..150], &key, Size::Bits64).contains("truncated"));
    assert!(err(b"hello", &key, Size::Bits64).contains("not a simdcrypt state"));
    let mut v3 = blob.clone();
    v3[4] = 3;
    assert!(err(&v3, &key, Size::Bits64).contains("version 3 is not supported"));
    let mut flipped = blob;
    flipped[100] ^= 0x10;
    assert!(err(&flipped, &key, Size::Bits64).contains("checksum mismatch"));
}

/// Batches against one message at a time, for the counts around the lane width (1, lanes ± 1, lanes, and more),
/// with equal lengths (the lockstep path) and ragged ones.
#[test]
fn batches_match_one_at_a_time() {
    let platforms = common::supported_backends::<Platform>("batches_match_one_at_a_time");
    let mut rng = common::rng(7);
    let key: [u8; 32] = rng.random();
    for &platform in &platforms {
        let lanes = if platform.name() == "avx512" { 8 } else { 4 };
        let mut counts = vec![1, lanes - 1, lanes, lanes + 1, 6, 13, 30, 2 * lanes + 3];
        counts.dedup();
        for count in counts {
            for equal_len in [Some(0), Some(8), Some(32), Some(64), Some(95), Some(1000), None] {
                let msgs: Vec<Vec<u8>> = (0..count)
                    .map(|i| {
                        let len = equal_len.unwrap_or_else(|| rng.random_range(0..300));
                        common::random_bytes((count * 1000 + i) as u64, len)
                    })
                    .collect();
                let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
                for size in Size::ALL {
                    for threads in [Threads::One, Threads::Max(3)] {
                        let mut out = vec![0u8; count * size.len()];
                        highwayhash::hash_many_with(platform, threads, &key, &refs, size, &mut out).unwrap();
                        for (msg, got) in msgs.iter().zip(out.chunks_exact(size.len())) {
                            let mut h = HighwayHasher::new(&key);
                            let mut expected = vec![0u8; size.len()];
                            h.update(msg).finalize_into(size, &mut expected);
                            assert_eq!(
                                got,
                                expected,
                                "{} count {count} len {} {}",
                                platform.name(),
                                msg.len(),
                                size.name()
                            );
                        }
                    }
                }
            }
        }
    }
    let mut out = vec![0u8; 7];
    let err = highwayhash::hash_many(&key, &[b"a"], Size::Bits64, &mut out).unwrap_err().to_string();
    assert!(err.contains("must be 8 bytes, got 7"), "{err}");
}

/// Large batches split between threads give the same bytes as one thread.
#[test]
fn threaded_batches_match_one_thread() {
    let key = [9u8; 32];
    let msgs: Vec<Vec<u8>> = (0..3000).map(|i| common::random_bytes(i, (i % 700) as usize)).collect();
    let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    let mut one = vec![0u8; refs.len() * 16];
    highwayhash::hash_many(&key, &refs, Size::Bits128, &mut one).unwrap();
    for threads in [2, 3, 4] {
        let mut many = vec![0u8; refs.len() * 16];
        highwayhash::hash_many_with(Platform::detect(), Threads::Max(threads), &key, &refs, Size::Bits128, &mut many)
            .unwrap();
        assert_eq!(many, one, "{threads} threads");
    }
}
