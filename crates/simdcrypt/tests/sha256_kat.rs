//! The FIPS 180-4 SHA-256 examples on every backend this CPU supports, one-shot and
//! byte at a time, directly and through `AnyHasher`.

mod common;

use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::sha256::{self, Platform, Sha256};

struct Case {
    name: String,
    message: Vec<u8>,
    digest: Vec<u8>,
}

fn cases() -> Vec<Case> {
    common::vector_cases("sha256.json")
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap().to_string(),
            message: common::vector_message(c),
            digest: common::hex_field(c, "digest_hex"),
        })
        .collect()
}

#[test]
fn fips_vectors_on_every_backend() {
    let cases = cases();
    assert_eq!(cases.len(), 5, "vector file looks truncated");
    for platform in common::supported_backends::<Platform>("fips_vectors_on_every_backend") {
        for case in &cases {
            let label = format!("{} {}", platform.name(), case.name);
            let mut h = Sha256::new();
            h.set_platform(platform).update(&case.message);
            assert_eq!(h.finalize()[..], case.digest[..], "{label} one-shot");
            // finalize does not consume: a second call agrees.
            assert_eq!(h.finalize()[..], case.digest[..], "{label} second finalize");

            let mut streamed = Sha256::new();
            streamed.set_platform(platform);
            let bytes: Vec<&[u8]> = case.message.chunks(1).collect();
            assert_eq!(common::digest_pieces(&mut streamed, &bytes), case.digest, "{label} byte at a time");
            assert_eq!(streamed.count(), case.message.len() as u64);
        }
    }
    for case in &cases {
        assert_eq!(sha256::hash(&case.message)[..], case.digest[..], "sha256::hash {}", case.name);
    }
}

#[test]
fn any_hasher_by_name_on_every_backend() {
    let cases = cases();
    for platform in common::supported_backends::<Platform>("any_hasher_by_name_on_every_backend") {
        let opts = HashOptions { backend: Some(platform.name().to_uppercase()), ..HashOptions::default() };
        let hasher = AnyHasher::new("SHA256", &opts).unwrap();
        assert_eq!(hasher.algorithm(), "sha256");
        assert_eq!(hasher.tag_label(), "SHA256");
        assert_eq!(hasher.backend_name(), platform.name());
        assert_eq!(hasher.default_output_len(), 32);
        assert!(!hasher.is_xof());
        for case in &cases {
            let mut h = hasher.clone();
            h.update(&case.message);
            assert_eq!(h.finalize(None).unwrap(), case.digest, "{} {}", platform.name(), case.name);
            assert_eq!(h.finalize(Some(32)).unwrap(), case.digest);
        }
    }
}

#[test]
fn any_hasher_rejects_what_sha256_does_not_take() {
    let h = AnyHasher::new("sha256", &HashOptions::default()).unwrap();
    for len in [0, 16, 31, 33, 64] {
        let err = h.finalize(Some(len)).unwrap_err().to_string();
        assert!(err.contains("sha256 digests are 32 bytes"), "{err}");
    }
    let keyed = HashOptions { key: Some(vec![0; 32]), ..HashOptions::default() };
    let err = AnyHasher::new("sha256", &keyed).unwrap_err().to_string();
    assert!(err.contains("sha256 takes no key"), "{err}");
    let derive = HashOptions { derive_key_context: Some("ctx".into()), ..HashOptions::default() };
    let err = AnyHasher::new("sha256", &derive).unwrap_err().to_string();
    assert!(err.contains("sha256 takes no key"), "{err}");
    let bogus = HashOptions { backend: Some("avx2".into()), ..HashOptions::default() };
    let err = AnyHasher::new("sha256", &bogus).unwrap_err().to_string();
    assert!(err.contains("unknown sha256 backend \"avx2\""), "{err}");
}

#[test]
fn listed_everywhere() {
    assert!(simdcrypt::ALGORITHMS.contains(&"sha256"));
    common::assert_reported::<sha256::Kind>();
}
