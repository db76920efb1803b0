//! BLAKE3: simdcrypt (every supported backend) against the official `blake3` crate, in the
//! same criterion groups, over input sizes from 64 B to 16 MiB, one thread and several.
//!
//! Run: `cargo bench -p simdcrypt-bench --bench blake3`
//! (quick pass: append `-- --warm-up-time 1 --measurement-time 2`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simdcrypt::backend::Backend;
use simdcrypt::blake3::{Hasher, Platform, Threads};
use std::hint::black_box;

const SIZES: [usize; 7] = [64, 1024, 8 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20];

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect()
}

fn one_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("blake3/1-thread");
    for &size in &SIZES[..6] {
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

criterion_group!(benches, one_thread, threads);
criterion_main!(benches);
