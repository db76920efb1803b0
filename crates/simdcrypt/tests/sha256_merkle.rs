//! SSZ-style Merkle roots and layers (`sha256::merkle_root`, `merkle_layers`, `zero_hash`)
//! against a plain reference built here with RustCrypto's `sha2`: zero leaves materialised
//! explicitly up to 2^depth, then hashed pairwise layer by layer. Every `sha256-batch`
//! backend, one and two threads, and the argument checks.

mod common;

use sha2::Digest;
use simdcrypt::sha256::{merkle_layers, merkle_root, zero_hash, BatchPlatform, BlockBatch, MERKLE_MAX_DEPTH};
use simdcrypt::threads::Threads;
use simdcrypt::Error;

fn sha256_pair(left: &[u8], right: &[u8]) -> [u8; 32] {
    let mut h = sha2::Sha256::new();
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The reference tree: every layer, with the zero leaves (and so zero subtrees) stored.
/// Only for depths where 2^depth leaves fit in memory.
fn reference_layers(leaves: &[u8], depth: u32) -> Vec<Vec<[u8; 32]>> {
    let mut layer: Vec<[u8; 32]> = leaves.chunks_exact(32).map(|c| c.try_into().unwrap()).collect();
    layer.resize(1 << depth, [0u8; 32]);
    let mut layers = vec![layer];
    while layers.last().unwrap().len() > 1 {
        let next = layers.last().unwrap().chunks_exact(2).map(|p| sha256_pair(&p[0], &p[1])).collect();
        layers.push(next);
    }
    layers
}

fn reference_root(leaves: &[u8], depth: u32) -> [u8; 32] {
    reference_layers(leaves, depth).last().unwrap()[0]
}

/// ceil(log2(n)), 0 for n <= 1.
fn natural_depth(n: usize) -> u32 {
    let mut d = 0;
    while (1usize << d) < n {
        d += 1;
    }
    d
}

fn batches(test: &str) -> Vec<(String, BlockBatch)> {
    let mut out = Vec::new();
    for platform in common::supported_backends::<BatchPlatform>(test) {
        for threads in [Threads::One, Threads::Max(2)] {
            let mut batch = BlockBatch::new();
            batch.set_platform(platform).set_max_threads(threads);
            out.push((format!("{} {threads:?}", platform.name()), batch));
        }
    }
    out
}

fn counts() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=70).collect();
    // merkle_root builds trees of more than 2^12 leaves a 2^12-leaf subtree at a time:
    // one subtree and one leaf more, a partial last subtree, and whole subtrees.
    v.extend([1000, 4095, 4096, 4097, 3 * 4096 + 5, 1 << 16, (1 << 16) + 33]);
    v
}

#[test]
fn roots_match_reference() {
    let counts = counts();
    let data = common::random_bytes(0x4E4B1E, 32 * counts.iter().max().unwrap());
    let batches = batches("roots_match_reference");
    for &n in &counts {
        let leaves = &data[..32 * n];
        let expected = reference_root(leaves, natural_depth(n));
        for (name, batch) in &batches {
            assert_eq!(merkle_root(leaves, None, batch).unwrap(), expected, "{name}, n = {n}");
        }
    }
}

#[test]
fn given_depths_match_reference() {
    let data = common::random_bytes(0x4E4B1F, 32 * (3 * 4096 + 5));
    let cases: &[(usize, &[u32])] = &[
        (0, &[0, 1, 2, 5, 12]),
        (1, &[0, 1, 3, 8]),
        (2, &[1, 2, 6]),
        (5, &[3, 4, 10]),
        (8, &[3, 4]),
        (33, &[6, 7, 9]),
        (70, &[7, 11]),
        (4097, &[13, 17]),
        (3 * 4096 + 5, &[14]),
    ];
    let batches = batches("given_depths_match_reference");
    for &(n, depths) in cases {
        let leaves = &data[..32 * n];
        for &depth in depths {
            let expected = reference_layers(leaves, depth);
            for (name, batch) in &batches {
                let label = format!("{name}, n = {n}, depth {depth}");
                assert_eq!(merkle_root(leaves, Some(depth), batch).unwrap(), expected.last().unwrap()[0], "{label}");
                let layers = merkle_layers(leaves, Some(depth), batch).unwrap();
                check_layers(&layers, leaves, depth, &label);
                for (h, layer) in layers.iter().enumerate().skip(1) {
                    let want: Vec<u8> = expected[h][..layer.len() / 32].concat();
                    assert_eq!(layer, &want, "{label}, layer {h}");
                }
            }
        }
    }
}

/// Deep trees, too big for the reference to materialise: built from the zero hashes.
#[test]
fn deep_trees() {
    let batch = BlockBatch::new();
    for depth in [0, 1, 5, 40, 63, 64] {
        assert_eq!(merkle_root(&[], Some(depth), &batch).unwrap(), zero_hash(depth), "depth {depth}");
    }
    let leaves = common::random_bytes(0x4E4B20, 32 * 5);
    let mut expected = reference_root(&leaves, 3);
    for h in 3..40 {
        expected = sha256_pair(&expected, &zero_hash(h));
    }
    assert_eq!(merkle_root(&leaves, Some(40), &batch).unwrap(), expected);
    let layers = merkle_layers(&leaves, Some(40), &batch).unwrap();
    check_layers(&layers, &leaves, 40, "n = 5, depth 40");
}

