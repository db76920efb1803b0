//! Salsa20/20 on one short message (a new cipher, then the keystream XORed into `LEN`
//! bytes), repeated, for instruction counts under callgrind or a short interleaved race
//! against RustCrypto's `salsa20` (thread CPU time on 64-bit Linux, wall time elsewhere).
//!
//! Build: `cargo build --release -p simdcrypt-bench --example salsa_short`; then
//! `valgrind --tool=callgrind target/release/examples/salsa_short ours 64 100000`
//! (`ours` or `rustcrypto`, bytes, repetitions) or
//! `target/release/examples/salsa_short race 64 1000000 9` (bytes, repetitions, rounds).
//! `ours` takes the detected backend: `SIMDCRYPT_DISABLE=avx512` selects the AVX2 one.

use std::hint::black_box;

use cipher::{KeyIvInit, StreamCipher};
use simdcrypt_bench::thread_cpu_seconds;

const KEY: [u8; 32] = [7; 32];
const NONCE: [u8; 8] = [9; 8];

fn run(who: &str, buf: &mut [u8], reps: usize) -> bool {
    match who {
        "ours" => {
            for _ in 0..reps {
                let (key, nonce) = (black_box(&KEY), black_box(&NONCE));
                simdcrypt::salsa20::Salsa20::new(key, nonce).xor_keystream(black_box(&mut *buf)).unwrap();
            }
        }
        "rustcrypto" => {
            for _ in 0..reps {
                let (key, nonce) = (black_box(&KEY), black_box(&NONCE));
                salsa20::Salsa20::new(key.into(), nonce.into()).apply_keystream(black_box(&mut *buf));
            }
        }
        _ => return false,
    }
    true
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: salsa_short ours|rustcrypto|race BYTES REPS [ROUNDS]";
    let who = args.get(1).expect(usage);
    let len: usize = args.get(2).and_then(|a| a.parse().ok()).expect(usage);
    let reps: usize = args.get(3).and_then(|a| a.parse().ok()).expect(usage);
    let mut buf = vec![0u8; len];
    if who != "race" {
        assert!(run(who, &mut buf, reps), "{usage}");
        println!("{:02x?}", &buf[..len.min(8)]);
        return;
    }
    let rounds: usize = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(9);
    let names = ["ours", "rustcrypto"];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for _ in 0..rounds {
        for (name, t) in names.iter().zip(&mut times) {
            let start = thread_cpu_seconds();
            run(name, &mut buf, reps);
            t.push(thread_cpu_seconds() - start);
        }
    }
    println!(
        "Salsa20/20 new + {len} B, {reps} repetitions, {rounds} interleaved rounds (ns per message: best, median)"
    );
    for (name, t) in names.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        let per = |s: f64| s * 1e9 / reps as f64;
        println!("  {name:<12} {:>8.1} {:>8.1}", per(t[0]), per(t[t.len() / 2]));
    }
}
