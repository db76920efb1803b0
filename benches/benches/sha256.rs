//! SHA-256: simdcrypt (every supported backend) against RustCrypto's `sha2` crate (which
//! uses SHA-NI / ARMv8 SHA2 when the CPU has them), in the same criterion group, over input
//! sizes from 64 B to 16 MiB; and block batches (hashtree's semantics: each 64-byte block
//! hashed as a whole message), every batch backend against a loop of `sha2::Sha256::digest`
//! and against hashtree (the `hashtree-rs` bindings; its own CPU detection).
//!
//! Then 2^20-block batches on one and two threads (`sha256-batch-threads`), and Merkle
//! roots of 2^20 leaves against hashtree layer by layer (`sha256-merkle`).
//!
//! Run: `cargo bench -p simdcrypt-bench --bench sha256`
//! (quick pass: append `-- --warm-up-time 1 --measurement-time 2`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sha2::Digest;
use simdcrypt::sha256::{BatchPlatform, BlockBatch, Platform, Sha256};
use simdcrypt::threads::Threads;
use std::hint::black_box;

const SIZES: [usize; 5] = [64, 1 << 10, 64 << 10, 1 << 20, 16 << 20];

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect()
}

fn one_shot(c: &mut Criterion) {
    let mut group = c.benchmark_group("sha256");
    for &size in &SIZES {
        let data = input(size);
        let expected: [u8; 32] = sha2::Sha256::digest(&data).into();
        if size >= 1 << 20 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Bytes(size as u64));
        for platform in Platform::all_supported() {
            let mut h = Sha256::new();
            assert_eq!(h.set_platform(platform).update(&data).finalize(), expected, "{platform:?}");
            group.bench_with_input(BenchmarkId::new(format!("simdcrypt-{}", platform.name()), size), &data, |b, d| {
                b.iter(|| {
                    let mut h = Sha256::new();
                    h.set_platform(platform).update(black_box(d));
                    h.finalize()
                })
            });
        }
        group.bench_with_input(BenchmarkId::new("sha2-crate", size), &data, |b, d| {
            b.iter(|| sha2::Sha256::digest(black_box(d)))
        });
    }
    group.finish();
}

/// Block counts of the batch group: around the AVX-512 width, and large batches.
const BATCH_BLOCKS: [usize; 7] = [1, 4, 15, 16, 64, 1024, 1 << 20];

fn batches(c: &mut Criterion) {
    let mut group = c.benchmark_group("sha256-batch");
    // hashtree picks its kernel once, here. (The C function returns void, so the binding's
    // i32 result means nothing; the digests are checked below.)
    let _ = hashtree_rs::init();
    for &n in &BATCH_BLOCKS {
        let data = input(n * 64);
        let expected: Vec<u8> = data.chunks_exact(64).flat_map(|b| <[u8; 32]>::from(sha2::Sha256::digest(b))).collect();
        if n >= 1 << 20 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Elements(n as u64));
        let mut out = vec![0u8; n * 32];
        for platform in BatchPlatform::all_supported() {
            let mut batch = BlockBatch::new();
            batch.set_platform(platform);
            batch.hash_into(&data, &mut out).unwrap();
            assert_eq!(out, expected, "{platform:?}");
            group.bench_with_input(BenchmarkId::new(format!("simdcrypt-{}", platform.name()), n), &data, |b, d| {
                b.iter(|| batch.hash_into(black_box(d), &mut out).unwrap())
            });
        }
        // hashtree_rs::hash does not check lengths: `out` is exactly n digests, `data` n blocks.
        out.fill(0);
        hashtree_rs::hash(&mut out, &data, n);
        assert_eq!(out, expected, "hashtree");
        group.bench_with_input(BenchmarkId::new("hashtree-rs", n), &data, |b, d| {
            b.iter(|| hashtree_rs::hash(&mut out, black_box(d), n))
        });
        group.bench_with_input(BenchmarkId::new("sha2-crate-loop", n), &data, |b, d| {
            b.iter(|| {
                for (block, digest) in black_box(d).chunks_exact(64).zip(out.chunks_exact_mut(32)) {
                    digest.copy_from_slice(&sha2::Sha256::digest(block));
                }
            })
        });
    }
    group.finish();
}

/// 2^20 blocks (64 MiB in, 32 MiB out) with the detected batch backend on one and two
/// threads: the scaling target (two threads at least 1.8 times one).
fn batch_threads(c: &mut Criterion) {
    let n = 1 << 20;
    let data = input(n * 64);
    let mut group = c.benchmark_group("sha256-batch-threads");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    let mut out = vec![0u8; n * 32];
    let mut expected = vec![0u8; n * 32];
    BlockBatch::new().hash_into(&data, &mut expected).unwrap();
    for threads in [1, 2] {
        let mut batch = BlockBatch::new();
        batch.set_max_threads(if threads == 1 { Threads::One } else { Threads::Max(threads) });
        batch.hash_into(&data, &mut out).unwrap();
        assert_eq!(out, expected, "{threads} threads");
        group.bench_with_input(
            BenchmarkId::new(format!("simdcrypt-{}", batch.platform().name()), threads),
            &data,
            |b, d| b.iter(|| batch.hash_into(black_box(d), &mut out).unwrap()),
        );
    }
    group.finish();
}

/// The Merkle root of 2^20 leaves: `merkle_root` on one and two threads against hashtree
/// called layer by layer (its batch function on each layer, into scratch layers allocated
/// once outside the timing, which flatters it).
fn merkle(c: &mut Criterion) {
    let leaves = input(32 << 20);
    let mut group = c.benchmark_group("sha256-merkle");
    group.sample_size(10);
    group.throughput(Throughput::Elements(1 << 20));
    let mut layers: Vec<Vec<u8>> = (1..=20).map(|d| vec![0u8; (32 << 20) >> d]).collect();
    let mut hashtree_root = || {
        let _ = hashtree_rs::init();
        let mut prev: &[u8] = &leaves;
        for layer in layers.iter_mut() {
            // hashtree_rs::hash does not check lengths: `layer` holds half of `prev`'s nodes.
            hashtree_rs::hash(layer, prev, prev.len() / 64);
            prev = layer;
        }
        <[u8; 32]>::try_from(prev).unwrap()
    };
    let expected = simdcrypt::sha256::merkle_root(&leaves, None, &BlockBatch::new()).unwrap();
    assert_eq!(hashtree_root(), expected, "hashtree layer by layer");
    group.bench_function("hashtree-rs-layers", |b| b.iter(&mut hashtree_root));
    for threads in [1, 2] {
        let mut batch = BlockBatch::new();
        batch.set_max_threads(if threads == 1 { Threads::One } else { Threads::Max(threads) });
        group.bench_with_input(BenchmarkId::new("simdcrypt-merkle_root", threads), &leaves, |b, l| {
            b.iter(|| simdcrypt::sha256::merkle_root(black_box(l), None, &batch).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, one_shot, batches, batch_threads, merkle);
criterion_main!(benches);
