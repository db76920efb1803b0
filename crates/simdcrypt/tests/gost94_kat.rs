//! GOST R 34.11-94 vectors for both parameter sets on every backend this CPU supports:
//! one-shot, byte at a time, through `AnyHasher` (names `gost94`, `gost94-test`) and the
//! batch.

mod common;

use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::blake3::Threads;
use simdcrypt::gost94::{self, Gost94, Platform, SBox};
use simdcrypt::Error;

struct Case {
    label: String,
    message: Vec<u8>,
    test: Vec<u8>,
    cryptopro: Vec<u8>,
}

impl Case {
    fn digest(&self, sbox: SBox) -> &[u8] {
        match sbox {
            SBox::Test => &self.test,
            SBox::CryptoPro => &self.cryptopro,
        }
    }
}

fn cases() -> Vec<Case> {
    common::vector_cases("gost94.json")
        .iter()
        .map(|c| Case {
            label: c["message_ascii"].as_str().unwrap().chars().take(30).collect(),
            message: common::vector_message(c),
            test: common::hex_field(c, "test"),
            cryptopro: common::hex_field(c, "cryptopro"),
        })
        .collect()
}

#[test]
fn vectors_on_every_backend() {
    let cases = cases();
    assert_eq!(cases.len(), 9, "vector file looks truncated");
    for platform in common::supported_backends::<Platform>("vectors_on_every_backend") {
        for sbox in SBox::ALL {
            for case in &cases {
                let label = format!("{} {} {:?}", platform.name(), sbox.name(), case.label);
                let mut h = Gost94::new(sbox);
                h.set_platform(platform).update(&case.message);
                assert_eq!(h.finalize(), case.digest(sbox), "{label} one-shot");
                if case.message.len() < 1000 {
                    let bytes: Vec<&[u8]> = case.message.chunks(1).collect();
                    let digest = common::digest_pieces(Gost94::new(sbox).set_platform(platform), &bytes);
                    assert_eq!(digest, case.digest(sbox), "{label} byte at a time");
                }
            }
            let msgs: Vec<&[u8]> = cases.iter().map(|c| c.message.as_slice()).collect();
            let mut out = vec![0u8; 32 * msgs.len()];
            gost94::hash_many(&msgs, sbox, &mut out, platform, Threads::One).unwrap();
            for (case, d) in cases.iter().zip(out.chunks_exact(32)) {
                assert_eq!(d, case.digest(sbox), "{} batch {:?}", platform.name(), case.label);
            }
        }
    }
}

#[test]
fn any_hasher_by_name_on_every_backend() {
    let cases = cases();
    for platform in common::supported_backends::<Platform>("any_hasher_by_name_on_every_backend") {
        let opts = HashOptions { backend: Some(platform.name().to_string()), ..HashOptions::default() };
        for (name, sbox, label) in
            [("GOST94", SBox::CryptoPro, "GOST94-CRYPTOPRO"), ("gost94-test", SBox::Test, "GOST94")]
        {
            let hasher = AnyHasher::new(name, &opts).unwrap();
            assert_eq!(hasher.algorithm(), name.to_lowercase());
            assert_eq!(hasher.tag_label(), label);
            assert_eq!(hasher.default_output_len(), 32);
            for case in &cases {
                let mut h = hasher.clone();
                h.update(&case.message);
                assert_eq!(h.finalize(None).unwrap(), case.digest(sbox), "{name} {:?}", case.label);
            }
        }
    }
}

#[test]
fn sbox_names_and_errors() {
    assert_eq!(SBox::from_name(" CryptoPro ").unwrap(), SBox::CryptoPro);
    assert_eq!(SBox::from_name("test").unwrap(), SBox::Test);
    assert_eq!(SBox::default(), SBox::CryptoPro);
    let err = SBox::from_name("s2015").unwrap_err().to_string();
    assert!(err.contains("choose one of: cryptopro, test"), "{err}");
    let mut out = vec![0u8; 31];
    let err = gost94::hash_many(&[b"x"], SBox::Test, &mut out, Platform::portable(), Threads::One).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert!(simdcrypt::ALGORITHMS.contains(&"gost94") && simdcrypt::ALGORITHMS.contains(&"gost94-test"));
    common::assert_reported::<gost94::Kind>();
}
