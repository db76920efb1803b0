//! Content-defined chunking: FastCDC 2020 cut points against the `fastcdc` crate's `v2020`
//! module, every Gear-scan backend against portable, identical chunks for every thread
//! count, reader and part split, the chunk digests against independent crates, and the
//! parameter errors. (Xet hashes against hf_xet: tests/chunking_xet.rs.)

mod common;

use std::io::Read;

use rand::{Rng, RngCore};
use simdcrypt::chunking::{
    chunk_file, chunk_slice, digest_spans, part_candidates, select_cuts, try_chunk_slice, xet_hash_slice, Chunk,
    ChunkDigest, ChunkOptions, ChunkReader, Chunker, FastCdcParams, Platform, PART_LOOKBACK,
};
use simdcrypt::threads::Threads;

/// FastCDC parameter sets: the crate's smallest, typical ones, min = avg, avg = max, every level.
fn fastcdc_params() -> Vec<FastCdcParams> {
    let mut v = Vec::new();
    for level in 0..=3 {
        v.push(FastCdcParams { min: 64, avg: 256, max: 1024, level });
        v.push(FastCdcParams { min: 2048, avg: 8192, max: 65536, level });
    }
    v.push(FastCdcParams { min: 4096, avg: 16384, max: 65536, level: 1 });
    v.push(FastCdcParams { min: 16384, avg: 65536, max: 262_144, level: 2 });
    v.push(FastCdcParams { min: 1024, avg: 1024, max: 4096, level: 1 });
    v.push(FastCdcParams { min: 512, avg: 3000, max: 3000, level: 3 });
    v.push(FastCdcParams { min: 64, avg: 6000, max: 1024 * 1024, level: 0 });
    v
}

/// Inputs where FastCDC's rules meet: random, zeros, short periods, odd lengths.
fn fastcdc_inputs() -> Vec<(String, Vec<u8>)> {
    let mut v = vec![
        ("empty".to_string(), Vec::new()),
        ("random-1".to_string(), common::random_bytes(1, 1)),
        ("random-odd".to_string(), common::random_bytes(2, 300_001)),
        ("random-2m".to_string(), common::random_bytes(3, 2 << 20)),
        ("zeros".to_string(), vec![0u8; 200_003]),
    ];
    for p in [1, 2, 3, 17, 48, 64, 65] {
        let pattern = common::random_bytes(100 + p as u64, p);
        v.push((format!("period{p}"), (0..150_001).map(|i| pattern[i % p]).collect()));
    }
    for len in [63, 64, 65, 255, 256, 1023, 1024, 1025, 4097] {
        v.push((format!("len{len}"), common::random_bytes(200 + len as u64, len)));
    }
    v
}

fn spans(chunks: &[Chunk]) -> Vec<(u64, u32)> {
    chunks.iter().map(|c| (c.offset, c.len)).collect()
}

#[test]
fn fastcdc2020_equals_fastcdc_crate() {
    use fastcdc::v2020::{FastCDC, Normalization};
    let mut compared = 0;
    for p in fastcdc_params() {
        let chunker = Chunker::fastcdc2020(p.min, p.avg, p.max, p.level).unwrap();
        let level = [Normalization::Level0, Normalization::Level1, Normalization::Level2, Normalization::Level3]
            [usize::from(p.level)];
        for (name, data) in fastcdc_inputs() {
            let theirs: Vec<(u64, u32)> =
                FastCDC::with_level(&data, p.min as usize, p.avg as usize, p.max as usize, level)
                    .map(|c| (c.offset as u64, c.length as u32))
                    .collect();
            let ours = spans(&chunk_slice(&data, &ChunkOptions::new(chunker, ChunkDigest::None)));
            assert_eq!(ours, theirs, "{p:?} on {name}");
            compared += theirs.len();
        }
    }
    println!("{compared} FastCDC 2020 cut points equal to the fastcdc crate");
}

