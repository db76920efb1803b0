//! GOST R 34.11-94 (CryptoPro parameters): simdcrypt (every supported backend) against
//! RustCrypto's `gost94` crate and, with `--features peer-nettle`, Nettle's gosthash94cp,
//! in the same criterion groups: one message of 64 B to 4 MiB, and batches of 64-byte
//! messages.
//!
//! Run: `cargo bench -p simdcrypt-bench --features peer-nettle --bench gost94`
//! (quick pass: append `-- --warm-up-time 1 --measurement-time 3`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gost94::Digest;
use simdcrypt::blake3::Threads;
use simdcrypt::gost94::{Gost94, Platform, SBox};
use std::hint::black_box;

const SIZES: [usize; 4] = [64, 1 << 10, 64 << 10, 4 << 20];

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect()
}

fn one_message(c: &mut Criterion) {
    let mut group = c.benchmark_group("gost94-cryptopro");
    for &size in &SIZES {
        let data = input(size);
        let expected = gost94::Gost94CryptoPro::digest(&data).to_vec();
        if size >= 1 << 20 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Bytes(size as u64));
        for platform in Platform::all_supported() {
            let ours = |d: &[u8]| Gost94::new(SBox::CryptoPro).set_platform(platform).update(d).finalize();
            assert_eq!(ours(&data).to_vec(), expected, "{platform:?}");
            group.bench_with_input(BenchmarkId::new(format!("simdcrypt-{}", platform.name()), size), &data, |b, d| {
                b.iter(|| ours(black_box(d)))
            });
        }
        group.bench_with_input(BenchmarkId::new("rustcrypto", size), &data, |b, d| {
            b.iter(|| gost94::Gost94CryptoPro::digest(black_box(d)))
        });
        #[cfg(feature = "peer-nettle")]
        {
            use simdcrypt_bench::nettle;
            assert_eq!(nettle::gosthash94cp(&data).to_vec(), expected, "nettle");
            group.bench_with_input(BenchmarkId::new("nettle", size), &data, |b, d| {
                b.iter(|| nettle::gosthash94cp(black_box(d)))
            });
        }
    }
    group.finish();
}

const COUNT: usize = 1024;

fn batches(c: &mut Criterion) {
    let mut group = c.benchmark_group("gost94-cryptopro-batch-64B");
    let data = input(COUNT * 64);
    let msgs: Vec<&[u8]> = data.chunks_exact(64).collect();
    let expected: Vec<u8> = msgs.iter().flat_map(|m| gost94::Gost94CryptoPro::digest(m).to_vec()).collect();
    group.throughput(Throughput::Elements(COUNT as u64));
    let mut out = vec![0u8; COUNT * 32];
    for platform in Platform::all_supported() {
        simdcrypt::gost94::hash_many(&msgs, SBox::CryptoPro, &mut out, platform, Threads::One).unwrap();
        assert_eq!(out, expected, "{platform:?}");
        group.bench_function(BenchmarkId::new(format!("simdcrypt-{}", platform.name()), COUNT), |b| {
            b.iter(|| simdcrypt::gost94::hash_many(black_box(&msgs), SBox::CryptoPro, &mut out, platform, Threads::One))
        });
    }
    #[cfg(feature = "peer-nettle")]
    group.bench_function(BenchmarkId::new("nettle", COUNT), |b| {
        b.iter(|| {
            for (m, o) in msgs.iter().zip(out.chunks_exact_mut(32)) {
                o.copy_from_slice(&simdcrypt_bench::nettle::gosthash94cp(black_box(m)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, one_message, batches);
criterion_main!(benches);
