//! How long writing and parsing a tree manifest of 100,000 entries takes (one BLAKE3 digest
//! each, paths like a dataset's): the figure in BENCHMARKS.md ("Tree manifests").
//! `cargo run --release -p simdcrypt --example manifest_speed [ENTRIES]`. Prints the best
//! of five runs of each, and the size.

use std::path::PathBuf;
use std::time::Instant;

use simdcrypt::manifest::{Entry, FileStat, Header, Manifest, Mode, Settings};

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let mut entries: Vec<Entry> = (0..n)
        .map(|i| Entry {
            path: PathBuf::from(format!("train/shard-{:04}/sample-{i:08}.jpg", i / 1000)),
            stat: FileStat {
                size: 20_000 + i as u64,
                mtime_ns: 1_764_000_000_000_000_000 + i as i64,
                ctime_ns: 1_764_000_000_000_000_000 + i as i64,
                ino: 1_000_000 + i as u64,
                dev: 2049,
            },
            digests: vec![simdcrypt::blake3::hash(&i.to_le_bytes()).to_vec()],
        })
        .collect();
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let m = Manifest {
        header: Header {
            written_ns: 1_764_000_000_000_000_000,
            root: PathBuf::from("data"),
            settings: Settings { algorithms: vec!["blake3".into()], length: None, mode: Mode::Hash },
        },
        entries,
    };
    let (mut write_best, mut parse_best) = (f64::MAX, f64::MAX);
    let mut bytes = Vec::new();
    for _ in 0..5 {
        bytes.clear();
        let t = Instant::now();
        m.write_to(&mut bytes).expect("write");
        write_best = write_best.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let parsed = Manifest::parse(&bytes).expect("parse");
        parse_best = parse_best.min(t.elapsed().as_secs_f64());
        assert_eq!(parsed.entries.len(), n);
    }
    println!(
        "{n} entries, {:.1} MiB: write {:.1} ms, parse {:.1} ms (best of 5)",
        bytes.len() as f64 / (1 << 20) as f64,
        write_best * 1e3,
        parse_best * 1e3
    );
}