#[test]
fn every_scan_backend_equals_portable() {
    let backends = common::supported_backends::<Platform>("every_scan_backend_equals_portable");
    let mut inputs = fastcdc_inputs();
    inputs.push(("random-5m".to_string(), common::random_bytes(9, 5 << 20)));
    let chunkers = [
        Chunker::Xet,
        Chunker::fastcdc2020(64, 256, 1024, 3).unwrap(),
        Chunker::fastcdc2020(2048, 8192, 65536, 1).unwrap(),
    ];
    for chunker in chunkers {
        for (name, data) in &inputs {
            let mut opts = ChunkOptions::new(chunker, ChunkDigest::None);
            opts.platform = Some(Platform::portable());
            let reference = chunk_slice(data, &opts);
            for &b in &backends {
                opts.platform = Some(b);
                for threads in [Threads::One, Threads::Max(3)] {
                    opts.threads = threads;
                    assert_eq!(
                        chunk_slice(data, &opts),
                        reference,
                        "{} {name} {threads:?} on {}",
                        chunker.name(),
                        b.name()
                    );
                }
            }
        }
    }
}

/// A reader that returns pieces of random sizes.
struct Jagged<'a> {
    data: &'a [u8],
    rng: rand::rngs::SmallRng,
    max: usize,
}

