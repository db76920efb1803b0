//! `blake3::hash` of simdcrypt against the blake3 crate at chosen input sizes, the two
//! alternating in one process (so a slow phase of the machine falls on both), for A/B
//! comparisons of BLAKE3 kernels on noisy machines.
//!
//! Build: `cargo build --release -p simdcrypt-bench --example blake3_race` (add
//! `--features peer-blake3-no-avx512` or `peer-blake3-no-avx512,peer-blake3-no-avx2` to
//! hold the crate to the level that `SIMDCRYPT_DISABLE` gives us); then
//! `SIMDCRYPT_DISABLE=avx512,gfni target/release/examples/blake3_race 2048,4096,8192 7`
//! (comma-separated sizes in bytes, rounds). Prints, per size, the best time per hash of
//! each over the rounds (each round about 0.2 s per side) and the crate's time / ours.

use std::hint::black_box;
use std::time::Instant;

fn main() {
    let usage = "usage: blake3_race SIZE[,SIZE...] [ROUNDS]";
    let args: Vec<String> = std::env::args().collect();
    let sizes: Vec<usize> = args.get(1).expect(usage).split(',').map(|s| s.trim().parse().expect(usage)).collect();
    let rounds: usize = args.get(2).map(|s| s.parse().expect(usage)).unwrap_or(7);
    println!("backend {}, {rounds} rounds", simdcrypt::blake3::Platform::detect().name());
    for size in sizes {
        let data: Vec<u8> = (0..size).map(|i| (i * 31 + 7) as u8).collect();
        assert_eq!(simdcrypt::blake3::hash(&data), *blake3::hash(&data).as_bytes(), "{size} bytes");
        let reps = (200_000_000 / size.max(64)).max(1000);
        let (mut ours, mut theirs) = (f64::MAX, f64::MAX);
        for _ in 0..rounds {
            let start = Instant::now();
            for _ in 0..reps {
                black_box(simdcrypt::blake3::hash(black_box(&data)));
            }
            ours = ours.min(start.elapsed().as_secs_f64() / reps as f64);
            let start = Instant::now();
            for _ in 0..reps {
                black_box(blake3::hash(black_box(&data)));
            }
            theirs = theirs.min(start.elapsed().as_secs_f64() / reps as f64);
        }
        println!(
            "{size:>9} B  simdcrypt {:>10.1} ns  blake3 crate {:>10.1} ns  ratio {:.3}",
            ours * 1e9,
            theirs * 1e9,
            theirs / ours
        );
    }
}
