//! Streebog: simdcrypt (every supported backend) against RustCrypto's `streebog` crate and,
//! with `--features peer-nettle`, Nettle, in the same criterion groups: one message of
//! 64 B to 4 MiB (one thread), and batches of 64-byte messages (`streebog::hash_many`
//! against the peers one message at a time).
//!
//! Run: `cargo bench -p simdcrypt-bench --features peer-nettle --bench streebog`
//! (quick pass: append `-- --warm-up-time 1 --measurement-time 3`).

use ::streebog::Digest;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simdcrypt::blake3::Threads;
use simdcrypt::streebog::{self, Bits, Platform, Streebog256, Streebog512};
use std::hint::black_box;

use ::streebog as rc;

const SIZES: [usize; 4] = [64, 1 << 10, 64 << 10, 4 << 20];

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect()
}

fn one_message(c: &mut Criterion) {
    for bits in [512usize, 256] {
        let mut group = c.benchmark_group(format!("streebog{bits}"));
        for &size in &SIZES {
            let data = input(size);
            let expected = if bits == 512 {
                rc::Streebog512::digest(&data).to_vec()
            } else {
                rc::Streebog256::digest(&data).to_vec()
            };
            if size >= 1 << 20 {
                group.sample_size(10);
            }
            group.throughput(Throughput::Bytes(size as u64));
            for platform in Platform::all_supported() {
                let ours = |d: &[u8]| -> Vec<u8> {
                    if bits == 512 {
                        Streebog512::new().set_platform(platform).update(d).finalize().to_vec()
                    } else {
                        Streebog256::new().set_platform(platform).update(d).finalize().to_vec()
                    }
                };
                assert_eq!(ours(&data), expected, "{platform:?}");
                group.bench_with_input(
                    BenchmarkId::new(format!("simdcrypt-{}", platform.name()), size),
                    &data,
                    |b, d| b.iter(|| ours(black_box(d))),
                );
            }
            group.bench_with_input(BenchmarkId::new("rustcrypto", size), &data, |b, d| {
                if bits == 512 {
                    b.iter(|| rc::Streebog512::digest(black_box(d)).to_vec())
                } else {
                    b.iter(|| rc::Streebog256::digest(black_box(d)).to_vec())
                }
            });
            #[cfg(feature = "peer-nettle")]
            {
                use simdcrypt_bench::nettle;
                let theirs = |d: &[u8]| -> Vec<u8> {
                    if bits == 512 {
                        nettle::streebog512(d).to_vec()
                    } else {
                        nettle::streebog256(d).to_vec()
                    }
                };
                assert_eq!(theirs(&data), expected, "nettle");
                group.bench_with_input(BenchmarkId::new("nettle", size), &data, |b, d| b.iter(|| theirs(black_box(d))));
            }
        }
        group.finish();
    }
}

/// Batches of `COUNT` 64-byte messages (four compressions each).
const COUNT: usize = 1024;

fn batches(c: &mut Criterion) {
    let mut group = c.benchmark_group("streebog256-batch-64B");
    let data = input(COUNT * 64);
    let msgs: Vec<&[u8]> = data.chunks_exact(64).collect();
    let expected: Vec<u8> = msgs.iter().flat_map(|m| rc::Streebog256::digest(m).to_vec()).collect();
    group.throughput(Throughput::Elements(COUNT as u64));
    let mut out = vec![0u8; COUNT * 32];
    for platform in Platform::all_supported() {
        streebog::hash_many(&msgs, Bits::B256, &mut out, platform, Threads::One).unwrap();
        assert_eq!(out, expected, "{platform:?}");
        group.bench_function(BenchmarkId::new(format!("simdcrypt-{}", platform.name()), COUNT), |b| {
            b.iter(|| streebog::hash_many(black_box(&msgs), Bits::B256, &mut out, platform, Threads::One).unwrap())
        });
        group.bench_function(BenchmarkId::new(format!("simdcrypt-{}-one-at-a-time", platform.name()), COUNT), |b| {
            b.iter(|| {
                for (m, o) in msgs.iter().zip(out.chunks_exact_mut(32)) {
                    o.copy_from_slice(&Streebog256::new().set_platform(platform).update(black_box(m)).finalize());
                }
            })
        });
    }
    group.bench_function(BenchmarkId::new("rustcrypto", COUNT), |b| {
        b.iter(|| {
            for (m, o) in msgs.iter().zip(out.chunks_exact_mut(32)) {
                o.copy_from_slice(&rc::Streebog256::digest(black_box(m)));
            }
        })
    });
    #[cfg(feature = "peer-nettle")]
    group.bench_function(BenchmarkId::new("nettle", COUNT), |b| {
        b.iter(|| {
            for (m, o) in msgs.iter().zip(out.chunks_exact_mut(32)) {
                o.copy_from_slice(&simdcrypt_bench::nettle::streebog256(black_box(m)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, one_message, batches);
criterion_main!(benches);
