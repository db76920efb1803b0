//! Short interleaved timings of the GOST hashes against their peers: GOST R 34.11-94
//! (CryptoPro) on one 64 MiB message and on batches of 64-byte messages, and Streebog-512
//! on one 64 MiB message, every supported backend against RustCrypto and (with
//! `--features peer-nettle`) Nettle. Each figure is the best of several rounds, the
//! contenders taking turns within each round, so that a busy machine hurts them alike.
//!
//! Run: `cargo run --release -p simdcrypt-bench --features peer-nettle --example gost_speed`
//! (`SIMDCRYPT_DISABLE=avx512,gfni` shows the fallbacks as the default; `ROUNDS=n`).

use ::gost94::Digest;
use simdcrypt::blake3::Threads;
use simdcrypt::{gost94, streebog};
use std::hint::black_box;
use std::time::Instant;

type Contender<'a> = (String, Box<dyn Fn() + 'a>);

fn race(title: &str, unit: &str, per_run: f64, contenders: &[Contender<'_>], rounds: usize) {
    let mut best = vec![f64::INFINITY; contenders.len()];
    for _ in 0..rounds {
        for (i, (_, run)) in contenders.iter().enumerate() {
            let start = Instant::now();
            run();
            best[i] = best[i].min(start.elapsed().as_secs_f64());
        }
    }
    println!("{title}");
    let reference = best[contenders.len() - 1];
    for ((name, _), t) in contenders.iter().zip(&best) {
        println!("  {name:<28} {t:>8.4} s  {:>9.1} {unit}  {:>5.2}x last", per_run / t, reference / t);
    }
}

fn main() {
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let big: Vec<u8> = (0..64usize << 20).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect();
    let mib = big.len() as f64 / (1 << 20) as f64;
    println!("features: {:?}", simdcrypt::cpu::features());

    let mut c: Vec<Contender> = Vec::new();
    for p in gost94::Platform::all_supported() {
        let big = &big;
        c.push((
            format!("simdcrypt-{}", p.name()),
            Box::new(move || {
                black_box(gost94::Gost94::new(gost94::SBox::CryptoPro).set_platform(p).update(big).finalize());
            }),
        ));
    }
    c.push((
        "rustcrypto".into(),
        Box::new(|| {
            black_box(::gost94::Gost94CryptoPro::digest(&big));
        }),
    ));
    #[cfg(feature = "peer-nettle")]
    c.push((
        "nettle".into(),
        Box::new(|| {
            black_box(simdcrypt_bench::nettle::gosthash94cp(&big));
        }),
    ));
    race("gost94-cryptopro one message 64 MiB", "MiB/s", mib, &c, rounds);

    const COUNT: usize = 4096;
    let msgs: Vec<&[u8]> = big[..COUNT * 64].chunks_exact(64).collect();
    let mut c: Vec<Contender> = Vec::new();
    for p in gost94::Platform::all_supported() {
        let msgs = &msgs;
        c.push((
            format!("simdcrypt-{} hash_many", p.name()),
            Box::new(move || {
                let mut out = vec![0u8; COUNT * 32];
                gost94::hash_many(msgs, gost94::SBox::CryptoPro, &mut out, p, Threads::One).unwrap();
                black_box(out);
            }),
        ));
    }
    c.push((
        "rustcrypto one at a time".into(),
        Box::new(|| {
            msgs.iter().for_each(|m| {
                black_box(::gost94::Gost94CryptoPro::digest(m));
            })
        }),
    ));
    #[cfg(feature = "peer-nettle")]
    c.push((
        "nettle one at a time".into(),
        Box::new(|| {
            msgs.iter().for_each(|m| {
                black_box(simdcrypt_bench::nettle::gosthash94cp(m));
            })
        }),
    ));
    race("gost94-cryptopro 4096 messages of 64 B, one thread", "k msg/s", COUNT as f64 / 1000.0, &c, rounds);

    let mut c: Vec<Contender> = Vec::new();
    for p in streebog::Platform::all_supported() {
        let big = &big;
        c.push((
            format!("simdcrypt-{}", p.name()),
            Box::new(move || {
                black_box(streebog::Streebog512::new().set_platform(p).update(big).finalize());
            }),
        ));
    }
    c.push((
        "rustcrypto".into(),
        Box::new(|| {
            black_box(::streebog::Streebog512::digest(&big));
        }),
    ));
    #[cfg(feature = "peer-nettle")]
    c.push((
        "nettle".into(),
        Box::new(|| {
            black_box(simdcrypt_bench::nettle::streebog512(&big));
        }),
    ));
    race("streebog-512 one message 64 MiB", "MiB/s", mib, &c, rounds);
}
