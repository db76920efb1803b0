#![cfg(feature = "cuda-emulation")]
//! The SHA-256 kernels (src/cuda/sha256.cu), run by the host emulation: 64-byte blocks
//! against the CPU batch and the `sha2` crate, Merkle roots of 0 to 2^16 leaves (odd counts,
//! explicit depths up to 64, depths too small) against the CPU's `merkle_root` and a
//! reference built from `sha2`, and the `_device` entry points on device buffers.

mod common;

use sha2::Digest;
use simdcrypt::cuda::{self, Device, DeviceBuffer, Emulated};
use simdcrypt::sha256::{self, zero_hash, BlockBatch};

fn sha2_pair(left: &[u8], right: &[u8]) -> [u8; 32] {
    sha2::Sha256::new().chain_update(left).chain_update(right).finalize().into()
}

/// The SSZ root of `leaves` in a tree of depth `depth`, one recursion per level, with
/// `sha2` only.
fn reference_root(leaves: &[[u8; 32]], depth: u32) -> [u8; 32] {
    if depth == 0 {
        return leaves.first().copied().unwrap_or([0; 32]);
    }
    if leaves.is_empty() {
        return zero_hash(depth);
    }
    let half = 1usize.checked_shl(depth - 1).unwrap_or(usize::MAX);
    let (left, right) = leaves.split_at(leaves.len().min(half));
    sha2_pair(&reference_root(left, depth - 1), &reference_root(right, depth - 1))
}

fn natural_depth(n: usize) -> u32 {
    usize::BITS - n.saturating_sub(1).leading_zeros()
}

#[test]
fn blocks_match_cpu_and_sha2() {
    let mut tried = Vec::new();
    for count in [0usize, 1, 2, 127, 128, 129, 1000, 10_000] {
        let blocks = common::random_bytes(count as u64, 64 * count);
        let mut got = vec![0u8; 32 * count];
        cuda::sha256_blocks(&Emulated, &blocks, &mut got).unwrap();
        let mut cpu = vec![0u8; 32 * count];
        sha256::hash_blocks(&blocks, &mut cpu).unwrap();
        assert_eq!(got, cpu, "{count} blocks against the CPU batch");
        for (i, block) in blocks.chunks_exact(64).enumerate() {
            assert_eq!(got[32 * i..][..32], sha2::Sha256::digest(block)[..], "block {i} of {count} against sha2");
        }
        tried.push(count);
    }
    println!("cuda emulation: sha256_blocks of {tried:?} blocks");
}

#[test]
fn blocks_refuse_wrong_lengths_as_the_cpu_does() {
    for (blocks_len, out_len) in [(63, 0), (65, 32), (64, 31), (128, 32)] {
        let blocks = vec![0u8; blocks_len];
        let mut out = vec![0u8; out_len];
        let got = cuda::sha256_blocks(&Emulated, &blocks, &mut out).unwrap_err();
        let cpu = sha256::hash_blocks(&blocks, &mut out).unwrap_err();
        assert_eq!(got, cpu, "{blocks_len} bytes of blocks, {out_len} of output");
    }
}

#[test]
fn blocks_device_writes_exactly_the_digests() {
    let dev = Emulated;
    let count = 300usize;
    let blocks = common::random_bytes(7, 64 * count);
    let mut input = dev.alloc(blocks.len()).unwrap();
    dev.upload(&mut input, 0, &blocks).unwrap();
    let mut out = dev.alloc(32 * count + 64).unwrap();
    dev.upload(&mut out, 0, &vec![0xA5; 32 * count + 64]).unwrap();
    // SAFETY: `input` holds the 300 blocks; the 300 digests fit in `out` from byte 32 on, with
    // 32 bytes to spare; both outlive the call, which waits for the kernel.
    unsafe { cuda::sha256_blocks_device(&dev, input.ptr(), count as u64, out.ptr() + 32) }.unwrap();
    let mut got = vec![0u8; 32 * count + 64];
    dev.download(&out, 0, &mut got).unwrap();
    assert!(got[..32].iter().chain(&got[32 + 32 * count..]).all(|&b| b == 0xA5), "bytes outside the digests written");
    let mut cpu = vec![0u8; 32 * count];
    sha256::hash_blocks(&blocks, &mut cpu).unwrap();
    assert_eq!(got[32..32 + 32 * count], cpu[..]);
}

