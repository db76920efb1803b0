//! google/highwayhash's frozen golden values (every length 0..=64, 64/128/256 bits) on
//! every backend this CPU supports: one-shot, streamed a byte at a time, through batches
//! and through `AnyHasher`.

mod common;

use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::blake3::Threads;
use simdcrypt::highwayhash::{self, HighwayHasher, Platform, Size};

struct Case {
    len: usize,
    h64: u64,
    h128: [u64; 2],
    h256: [u64; 4],
    bytes: [Vec<u8>; 3],
}

fn word(v: &serde_json::Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap(), 16).unwrap()
}

fn key() -> [u8; 32] {
    let v = common::load_json("highwayhash.json");
    let key: [u8; 32] = common::unhex(v["key_hex"].as_str().unwrap()).try_into().unwrap();
    // The file gives the key twice: as bytes and as little-endian words.
    let words: Vec<u64> = v["key_u64"].as_array().unwrap().iter().map(word).collect();
    assert_eq!(words, highwayhash::key_words(&key).to_vec());
    key
}

fn cases() -> Vec<Case> {
    let v = common::load_json("highwayhash.json");
    let cases: Vec<Case> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let words = |name: &str| -> Vec<u64> { c[name].as_array().unwrap().iter().map(word).collect() };
            let bytes = |name: &str| common::unhex(c[name].as_str().unwrap());
            Case {
                len: c["input_len"].as_u64().unwrap() as usize,
                h64: word(&c["hash64"]),
                h128: words("hash128").try_into().unwrap(),
                h256: words("hash256").try_into().unwrap(),
                bytes: [bytes("hash64_le_bytes"), bytes("hash128_le_bytes"), bytes("hash256_le_bytes")],
            }
        })
        .collect();
    assert_eq!(cases.iter().map(|c| c.len).collect::<Vec<_>>(), (0..=64).collect::<Vec<_>>(), "vector file truncated");
    cases
}

fn message(len: usize) -> Vec<u8> {
    (0..len).map(|i| i as u8).collect()
}

#[test]
fn golden_values_on_every_backend() {
    let key = key();
    let cases = cases();
    for platform in common::supported_backends::<Platform>("golden_values_on_every_backend") {
        for case in &cases {
            let msg = message(case.len);
            let label = format!("{} len {}", platform.name(), case.len);
            let mut h = HighwayHasher::new(&key);
            h.set_platform(platform).update(&msg);
            assert_eq!(h.finalize64(), case.h64, "{label} 64");
            assert_eq!(h.finalize128(), case.h128, "{label} 128");
            assert_eq!(h.finalize256(), case.h256, "{label} 256");
            for (size, expected) in Size::ALL.into_iter().zip(&case.bytes) {
                let mut out = vec![0u8; size.len()];
                h.finalize_into(size, &mut out);
                assert_eq!(&out, expected, "{label} {} bytes", size.name());
            }

            let mut streamed = HighwayHasher::new(&key);
            streamed.set_platform(platform);
            for byte in msg.chunks(1) {
                streamed.update(byte);
            }
            assert_eq!(streamed.finalize64(), case.h64, "{label} byte at a time");
            assert_eq!(streamed.finalize256(), case.h256, "{label} byte at a time");
            assert_eq!(streamed.count(), case.len as u64);
        }
    }
    for case in &cases {
        let msg = message(case.len);
        assert_eq!(highwayhash::hash64(&key, &msg), case.h64, "hash64 len {}", case.len);
        assert_eq!(highwayhash::hash128(&key, &msg), case.h128, "hash128 len {}", case.len);
        assert_eq!(highwayhash::hash256(&key, &msg), case.h256, "hash256 len {}", case.len);
        assert_eq!(highwayhash::digest64(&key, &msg).to_vec(), case.bytes[0]);
        assert_eq!(highwayhash::digest128(&key, &msg).to_vec(), case.bytes[1]);
        assert_eq!(highwayhash::digest256(&key, &msg).to_vec(), case.bytes[2]);
    }
}

