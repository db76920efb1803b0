//! Chunk manifests (`simdcrypt chunks --json`, read back by `chunks --diff`;
//! `simdcrypt::chunking::parse_chunk_manifest`): the payload as text through the parser;
//! and a manifest written by `chunk_manifest_json` from head-chosen options and chunk
//! lengths, which must read back to the same chunks, then the same text with head-chosen
//! bytes overwritten, cut out or repeated, which must read back as a self-consistent
//! manifest (chunks that follow each other from 0 and cover its size) or be an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use simdcrypt::chunking::{chunk_manifest_json, parse_chunk_manifest, Chunk, ChunkDigest, ChunkOptions, Chunker};
use simdcrypt_fuzz::{split, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    if let Ok(text) = std::str::from_utf8(payload) {
        check(text);
    }
    let _ = round_trip(&mut u, payload);
});

/// Whatever parses is consistent.
fn check(text: &str) {
    let Ok(m) = parse_chunk_manifest(text) else { return };
    let mut end = 0u64;
    for c in &m.chunks {
        assert_eq!(c.offset, end, "chunks must follow each other");
        assert!(c.len > 0, "an empty chunk was accepted");
        end += u64::from(c.len);
    }
    assert_eq!(end, m.size, "the chunks do not cover the size");
    assert!(!matches!(m.options.digest, ChunkDigest::None), "a manifest without digests was accepted");
}

fn round_trip(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let chunker = if u.arbitrary::<bool>()? {
        Chunker::Xet
    } else {
        let min = u.int_in_range(64u32..=1 << 20)?;
        let avg = u.int_in_range(min..=min.saturating_mul(8))?;
        let max = u.int_in_range(avg..=avg.saturating_mul(8))?;
        match Chunker::fastcdc2020(min, avg, max, u.int_in_range(0u8..=3)?) {
            Ok(c) => c,
            Err(_) => return Ok(()),
        }
    };
    let digest = [ChunkDigest::Xet, ChunkDigest::Blake3, ChunkDigest::Sha256][u.int_in_range(0usize..=2)?];
    let opts = ChunkOptions::new(chunker, digest);
    // Chunk lengths and digests from the payload (lengths need not obey the chunker: the
    // manifest records what it is given).
    let mut chunks = Vec::new();
    let mut offset = 0u64;
    for piece in payload.chunks(36) {
        let mut len_bytes = [0u8; 4];
        len_bytes[..piece.len().min(4)].copy_from_slice(&piece[..piece.len().min(4)]);
        let len = u32::from_le_bytes(len_bytes).max(1);
        let mut digest = [0u8; 32];
        let rest = piece.get(4..).unwrap_or(&[]);
        digest[..rest.len()].copy_from_slice(rest);
        chunks.push(Chunk { offset, len, digest });
        offset += u64::from(len);
    }
    let text = chunk_manifest_json(Default::default(), &opts, &chunks);
    let m = parse_chunk_manifest(&text).unwrap_or_else(|e| panic!("its own manifest does not parse: {e}"));
    assert_eq!(m.options, opts);
    assert_eq!(m.size, offset);
    assert_eq!(m.chunks, chunks);
    // Then altered.
    let mut altered = text.into_bytes();
    for _ in 0..u.int_in_range(1u8..=4)? {
        if altered.is_empty() {
            break;
        }
        let at = u.int_in_range(0..=altered.len() - 1)?;
        match u.int_in_range(0u8..=2)? {
            0 => altered[at] = u.arbitrary()?,
            1 => {
                let n = u.int_in_range(1..=altered.len() - at)?;
                altered.drain(at..at + n);
            }
            _ => {
                let n = u.int_in_range(1..=(altered.len() - at).min(200))?;
                let copy = altered[at..at + n].to_vec();
                altered.splice(at..at, copy);
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(&altered) {
        check(text);
    }
    Ok(())
}
