//! Helpers shared by the integration tests: vector loading, deterministic inputs, the
//! named edge lengths, and the record of which backends a test exercised.
#![allow(dead_code)]

#[cfg(feature = "cuda-emulation")]
pub mod cuda_batch;

use std::path::PathBuf;

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use simdcrypt::backend::{Backend, Checked, Kernels};
use simdcrypt::streaming::StreamingHash;
use simdcrypt::streebog::{self, Streebog256, Streebog512};

/// The repository's test-vectors/ folder.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test-vectors")
}

/// A vector file, parsed.
pub fn load_json(name: &str) -> serde_json::Value {
    let path = vectors_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// The `cases` array of a vector file.
pub fn vector_cases(name: &str) -> Vec<serde_json::Value> {
    let v = load_json(name);
    v["cases"].as_array().unwrap_or_else(|| panic!("{name} has no cases array")).clone()
}

/// A hex field of a vector case, decoded.
pub fn hex_field(case: &serde_json::Value, key: &str) -> Vec<u8> {
    unhex(case[key].as_str().unwrap_or_else(|| panic!("a case without {key:?}: {case}")))
}

/// A vector case's message: `message_repeat` (one byte, `count` times) where it has one,
/// else the text of `message_ascii`; checked against `message_len` where the case gives it.
pub fn vector_message(case: &serde_json::Value) -> Vec<u8> {
    let message = if let Some(repeat) = case.get("message_repeat") {
        let byte = hex_field(repeat, "byte_hex");
        assert_eq!(byte.len(), 1);
        vec![byte[0]; repeat["count"].as_u64().unwrap() as usize]
    } else {
        case["message_ascii"].as_str().unwrap().as_bytes().to_vec()
    };
    if let Some(len) = case.get("message_len") {
        assert_eq!(message.len() as u64, len.as_u64().unwrap());
    }
    message
}

/// Feeds `pieces` to `hasher` in order and returns its digest.
pub fn digest_pieces(hasher: &mut impl StreamingHash, pieces: &[&[u8]]) -> Vec<u8> {
    for piece in pieces {
        hasher.update(piece);
    }
    let mut out = vec![0u8; hasher.digest_len()];
    hasher.finalize_into(&mut out);
    out
}

/// Streebog-256 or -512 (`bits`) of `pieces`, fed in order, on `platform`.
pub fn streebog_digest(platform: streebog::Platform, bits: u64, pieces: &[&[u8]]) -> Vec<u8> {
    if bits == 256 {
        let mut h = Streebog256::new();
        h.set_platform(platform);
        digest_pieces(&mut h, pieces)
    } else {
        let mut h = Streebog512::new();
        h.set_platform(platform);
        digest_pieces(&mut h, pieces)
    }
}

/// `backend_report`'s entry for `K`'s family: it selects the detected backend and lists
/// the portable one last among the supported.
pub fn assert_reported<K: Kernels>() {
    let report = simdcrypt::backend_report();
    let entry = report.iter().find(|r| r.algorithm == K::ALGORITHM);
    let entry = entry.unwrap_or_else(|| panic!("{} in backend_report", K::ALGORITHM));
    assert_eq!(entry.selected, Checked::<K>::detect().name());
    assert_eq!(entry.supported.last(), Some(&"portable"));
}

/// Decodes hex, panicking with the offending text.
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// A fixed-seed random generator, so failures reproduce.
pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// `len` deterministic pseudo-random bytes.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng(seed).fill_bytes(&mut v);
    v
}

/// The named edge lengths for a hash with the given block and chunk sizes: 0..=8,
/// block±1, 2·block±1, chunk±1, k·chunk and k·chunk+1, 16·chunk±1, 31·chunk±1, 100·chunk,
/// and a multi-MiB length.
pub fn edge_lengths(block: usize, chunk: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=8).collect();
    for base in [block, 2 * block, chunk, 16 * chunk, 31 * chunk] {
        v.extend([base - 1, base, base + 1]);
    }
    for k in [2, 3, 4, 5, 7, 8, 9, 15, 17, 32, 33, 63, 64, 65] {
        v.extend([k * chunk, k * chunk + 1]);
    }
    v.extend([100 * chunk, (3 << 20) + 7]);
    v.sort_unstable();
    v.dedup();
    v
}

/// Every backend this CPU supports, announced on stdout so the test log shows what ran.
///
/// `SIMDCRYPT_EXPECT_BACKENDS` (set by scripts/test.sh for the machine CI runs on) lists,
/// per backend family, the backends that must be among them, e.g.
/// `blake3=avx512,avx2,sse41,portable;sha256=shani,portable`: a machine without the
/// expected SIMD then fails instead of passing by comparing portable with portable.
pub fn supported_backends<B: Backend>(test: &str) -> Vec<B> {
    let all = B::all_supported();
    let names: Vec<&str> = all.iter().map(|b| b.name()).collect();
    println!("{test}: {} backends exercised: {}", B::ALGORITHM, names.join(", "));
    for expected in expected_backends(B::ALGORITHM) {
        assert!(
            names.contains(&expected.as_str()),
            "{test}: SIMDCRYPT_EXPECT_BACKENDS expects the {} backend {expected:?} on this machine, \
             but only {names:?} are supported",
            B::ALGORITHM
        );
    }
    all
}

/// The backends `SIMDCRYPT_EXPECT_BACKENDS` names for one family (none when unset).
pub fn expected_backends(family: &str) -> Vec<String> {
    let spec = std::env::var("SIMDCRYPT_EXPECT_BACKENDS").unwrap_or_default();
    spec.split(';')
        .filter_map(|entry| entry.trim().split_once('='))
        .filter(|(name, _)| name.trim() == family)
        .flat_map(|(_, list)| list.split(',').map(|b| b.trim().to_string()).filter(|b| !b.is_empty()))
        .collect()
}

/// Every kernel set this build has that the CPU (or `SIMDCRYPT_DISABLE`) rules out must be
/// refused by name with an error that names what is missing; says when there was none.
pub fn unsupported_backends_are_refused<K: Kernels>(test: &str) {
    let supported: Vec<&str> = Checked::<K>::all_supported().into_iter().map(Checked::name).collect();
    let mut refused = Vec::new();
    for kind in K::ALL.iter().filter(|k| !supported.contains(&k.name())) {
        let err = Checked::<K>::from_name(kind.name()).expect_err("an unsupported backend was accepted");
        let msg = err.to_string();
        assert!(msg.contains("not supported by this CPU") && msg.contains("lacks"), "{msg}");
        refused.push(kind.name());
    }
    if refused.is_empty() {
        println!("{test}: every {} backend runs on this CPU; nothing to refuse", K::ALGORITHM);
    } else {
        println!("{test}: {} backends refused: {}", K::ALGORITHM, refused.join(", "));
    }
}

/// Splits `data` into pieces at the given cut points (clamped and sorted).
pub fn split_at_points<'a>(data: &'a [u8], points: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = points.iter().map(|&p| p.min(data.len())).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut start = 0;
    for c in cuts {
        pieces.push(&data[start..c]);
        start = c;
    }
    pieces.push(&data[start..]);
    pieces
}
