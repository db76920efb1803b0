//! The chunk manifest (`chunks --json`, read back by `chunks --diff`): what the writer
//! writes the reader reads back, for Xet and FastCDC 2020 chunks with every digest and
//! with path fields beside; random bytes and mutated manifests never panic, and whatever
//! parses is self-consistent; each kind of fault is reported with its field.

mod common;

use proptest::prelude::*;
use serde_json::{Map, Value};
use simdcrypt::chunking::{
    chunk_manifest_json, parse_chunk_manifest, Chunk, ChunkDigest, ChunkManifest, ChunkOptions, Chunker,
};

/// Options of every kind a manifest records.
fn options(pick: u8) -> ChunkOptions {
    let chunker = match pick % 3 {
        0 => Chunker::Xet,
        1 => Chunker::fastcdc2020(256, 1024, 8192, 1).unwrap(),
        _ => Chunker::fastcdc2020(64, 256, 1 << 20, 3).unwrap(),
    };
    let digest = [ChunkDigest::Xet, ChunkDigest::Blake3, ChunkDigest::Sha256][usize::from(pick / 3 % 3)];
    ChunkOptions::new(chunker, digest)
}

fn chunk_list(lens: &[u32], seed: u64) -> Vec<Chunk> {
    let mut offset = 0;
    lens.iter()
        .enumerate()
        .map(|(i, &len)| {
            let digest: [u8; 32] = common::random_bytes(seed + i as u64, 32).try_into().unwrap();
            let c = Chunk { offset, len, digest };
            offset += u64::from(len);
            c
        })
        .collect()
}

/// What every manifest that parses must be: chunks from 0, each after the last, covering
/// the size, with digests.
fn consistent(m: &ChunkManifest) {
    let mut end = 0;
    for c in &m.chunks {
        assert_eq!(c.offset, end);
        assert!(c.len > 0);
        end += u64::from(c.len);
    }
    assert_eq!(end, m.size);
    assert!(!matches!(m.options.digest, ChunkDigest::None));
}

proptest! {
    #[test]
    fn written_manifests_read_back(lens in prop::collection::vec(1u32.., 0..40), pick in 0u8..9, seed: u64, path in "[a-z/ ]{0,12}") {
        let opts = options(pick);
        let chunks = chunk_list(&lens, seed);
        let mut fields = Map::new();
        fields.insert("path".into(), Value::String(path));
        let text = chunk_manifest_json(fields, &opts, &chunks);
        let m = parse_chunk_manifest(&text).unwrap();
        prop_assert_eq!(m.options, opts);
        prop_assert_eq!(m.size, lens.iter().map(|&l| u64::from(l)).sum::<u64>());
        prop_assert_eq!(&m.chunks, &chunks);
        // With a newline, as the CLI writes it, and spaces around.
        prop_assert_eq!(parse_chunk_manifest(&format!(" {text}\n")).unwrap(), m);
    }

    #[test]
    fn random_text_never_panics(text in ".{0,300}") {
        if let Ok(m) = parse_chunk_manifest(&text) {
            consistent(&m);
        }
    }

    #[test]
    fn mutated_manifests_fail_or_stay_consistent(
        lens in prop::collection::vec(1u32..5000, 1..8),
        pick in 0u8..9,
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>(), 1usize..40), 1..5),
    ) {
        let text = chunk_manifest_json(Map::new(), &options(pick), &chunk_list(&lens, 7));
        let mut bytes = text.into_bytes();
        for (at, how, byte, n) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match how {
                0 => bytes[i] = byte,
                1 => {
                    let end = (i + n).min(bytes.len());
                    bytes.drain(i..end);
                }
                _ => {
                    let end = (i + n).min(bytes.len());
                    let copy = bytes[i..end].to_vec();
                    bytes.splice(i..i, copy);
                }
            }
        }
        if let Ok(text) = String::from_utf8(bytes) {
            if let Ok(m) = parse_chunk_manifest(&text) {
                consistent(&m);
            }
        }
    }
}

#[test]
fn each_fault_names_its_field() {
    let good = chunk_manifest_json(Map::new(), &options(0), &chunk_list(&[100, 200], 1));
    let m = parse_chunk_manifest(&good).unwrap();
    let v: Value = serde_json::from_str(&good).unwrap();
    let with = |f: &dyn Fn(&mut Value)| {
        let mut v = v.clone();
        f(&mut v);
        parse_chunk_manifest(&v.to_string()).unwrap_err().to_string()
    };
    assert_eq!(m.size, 300);
    let cases: Vec<(String, &str)> = vec![
        (with(&|v| v["size"] = 301.into()), "size: 301, but the chunks cover 300 bytes"),
        (with(&|v| v["chunks"][1]["offset"] = 99.into()), "chunks[1].offset: 99, expected 100"),
        (with(&|v| v["chunks"][0]["length"] = 0.into()), "chunks[0].length: 0 is not a chunk length"),
        (with(&|v| v["chunks"][1]["digest"] = "xyz".into()), "chunks[1].digest: expected 64 hex digits"),
        (with(&|v| v["chunks"] = 5.into()), "chunks: expected an array, got a number"),
        (with(&|v| v["chunker"]["name"] = "rabin".into()), "chunker.name:"),
        (with(&|v| v["digest"] = "none".into()), "digest: \"none\""),
        (with(&|v| v.as_object_mut().unwrap().remove("chunker").map(drop).unwrap()), "chunker: missing"),
    ];
    for (got, want) in cases {
        assert!(got.contains(want), "{got:?} should contain {want:?}");
    }
    assert!(parse_chunk_manifest("").unwrap_err().to_string().starts_with("empty:"));
    assert!(parse_chunk_manifest("{").unwrap_err().to_string().starts_with("not valid JSON:"));
    assert!(parse_chunk_manifest(&format!("{good}\n{good}")).unwrap_err().to_string().contains("more than one"));
    let err = parse_chunk_manifest("[]").unwrap_err();
    assert_eq!(err.field.as_deref(), Some("the manifest"));
}
