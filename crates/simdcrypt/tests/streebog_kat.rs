//! The standard's Streebog examples (M1, M2, both sizes) on every backend this CPU
//! supports, one-shot, byte at a time, through `AnyHasher` and through the batch; and
//! HMAC-Streebog against the examples of RFC 7836.

mod common;

use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::blake3::Threads;
use simdcrypt::streebog::{self, Bits, HmacStreebog256, HmacStreebog512, Platform};

struct Case {
    name: String,
    message: Vec<u8>,
    bits: u64,
    digest: Vec<u8>,
}

fn cases() -> Vec<Case> {
    common::vector_cases("streebog.json")
        .iter()
        .map(|c| {
            let digest = common::hex_field(c, "digest_hex");
            // The standard's printed form is the same bytes reversed.
            let mut printed = common::hex_field(c, "digest_standard_printed");
            printed.reverse();
            assert_eq!(printed, digest, "vector file inconsistent");
            Case {
                name: c["name"].as_str().unwrap().to_string(),
                message: common::hex_field(c, "message_hex"),
                bits: c["bits"].as_u64().unwrap(),
                digest,
            }
        })
        .collect()
}

#[test]
fn standard_examples_on_every_backend() {
    let cases = cases();
    assert_eq!(cases.len(), 5, "vector file looks truncated");
    for platform in common::supported_backends::<Platform>("standard_examples_on_every_backend") {
        for case in &cases {
            let label = format!("{} {} {}", platform.name(), case.name, case.bits);
            assert_eq!(common::streebog_digest(platform, case.bits, &[&case.message]), case.digest, "{label} one-shot");
            let bytes: Vec<&[u8]> = case.message.chunks(1).collect();
            assert_eq!(common::streebog_digest(platform, case.bits, &bytes), case.digest, "{label} byte at a time");
            // The batch, with the message in every lane position among others.
            let bits = Bits::from_bits(case.bits as u32).unwrap();
            let others: Vec<Vec<u8>> = (0..6).map(|i| vec![i as u8; 10 * i]).collect();
            for pos in 0..6 {
                let mut msgs: Vec<&[u8]> = others.iter().map(|m| m.as_slice()).collect();
                msgs.insert(pos, &case.message);
                let mut out = vec![0u8; msgs.len() * bits.out_len()];
                streebog::hash_many(&msgs, bits, &mut out, platform, Threads::One).unwrap();
                assert_eq!(out[pos * bits.out_len()..][..bits.out_len()], case.digest[..], "{label} batch at {pos}");
            }
        }
    }
    for case in &cases {
        let d = if case.bits == 256 {
            streebog::hash256(&case.message).to_vec()
        } else {
            streebog::hash512(&case.message).to_vec()
        };
        assert_eq!(d, case.digest, "one-shot {}", case.name);
    }
}

#[test]
fn any_hasher_by_name_on_every_backend() {
    let cases = cases();
    for platform in common::supported_backends::<Platform>("any_hasher_by_name_on_every_backend") {
        let opts = HashOptions { backend: Some(platform.name().to_uppercase()), ..HashOptions::default() };
        for (name, bits, label) in [("Streebog256", 256, "GOST12-256"), ("streebog512", 512, "GOST12-512")] {
            let hasher = AnyHasher::new(name, &opts).unwrap();
            assert_eq!(hasher.algorithm(), name.to_lowercase());
            assert_eq!(hasher.tag_label(), label);
            assert_eq!(hasher.backend_name(), platform.name());
            assert_eq!(hasher.default_output_len(), bits / 8);
            assert!(!hasher.is_xof());
            for case in cases.iter().filter(|c| c.bits == bits as u64) {
                let mut h = hasher.clone();
                h.update(&case.message);
                assert_eq!(h.finalize(None).unwrap(), case.digest, "{} {}", platform.name(), case.name);
            }
        }
    }
    let h = AnyHasher::new("streebog256", &HashOptions::default()).unwrap();
    let err = h.finalize(Some(64)).unwrap_err().to_string();
    assert!(err.contains("streebog256 digests are 32 bytes"), "{err}");
    let keyed = HashOptions { key: Some(vec![0; 32]), ..HashOptions::default() };
    let err = AnyHasher::new("streebog512", &keyed).unwrap_err().to_string();
    assert!(err.contains("streebog512 takes no key"), "{err}");
}

/// RFC 7836, 4.1.1 and 4.1.2: K = 00..1f, T = 01 26 bd b8 78 00 af 21 43 41 45 65 63 78 01 00.
#[test]
fn hmac_rfc7836_examples_on_every_backend() {
    let key: Vec<u8> = (0u8..32).collect();
    let msg = common::unhex("0126bdb87800af214341456563780100");
    let tag256 = common::unhex("a1aa5f7de402d7b3d323f2991c8d4534013137010a83754fd0af6d7cd4922ed9");
    let tag512 = common::unhex(
        "a59bab22ecae19c65fbde6e5f4e9f5d8549d31f037f9df9b905500e171923a773d5f1530f2ed7e964cb2eedc29e9ad2f3afe93b2814f79f5000ffc0366c251e6",
    );
    for platform in common::supported_backends::<Platform>("hmac_rfc7836_examples_on_every_backend") {
        let mut h = HmacStreebog256::new(&key);
        h.set_platform(platform).update(&msg[..5]).update(&msg[5..]);
        assert_eq!(h.finalize().to_vec(), tag256, "{}", platform.name());
        let mut h = HmacStreebog512::new(&key);
        h.set_platform(platform).update(&msg);
        assert_eq!(h.finalize().to_vec(), tag512, "{}", platform.name());
    }
    assert_eq!(streebog::hmac256(&key, &msg).to_vec(), tag256);
    assert_eq!(streebog::hmac512(&key, &msg).to_vec(), tag512);
}

#[test]
fn listed_everywhere() {
    for name in ["streebog256", "streebog512"] {
        assert!(simdcrypt::ALGORITHMS.contains(&name), "{name}");
    }
    common::assert_reported::<streebog::Kind>();
}

#[test]
fn unsupported_platform_is_refused_not_run() {
    common::unsupported_backends_are_refused::<simdcrypt::streebog::Kind>("unsupported_platform_is_refused_not_run");
}