/// All 65 messages as one batch (ragged lengths), and each length as a batch of 13 equal
/// messages (the equal-length lockstep path), on every backend.
#[test]
fn golden_values_in_batches_on_every_backend() {
    let key = key();
    let cases = cases();
    let msgs: Vec<Vec<u8>> = cases.iter().map(|c| message(c.len)).collect();
    let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    for platform in common::supported_backends::<Platform>("golden_values_in_batches_on_every_backend") {
        for (s, size) in Size::ALL.into_iter().enumerate() {
            let mut out = vec![0u8; refs.len() * size.len()];
            highwayhash::hash_many_with(platform, Threads::One, &key, &refs, size, &mut out).unwrap();
            for (case, got) in cases.iter().zip(out.chunks_exact(size.len())) {
                assert_eq!(got, case.bytes[s], "{} ragged batch len {} {}", platform.name(), case.len, size.name());
            }
            for case in &cases {
                let equal = vec![msgs[case.len].as_slice(); 13];
                let mut out = vec![0u8; 13 * size.len()];
                highwayhash::hash_many_with(platform, Threads::One, &key, &equal, size, &mut out).unwrap();
                for got in out.chunks_exact(size.len()) {
                    assert_eq!(got, case.bytes[s], "{} equal batch len {} {}", platform.name(), case.len, size.name());
                }
            }
        }
    }
}

#[test]
fn any_hasher_by_name_on_every_backend() {
    let key = key();
    let cases = cases();
    for platform in common::supported_backends::<Platform>("any_hasher_by_name_on_every_backend") {
        for (s, size) in Size::ALL.into_iter().enumerate() {
            let opts = HashOptions {
                key: Some(key.to_vec()),
                backend: Some(platform.name().to_uppercase()),
                ..HashOptions::default()
            };
            let hasher = AnyHasher::new(&size.name().to_uppercase(), &opts).unwrap();
            assert_eq!(hasher.algorithm(), size.name());
            assert_eq!(hasher.tag_label(), size.name().to_uppercase());
            assert_eq!(hasher.backend_name(), platform.name());
            assert_eq!(hasher.default_output_len(), size.len());
            assert!(!hasher.is_xof());
            for case in &cases {
                let mut h = hasher.clone();
                h.update(&message(case.len));
                assert_eq!(h.finalize(None).unwrap(), case.bytes[s], "{} len {}", platform.name(), case.len);
            }
        }
    }
}

#[test]
fn any_hasher_requires_a_32_byte_key() {
    for name in ["highwayhash64", "highwayhash128", "highwayhash256"] {
        let err = AnyHasher::new(name, &HashOptions::default()).unwrap_err().to_string();
        assert!(err.contains(&format!("{name} needs a 32-byte key")), "{err}");
        let short = HashOptions { key: Some(vec![0; 31]), ..HashOptions::default() };
        let err = AnyHasher::new(name, &short).unwrap_err().to_string();
        assert!(err.contains("key must be 32 bytes, got 31"), "{err}");
        let derive = HashOptions { key: Some(vec![0; 32]), derive_key_context: Some("c".into()), ..Default::default() };
        let err = AnyHasher::new(name, &derive).unwrap_err().to_string();
        assert!(err.contains("takes no derive_key_context"), "{err}");
        let h = AnyHasher::new(name, &HashOptions { key: Some(vec![0; 32]), ..Default::default() }).unwrap();
        let err = h.finalize(Some(3)).unwrap_err().to_string();
        assert!(err.contains("digests are"), "{err}");
    }
}

#[test]
fn unsupported_platforms_are_refused() {
    common::unsupported_backends_are_refused::<simdcrypt::highwayhash::Kind>("unsupported_platforms_are_refused");
}

#[test]
fn listed_everywhere() {
    for name in ["highwayhash64", "highwayhash128", "highwayhash256"] {
        assert!(simdcrypt::ALGORITHMS.contains(&name));
    }
    let report = simdcrypt::backend_report();
    let entry = report.iter().find(|r| r.algorithm == "highwayhash").expect("highwayhash in backend_report");
    assert_eq!(entry.selected, Platform::detect().name());
    assert_eq!(entry.supported.last(), Some(&"portable"));
}
