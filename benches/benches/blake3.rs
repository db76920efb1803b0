//! BLAKE3: simdcrypt (every supported backend) against the official `blake3` crate, in the
//! same criterion groups, over input sizes from 64 B to 16 MiB, one thread and several.
//!
//! Run: `cargo bench -p simdcrypt-bench --bench blake3`
//! (quick pass: append `-- --warm-up-time 1 --measurement-time 2`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simdcrypt::blake3::{Batch, Hasher, Mode, Platform, Threads};
use std::hint::black_box;

const SIZES: [usize; 7] = [64, 1024, 8 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20];

/// A few whole chunks: the leftover paths below one full SIMD group (2 to 15 chunks).
const FEW_CHUNKS: [usize; 5] = [2 << 10, 3 << 10, 4 << 10, 5 << 10, 13 << 10];

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect()
}

fn one_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("blake3/1-thread");
    for &size in SIZES[..6].iter().chain(&FEW_CHUNKS) {
        let data = input(size);
        group.throughput(Throughput::Bytes(size as u64));
        for platform in Platform::all_supported() {
            group.bench_with_input(BenchmarkId::new(format!("simdcrypt-{}", platform.name()), size), &data, |b, d| {
                b.iter(|| {
                    let mut h = Hasher::new();
                    h.set_platform(platform).update(black_box(d));
                    h.finalize()
                })
            });
        }
        // What a caller writes: the one-shot function on the detected backend.
        group.bench_with_input(BenchmarkId::new("simdcrypt-hash", size), &data, |b, d| {
            b.iter(|| simdcrypt::blake3::hash(black_box(d)))
        });
        group.bench_with_input(BenchmarkId::new("blake3-crate", size), &data, |b, d| {
            b.iter(|| blake3::hash(black_box(d)))
        });
    }
    group.finish();
}

fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("blake3/threads");
    group.sample_size(10);
    for &size in &SIZES[3..] {
        let data = input(size);
        group.throughput(Throughput::Bytes(size as u64));
        for (label, threads) in [("max2", Threads::Max(2)), ("auto", Threads::Auto)] {
            group.bench_with_input(BenchmarkId::new(format!("simdcrypt-{label}"), size), &data, |b, d| {
                b.iter(|| {
                    let mut h = Hasher::new();
                    h.set_max_threads(threads).update(black_box(d));
                    h.finalize()
                })
            });
        }
        group.bench_with_input(BenchmarkId::new("blake3-crate-rayon", size), &data, |b, d| {
            b.iter(|| blake3::Hasher::new().update_rayon(black_box(d)).finalize())
        });
    }
    group.finish();
}

/// BLAKE3's IV: the key words of the default hash mode (the crate does not export them).
const IV: [u32; 8] = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];

/// The crate's hidden kernel on `N`-byte messages, after checking it computes our digests.
fn bench_hidden_kernel<const N: usize>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    platform: blake3::platform::Platform,
    messages: &[&[u8]],
    out: &mut [u8],
    ours: &[u8],
) {
    // CHUNK_START | CHUNK_END | ROOT on each one-chunk message makes its chaining value
    // its digest.
    let (start, end_root) = (1u8, 2u8 | 8u8);
    let arrays: Vec<&[u8; N]> = messages.iter().map(|m| (*m).try_into().unwrap()).collect();
    platform.hash_many(&arrays, &IV, 0, blake3::IncrementCounter::No, 0, start, end_root, out);
    assert_eq!(out, ours, "the hidden kernel must compute the same digests");
    group.bench_function(BenchmarkId::new("blake3-crate-hidden-kernel", N), |b| {
        b.iter(|| platform.hash_many(black_box(&arrays), &IV, 0, blake3::IncrementCounter::No, 0, start, end_root, out))
    });
}

/// Many independent messages: simdcrypt's batch API against the official crate's hidden
/// batch kernel (`blake3::platform`, whole blocks only, so 64 B and 1 KiB messages) and a
/// loop of `blake3::hash` calls.
fn batches(c: &mut Criterion) {
    const COUNT: usize = 1024;
    let mut group = c.benchmark_group("blake3/batch");
    for len in [64usize, 1024] {
        let data = input(COUNT * len);
        let messages: Vec<&[u8]> = data.chunks_exact(len).collect();
        let mut out = vec![0u8; COUNT * 32];
        group.throughput(Throughput::Elements(COUNT as u64));
        group.bench_function(BenchmarkId::new("simdcrypt-batch", len), |b| {
            let batch = Batch::new(Mode::Hash);
            b.iter(|| batch.hash_into(black_box(&messages), 32, &mut out).unwrap())
        });
        // Each backend, to compare with the crate restricted to the same one (its `no_*`
        // features, as in docs/tuning-history.md, "thirteenth pass").
        for platform in Platform::all_supported() {
            group.bench_function(BenchmarkId::new(format!("simdcrypt-batch-{}", platform.name()), len), |b| {
                let mut batch = Batch::new(Mode::Hash);
                batch.set_platform(platform);
                b.iter(|| batch.hash_into(black_box(&messages), 32, &mut out).unwrap())
            });
        }
        group.bench_function(BenchmarkId::new("blake3-crate-hash-loop", len), |b| {
            b.iter(|| {
                for (m, o) in messages.iter().zip(out.chunks_exact_mut(32)) {
                    o.copy_from_slice(blake3::hash(black_box(m)).as_bytes());
                }
            })
        });
        let platform = blake3::platform::Platform::detect();
        // Same work on both sides: the kernel's outputs must be the messages' digests.
        Batch::new(Mode::Hash).hash_into(&messages, 32, &mut out).unwrap();
        let ours = out.clone();
        match len {
            64 => bench_hidden_kernel::<64>(&mut group, platform, &messages, &mut out, &ours),
            _ => bench_hidden_kernel::<1024>(&mut group, platform, &messages, &mut out, &ours),
        }
    }
    group.finish();
}

/// 1 GiB in memory, one thread and two (the sizes the performance targets name).
fn one_gib(c: &mut Criterion) {
    let data = input(1 << 30);
    let mut group = c.benchmark_group("blake3/1GiB");
    group.sample_size(10).throughput(Throughput::Bytes(data.len() as u64));
    group.bench_function("simdcrypt-1-thread", |b| b.iter(|| Hasher::new().update(black_box(&data)).finalize()));
    group.bench_function("blake3-crate-1-thread", |b| b.iter(|| blake3::hash(black_box(&data))));
    group.bench_function("simdcrypt-max2", |b| {
        b.iter(|| Hasher::new().set_max_threads(Threads::Max(2)).update(black_box(&data)).finalize())
    });
    group.bench_function("blake3-crate-rayon", |b| {
        b.iter(|| blake3::Hasher::new().update_rayon(black_box(&data)).finalize())
    });
    group.finish();
}

/// 100 MB (10^8 bytes) on one thread: the native figure to compare the Python binding's
/// with (`simdcrypt bench -a blake3 --sizes 100MB --no-scaling`).
fn python_reference(c: &mut Criterion) {
    let data = input(100_000_000);
    let mut group = c.benchmark_group("blake3/100MB");
    group.sample_size(20).throughput(Throughput::Bytes(data.len() as u64));
    group.bench_function("simdcrypt-1-thread", |b| b.iter(|| Hasher::new().update(black_box(&data)).finalize()));
    group.finish();
}

criterion_group!(benches, one_thread, threads, batches, one_gib, python_reference);
criterion_main!(benches);
