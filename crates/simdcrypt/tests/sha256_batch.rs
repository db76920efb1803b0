//! Every SHA-256 block-batch backend against RustCrypto's `sha2` crate, one block at a
//! time: block counts around each kernel's width (2, 4, 8 and 16 lanes) and some others, on
//! fixed-seed random data; and the argument checks.

mod common;

use sha2::Digest;
use simdcrypt::backend::Backend;
use simdcrypt::sha256::{hash_blocks, BatchPlatform, BlockBatch, BLOCK_LEN, OUT_LEN};
use simdcrypt::threads::Threads;
use simdcrypt::Error;

fn counts() -> Vec<usize> {
    let mut v: Vec<usize> = [2usize, 4, 8, 16].iter().flat_map(|&lanes| [1, lanes - 1, lanes, lanes + 1]).collect();
    v.extend([6, 13, 30, 1000]);
    v.sort_unstable();
    v.dedup();
    v
}

fn oracle(blocks: &[u8]) -> Vec<u8> {
    blocks.chunks_exact(BLOCK_LEN).flat_map(|b| <[u8; 32]>::from(sha2::Sha256::digest(b))).collect()
}

#[test]
fn every_backend_matches_sha2() {
    let counts = counts();
    let data = common::random_bytes(0xB10C5, counts.iter().max().unwrap() * BLOCK_LEN);
    for platform in common::supported_backends::<BatchPlatform>("every_backend_matches_sha2") {
        for &n in &counts {
            let blocks = &data[..n * BLOCK_LEN];
            let mut out = vec![0u8; n * OUT_LEN];
            BlockBatch::new().set_platform(platform).hash_into(blocks, &mut out).unwrap();
            assert_eq!(out, oracle(blocks), "{} with {n} blocks", platform.name());
        }
    }
}

#[test]
fn threads_and_default_entry_point() {
    let n = 5000;
    let data = common::random_bytes(0xB10C6, n * BLOCK_LEN);
    let expected = oracle(&data);
    let mut out = vec![0u8; n * OUT_LEN];
    hash_blocks(&data, &mut out).unwrap();
    assert_eq!(out, expected);
    for platform in common::supported_backends::<BatchPlatform>("threads_and_default_entry_point") {
        for threads in [Threads::Max(2), Threads::Max(3), Threads::Auto] {
            out.fill(0);
            BlockBatch::new().set_platform(platform).set_max_threads(threads).hash_into(&data, &mut out).unwrap();
            assert_eq!(out, expected, "{} {threads:?}", platform.name());
        }
    }
}

#[test]
fn empty_batch() {
    let mut out = [];
    hash_blocks(&[], &mut out).unwrap();
}

#[test]
fn rejects_bad_lengths() {
    let data = vec![0u8; 3 * BLOCK_LEN + 1];
    let mut out = vec![0u8; 3 * OUT_LEN];
    let err = hash_blocks(&data, &mut out).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert!(err.to_string().contains("whole number of 64-byte blocks, got 193 bytes"), "{err}");

    for wrong in [0, 3 * OUT_LEN - 1, 3 * OUT_LEN + 1, 6 * OUT_LEN] {
        let mut out = vec![0u8; wrong];
        let err = hash_blocks(&data[..3 * BLOCK_LEN], &mut out).unwrap_err();
        assert_eq!(err, Error::InvalidLength { what: "output buffer (32 bytes per block)", expected: 96, got: wrong });
    }
}

#[test]
fn backend_names() {
    assert_eq!(BatchPlatform::ALGORITHM, "sha256-batch");
    assert_eq!(BatchPlatform::from_name(" Portable ").unwrap(), BatchPlatform::portable());
    assert!(matches!(BatchPlatform::from_name("neon-x4"), Err(Error::UnknownBackend { .. })));
    let report = simdcrypt::backend_report();
    let batch = report.iter().find(|r| r.algorithm == "sha256-batch").expect("sha256-batch in backend_report");
    assert_eq!(batch.selected, BatchPlatform::detect().name());
    assert_eq!(batch.supported.last(), Some(&"portable"));
}