/// Leaf counts: every count to 70, powers of two and their neighbours to 2^16, and a few odd
/// ones between.
fn counts() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=70).collect();
    for k in 7..=16 {
        v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    v.extend([1001, 4095 + 4096, 12_345, 40_001]);
    v.retain(|&n| n <= 1 << 16);
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn merkle_roots_match_cpu_and_reference() {
    let all = common::random_bytes(0x3E4C1E, 32 << 16);
    let counts = counts();
    for &n in &counts {
        let leaves = &all[..32 * n];
        let nodes: Vec<[u8; 32]> = leaves.chunks_exact(32).map(|c| c.try_into().unwrap()).collect();
        let depths = [None, Some(natural_depth(n)), Some(natural_depth(n) + 1), Some(natural_depth(n) + 5)];
        for depth in depths {
            let got = cuda::merkle_root(&Emulated, leaves, depth).unwrap();
            let cpu = sha256::merkle_root(leaves, depth, &BlockBatch::new()).unwrap();
            assert_eq!(got, cpu, "{n} leaves, depth {depth:?}: against the CPU");
            if n <= 4096 {
                let reference = reference_root(&nodes, depth.unwrap_or(natural_depth(n)));
                assert_eq!(got, reference, "{n} leaves, depth {depth:?}: against the sha2 reference");
            }
        }
    }
    println!(
        "cuda emulation: merkle_root of {} leaf counts from 0 to {}, natural and deeper trees",
        counts.len(),
        counts.last().unwrap()
    );
}

#[test]
fn merkle_deep_trees_and_bad_arguments() {
    let leaves = common::random_bytes(3, 32 * 5);
    for depth in [40, 63, 64] {
        let got = cuda::merkle_root(&Emulated, &leaves, Some(depth)).unwrap();
        assert_eq!(got, sha256::merkle_root(&leaves, Some(depth), &BlockBatch::new()).unwrap(), "depth {depth}");
    }
    for (len, depth) in [(33, None), (32 * 5, Some(2)), (32 * 5, Some(65)), (0, Some(65)), (32, Some(65))] {
        let leaves = vec![1u8; len];
        let got = cuda::merkle_root(&Emulated, &leaves, depth).unwrap_err();
        let cpu = sha256::merkle_root(&leaves, depth, &BlockBatch::new()).unwrap_err();
        assert_eq!(got, cpu, "{len} bytes of leaves, depth {depth:?}");
    }
}

#[test]
fn merkle_root_device_reads_leaves_in_place() {
    let dev = Emulated;
    for n in [0usize, 1, 2, 3, 1000, 4097] {
        let leaves = common::random_bytes(n as u64 + 11, 32 * n);
        // The leaves start 32 bytes into the buffer, as a slice of a larger array would.
        let mut buf = dev.alloc(32 * n + 32).unwrap();
        dev.upload(&mut buf, 32, &leaves).unwrap();
        for depth in [None, Some(13)] {
            // SAFETY: `buf` holds the `n` leaves from byte 32 on and outlives the call.
            let got = unsafe { cuda::merkle_root_device(&dev, buf.ptr() + 32, n as u64, depth) }.unwrap();
            let cpu = sha256::merkle_root(&leaves, depth, &BlockBatch::new()).unwrap();
            assert_eq!(got, cpu, "{n} leaves on the device, depth {depth:?}");
        }
    }
    // SAFETY: no leaves: nothing is read.
    let err = unsafe { cuda::merkle_root_device(&dev, 0, 5, Some(2)) }.unwrap_err();
    assert!(err.to_string().contains("5 merkle leaves do not fit in a tree of depth 2"), "{err}");
}
