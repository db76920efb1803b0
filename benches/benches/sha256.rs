//! SHA-256: simdcrypt (every supported backend) against RustCrypto's `sha2` crate (which
//! uses SHA-NI / ARMv8 SHA2 when the CPU has them), in the same criterion group, over input
//! sizes from 64 B to 16 MiB.
//!
//! Run: `cargo bench -p simdcrypt-bench --bench sha256`
//! (quick pass: append `-- --warm-up-time 1 --measurement-time 2`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sha2::Digest;
use simdcrypt::backend::Backend;
use simdcrypt::sha256::{Platform, Sha256};
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

criterion_group!(benches, one_shot);
criterion_main!(benches);