impl Read for Jagged<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rng.random_range(0..=self.max).min(buf.len()).min(self.data.len());
        if n == 0 && !self.data.is_empty() && !buf.is_empty() {
            return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "try again"));
        }
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn threads_readers_and_files_give_the_same_chunks() {
    let data = common::random_bytes(21, (5 << 20) + 12_345);
    let dir = std::env::temp_dir().join(format!("simdcrypt-chunking-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("data.bin");
    std::fs::write(&path, &data).unwrap();
    for chunker in [Chunker::Xet, Chunker::fastcdc2020(4096, 16384, 65536, 2).unwrap()] {
        for digest in [ChunkDigest::Xet, ChunkDigest::Blake3, ChunkDigest::Sha256, ChunkDigest::None] {
            let reference = chunk_slice(&data, &ChunkOptions::new(chunker, digest));
            for threads in [Threads::One, Threads::Max(2), Threads::Max(3), Threads::Max(4), Threads::Auto] {
                let mut opts = ChunkOptions::new(chunker, digest);
                opts.threads = threads;
                let tag = format!("{} {} {threads:?}", chunker.name(), digest.name());
                assert_eq!(chunk_slice(&data, &opts), reference, "slice {tag}");
                assert_eq!(chunk_file(&path, &opts).unwrap(), reference, "file {tag}");
                let reader = Jagged { data: &data, rng: common::rng(5), max: 70_000 };
                let streamed: Vec<Chunk> = ChunkReader::new(reader, opts).map(Result::unwrap).collect();
                assert_eq!(streamed, reference, "reader {tag}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn digests_equal_independent_crates() {
    let data = common::random_bytes(31, 1 << 20);
    for (digest, f) in [
        (
            ChunkDigest::Xet,
            (|m: &[u8]| *blake3::keyed_hash(&simdcrypt::chunking::DATA_KEY, m).as_bytes()) as fn(&[u8]) -> [u8; 32],
        ),
        (ChunkDigest::Blake3, |m: &[u8]| *blake3::hash(m).as_bytes()),
        (ChunkDigest::Sha256, |m: &[u8]| {
            use sha2::Digest;
            sha2::Sha256::digest(m).into()
        }),
    ] {
        let chunks = chunk_slice(&data, &ChunkOptions::new(Chunker::Xet, digest));
        assert!(chunks.len() > 4);
        for c in chunks {
            assert_eq!(c.digest, f(&data[c.offset as usize..][..c.len as usize]), "{}", digest.name());
        }
    }
}

#[test]
fn parts_give_the_chunks_of_the_whole_file() {
    let mut rng = common::rng(41);
    let data = common::random_bytes(42, 3 << 20);
    let opts = ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet);
    let reference = chunk_slice(&data, &opts);
    let cut_ends: Vec<u64> = reference.iter().map(|c| c.offset + u64::from(c.len)).collect();
    for round in 0..40 {
        // Split points: random, and right on / next to chunk boundaries.
        let mut points: Vec<u64> = (0..rng.random_range(0..6))
            .map(|_| match rng.random_range(0..3) {
                0 => rng.random_range(0..data.len() as u64),
                1 => cut_ends[rng.random_range(0..cut_ends.len())],
                _ => cut_ends[rng.random_range(0..cut_ends.len())] + rng.random_range(0..3) - 1,
            })
            .collect();
        points.extend([0, data.len() as u64]);
        points.sort_unstable();
        points.dedup();
        let parts: Vec<_> = points
            .windows(2)
            .map(|w| {
                let from = w[0] - w[0].min(PART_LOOKBACK);
                let bytes = &data[from as usize..w[1] as usize];
                part_candidates(bytes, from, w[0], w[1], &Chunker::Xet, Threads::One).unwrap()
            })
            .collect();
        let cuts = select_cuts(&Chunker::Xet, &parts).unwrap();
        assert_eq!(cuts, spans(&reference), "round {round}, split at {points:?}");
        // Each part's worker hashes the chunks that start in its range.
        let mut chunks = Vec::new();
        for part in &parts {
            let mine: Vec<(u64, u32)> =
                cuts.iter().copied().filter(|&(o, _)| o >= part.start && o < part.end).collect();
            if let (Some(first), Some(last)) = (mine.first(), mine.last()) {
                let (from, to) = (first.0, last.0 + u64::from(last.1));
                chunks.extend(
                    digest_spans(&data[from as usize..to as usize], from, &mine, ChunkDigest::Xet, Threads::One)
                        .unwrap(),
                );
            }
        }
        assert_eq!(chunks, reference, "round {round}");
    }
    assert_eq!(select_cuts(&Chunker::Xet, &[]).unwrap(), vec![]);
}

/// A named pipe is not mapped and cannot seek: `chunk_file` and `xet_hash_file` read it
/// from the start, as any stream.
#[cfg(unix)]
#[test]
fn named_pipes_are_read_as_streams() {
    let data = common::random_bytes(23, (2 << 20) + 777);
    let dir = std::env::temp_dir().join(format!("simdcrypt-chunking-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        println!("skipped: mkfifo is not available");
        return;
    }
    let opts = ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet);
    let reference = chunk_slice(&data, &opts);
    let feed =
        |fifo: std::path::PathBuf, data: Vec<u8>| std::thread::spawn(move || std::fs::write(fifo, data).unwrap());
    let writer = feed(fifo.clone(), data.clone());
    assert_eq!(chunk_file(&fifo, &opts).unwrap(), reference, "chunk_file of a named pipe");
    writer.join().unwrap();
    let writer = feed(fifo.clone(), data.clone());
    let hash = simdcrypt::chunking::xet_hash_file(&fifo, Threads::Max(2)).unwrap();
    writer.join().unwrap();
    assert_eq!(hash, xet_hash_slice(&data), "xet_hash_file of a named pipe");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_parameters_and_parts_are_clear_errors() {
    type Params = (u32, u32, u32, u8);
    let cases: [(Params, &str); 8] = [
        ((32, 256, 1024, 1), "minimum size must be between 64 and 1048576"),
        ((64, 128, 1024, 1), "average size must be between 256 and 4194304"),
        ((64, 256, 512, 1), "maximum size must be between 1024 and 16777216"),
        ((64, 256, 32 << 20, 1), "maximum size must be between 1024 and 16777216"),
        ((4096, 2048, 8192, 1), "minimum <= average <= maximum"),
        ((64, 8192, 4096, 1), "minimum <= average <= maximum"),
        ((65, 256, 1024, 1), "must be even"),
        ((64, 256, 1024, 4), "level must be 0, 1, 2 or 3"),
    ];
    for ((min, avg, max, level), msg) in cases {
        let err = Chunker::fastcdc2020(min, avg, max, level).unwrap_err().to_string();
        assert!(err.contains(msg), "{err}");
        let by_hand = Chunker::FastCdc2020(FastCdcParams { min, avg, max, level });
        assert!(try_chunk_slice(b"abc", &ChunkOptions::new(by_hand, ChunkDigest::None)).is_err());
        let reader_err = ChunkReader::new(&b"abc"[..], ChunkOptions::new(by_hand, ChunkDigest::None)).next();
        assert!(matches!(reader_err, Some(Err(_))));
    }
    assert!(Chunker::from_name("rabin").unwrap_err().to_string().contains("xet, fastcdc2020"));
    assert!(ChunkDigest::from_name("md5").unwrap_err().to_string().contains("none, xet, blake3, sha256"));
    let fastcdc = Chunker::from_name("fastcdc2020").unwrap();
    assert!(part_candidates(b"", 0, 0, 0, &fastcdc, Threads::One).unwrap_err().to_string().contains("separate parts"));
    // Too little lookback, gaps between parts.
    let data = common::random_bytes(3, 1000);
    assert!(part_candidates(&data[100..], 100, 120, 1000, &Chunker::Xet, Threads::One).is_err());
    let a = part_candidates(&data[..500], 0, 0, 500, &Chunker::Xet, Threads::One).unwrap();
    let b = part_candidates(&data[400..], 400, 600, 1000, &Chunker::Xet, Threads::One).unwrap();
    assert!(select_cuts(&Chunker::Xet, &[a, b]).unwrap_err().to_string().contains("expected a range starting at 500"));
    let missing = chunk_file(
        std::path::Path::new("/nonexistent/simdcrypt-chunking"),
        &ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet),
    );
    assert!(missing.unwrap_err().to_string().contains("/nonexistent/simdcrypt-chunking"));
}

#[test]
fn xet_chunks_respect_the_size_limits() {
    let mut rng = common::rng(51);
    for len in [0usize, 1, 8191, 8192, 131_072, 131_073, 1_000_000] {
        let mut data = vec![0u8; len];
        rng.fill_bytes(&mut data);
        let chunks = chunk_slice(&data, &ChunkOptions::new(Chunker::Xet, ChunkDigest::None));
        let mut at = 0;
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(c.offset, at);
            assert!(c.len <= 131_072 && c.len > 0);
            assert!(c.len >= 8192 || i + 1 == chunks.len(), "chunk {i} of {len}: {} bytes", c.len);
            at += u64::from(c.len);
        }
        assert_eq!(at, len as u64);
        let _ = xet_hash_slice(&data);
    }
}

/// `-a xet` through the registry: pieces of any size, a state exported and restored midway,
/// and the digest's hex is the Xet text.
#[test]
fn registry_xet_hasher_streams() {
    use simdcrypt::any::{AnyHasher, HashOptions};
    let mut rng = common::rng(61);
    for len in [0usize, 1, 8191, 8192, 200_000, (9 << 20) + 77] {
        let data = common::random_bytes(len as u64 + 3, len);
        let expected = xet_hash_slice(&data).to_hex();
        for round in 0..3 {
            let opts =
                HashOptions { threads: if round == 2 { Threads::Max(2) } else { Threads::One }, ..Default::default() };
            let mut h = AnyHasher::new("xet", &opts).unwrap();
            let mut at = 0;
            let restore_at = if len == 0 { 0 } else { rng.random_range(0..len) };
            let mut restored = false;
            while at < len {
                let n = rng.random_range(1..=(len - at).min(if round == 0 { 5000 } else { 3 << 20 }));
                h.update(&data[at..at + n]);
                at += n;
                if !restored && at >= restore_at {
                    h = AnyHasher::restore(&h.export(), None).unwrap();
                    restored = true;
                }
            }
            let digest = h.finalize(None).unwrap();
            assert_eq!(hex::encode(&digest), expected, "len {len} round {round}");
        }
    }
    assert_eq!(simdcrypt::registry::find("xet").unwrap().name, "xet");
}

/// A reader that hands out at most `max` bytes a call, of a length the generator picks.
struct ShortReads<'a> {
    data: &'a [u8],
    rng: rand::rngs::SmallRng,
    max: usize,
}

impl Read for ShortReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.data.len().min(buf.len()).min(self.rng.random_range(1..=self.max));
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The Xet hasher's own reader path (`update_reader`: read straight into its batch buffer,
/// as `sum -a xet` and `hash_file("xet")` do) against the one-shot hash: short and long
/// reads, after an `update` of a piece, on one and two threads, and through `hash_file`
/// (which gives it the file, never a mapping).
#[test]
fn registry_xet_hasher_reads_into_its_own_buffer() {
    use simdcrypt::any::{hash_file, AnyHasher, HashOptions};
    let dir = std::env::temp_dir().join(format!("simdcrypt-xet-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 41 MiB: three batches of two threads, so that reads overlap hashing more than once.
    for len in [0usize, 1, 8192, 300_000, (17 << 20) + 5, (41 << 20) + 3] {
        let data = common::random_bytes(len as u64 + 11, len);
        let expected = xet_hash_slice(&data).to_hex();
        for (round, max) in [(0u64, 100usize), (1, 1 << 20), (2, 64 << 20)] {
            let threads = if round == 1 { Threads::Max(2) } else { Threads::One };
            let opts = HashOptions { threads, ..Default::default() };
            let mut h = AnyHasher::new("xet", &opts).unwrap();
            let head = len.min(777);
            h.update(&data[..head]);
            let reader = ShortReads { data: &data[head..], rng: common::rng(round + len as u64), max };
            assert_eq!(h.update_reader(reader).unwrap(), (len - head) as u64);
            assert_eq!(hex::encode(h.finalize(None).unwrap()), expected, "len {len} round {round}");
        }
        let path = dir.join("f");
        std::fs::write(&path, &data).unwrap();
        // Files of 1 MiB and more are mapped a window at a time (16 MiB on two threads,
        // 8 MiB on one), smaller ones read; `FileAccess::Read` always reads.
        for threads in [Threads::One, Threads::Max(2), Threads::Max(3)] {
            let h = AnyHasher::new("xet", &HashOptions { threads, ..Default::default() }).unwrap();
            assert_eq!(hex::encode(hash_file(&path, &h, None).unwrap()), expected, "hash_file, len {len}, {threads:?}");
            let read = simdcrypt::any::hash_file_with(&path, &h, None, simdcrypt::any::FileAccess::Read).unwrap();
            assert_eq!(hex::encode(read), expected, "hash_file read, len {len}, {threads:?}");
            let file_hash = simdcrypt::chunking::xet_hash_file(&path, threads).unwrap().to_hex();
            assert_eq!(file_hash, expected, "xet_hash_file, len {len}, {threads:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    println!("xet reader path: lengths 0 to 41 MiB, reads of up to 100 B, 1 MiB and 64 MiB, after an update, one and two threads; hash_file mapped and read and xet_hash_file on 1, 2 and 3 threads");
}

/// The sizes rule the CLI and Python share: sizes not given follow the average, in the
/// defaults' ratio (a quarter, four times), rounded down to even; without an average, the
/// defaults; out-of-range results are the usual errors.
#[test]
fn fastcdc_sizes_follow_the_average() {
    let d = FastCdcParams::default();
    assert_eq!(FastCdcParams::from_sizes(None, None, None, None).unwrap(), d);
    for avg in [256u32, 1000, 3000, 8192, 65536, 4 << 20] {
        let p = FastCdcParams::from_sizes(None, Some(avg), None, None).unwrap();
        let quarter = (u64::from(avg) * u64::from(d.min) / u64::from(d.avg)) as u32 & !1;
        let four_times = (u64::from(avg) * u64::from(d.max) / u64::from(d.avg)) as u32 & !1;
        assert_eq!((p.min, p.avg, p.max, p.level), (quarter, avg, four_times, d.level), "avg {avg}");
        assert_eq!(p.min, (avg / 4) & !1, "avg {avg}");
        if avg <= 4 << 20 {
            assert!(p.max <= avg * 4 && p.max + 2 > avg * 4, "avg {avg}");
        }
    }
    // Given sizes win; without an average, only the given one changes.
    let p = FastCdcParams::from_sizes(Some(100), Some(3000), None, Some(2)).unwrap();
    assert_eq!((p.min, p.avg, p.max, p.level), (100, 3000, 12000, 2));
    let p = FastCdcParams::from_sizes(None, None, Some(1 << 20), None).unwrap();
    assert_eq!((p.min, p.avg, p.max), (d.min, d.avg, 1 << 20));
    let err = FastCdcParams::from_sizes(None, Some(128), None, None).unwrap_err().to_string();
    assert!(err.contains("average size must be between 256 and 4194304"), "{err}");
    let err = FastCdcParams::from_sizes(Some(8192), Some(4096), None, None).unwrap_err().to_string();
    assert!(err.contains("minimum <= average <= maximum"), "{err}");
}
