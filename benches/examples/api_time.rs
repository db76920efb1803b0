//! Runs one public-API workload N times: the before/after check of a refactor. Under
//! callgrind it gives instruction counts (deterministic on a busy machine); with `time` as
//! the fourth argument it prints nanoseconds per call, for interleaved wall-clock runs of
//! two builds (`benches/compare_commits.py`).
//!
//! `api_time WORKLOAD SIZE ITERATIONS [time]`; WORKLOAD is one of the names matched below.
//! It uses only API that existed before this round's refactor, so the same file builds
//! against an older commit (copied into that checkout's `crates/simdcrypt/examples/`).
use simdcrypt::any::{AnyHasher, HashOptions};
#[allow(unused_imports)]
use simdcrypt::backend::Backend;
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (what, size, iters): (&str, usize, usize) = (&args[1], args[2].parse().unwrap(), args[3].parse().unwrap());
    let data: Vec<u8> = (0..size.max(64 * 1024)).map(|i| (i * 31 + 7) as u8).collect();
    let msg = &data[..size];
    let key = [7u8; 32];
    let msgs: Vec<&[u8]> = (0..1024).map(|i| &data[(i * 64) % (data.len() - 64)..][..size.min(64)]).collect();
    let mut out = vec![0u8; 1024 * 64];
    let timed = args.get(4).map(|s| s == "time").unwrap_or(false);
    let start = std::time::Instant::now();
    for _ in 0..iters {
        match what {
            "blake3" => drop(black_box(simdcrypt::blake3::hash(black_box(msg)))),
            "sha256" => drop(black_box(simdcrypt::sha256::hash(black_box(msg)))),
            "streebog512" => drop(black_box(simdcrypt::streebog::hash512(black_box(msg)))),
            "gost94" => drop(black_box(simdcrypt::gost94::hash(simdcrypt::gost94::SBox::CryptoPro, black_box(msg)))),
            "highwayhash64" => drop(black_box(simdcrypt::highwayhash::hash64(&key, black_box(msg)))),
            "salsa20" => {
                let mut buf = msg.to_vec();
                let mut c = simdcrypt::salsa20::Salsa20::new(&key, &[1u8; 8]);
                c.xor_keystream(&mut buf).unwrap();
                black_box(&buf);
            }
            "any-sha256" => {
                let mut h = AnyHasher::new("sha256", &HashOptions::default()).unwrap();
                h.update(black_box(msg));
                black_box(h.finalize(None).unwrap());
            }
            "blake3-batch" => {
                simdcrypt::blake3::Batch::new(simdcrypt::blake3::Mode::Hash)
                    .hash_into(&msgs, 32, &mut out[..1024 * 32])
                    .unwrap();
                black_box(&out);
            }
            "sha256-blocks" => {
                simdcrypt::sha256::hash_blocks(&data[..1024 * 64], &mut out[..1024 * 32]).unwrap();
                black_box(&out);
            }
            "streebog-batch" => {
                simdcrypt::streebog::hash_many(
                    &msgs,
                    simdcrypt::streebog::Bits::B256,
                    &mut out[..1024 * 32],
                    simdcrypt::streebog::Platform::detect(),
                    simdcrypt::threads::Threads::One,
                )
                .unwrap();
                black_box(&out);
            }
            other => panic!("unknown workload {other}"),
        }
    }
    if timed {
        println!("{}", start.elapsed().as_nanos() as f64 / iters as f64);
    }
}
