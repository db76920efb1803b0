//! Every SHA-256 backend against RustCrypto's `sha2` crate: the edge lengths around the
//! block and padding boundaries, multi-MiB inputs, and random splits into updates.

mod common;

use rand::Rng;
use sha2::Digest;
use simdcrypt::sha256::{Platform, Sha256, BLOCK_LEN};

fn lengths() -> Vec<usize> {
    let mut v = common::edge_lengths(BLOCK_LEN, BLOCK_LEN);
    v.extend([55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096 + 7, (1 << 20) + 1, (5 << 20) + 3]);
    v.sort_unstable();
    v.dedup();
    v
}

fn oracle(data: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(data).into()
}

#[test]
fn edge_lengths_on_every_backend() {
    let lengths = lengths();
    let data = common::random_bytes(0x5A256, *lengths.last().unwrap());
    for platform in common::supported_backends::<Platform>("edge_lengths_on_every_backend") {
        for &len in &lengths {
            let input = &data[..len];
            let mut h = Sha256::new();
            h.set_platform(platform).update(input);
            assert_eq!(h.finalize(), oracle(input), "{} len {len}", platform.name());
        }
    }
}

#[test]
fn random_splits_on_every_backend() {
    let lengths = lengths();
    let data = common::random_bytes(0x5A257, *lengths.last().unwrap());
    let mut rng = common::rng(0x5A258);
    for platform in common::supported_backends::<Platform>("random_splits_on_every_backend") {
        for &len in &lengths {
            let input = &data[..len];
            let expected = oracle(input);
            let trials = if len > 1 << 16 { 2 } else { 6 };
            for _ in 0..trials {
                let pieces = rng.random_range(1..12);
                let points: Vec<usize> = (0..pieces).map(|_| rng.random_range(0..=len)).collect();
                let mut h = Sha256::new();
                h.set_platform(platform);
                for piece in common::split_at_points(input, &points) {
                    h.update(piece);
                }
                assert_eq!(h.finalize(), expected, "{} len {len} cuts {points:?}", platform.name());
            }
        }
    }
}

/// Small pieces of every size 1..=130 in turn, so the buffered partial block meets every
/// offset, and finalize in between (it must not disturb the state).
#[test]
fn small_updates_and_intermediate_digests_on_every_backend() {
    let data = common::random_bytes(0x5A259, 20_000);
    for platform in common::supported_backends::<Platform>("small_updates_and_intermediate_digests_on_every_backend") {
        let mut h = Sha256::new();
        h.set_platform(platform);
        let (mut pos, mut step) = (0, 1);
        while pos < data.len() {
            let end = (pos + step).min(data.len());
            h.update(&data[pos..end]);
            pos = end;
            step = step % 130 + 1;
            assert_eq!(h.finalize(), oracle(&data[..pos]), "{} at {pos}", platform.name());
        }
    }
}
