//! The measurements behind BLAKE3's thread policy (`Threads::Auto` and `Threads::Max`):
//! one thread against two, per input size, with the thread pool warm (calls back to back)
//! and cold (idle for a few milliseconds before each call, as when one buffer is hashed now
//! and then). The official crate's `update_rayon` is measured alongside.
//!
//! Run: `cargo bench -p simdcrypt-bench --bench thread_policy`
//! Prints markdown tables of medians (µs) and speed-ups over one thread.

use std::hint::black_box;
use std::time::{Duration, Instant};

use simdcrypt::blake3::{Hasher, Threads};

fn median(samples: usize, idle: Option<Duration>, f: impl Fn()) -> f64 {
    let mut times: Vec<f64> = (0..samples)
        .map(|_| {
            if let Some(idle) = idle {
                std::thread::sleep(idle);
            }
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    times[samples / 2]
}

fn ours(data: &[u8], threads: Threads) {
    let mut h = Hasher::new();
    h.set_max_threads(threads).update(black_box(data));
    black_box(h.finalize());
}

fn table(title: &str, data: &[u8], sizes_kib: &[usize], idle: Option<Duration>) {
    println!("\n{title}\n");
    println!(
        "| bytes | 1 thread µs | Max(2) µs | AUTO µs | crate update_rayon µs | Max(2) / 1 | AUTO / 1 | crate / 1 |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &kib in sizes_kib {
        let d = &data[..kib << 10];
        let samples = if idle.is_some() { 25 } else { (400_000 / kib).clamp(25, 1000) };
        // Best of three medians, taken in turn, so that drift affects all columns alike.
        let (mut one, mut max2, mut auto, mut crate_rayon) = (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
        for _ in 0..3 {
            one = one.min(median(samples, idle, || ours(d, Threads::One)));
            max2 = max2.min(median(samples, idle, || ours(d, Threads::Max(2))));
            auto = auto.min(median(samples, idle, || ours(d, Threads::Auto)));
            crate_rayon = crate_rayon.min(median(samples, idle, || {
                black_box(blake3::Hasher::new().update_rayon(black_box(d)).finalize());
            }));
        }
        println!(
            "| {} | {one:.1} | {max2:.1} | {auto:.1} | {crate_rayon:.1} | {:.2} | {:.2} | {:.2} |",
            kib << 10,
            one / max2,
            one / auto,
            one / crate_rayon
        );
    }
}

fn main() {
    // `cargo bench` passes harness flags; this program takes none.
    let data: Vec<u8> = (0..64usize << 20).map(|i| (i.wrapping_mul(31) ^ (i >> 9)) as u8).collect();
    println!("CPUs available: {}", std::thread::available_parallelism().map_or(1, |n| n.get()));
    table(
        "Warm pool (calls back to back), medians",
        &data,
        &[16, 64, 128, 192, 256, 384, 512, 768, 1024, 4096, 16384, 65536],
        None,
    );
    table(
        "Cold pool (3 ms idle before each call), medians",
        &data,
        &[256, 1024, 4096, 8192, 16384, 24576, 32768, 49152, 65536],
        Some(Duration::from_millis(3)),
    );
}
