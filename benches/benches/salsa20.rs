//! Salsa20/20: simdcrypt (every supported backend) against RustCrypto's `salsa20` crate
//! (scalar) and, with `--features peer-libsodium`, libsodium's `crypto_stream_salsa20_xor`
//! (Debian's libsodium 1.0.18, AVX2 path), in the same criterion groups.
//!
//! - `salsa20`: one in-place encryption of a buffer per iteration, the cipher constructed
//!   each time (which is what a 64-byte message costs), 64 B to 1 GiB. At 1 GiB only the
//!   detected backend runs, next to the peers.
//! - `salsa20-threads`: 1 GiB on one thread and on two (`Threads::Max(2)`).
//!
//! Run: `cargo bench -p simdcrypt-bench --bench salsa20 --features peer-libsodium`
//! (without libsodium: drop `--features peer-libsodium`; a quick pass: append
//! `-- --warm-up-time 1 --measurement-time 2`).

use cipher::{KeyIvInit, StreamCipher};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simdcrypt::blake3::Threads;
use simdcrypt::salsa20::{Platform, Salsa20};
use std::hint::black_box;

const KEY: [u8; 32] = [7; 32];
const NONCE: [u8; 8] = [9; 8];

/// The key and nonce as every peer gets them: through `black_box`, as a real key read at
/// run time. Without it, a peer whose whole path inlines into the bench folds the constant
/// key into immediates and skips its key set-up, which no real caller can do.
fn key_nonce() -> (&'static [u8; 32], &'static [u8; 8]) {
    (black_box(&KEY), black_box(&NONCE))
}
const SIZES: [usize; 5] = [64, 1 << 10, 1 << 20, 100_000_000, 1 << 30];

#[cfg(feature = "peer-libsodium")]
use simdcrypt_bench::libsodium as sodium;

fn ours(buf: &mut [u8], platform: Platform, threads: Threads) {
    let (key, nonce) = key_nonce();
    let mut c = Salsa20::new(key, nonce);
    c.set_platform(platform).set_max_threads(threads);
    c.xor_keystream(buf).unwrap();
}

/// What a caller writes: the detected backend, no setters.
fn ours_default(buf: &mut [u8]) {
    let (key, nonce) = key_nonce();
    Salsa20::new(key, nonce).xor_keystream(buf).unwrap();
}

fn rustcrypto(buf: &mut [u8]) {
    let (key, nonce) = key_nonce();
    let mut c = salsa20::Salsa20::new(key.into(), nonce.into());
    c.apply_keystream(buf);
}

fn one_thread(c: &mut Criterion) {
    #[cfg(feature = "peer-libsodium")]
    sodium::init();
    let mut group = c.benchmark_group("salsa20");
    for &size in &SIZES {
        let mut buf = vec![0u8; size];
        // All implementations agree on this size first.
        let mut expected = buf.clone();
        rustcrypto(&mut expected);
        #[cfg(feature = "peer-libsodium")]
        {
            let mut s = buf.clone();
            sodium::salsa20_xor(&mut s, &NONCE, &KEY);
            assert!(s == expected, "libsodium disagrees at {size}");
        }
        if size >= 1 << 20 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Bytes(size as u64));
        let platforms = if size > 1 << 20 { vec![Platform::detect()] } else { Platform::all_supported() };
        for platform in platforms {
            let mut check = vec![0u8; size];
            ours(&mut check, platform, Threads::One);
            assert!(check == expected, "{platform:?} disagrees at {size}");
            group.bench_function(BenchmarkId::new(format!("simdcrypt-{}", platform.name()), size), |b| {
                b.iter(|| ours(black_box(&mut buf), platform, Threads::One))
            });
        }
        if size <= 1 << 20 {
            group.bench_function(BenchmarkId::new("simdcrypt-default", size), |b| {
                b.iter(|| ours_default(black_box(&mut buf)))
            });
        }
        group.bench_function(BenchmarkId::new("rustcrypto-salsa20", size), |b| {
            b.iter(|| rustcrypto(black_box(&mut buf)))
        });
        #[cfg(feature = "peer-libsodium")]
        group.bench_function(BenchmarkId::new("libsodium", size), |b| {
            b.iter(|| {
                let (key, nonce) = key_nonce();
                sodium::salsa20_xor(black_box(&mut buf), nonce, key)
            })
        });
    }
    group.finish();
}

fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("salsa20-threads");
    let size = 1 << 30;
    let mut buf = vec![0u8; size];
    group.sample_size(10);
    group.throughput(Throughput::Bytes(size as u64));
    for (name, t) in [("1", Threads::One), ("2", Threads::Max(2))] {
        group.bench_function(BenchmarkId::new(format!("simdcrypt-threads-{name}"), size), |b| {
            b.iter(|| ours(black_box(&mut buf), Platform::detect(), t))
        });
    }
    group.finish();
}

criterion_group!(benches, one_thread, threads);
criterion_main!(benches);
