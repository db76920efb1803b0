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
    let v = common::load_json("gost94.json");
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let message = if let Some(r) = c.get("message_repeat") {
                let byte = common::unhex(r["byte_hex"].as_str().unwrap());
                vec![byte[0]; r["count"].as_u64().unwrap() as usize]
            } else {
                c["message_ascii"].as_str().unwrap().as_bytes().to_vec()
            };
            if let Some(len) = c.get("message_len") {
                assert_eq!(message.len() as u64, len.as_u64().unwrap());
            }
            Case {
                label: c["message_ascii"].as_str().unwrap().chars().take(30).collect(),
                message,
                test: common::unhex(c["test"].as_str().unwrap()),
                cryptopro: common::unhex(c["cryptopro"].as_str().unwrap()),
            }
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
                    let mut s = Gost94::new(sbox);
                    s.set_platform(platform);
                    for b in case.message.chunks(1) {
                        s.update(b);
                    }
                    assert_eq!(s.finalize(), case.digest(sbox), "{label} byte at a time");
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
    let report = simdcrypt::backend_report();
    let entry = report.iter().find(|r| r.algorithm == "gost94").expect("gost94 in backend_report");
    assert_eq!(entry.selected, Platform::detect().name());
}
