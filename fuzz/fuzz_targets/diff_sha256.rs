//! SHA-256 differential: every backend streamed at fuzzer-chosen cuts against `sha2`; the
//! block batches (each 64-byte block a whole message) on every batch backend and thread
//! setting; Merkle roots and layers against a plain `sha2` tree, with a fuzzer-chosen
//! depth. Argument errors must be errors, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256 as Sha2};
use simdcrypt::sha256::{self, BatchPlatform, BlockBatch, Platform, Sha256};
use simdcrypt_fuzz::{backends, cuts, pieces, split, stretched, threads, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

fn sha2(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha2::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// The Merkle root by the definition: pairs hashed a layer at a time, a missing right
/// node being the zero tree of that height.
fn reference_root(leaves: &[u8], depth: u32) -> [u8; 32] {
    let mut zero = [0u8; 32];
    let mut layer: Vec<[u8; 32]> = leaves.chunks(32).map(|c| c.try_into().unwrap()).collect();
    if layer.is_empty() {
        layer.push(zero);
    }
    for _ in 0..depth {
        if layer.len() % 2 == 1 {
            layer.push(zero);
        }
        layer = layer.chunks(2).map(|p| sha2(&[&p[0], &p[1]])).collect();
        zero = sha2(&[&zero, &zero]);
    }
    layer[0]
}

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let threads = threads(u)?;
    let depth_choice: u8 = u.arbitrary()?;
    let cut_seed: u64 = u.arbitrary()?;
    let data = stretched(u, payload)?;
    let cut_at = cuts(&mut Unstructured::new(&cut_seed.to_le_bytes()), data.len())?;
    let expected = sha2(&[&data]);
    assert_eq!(sha256::hash(&data), expected, "one-shot");
    for platform in backends::<Platform>() {
        let mut h = Sha256::new();
        h.set_platform(platform);
        for piece in pieces(&data, &cut_at) {
            h.update(piece);
        }
        assert_eq!(h.finalize(), expected, "{} streamed at {cut_at:?}", platform.name());
    }

    // Block batches: a whole number of blocks hashes, anything else is an error.
    let blocks = &data[..data.len() / 64 * 64];
    let want: Vec<u8> = blocks.chunks(64).flat_map(|b| sha2(&[b])).collect();
    for platform in backends::<BatchPlatform>() {
        let mut batch = BlockBatch::new();
        batch.set_platform(platform).set_max_threads(threads);
        let mut out = vec![0u8; blocks.len() / 2];
        batch.hash_into(blocks, &mut out).unwrap();
        assert_eq!(out, want, "{} batch of {} blocks", platform.name(), blocks.len() / 64);
        if data.len() % 64 != 0 {
            assert!(batch.hash_into(&data, &mut vec![0u8; data.len() / 2]).is_err());
        }
        let mut short = vec![0u8; (blocks.len() / 2).saturating_sub(1)];
        assert!(blocks.is_empty() || batch.hash_into(blocks, &mut short).is_err());

        // Merkle: the data's whole 32-byte nodes as leaves, a depth of None or 0..=64.
        let leaves = &data[..data.len() / 32 * 32];
        let n = (leaves.len() / 32) as u64;
        let depth = (depth_choice < 200).then_some(u32::from(depth_choice % 70));
        let fits = depth.is_none_or(|d| d <= 64 && (d >= 64 || n <= 1u64 << d));
        let root = sha256::merkle_root(leaves, depth, &batch);
        let layers = sha256::merkle_layers(leaves, depth, &batch);
        if !fits {
            assert!(root.is_err() && layers.is_err(), "depth {depth:?} for {n} leaves");
            continue;
        }
        let d = depth.unwrap_or_else(|| if n <= 1 { 0 } else { 64 - (n - 1).leading_zeros() });
        let want_root = reference_root(leaves, d);
        assert_eq!(root.unwrap(), want_root, "{} merkle root of {n} leaves, depth {depth:?}", platform.name());
        let layers = layers.unwrap();
        assert_eq!(layers.len() as u32, d + 1);
        assert_eq!(layers[d as usize], want_root);
        assert_eq!(
            layers[0],
            if n == 0 {
                if d == 0 {
                    want_root.to_vec()
                } else {
                    vec![]
                }
            } else {
                leaves.to_vec()
            }
        );
    }
    Ok(())
}
