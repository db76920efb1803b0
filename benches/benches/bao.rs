//! Bao: simdcrypt's outboard encoding against its own plain BLAKE3 hash and the `bao`
//! crate's encoder, and decoding against the crate's decoder, in the same groups.
//!
//! Run: `cargo bench -p simdcrypt-bench --bench bao` (quick pass: append
//! `-- --warm-up-time 1 --measurement-time 2`).
//!
//! `BAO_INTERLEAVED_MIB=256 cargo bench -p simdcrypt-bench --bench bao` instead times one
//! input of that many MiB with every peer in turn, round after round (interleaved, so that
//! a shared machine's load falls on all of them alike), and prints each one's median.

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use simdcrypt::blake3::bao::{self, Decoder, Options};
use simdcrypt::blake3::Threads;
use std::hint::black_box;
use std::io::Read;
use std::time::Instant;

const SIZES: [usize; 2] = [1 << 20, 16 << 20];

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect()
}

fn one_thread() -> Options {
    Options::new()
}

fn two_threads() -> Options {
    Options::new().threads(Threads::Max(2))
}

fn crate_decode(encoded: &[u8], root: &bao::Hash) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded.len());
    bao_crate::decode::Decoder::new(encoded, &blake3::Hash::from_bytes(*root)).read_to_end(&mut out).unwrap();
    out
}

fn stream_decode(encoded: &[u8], root: &bao::Hash) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded.len());
    Decoder::new(encoded, *root).read_to_end(&mut out).unwrap();
    out
}

extern crate bao as bao_crate;

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("bao/outboard-encode");
    group.sample_size(10);
    for &size in &SIZES {
        let data = input(size);
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("simdcrypt-outboard", size), &data, |b, d| {
            b.iter(|| one_thread().encode_outboard(black_box(d)))
        });
        group.bench_with_input(BenchmarkId::new("simdcrypt-outboard-2t", size), &data, |b, d| {
            b.iter(|| two_threads().encode_outboard(black_box(d)))
        });
        group.bench_with_input(BenchmarkId::new("simdcrypt-hash", size), &data, |b, d| {
            b.iter(|| simdcrypt::blake3::hash(black_box(d)))
        });
        group.bench_with_input(BenchmarkId::new("bao-crate-outboard", size), &data, |b, d| {
            b.iter(|| bao_crate::encode::outboard(black_box(d)))
        });
    }
    group.finish();
}

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("bao/decode");
    group.sample_size(10);
    for &size in &SIZES {
        let data = input(size);
        let (root, encoded) = bao::encode(&data);
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("simdcrypt-decode", size), &encoded, |b, e| {
            b.iter(|| one_thread().decode(&root, black_box(e)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("simdcrypt-stream", size), &encoded, |b, e| {
            b.iter(|| stream_decode(black_box(e), &root))
        });
        group.bench_with_input(BenchmarkId::new("bao-crate-decode", size), &encoded, |b, e| {
            b.iter(|| crate_decode(black_box(e), &root))
        });
    }
    group.finish();
}

/// Times every peer on one input of `mib` MiB, `rounds` rounds in a rotating order.
fn interleaved(mib: usize, rounds: usize) {
    let data = input(mib << 20);
    let (root, encoded) = bao::encode(&data);
    let reused = std::cell::RefCell::new(vec![0u8; bao::outboard_len(data.len() as u64) as usize]);
    type Run<'a> = Box<dyn Fn() + 'a>;
    let peers: Vec<(&str, Run)> = vec![
        ("encode-outboard simdcrypt 1 thread", Box::new(|| drop(black_box(one_thread().encode_outboard(&data))))),
        (
            "encode-outboard simdcrypt 1 thread, reused output",
            Box::new(|| {
                black_box(one_thread().encode_into(&data, &mut reused.borrow_mut(), false));
            }),
        ),
        ("encode-outboard simdcrypt 2 threads", Box::new(|| drop(black_box(two_threads().encode_outboard(&data))))),
        (
            "hash simdcrypt 1 thread",
            Box::new(|| {
                black_box(simdcrypt::blake3::hash(&data));
            }),
        ),
        ("encode-outboard bao crate", Box::new(|| drop(black_box(bao_crate::encode::outboard(&data))))),
        (
            "decode simdcrypt in memory 1 thread",
            Box::new(|| drop(black_box(one_thread().decode(&root, &encoded).unwrap()))),
        ),
        (
            "decode simdcrypt in memory 2 threads",
            Box::new(|| drop(black_box(two_threads().decode(&root, &encoded).unwrap()))),
        ),
        ("decode simdcrypt streaming", Box::new(|| drop(black_box(stream_decode(&encoded, &root))))),
        ("decode bao crate", Box::new(|| drop(black_box(crate_decode(&encoded, &root))))),
    ];
    let mut times = vec![Vec::new(); peers.len()];
    for round in 0..rounds {
        for k in 0..peers.len() {
            let i = (k + round) % peers.len();
            let start = Instant::now();
            (peers[i].1)();
            times[i].push(start.elapsed().as_secs_f64());
        }
    }
    println!("{mib} MiB, {rounds} interleaved rounds, median:");
    for ((name, _), t) in peers.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        let median = t[t.len() / 2];
        println!("  {name:52} {:8.1} ms  {:6.2} GiB/s", median * 1e3, mib as f64 / 1024.0 / median);
    }
}

criterion_group!(benches, encode, decode);

fn main() {
    if let Ok(mib) = std::env::var("BAO_INTERLEAVED_MIB") {
        let rounds = std::env::var("BAO_INTERLEAVED_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(5);
        interleaved(mib.parse().expect("BAO_INTERLEAVED_MIB: a number of MiB"), rounds);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
