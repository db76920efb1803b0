//! The official BLAKE3 test vectors (all three modes, extended output) on every backend
//! this CPU supports, one-shot and streamed.

mod common;

use simdcrypt::blake3::{self, Hasher, Platform};

struct Case {
    input_len: usize,
    hash: Vec<u8>,
    keyed_hash: Vec<u8>,
    derive_key: Vec<u8>,
}

fn cases() -> (Vec<Case>, [u8; 32], String) {
    let v = common::load_json("blake3.json");
    let key: [u8; 32] = v["key"].as_str().unwrap().as_bytes().try_into().unwrap();
    let context = v["context_string"].as_str().unwrap().to_string();
    let cases = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            input_len: c["input_len"].as_u64().unwrap() as usize,
            hash: common::unhex(c["hash"].as_str().unwrap()),
            keyed_hash: common::unhex(c["keyed_hash"].as_str().unwrap()),
            derive_key: common::unhex(c["derive_key"].as_str().unwrap()),
        })
        .collect();
    (cases, key, context)
}

/// The vector file's input: 0, 1, ..., 250, 0, 1, ...
fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

fn check_extended(hasher: &Hasher, expected: &[u8], what: &str) {
    assert_eq!(hasher.finalize()[..], expected[..32], "{what}: 32-byte digest");
    let mut out = vec![0u8; expected.len()];
    hasher.finalize_xof().fill(&mut out);
    assert_eq!(out, expected, "{what}: extended output");
    // Every seek position reads the same bytes as the stream.
    for seek in [1usize, 31, 63, 64, 65, expected.len() - 1] {
        let mut reader = hasher.finalize_xof();
        reader.set_position(seek as u64);
        let mut tail = vec![0u8; expected.len() - seek];
        reader.fill(&mut tail);
        assert_eq!(tail, expected[seek..], "{what}: output from position {seek}");
    }
}

#[test]
fn official_vectors_on_every_backend() {
    let (cases, key, context) = cases();
    assert!(cases.len() >= 30, "vector file looks truncated");
    for platform in common::supported_backends::<Platform>("official_vectors_on_every_backend") {
        for case in &cases {
            let data = input(case.input_len);
            let label = |mode: &str| format!("{} {mode} len {}", platform_name(platform), case.input_len);

            let modes: [(Hasher, &[u8], &str); 3] = [
                (Hasher::new(), &case.hash, "hash"),
                (Hasher::new_keyed(&key), &case.keyed_hash, "keyed_hash"),
                (Hasher::new_derive_key(&context), &case.derive_key, "derive_key"),
            ];
            for (mut hasher, expected, mode) in modes {
                hasher.set_platform(platform);
                let mut streamed = hasher.clone();
                hasher.update(&data);
                check_extended(&hasher, expected, &label(mode));
                // Byte-at-a-time for short inputs, odd pieces for long ones.
                let step = if data.len() <= 2048 { 1 } else { 1021 };
                for piece in data.chunks(step) {
                    streamed.update(piece);
                }
                assert_eq!(streamed.finalize()[..], expected[..32], "{} streamed", label(mode));
            }
        }
    }
    // The one-shot functions use the detected backend.
    let (cases, key, context) = self::cases();
    for case in &cases {
        let data = input(case.input_len);
        assert_eq!(blake3::hash(&data)[..], case.hash[..32]);
        assert_eq!(blake3::keyed_hash(&key, &data)[..], case.keyed_hash[..32]);
        assert_eq!(blake3::derive_key(&context, &data)[..], case.derive_key[..32]);
    }
}

fn platform_name(p: Platform) -> &'static str {
    p.name()
}

/// A backend the CPU cannot run is refused by name, with what is missing, so it can never
/// reach a kernel. Only some runs hide features (scripts/test.sh reruns this file with
/// SIMDCRYPT_DISABLE), so the test says when it had nothing to check.
#[test]
fn unsupported_backend_is_refused() {
    common::unsupported_backends_are_refused::<simdcrypt::blake3::Kind>("unsupported_backend_is_refused");
}
