//! Content-defined chunking against its peers, in one process: the Gear scan (Xet's
//! chunker, no digests) on each backend this CPU has, the Xet file hash on one thread and on
//! all, and FastCDC 2020 against the `fastcdc` crate's `v2020` module (the same cut points
//! checked before timing). The `hf_xet` rows are in benches/python/bench_xet.py.
//!
//!     cargo run --release -p simdcrypt-bench --example chunking_speed [-- --quick]
//!
//! Prints a markdown table: best of `reps` runs per row (MB/s, MB = 10^6 bytes) on
//! pseudo-random data held in memory, with the CPU model first.

use std::hint::black_box;
use std::time::Instant;

use simdcrypt::chunking::{self, ChunkDigest, ChunkOptions, Chunker, Platform};
use simdcrypt::threads::Threads;

fn best_of(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (len, reps) = if quick { (8 << 20, 2) } else { (256 << 20, 5) };
    let data = simdcrypt_bench::pseudo_random_bytes(len);
    let mb = len as f64 / 1e6;
    println!(
        "{} ({} MiB in memory, best of {reps}){}",
        cpu_model(),
        len >> 20,
        if quick { " QUICK: figures mean nothing" } else { "" }
    );
    println!();
    println!("| row | MB/s | vs peer |");
    println!("|---|---|---|");

    // The scan rows interleaved (one run of each backend per round, best of the rounds), so
    // that load on a shared machine hits them alike.
    let platforms = Platform::all_supported();
    let mut best = vec![f64::INFINITY; platforms.len()];
    for _ in 0..reps {
        for (platform, best) in platforms.iter().zip(best.iter_mut()) {
            let mut opts = ChunkOptions::new(Chunker::Xet, ChunkDigest::None);
            opts.platform = Some(*platform);
            *best = best.min(best_of(1, || {
                black_box(chunking::chunk_slice(black_box(&data), &opts));
            }));
        }
    }
    for (platform, t) in platforms.iter().zip(&best) {
        println!("| Xet Gear scan + cuts, `{}`, 1 thread | {:.0} | |", platform.name(), mb / t);
    }
    // The chunk hashes alone (keyed BLAKE3 of the chunks, no scan), on one thread.
    let spans: Vec<(u64, u32)> = chunking::chunk_slice(&data, &ChunkOptions::new(Chunker::Xet, ChunkDigest::None))
        .iter()
        .map(|c| (c.offset, c.len))
        .collect();
    let t = best_of(reps, || {
        black_box(
            chunking::digest_spans(black_box(&data), 0, &spans, ChunkDigest::Xet, Threads::One)
                .expect("spans lie in data"),
        );
    });
    println!("| Xet chunk hashes alone (keyed BLAKE3, no scan), 1 thread | {:.0} | |", mb / t);
    for (label, threads) in [("1 thread", Threads::One), ("all threads", Threads::Auto)] {
        let mut opts = ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet);
        opts.threads = threads;
        let t = best_of(reps, || {
            black_box(chunking::xet_file_hash(&chunking::chunk_slice(black_box(&data), &opts)));
        });
        println!("| Xet file hash (chunks, keyed BLAKE3, tree), {label} | {:.0} | |", mb / t);
    }

    for (min, avg, max, level) in [(16 << 10, 64 << 10, 256 << 10, 1u8), (2 << 10, 8 << 10, 64 << 10, 2)] {
        let chunker = Chunker::fastcdc2020(min, avg, max, level).expect("valid parameters");
        let opts = ChunkOptions::new(chunker, ChunkDigest::None);
        let ours: Vec<(u64, u32)> = chunking::chunk_slice(&data, &opts).iter().map(|c| (c.offset, c.len)).collect();
        let normalization = match level {
            0 => fastcdc::v2020::Normalization::Level0,
            1 => fastcdc::v2020::Normalization::Level1,
            2 => fastcdc::v2020::Normalization::Level2,
            _ => fastcdc::v2020::Normalization::Level3,
        };
        let peer =
            || fastcdc::v2020::FastCDC::with_level(&data, min as usize, avg as usize, max as usize, normalization);
        let theirs: Vec<(u64, u32)> = peer().map(|c| (c.offset as u64, c.length as u32)).collect();
        assert_eq!(ours, theirs, "FastCDC 2020 cut points differ from the fastcdc crate");
        let t_ours = best_of(reps, || {
            black_box(chunking::chunk_slice(black_box(&data), &opts));
        });
        let t_peer = best_of(reps, || {
            black_box(peer().count());
        });
        // The crate has one thread only: its one run is also its default.
        let all = ChunkOptions { threads: Threads::Auto, ..opts };
        let t_all = best_of(reps, || {
            black_box(chunking::chunk_slice(black_box(&data), &all));
        });
        for (label, t) in [("1 thread", t_ours), ("all threads", t_all)] {
            println!(
                "| FastCDC 2020 {}/{}/{} KiB level {level}, {label} (fastcdc crate {:.0} MB/s) | {:.0} | {:.2}x |",
                min >> 10,
                avg >> 10,
                max >> 10,
                mb / t_peer,
                mb / t,
                t_peer / t
            );
        }
    }
}
