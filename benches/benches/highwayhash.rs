//! HighwayHash: simdcrypt against the `highway` crate (the Rust port of google/highwayhash,
//! with its own AVX2/SSE4.1 detection), in the same criterion groups: 64-, 128- and 256-bit
//! results over 8 B to 5 MiB; and batches of 64-byte messages (`hash_many`, every backend)
//! against a loop of one-message calls (simdcrypt's one-shot and the crate's).
//!
//! Run: `cargo bench -p simdcrypt-bench --bench highwayhash`
//! (quick pass: append `-- --warm-up-time 1 --measurement-time 2`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use highway::HighwayHash as _;
use simdcrypt::blake3::Threads;
use simdcrypt::highwayhash::{self, HighwayHasher, Platform, Size};
use std::hint::black_box;

const SIZES: [usize; 5] = [8, 64, 1 << 10, 1 << 20, 5 << 20];
const KEY: [u8; 32] = *b"simdcrypt highwayhash bench key!";

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect()
}

fn crate_key() -> highway::Key {
    highway::Key(highwayhash::key_words(&KEY))
}

/// The crate's result in simdcrypt's byte form, to check both compute the same thing.
fn crate_bytes(size: Size, data: &[u8]) -> Vec<u8> {
    let h = highway::HighwayHasher::new(crate_key());
    let words = match size {
        Size::Bits64 => vec![h.hash64(data)],
        Size::Bits128 => h.hash128(data).to_vec(),
        Size::Bits256 => h.hash256(data).to_vec(),
    };
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn one_shot(c: &mut Criterion) {
    for size in Size::ALL {
        let mut group = c.benchmark_group(size.name());
        for &len in &SIZES {
            let data = input(len);
            let expected = crate_bytes(size, &data);
            if len >= 1 << 20 {
                group.sample_size(10);
            }
            group.throughput(Throughput::Bytes(len as u64));
            // The one-shot functions (detected backend, no buffering).
            let mut out = vec![0u8; size.len()];
            match size {
                Size::Bits64 => out.copy_from_slice(&highwayhash::digest64(&KEY, &data)),
                Size::Bits128 => out.copy_from_slice(&highwayhash::digest128(&KEY, &data)),
                Size::Bits256 => out.copy_from_slice(&highwayhash::digest256(&KEY, &data)),
            }
            assert_eq!(out, expected);
            group.bench_with_input(BenchmarkId::new("simdcrypt-oneshot", len), &data, |b, d| match size {
                Size::Bits64 => b.iter(|| highwayhash::hash64(black_box(&KEY), black_box(d))),
                Size::Bits128 => b.iter(|| highwayhash::hash128(black_box(&KEY), black_box(d))[0]),
                Size::Bits256 => b.iter(|| highwayhash::hash256(black_box(&KEY), black_box(d))[0]),
            });
            // Every backend through the streaming hasher (64-bit results only, to keep the
            // run short: the finalization is the only part that depends on the size).
            if size == Size::Bits64 {
                for platform in Platform::all_supported() {
                    let mut h = HighwayHasher::new(&KEY);
                    h.set_platform(platform).update(&data).finalize_into(size, &mut out);
                    assert_eq!(out, expected, "{platform:?}");
                    let id = BenchmarkId::new(format!("simdcrypt-{}", platform.name()), len);
                    group.bench_with_input(id, &data, |b, d| {
                        b.iter(|| {
                            let mut h = HighwayHasher::new(black_box(&KEY));
                            h.set_platform(platform).update(black_box(d));
                            h.finalize64()
                        })
                    });
                }
            }
            let key = crate_key();
            group.bench_with_input(BenchmarkId::new("highway-crate", len), &data, |b, d| match size {
                Size::Bits64 => b.iter(|| highway::HighwayHasher::new(black_box(key)).hash64(black_box(d))),
                Size::Bits128 => b.iter(|| highway::HighwayHasher::new(black_box(key)).hash128(black_box(d))[0]),
                Size::Bits256 => b.iter(|| highway::HighwayHasher::new(black_box(key)).hash256(black_box(d))[0]),
            });
        }
        group.finish();
    }
}

/// Message counts of the batch group: around the AVX-512 lane group (8), and large.
const BATCH_COUNTS: [usize; 4] = [8, 64, 1024, 16384];

fn batches(c: &mut Criterion) {
    let mut group = c.benchmark_group("highwayhash64-batch-64B");
    for &n in &BATCH_COUNTS {
        let data = input(n * 64);
        let msgs: Vec<&[u8]> = data.chunks_exact(64).collect();
        let expected: Vec<u8> = msgs.iter().flat_map(|m| crate_bytes(Size::Bits64, m)).collect();
        group.throughput(Throughput::Elements(n as u64));
        let mut out = vec![0u8; n * 8];
        for platform in Platform::all_supported() {
            highwayhash::hash_many_with(platform, Threads::One, &KEY, &msgs, Size::Bits64, &mut out).unwrap();
            assert_eq!(out, expected, "{platform:?}");
            group.bench_with_input(
                BenchmarkId::new(format!("simdcrypt-many-{}", platform.name()), n),
                &msgs,
                |b, m| {
                    b.iter(|| {
                        highwayhash::hash_many_with(platform, Threads::One, &KEY, black_box(m), Size::Bits64, &mut out)
                            .unwrap()
                    })
                },
            );
        }
        group.bench_with_input(BenchmarkId::new("simdcrypt-oneshot-loop", n), &msgs, |b, m| {
            b.iter(|| {
                for (msg, o) in black_box(m).iter().zip(out.chunks_exact_mut(8)) {
                    o.copy_from_slice(&highwayhash::digest64(&KEY, msg));
                }
            })
        });
        let key = crate_key();
        group.bench_with_input(BenchmarkId::new("highway-crate-loop", n), &msgs, |b, m| {
            b.iter(|| {
                for (msg, o) in black_box(m).iter().zip(out.chunks_exact_mut(8)) {
                    o.copy_from_slice(&highway::HighwayHasher::new(key).hash64(msg).to_le_bytes());
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, one_shot, batches);
criterion_main!(benches);
