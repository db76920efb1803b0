//! Gear-scan differential: the cut points (and so every candidate the scan reports) of
//! every gear backend and thread setting against the portable scan on one thread, for the
//! Xet chunker and a fuzzer-chosen FastCDC 2020 whose small sizes and loose masks put a
//! candidate every few hundred bytes: the lane layouts, the blocks of 8 positions and the
//! re-stepped blocks of the AVX-512 kernel (`scan::recheck_block`) all see fuzzer bytes;
//! also the chunk stream at fuzzer-chosen read sizes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use simdcrypt::chunking::{chunk_slice, Chunk, ChunkDigest, ChunkOptions, ChunkReader, Chunker, Platform};
use simdcrypt_fuzz::{backends, cuts, pieces, split, stretched, threads, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let min = u.int_in_range(64u32..=2048)?;
    let avg = u.int_in_range(256u32..=8192)?.max(min);
    let max = u.int_in_range(1024u32..=65_536)?.max(avg);
    let level = u.int_in_range(0u8..=3)?;
    let threads = threads(u)?;
    let cut_seed: u64 = u.arbitrary()?;
    let data = stretched(u, payload)?;
    let cut_at = cuts(&mut Unstructured::new(&cut_seed.to_le_bytes()), data.len())?;
    let mut chunkers = vec![Chunker::Xet];
    chunkers.extend(Chunker::fastcdc2020(min, avg, max, level).ok());
    let portable = backends::<Platform>()[0];
    assert_eq!(portable.name(), "portable");
    for chunker in chunkers {
        let mut opts = ChunkOptions::new(chunker, ChunkDigest::None);
        opts.platform = Some(portable);
        let want = chunk_slice(&data, &opts);
        assert_eq!(want.iter().map(|c| u64::from(c.len)).sum::<u64>(), data.len() as u64);
        for platform in backends::<Platform>() {
            opts.platform = Some(platform);
            opts.threads = threads;
            assert_eq!(chunk_slice(&data, &opts), want, "{} {} {threads:?}", chunker.name(), platform.name());
            let reader = Pieces { pieces: pieces(&data, &cut_at).collect(), at: 0 };
            let streamed: Vec<Chunk> = ChunkReader::new(reader, opts).map(|c| c.expect("in memory")).collect();
            assert_eq!(streamed, want, "{} {} stream", chunker.name(), platform.name());
        }
    }
    Ok(())
}

/// A reader that hands out the input in the given pieces, one per read.
struct Pieces<'a> {
    pieces: Vec<&'a [u8]>,
    at: usize,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(piece) = self.pieces.get_mut(self.at) {
            if piece.is_empty() {
                self.at += 1;
                continue;
            }
            let n = piece.len().min(buf.len());
            buf[..n].copy_from_slice(&piece[..n]);
            *piece = &piece[n..];
            return Ok(n);
        }
        Ok(0)
    }
}