/// The documented shape: layer 0 the leaves, layer h + 1 ceil(len_h / 2) nodes, the last
/// one node equal to merkle_root; for no leaves, one zero-hash node per layer above 0.
fn check_layers(layers: &[Vec<u8>], leaves: &[u8], depth: u32, label: &str) {
    assert_eq!(layers.len(), depth as usize + 1, "{label}: layer count");
    let root = merkle_root(leaves, Some(depth), &BlockBatch::new()).unwrap();
    assert_eq!(layers.last().unwrap().as_slice(), root.as_slice(), "{label}: last layer is the root");
    if leaves.is_empty() {
        if depth == 0 {
            assert_eq!(layers[0], zero_hash(0), "{label}");
        } else {
            assert!(layers[0].is_empty(), "{label}");
        }
        for (h, layer) in layers.iter().enumerate().skip(1) {
            assert_eq!(layer.as_slice(), zero_hash(h as u32).as_slice(), "{label}, layer {h}");
        }
        return;
    }
    assert_eq!(layers[0], leaves, "{label}: layer 0 is the leaves");
    for h in 1..layers.len() {
        assert_eq!(layers[h].len(), layers[h - 1].len().div_ceil(64) * 32, "{label}: size of layer {h}");
        let n = leaves.len() / 32;
        assert_eq!(layers[h].len(), n.div_ceil(1 << h) * 32, "{label}: ceil(n / 2^h), layer {h}");
    }
}

#[test]
fn layers_match_root_and_reference() {
    let counts = counts();
    let data = common::random_bytes(0x4E4B21, 32 * counts.iter().max().unwrap());
    let batches = batches("layers_match_root_and_reference");
    for &n in &counts {
        let leaves = &data[..32 * n];
        let depth = natural_depth(n);
        let expected = reference_layers(leaves, depth);
        for (name, batch) in &batches {
            let label = format!("{name}, n = {n}");
            let layers = merkle_layers(leaves, None, batch).unwrap();
            check_layers(&layers, leaves, depth, &label);
            assert_eq!(layers.last().unwrap().as_slice(), merkle_root(leaves, None, batch).unwrap(), "{label}");
            if n > 0 {
                for (h, layer) in layers.iter().enumerate() {
                    let want: Vec<u8> = expected[h][..layer.len() / 32].concat();
                    assert_eq!(layer, &want, "{label}, layer {h}");
                }
            }
        }
    }
}

#[test]
fn zero_hashes_chain() {
    assert_eq!(zero_hash(0), [0u8; 32]);
    for h in 0..MERKLE_MAX_DEPTH {
        assert_eq!(zero_hash(h + 1), sha256_pair(&zero_hash(h), &zero_hash(h)), "height {}", h + 1);
    }
    // SSZ's zero hash of height 1 (hash of 64 zero bytes).
    assert_eq!(hex::encode(zero_hash(1)), "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b");
    // And the reference's empty trees.
    for depth in 0..=10 {
        assert_eq!(zero_hash(depth), reference_root(&[], depth), "depth {depth}");
    }
}

#[test]
#[should_panic(expected = "zero_hash height must be at most 64, got 65")]
fn zero_hash_above_64_panics() {
    zero_hash(65);
}

#[test]
fn rejects_bad_arguments() {
    let batch = BlockBatch::new();
    for len in [1, 31, 33, 63, 100] {
        let leaves = vec![0u8; len];
        for depth in [None, Some(10)] {
            let err = merkle_root(&leaves, depth, &batch).unwrap_err();
            assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
            assert!(err.to_string().contains(&format!("whole number of 32-byte nodes, got {len} bytes")), "{err}");
            assert_eq!(merkle_layers(&leaves, depth, &batch).unwrap_err(), err);
        }
    }
    for (n, depth) in [(2usize, 0u32), (3, 1), (5, 2), (9, 3), (1025, 10)] {
        let leaves = vec![0u8; 32 * n];
        let err = merkle_root(&leaves, Some(depth), &batch).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{n} merkle leaves do not fit in a tree of depth {depth} (at most 2^{depth} leaves)")
        );
        assert_eq!(merkle_layers(&leaves, Some(depth), &batch).unwrap_err(), err);
        // One fewer fits (2^depth itself).
        let fits = vec![0u8; 32 * (1 << depth)];
        merkle_root(&fits, Some(depth), &batch).unwrap();
    }
    for depth in [65, 100, u32::MAX] {
        for leaves in [&[][..], &[0u8; 64][..]] {
            let err = merkle_root(leaves, Some(depth), &batch).unwrap_err();
            assert_eq!(err.to_string(), format!("merkle depth must be at most 64, got {depth}"));
            assert_eq!(merkle_layers(leaves, Some(depth), &batch).unwrap_err(), err);
        }
    }
}

/// Threads only change who hashes: a tree large enough for BlockBatch to split its layers.
#[test]
fn threads_agree() {
    let n = (1 << 15) + 3;
    let leaves = common::random_bytes(0x4E4B22, 32 * n);
    let expected = merkle_root(&leaves, None, &BlockBatch::new()).unwrap();
    for (name, batch) in batches("threads_agree") {
        assert_eq!(merkle_root(&leaves, None, &batch).unwrap(), expected, "{name}");
        assert_eq!(merkle_root(&leaves, Some(20), &batch).unwrap(), {
            let mut r = expected;
            for h in 16..20 {
                r = sha256_pair(&r, &zero_hash(h));
            }
            r
        });
    }
    let mut auto = BlockBatch::new();
    auto.set_max_threads(Threads::Auto);
    assert_eq!(merkle_root(&leaves, None, &auto).unwrap(), expected);
}
